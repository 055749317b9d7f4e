// A scripted run on several cores (loadtest run --cores N): the parent runs the init code once,
// setup(), teardown() and the summary; N children of the same runtime (src/script/worker.js)
// each run their share of every scenario (src/script/scenarios/scenarios.js segmentOf) and send back what
// they measured, which the parent merges exactly (src/script/metrics/metrics.js, run-state.js).
//
// The pipe protocol, a line each way per step (nothing per request):
//   parent → child   job <JSON>              the transformed script, flags, the share
//   child → parent   ready                   its VUs are made (or: fail <exit code> <message>)
//   parent → child   go <startAt> [<data>]   setup()'s data as JSON; every child starts at startAt
//   child → parent   progress <begun> <ended> <errors> <vus> <vus made>   4 times a second
//   child → parent   second <JSON>           --dashboard: each closed second, its latency buckets with it
//   child → parent   metrics <JSON>          --metrics: its figures, once a second and at its end
//   child → parent   message <JSON string>   a warning or an exception's message, its first time
//   child → parent   log <JSON string>       a line of the script's console, for the parent's stderr
//   child → parent   lost <JSON string>      --out's points it could not write, said by the parent
//   child → parent   abort <JSON string>     test.abort() or an abortOnFail threshold of its share
//   child ↔ parent   secret <JSON [source, key(, value)]>   a secret looked up: hidden in every
//                                            process's log (the parent relays a child's to the
//                                            others); a url source's with its value
//   child → parent   lookup <JSON [id, source, key]>   a url source's secret, which the parent
//                                            fetches (once for the run, under one rate limit)
//   parent → child   looked <JSON [id, value] or [id, null, error]>   its answer
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
 * children of one the parent looked up. `onLookup(source, key)`: the value (or a promise of it) a
 * child asks for.
 */
export class RemoteRun {
  constructor({ cores, spawn, job, base = null, onMessage = () => {}, onLog = () => {}, onSecond = () => {}, onSecret = () => {}, onLookup = null }) {
    Object.assign(this, { cores, spawn, job, base, onMessage, onLog, onSecond, onSecret, onLookup });
    this.children = [];
    this.state = [];
    this.seen = new Set();
    this.lost = []; // --out's lines of points not written, each child's
    this.abortedMessage = null;
    this.abortRun = null;
    this.exits = null;
    this.shown = 0; // --dashboard: the seconds given to onSecond so far
    // Until every child is ready: how many are, the first failure, and what ends the wait.
    this.readyCount = 0;
    this.failure = null;
    this.allReady = null;
  }

  async prepare() {
    const { cores } = this;
    this.children = await Promise.all(Array.from({ length: cores }, () => this.spawn()));
    const ready = new Promise((resolve) => (this.allReady = resolve));
    this.children.forEach((child, i) => {
      const s = { begun: 0, ended: 0, errors: 0, vus: 0, vusMax: 0, result: null, failure: null, seconds: [], metrics: null };
      this.state.push(s);
      child.onLine((line) => this.heard(i, s, line));
      // A shard's children (base: the shard's segment) share its share in turn: child i of a
      // shard k of n holds segment k + n·i of n·cores, so shards of shards stay interleaved.
      const { base } = this;
      const segment = base === null ? { index: i, count: cores } : { index: base.index + base.count * i, count: base.count * cores };
      child.send(`job ${JSON.stringify({ ...this.job, segment })}`);
    });
    this.exits = Promise.all(this.children.map((child, i) => this.watchExit(child, i)));
    const timer = setTimeout(() => {
      this.failure = this.failure || { code: EXIT.scriptException, message: `the children were not ready after ${READY_TIMEOUT_MS / 1000} s` };
      this.allReady();
    }, READY_TIMEOUT_MS);
    await ready;
    clearTimeout(timer);
    if (this.failure !== null) {
      this.stop();
      await this.exits;
      throw new ScriptRunError(this.failure.message, this.failure.code);
    }
  }

