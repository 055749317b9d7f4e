// Multi-core runs: the parent splits the work, starts one child process per core (of the same
// runtime; `spawnChild` comes from runtimes/), starts them together, and adds up their Stats.
//
// The pipe protocol, one line each way per step:
//   parent → child   job <options as JSON>      the child prepares (DNS, modules) and answers
//   child → parent   ready                      (or: fail <message>)
//   parent → child   go <startAt> <stopAt>       all at once; wall-clock ms (stopAt 0: none)
//   parent → child   stop                        Ctrl-C in the parent
//   child → parent   progress <sent> <completed> <failed> <p99Ms or ->   4 times a second, for progress
//   child → parent   result <Stats as JSON>      then it exits

import { Stats } from './stats.js';
import { closedSeconds } from './series.js';

const READY_TIMEOUT_MS = 30000;

/** total split into `parts` whole shares that add up exactly: 10 on 3 is 4, 3, 3. */
export function split(total, parts) {
  const base = Math.floor(total / parts);
  const extra = total - base * parts;
  return Array.from({ length: parts }, (_, i) => base + (i < extra ? 1 : 0));
}

/**
 * Share i (0-based) of n of a run: its requests, connections and rate. Shares of shares compose
 * (a --shard that also uses --cores): indexes interleave over every process of the whole run.
 */
export function shareOf(options, i, n) {
  const stride = options.indexStride || 1;
  const offset = options.indexOffset || 0;
  return {
    ...options,
    concurrency: split(options.concurrency, n)[i],
    maxRequests: options.maxRequests ? split(options.maxRequests, n)[i] : options.maxRequests,
    // A steady rate divides exactly (no rounding: a share may be fractional).
    requestsPerSecond: options.requestsPerSecond ? options.requestsPerSecond / n : options.requestsPerSecond,
    // Share i sends requests i, i + n, i + 2·n, ... of its parent's: indexes stay unique.
    indexStride: stride * n,
    indexOffset: offset + stride * i,
  };
}

/** The options each child runs with. */
export function shares(options, cores) {
  // coreIndex: the child's column in the request log.
  return Array.from({ length: cores }, (_, i) => ({ ...shareOf(options, i, cores), cores: 1, coreIndex: i, coreCount: cores }));
}

/**
 * Runs `options` on `cores` children. Resolves to { stats, childErrors, cores } whatever the
 * children do: a child that dies is reported with its reason, never waited for forever.
 * hooks.onStart({ stop }) receives a handle to stop all children (Ctrl-C).
 */
export async function runOnCores(options, cores, spawnChild, workerScript, hooks = {}) {
  const jobs = shares(options, cores);
  const children = await Promise.all(jobs.map(() => spawnChild(workerScript)));
  const state = children.map(() => ({ ready: false, result: null, failure: null, sent: 0, completed: 0, failed: 0, p99Ms: null, seconds: [], warnings: [] }));
  let started = false;
  let startedAt = 0;
  let stopping = false;

  const stop = () => {
    if (stopping) return;
    stopping = true;
    children.forEach((child, i) => (state[i].ready ? child.send('stop') : child.kill()));
  };
  const startIfAllReady = () => {
    if (started) return;
    const waiting = state.filter((s, i) => !s.ready && !s.done && !state[i].failure);
    if (waiting.length > 0) return;
    started = true;
    startedAt = Date.now();
    const go = goLine(options);
    children.forEach((child, i) => state[i].ready && child.send(go));
  };

  children.forEach((child, i) => {
    child.onLine((line) => {
      if (line === 'ready') {
        state[i].ready = true;
        if (stopping) child.send('stop');
        startIfAllReady();
      } else {
        readChildLine(state[i], line);
      }
    });
    child.send(`job ${JSON.stringify(jobs[i])}`);
  });
  const snapshot = () => snapshotOf(state, startedAt);
  const config = { maxRequests: options.maxRequests, maxSeconds: options.maxSeconds };
  const seconds = mergedSeconds(state);
  // --metrics: each child's latest figures (a second old at most), then its result's.
  const metrics = () => state.map((s) => (s.result ? { ...s.result, done: true, final: true } : s.metrics || null));
  // The children's results say they were interrupted: they were sent `stop`.
  if (hooks.onStart) hooks.onStart({ stop, interrupt: stop, snapshot, metrics, seconds, config, get stopping() { return stopping; } });

  const readyTimer = killUnreadyLater(children, state);
  const exits = await Promise.all(
    children.map(async (child, i) => {
      const status = await child.exited;
      state[i].done = true;
      startIfAllReady(); // a child that died before it was ready must not hold the others
      return status;
    }),
  );
  clearTimeout(readyTimer);
  return { ...outcome(exits, state, children, cores), cores, children: state.map((s) => s.result) };
}

