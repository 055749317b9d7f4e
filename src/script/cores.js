// A scripted run on several cores (loadtest run --cores N): the parent runs the init code once,
// setup(), teardown() and the summary; N children of the same runtime (src/script/worker.js)
// each run their share of every scenario (src/script/scenarios/scenarios.js segmentOf) and send back what
// they measured, which the parent merges exactly (src/script/metrics/metrics.js, run-state.js).
//
// The pipe protocol, a line each way per step (nothing per request):
//   parent → child   job <JSON>              the transformed script, flags, the share
//   child → parent   ready                   its VUs are made (or: fail <exit code> <message>)
//   parent → child   go <startAt> [<data>]   setup()'s data as JSON; every child starts at startAt
//   child → parent   progress <begun> <ended> <errors> <vus>   4 times a second
//   child → parent   second <JSON>           --dashboard: each closed second, its latency buckets with it
//   child → parent   metrics <JSON>          --metrics: its figures, once a second and at its end
//   child → parent   message <JSON string>   a warning or an exception's message, its first time
//   child → parent   log <JSON string>       a line of the script's console, for the parent's stderr
//   child → parent   abort <JSON string>     test.abort() or an abortOnFail threshold of its share
//   child ↔ parent   secret <JSON [source, key]>   a secret looked up: hidden in every process's
//                                            log (the parent relays a child's to the others)
//   parent → child   abort <JSON string>     the same, relayed to every child
//   child → parent   result <JSON>           its metrics and state; then it exits

import { ScriptRunError, EXIT } from './runner.js';
import { lastLine } from '../run/cores.js';
import { closedSeconds } from '../run/series.js';

const why = (stderr) => (lastLine(stderr) ? `: ${lastLine(stderr)}` : '');

const READY_TIMEOUT_MS = 120000;

/**
 * What runScript's `remote` needs (src/script/runner.js): prepare() starts the children and
 * waits until each has made its VUs; run({ dataJson, abort }) starts them together and resolves
 * to their results; counters() sums their last progress; metrics() is each child's last --metrics
 * figures (or null). `spawn()`: a child handle (runtimes/processes/spawn.js); `job`: what every
 * child is given, to which its share is added (with `seconds: true` each child sends its seconds,
 * and `onSecond(second)` gets the run's, merged; with `metrics: true`, its figures).
 * `onSecret(ref)`: a child looked up a secret (src/script/secrets/secrets.js); tell(ref) tells the
 * children of one the parent looked up.
 */