  /** A line from child i (`s`: its state), as the protocol above says. */
  heard(i, s, line) {
    const space = line.indexOf(' ');
    const verb = space < 0 ? line : line.slice(0, space);
    const rest = space < 0 ? '' : line.slice(space + 1);
    if (verb === 'ready') {
      if (++this.readyCount === this.cores) this.allReady();
    } else if (verb === 'progress') {
      const [begun, ended, errors, vus, vusMax] = rest.split(' ').map(Number);
      Object.assign(s, { begun, ended, errors, vus, vusMax });
    } else if (verb === 'second') {
      s.seconds.push(JSON.parse(rest));
      this.nextSeconds();
    } else if (verb === 'metrics') {
      s.metrics = JSON.parse(rest);
    } else if (verb === 'message') {
      const message = JSON.parse(rest);
      if (!this.seen.has(message)) {
        this.seen.add(message);
        this.onMessage(message);
      }
    } else if (verb === 'log') {
      this.onLog(JSON.parse(rest));
    } else if (verb === 'lost') {
      this.lost.push(JSON.parse(rest));
    } else if (verb === 'secret') {
      this.onSecret(JSON.parse(rest));
      this.children.forEach((c, k) => k !== i && c.send(line));
    } else if (verb === 'lookup') {
      this.lookup(this.children[i], JSON.parse(rest));
    } else if (verb === 'abort') {
      const message = JSON.parse(rest);
      if (this.abortedMessage === null) {
        this.abortedMessage = message;
        if (this.abortRun !== null) this.abortRun(message);
        this.children.forEach((c, k) => k !== i && c.send(`abort ${JSON.stringify(message)}`));
      }
    } else if (verb === 'result') {
      s.result = JSON.parse(rest);
      this.nextSeconds();
    } else if (verb === 'fail') {
      const code = Number(rest.slice(0, rest.indexOf(' ')));
      s.failure = { code, message: rest.slice(rest.indexOf(' ') + 1) };
      if (this.failure === null) this.failure = s.failure;
      this.allReady();
    }
  }

  // A child's question for a secret: its answer, or why there is none.
  async lookup(child, [id, index, key]) {
    let answer;
    try {
      answer = [id, await this.onLookup(index, key)];
    } catch (err) {
      answer = [id, null, err.message];
    }
    child.send(`looked ${JSON.stringify(answer)}`);
  }

  /** Child i's exit status, once it has gone. */
  async watchExit(child, i) {
    const { state, cores } = this;
    const status = await child.exited;
    state[i].exited = status;
    this.nextSeconds();
    // A child gone before it was ready must not leave the parent waiting.
    if (state[i].result === null && state[i].failure === null) {
      state[i].failure = { code: EXIT.scriptException, message: `child ${i + 1} of ${cores} ${status.signal ? `was killed by ${status.signal}` : `exited with code ${status.code}`}${why(child.stderrTail())}` };
      if (this.failure === null) this.failure = state[i].failure;
      this.allReady();
    }
    return status;
  }

  // --dashboard: each second once every child still going has closed it, merged exactly (their
  // latency buckets add up, so its p50 and p99 are the whole run's).
  nextSeconds() {
    const { state } = this;
    const going = state.filter((s) => s.result === null && s.failure === null && !s.exited).map((s) => s.seconds);
    const part = closedSeconds(state.map((s) => s.seconds), going, this.shown);
    this.shown += part.length;
    for (const second of part) this.onSecond(second);
  }

  counters() {
    const c = { begun: 0, ended: 0, errors: 0, vus: 0, vusMax: 0 };
    for (const s of this.state) {
      c.begun += s.begun;
      c.ended += s.ended;
      c.errors += s.errors;
      c.vus += s.vus;
      c.vusMax += s.vusMax;
    }
    return c;
  }

  metrics() {
    return this.state.map((s) => s.metrics);
  }

  async run({ dataJson, abort }) {
    const { state, children, cores } = this;
    this.abortRun = abort;
    if (this.abortedMessage !== null) abort(this.abortedMessage);
    // A moment ahead, so that every child has its `go` before it comes.
    const startAt = Date.now() + 50;
    for (const child of children) child.send(`go ${startAt}${dataJson === undefined ? '' : ` ${dataJson}`}`);
    await this.exits;
    const broken = state.map((s, i) => (s.result !== null ? null : s.failure ? s.failure.message : `child ${i + 1} of ${cores} sent no result${why(children[i].stderrTail())}`)).filter(Boolean);
    if (broken.length) throw new ScriptRunError(broken.join('; '), EXIT.scriptException);
    return state.map((s) => s.result);
  }

  /** A secret the parent looked up (init, setup(), teardown()): hidden by every child too. */
  tell(ref) {
    for (const child of this.children) child.send(`secret ${JSON.stringify(ref)}`);
  }

  /** Ctrl-C: the children go with the parent. */
  stop() {
    this.children.forEach((c) => c.kill());
  }
}