/** The `go` line that starts every child at once. */
function goLine(options) {
  // One origin for the schedule and one deadline for all children: a moment just ahead, so
  // that every child has its `go` before it comes (or the shards' common start, if later).
  const startAt = Math.max(Date.now() + 20, options.startAt || 0);
  // Shards (--start-at) stop together even if this one's children started late.
  const stopAt = options.maxSeconds ? (options.startAt || startAt) + options.maxSeconds * 1000 : 0;
  return `go ${startAt} ${stopAt}`;
}

/** A child's line other than `ready`, kept in its state `s`. */
function readChildLine(s, line) {
  if (line.startsWith('result ')) {
    s.result = Stats.fromJSON(JSON.parse(line.slice(7)));
  } else if (line.startsWith('progress ')) {
    const [sent, completed, failed, p99] = line.slice(9).split(' ');
    Object.assign(s, { sent: Number(sent), completed: Number(completed), failed: Number(failed) });
    s.p99Ms = p99 === undefined || p99 === '-' ? null : Number(p99);
  } else if (line.startsWith('second ')) {
    s.seconds.push(JSON.parse(line.slice(7)));
  } else if (line.startsWith('metrics ')) {
    s.metrics = JSON.parse(line.slice(8));
  } else if (line.startsWith('fail ')) {
    s.failure = line.slice(5);
  } else if (line.startsWith('warn ')) {
    s.warnings.push(line.slice(5));
  }
}

/** The children's progress added up, for the progress line. */
function snapshotOf(state, startedAt) {
  const sum = (key) => state.reduce((total, s) => total + s[key], 0);
  const p99s = () => state.map((s) => s.p99Ms).filter((p) => p !== null);
  return {
    sent: sum('sent'),
    completed: sum('completed'),
    failed: sum('failed'),
    elapsedMs: startedAt ? Date.now() - startedAt : 0,
    // Percentiles do not add up; the largest child's p99 is an upper bound of the whole run's
    // (no more than 1% of any child's requests, so of all of them, took longer).
    p99Ms: p99s().length > 0 ? Math.max(...p99s()) : null,
  };
}

// --dashboard: the run's seconds, each once every child still going has closed it, merged
// exactly (their latency buckets add up: the p50 and p99 of the second are the whole run's).
function mergedSeconds(state) {
  const merged = [];
  return () => {
    const lists = state.map((s) => (s.result ? s.result.series : s.seconds));
    const going = state.filter((s) => !s.result && !s.done).map((s) => s.seconds);
    merged.push(...closedSeconds(lists, going, merged.length));
    return merged;
  };
}

/** Kills, after READY_TIMEOUT_MS, every child not ready by then; returns the timer. */
function killUnreadyLater(children, state) {
  return setTimeout(() => {
    children.forEach((child, i) => {
      if (!state[i].ready) {
        state[i].failure = state[i].failure || `not ready after ${READY_TIMEOUT_MS / 1000} s`;
        child.kill();
      }
    });
  }, READY_TIMEOUT_MS);
}

/** The children's Stats added up, and why each child that did not end well did not. */
function outcome(exits, state, children, cores) {
  const stats = new Stats();
  const childErrors = [];
  exits.forEach((status, i) => {
    const s = state[i];
    if (s.result) stats.merge(s.result);
    if (s.result && status.code === 0) return;
    const how = status.signal ? `killed by ${status.signal}` : `exited with code ${status.code}`;
    const why = s.failure || lastLine(children[i].stderrTail()) || status.error || 'no result';
    childErrors.push(`child ${i + 1} of ${cores} ${s.result ? 'reported, then ' : ''}${how}: ${why}`);
  });
  // --out's lines (points not written), each child's.
  const warnings = state.flatMap((s) => s.warnings);
  return { stats, childErrors, warnings };
}

/** The message a dying child wrote last on stderr (the line before any stack frames), or ''. */
export function lastLine(text) {
  const lines = String(text || '').trim().split('\n').map((l) => l.trim()).filter(Boolean);
  // Skip stack frames: the message is the line before them.
  const message = lines.filter((l) => !l.startsWith('at ')).pop();
  return message || '';
}