export function remoteRun({ cores, spawn, job, base = null, onMessage = () => {}, onLog = () => {}, onSecond = () => {}, onSecret = () => {} }) {
  let children = [];
  const state = [];
  const seen = new Set();
  let abortedMessage = null;
  let abortRun = null;
  let recordVUs = null; // the parent's vus gauge, at each rise of the children's sum
  let vusShown = 0;
  let exits = null;

  const kill = () => children.forEach((c) => c.kill());

  // --dashboard: each second once every child still going has closed it, merged exactly (their
  // latency buckets add up, so its p50 and p99 are the whole run's).
  let shown = 0;
  const nextSeconds = () => {
    const going = state.filter((s) => s.result === null && s.failure === null && !s.exited).map((s) => s.seconds);
    const part = closedSeconds(state.map((s) => s.seconds), going, shown);
    shown += part.length;
    for (const second of part) onSecond(second);
  };

  return {
    async prepare() {
      children = await Promise.all(Array.from({ length: cores }, () => spawn()));
      let readyCount = 0;
      let failure = null;
      let allReady;
      const ready = new Promise((resolve) => (allReady = resolve));
      children.forEach((child, i) => {
        const s = { begun: 0, ended: 0, errors: 0, vus: 0, result: null, failure: null, seconds: [], metrics: null };
        state.push(s);
        child.onLine((line) => {
          const space = line.indexOf(' ');
          const verb = space < 0 ? line : line.slice(0, space);
          const rest = space < 0 ? '' : line.slice(space + 1);
          if (verb === 'ready') {
            if (++readyCount === cores) allReady();
          } else if (verb === 'progress') {
            const [begun, ended, errors, vus] = rest.split(' ').map(Number);
            Object.assign(s, { begun, ended, errors, vus });
            const total = state.reduce((a, x) => a + x.vus, 0);
            if (total > vusShown && recordVUs !== null) recordVUs(total);
            vusShown = total;
          } else if (verb === 'second') {
            s.seconds.push(JSON.parse(rest));
            nextSeconds();
          } else if (verb === 'metrics') {
            s.metrics = JSON.parse(rest);
          } else if (verb === 'message') {
            const message = JSON.parse(rest);
            if (!seen.has(message)) {
              seen.add(message);
              onMessage(message);
            }
          } else if (verb === 'log') {
            onLog(JSON.parse(rest));
          } else if (verb === 'secret') {
            onSecret(JSON.parse(rest));
            children.forEach((c, k) => k !== i && c.send(line));
          } else if (verb === 'abort') {
            const message = JSON.parse(rest);
            if (abortedMessage === null) {
              abortedMessage = message;
              if (abortRun !== null) abortRun(message);
              children.forEach((c, k) => k !== i && c.send(`abort ${JSON.stringify(message)}`));
            }
          } else if (verb === 'result') {
            s.result = JSON.parse(rest);
            nextSeconds();
          } else if (verb === 'fail') {
            const code = Number(rest.slice(0, rest.indexOf(' ')));
            s.failure = { code, message: rest.slice(rest.indexOf(' ') + 1) };
            if (failure === null) failure = s.failure;
            allReady();
          }
        });
        // A shard's children (base: the shard's segment) share its share in turn: child i of a
        // shard k of n holds segment k + n·i of n·cores, so shards of shards stay interleaved.
        const segment = base === null ? { index: i, count: cores } : { index: base.index + base.count * i, count: base.count * cores };
        child.send(`job ${JSON.stringify({ ...job, segment })}`);
      });
      exits = Promise.all(
        children.map(async (child, i) => {
          const status = await child.exited;
          state[i].exited = status;
          nextSeconds();
          // A child gone before it was ready must not leave the parent waiting.
          if (state[i].result === null && state[i].failure === null) {
            state[i].failure = { code: EXIT.scriptException, message: `child ${i + 1} of ${cores} ${status.signal ? `was killed by ${status.signal}` : `exited with code ${status.code}`}${why(child.stderrTail())}` };
            if (failure === null) failure = state[i].failure;
            allReady();
          }
          return status;
        }),
      );
      const timer = setTimeout(() => {
        failure = failure || { code: EXIT.scriptException, message: `the children were not ready after ${READY_TIMEOUT_MS / 1000} s` };
        allReady();
      }, READY_TIMEOUT_MS);
      await ready;
      clearTimeout(timer);
      if (failure !== null) {
        kill();
        await exits;
        throw new ScriptRunError(failure.message, failure.code);
      }
    },

    counters() {
      const c = { begun: 0, ended: 0, errors: 0, vus: 0 };
      for (const s of state) {
        c.begun += s.begun;
        c.ended += s.ended;
        c.errors += s.errors;
        c.vus += s.vus;
      }
      return c;
    },

    metrics: () => state.map((s) => s.metrics),

    async run({ dataJson, abort, vus }) {
      abortRun = abort;
      recordVUs = vus;
      if (abortedMessage !== null) abort(abortedMessage);
      // A moment ahead, so that every child has its `go` before it comes.
      const startAt = Date.now() + 50;
      for (const child of children) child.send(`go ${startAt}${dataJson === undefined ? '' : ` ${dataJson}`}`);
      await exits;
      const broken = state.map((s, i) => (s.result !== null ? null : s.failure ? s.failure.message : `child ${i + 1} of ${cores} sent no result${why(children[i].stderrTail())}`)).filter(Boolean);
      if (broken.length) throw new ScriptRunError(broken.join('; '), EXIT.scriptException);
      return state.map((s) => s.result);
    },

    /** A secret the parent looked up (init, setup(), teardown()): hidden by every child too. */
    tell(ref) {
      for (const child of children) child.send(`secret ${JSON.stringify(ref)}`);
    },

    /** Ctrl-C: the children go with the parent. */
    stop: kill,
  };
}
