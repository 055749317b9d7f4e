// A scripted run, as `k6 run` makes one: the script's init code once per VU, setup() once, the
// scenarios at once (each its executor, src/script/executors/), teardown(), then the summary's
// data and the thresholds. Every VU is a few objects on this one event loop (src/script/vu.js).

import { Histogram, percentilesOfPairs } from '../run/histogram.js';
import { Registry } from './metrics.js';
import { RunState } from './run-state.js';
import { VU, Interruption } from './vu.js';
import { Network } from './client.js';
import { CookieJar } from './k6/cookies.js';
import { scenariosOf, scenarioMs, segmentOf } from './scenarios.js';
import { checkOptions } from './options.js';
import { parseDuration } from './duration.js';
import { parseThresholds, evaluateThresholds } from './thresholds.js';
import { summaryData } from './summary-data.js';
import * as sharedIterations from './executors/shared-iterations.js';
import * as perVuIterations from './executors/per-vu-iterations.js';
import * as constantVus from './executors/constant-vus.js';
import * as rampingVus from './executors/ramping-vus.js';
import * as arrivalRate from './executors/arrival-rate.js';
import { sleep } from './executors/common.js';

const EXECUTORS = {
  'shared-iterations': sharedIterations,
  'per-vu-iterations': perVuIterations,
  'constant-vus': constantVus,
  'ramping-vus': rampingVus,
  'constant-arrival-rate': arrivalRate,
  'ramping-arrival-rate': arrivalRate,
};

// From how many VUs a run asks the engine for a small heap (facilities.preferSmallHeap).
const MANY_VUS = 1000;

// k6's exit codes (errext/exitcodes).
export const EXIT = { thresholds: 99, setupTimeout: 100, teardownTimeout: 101, invalidConfig: 104, scriptException: 107, scriptAborted: 108 };

export class ScriptRunError extends Error {
  constructor(message, code) {
    super(message);
    this.code = code;
  }
}

/** The options `flags` (k6's command line) give over the script's own: flags win. */
export function withFlags(options, flags) {
  const o = { ...options };
  const shortcut = flags.vus !== undefined || flags.duration !== undefined || flags.iterations !== undefined || flags.stages !== undefined;
  if (shortcut) {
    // As k6: a shortcut on the command line replaces the script's scenarios.
    delete o.scenarios;
    if (flags.stages !== undefined) {
      o.stages = flags.stages;
      delete o.duration;
      delete o.iterations;
    }
    if (flags.duration !== undefined) {
      o.duration = flags.duration;
      if (flags.iterations === undefined) delete o.iterations;
      delete o.stages;
    }
    if (flags.iterations !== undefined) {
      o.iterations = flags.iterations;
      if (flags.duration === undefined) delete o.duration;
      delete o.stages;
    }
    if (flags.vus !== undefined) o.vus = flags.vus;
  }
  for (const k of ['summaryTrendStats', 'noThresholds', 'insecureSkipTLSVerify', 'maxRedirects', 'userAgent', 'discardResponseBodies']) {
    if (flags[k] !== undefined) o[k] = flags[k];
  }
  if (flags.tags) o.tags = { ...(o.tags || {}), ...flags.tags };
  return o;
}

/**
 * Runs `factory` (the script's transformed module: src/script/transform.js). `facilities`:
 * { resolve(host), adapterFor({ hostname, tls, insecure }), open(path, mode), hash, hmac,
 * randomBytes, md5Hex(text), preferSmallHeap(), env, version }. `hooks.onMessage(text)`: a line for the user (a warning, an
 * exception's message the first time it comes).
 *
 * --cores (src/script/cores.js): a child runs with `segment` ({ index, count }: its share of
 * every scenario, its VUs' ids interleaved with the other children's) and, once its VUs are
 * made, awaits `hooks.ready()` for the setup data and the common start ({ dataJson, startAt });
 * it runs no setup() or teardown(). The parent runs with `remote`: no VU of its own, the
 * scenarios run by `remote.run()`, whose children's figures it merges into its registry.
 */
export async function runScript(factory, { flags = {}, facilities, hooks = {}, segment = null, remote = null, startAt = 0 }) {
  // A --cores child: its setup() data and start come from the parent. A shard (--shard I/N, on
  // its own machine) has a segment too, but runs setup() and teardown() itself, as a k6
  // instance given an execution segment does, and starts at startAt (wall-clock ms).
  const child = segment !== null && typeof hooks.ready === 'function';
  const registry = new Registry();
  const state = new RunState(registry);
  if (hooks.onMessage) state.onMessage = hooks.onMessage;
  if (hooks.onSample) registry.out = hooks.onSample;
  let aborted = null;
  const shared = {
    registry,
    state,
    options: {},
    env: { ...facilities.env, ...(flags.env || {}) },
    globalTags: {},
    arrays: new Map(),
    facilities,
    version: facilities.version,
    resolve: facilities.resolve,
    open: facilities.open,
    responseCallback: undefined,
    vusActive: 0,
    vusInitialized: 0,
    iterationsCompleted: 0,
    iterationsInterrupted: 0,
    startedAt: 0,
    abort: (message) => {
      if (aborted !== null) return;
      aborted = message;
      if (hooks.onAbort) hooks.onAbort(message);
    },
    network: null,
  };
  // A child's VU k is VU (k - 1) · count + index + 1 of the whole run: unique across children.
  const idOf = segment === null ? (k) => k : (k) => (k - 1) * segment.count + segment.index + 1;
  shared.segment = segment;
  const first = new VU(shared, 0);
  const exports0 = await initVU(factory, first);
  const options = withFlags(exports0.options || {}, flags);
  shared.options = options;
  first.options = options;
  shared.globalTags = options.tags ? { ...options.tags } : {};
  shared.network = new Network((origin) => facilities.adapterFor({ ...origin, insecure: Boolean(options.insecureSkipTLSVerify) }));
  let scenarios;
  let setupMs;
  let teardownMs;
  try {
    checkOptions(options, (m) => state.warn(m));
    setupMs = parseDuration(options.setupTimeout ?? '60s', 'setupTimeout');
    teardownMs = parseDuration(options.teardownTimeout ?? '60s', 'teardownTimeout');
    scenarios = scenariosOf(options, (m) => state.warn(m));
    // Many VUs: memory, not speed, is what runs out first (every VU holds its module state,
    // its connections and its iteration's objects while it sleeps).
    if (scenarios.reduce((a, s) => a + s.maxVUs, 0) >= MANY_VUS && facilities.preferSmallHeap) facilities.preferSmallHeap();
    if (segment !== null) scenarios = scenarios.map((s) => segmentOf(s, segment.index, segment.count));
  } catch (err) {
    throw new ScriptRunError(err.message, EXIT.invalidConfig);
  }
  for (const s of scenarios) {
    if (typeof exports0[s.exec] !== 'function') {
      const why = s.exec === 'default' ? 'the script has no default export function (export default function () { ... }), and no scenario names another with exec' : `exec '${s.exec}' is not a function the script exports`;
      throw new ScriptRunError(`scenario '${s.name}': ${why}`, EXIT.invalidConfig);
    }
  }
  let thresholds = [];
  if (!options.noThresholds) {
    try {
      thresholds = parseThresholds(options.thresholds || {}, registry);
    } catch (err) {
      throw new ScriptRunError(err.message, EXIT.invalidConfig);
    }
  }

  // Every VU made and its init code run before the test starts, as k6 does.
  const total = remote === null ? scenarios.reduce((a, s) => a + (s.preAllocatedVUs ?? s.maxVUs), 0) : 0;
  const vus = [];
  for (let k = 1; k <= total; k++) {
    const vu = new VU(shared, idOf(k));
    vu.exports = await initVU(factory, vu);
    vus.push(vu);
  }
  let nextId = total + 1;
  shared.vusInitialized = total;
  if (remote === null) registry.add(state.vusMax, total, {});
  else await remote.prepare({ scenarios, options });
  first.initDone = true;

  let data;
  let dataJson;
  if (child) {
    // A child: the parent's setup() data, and the moment every child starts at.
    const go = await hooks.ready();
    dataJson = go.dataJson;
    if (go.startAt > Date.now()) await sleep(go.startAt - Date.now());
  } else if (typeof exports0.setup === 'function' && !options.noSetup) {
    first.scenario = null;
    let r;
    try {
      r = await withinTime(inGroup(first, 'setup', () => exports0.setup()), setupMs, 'setup');
    } catch (err) {
      if (err instanceof ScriptRunError) throw err;
      throw new ScriptRunError(`setup() failed: ${messageOf(err)}`, EXIT.scriptException);
    }
    data = r === undefined ? undefined : JSON.parse(JSON.stringify(r));
  }
  if (!child) dataJson = data === undefined ? undefined : JSON.stringify(data);
  if (startAt > Date.now()) await sleep(startAt - Date.now());

  shared.startedAt = performance.now();
  let finished = false;
  // The progress line's view of the run (src/results/progress.js): requests, not iterations.
  if (hooks.onStart) {
    const maxSeconds = Math.max(...scenarios.map((s) => s.startMs + scenarioMs(s))) / 1000;
    hooks.onStart({
      abort: shared.abort,
      counters: () => ({ begun: state.begun, ended: state.ended, errors: state.errors, vus: shared.vusActive }),
      config: { maxSeconds, maxRequests: 0 },
      snapshot: () => {
        // --cores: the children's counters, as their last progress lines gave them.
        const c = remote !== null ? remote.counters() : state;
        return { sent: c.begun, completed: c.ended - c.errors, failed: c.errors, elapsedMs: performance.now() - shared.startedAt, p99Ms: null, connections: null };
      },
      // --metrics (src/results/metrics-text.js): the requests' counters and http_req_duration's
      // histogram (its values in µs, the layout of a load run's).
      metricsSnapshot: () => ({
        sent: state.begun,
        completed: state.ended - state.errors,
        failed: state.errors,
        bytes: state.bytesIn,
        errors: state.reasons,
        statusCounts: state.statusCounts,
        connections: 0,
        inFlight: state.begun - state.ended,
        targetRps: null,
        achievedRps: null,
        histogram: state.duration.sink.histogram,
        elapsedSeconds: (performance.now() - shared.startedAt) / 1000,
        done: finished,
      }),
    });
  }
  const ctxs = [];
  let pool = 0;
  const seconds = hooks.onSecond ? secondsOf(state, shared, hooks.onSecond) : null;
  const sampler = setInterval(() => {
    registry.add(state.vus, remote !== null ? remote.counters().vus : shared.vusActive, {});
    if (seconds !== null) seconds.close();
  }, 1000);
  // With --cores each child watches its own share (the parent's figures come at the end).
  const abortWatch = remote === null && thresholds.some((t) => t.abortOnFail)
    ? setInterval(() => {
        const elapsed = performance.now() - shared.startedAt;
        const failed = evaluateThresholds(thresholds, elapsed / 1000).filter((t) => t.abortOnFail && !t.ok && elapsed >= t.delayAbortEvalMs);
        if (failed.length) shared.abort(`thresholds on ${failed.map((t) => t.metricName).join(', ')} crossed`);
      }, 1000)
    : null;
  const runs = remote !== null ? [remote.run({ dataJson, abort: shared.abort, vus: (n) => registry.add(state.vus, n, {}) })] : scenarios.map((s) => {
    const own = vus.slice(pool, pool + (s.preAllocatedVUs ?? s.maxVUs));
    pool += own.length;
    const ctx = {
      vus: own,
      running: new Set(),
      get stopped() {
        return aborted !== null;
      },
      progress: () => 0,
      // The vus gauge as k6 samples it: at each rise and once a second, not the fall at the end.
      active: (d) => {
        shared.vusActive += d;
        if (d > 0) {
          registry.add(state.vus, shared.vusActive, {});
          if (hooks.onVUs) hooks.onVUs(shared.vusActive);
        }
      },
      dropped: () => state.dropped({ scenario: s.name }),
      warn: (m) => state.warn(m),
      newVU: async () => {
        const vu = new VU(shared, idOf(nextId++));
        vu.exports = await initVU(factory, vu);
        vu.initDone = true;
        shared.vusInitialized++;
        registry.add(state.vusMax, shared.vusInitialized, {});
        return vu;
      },
      iterate: (vu) => iterate(vu, s, ctx),
    };
    s.startedAt = 0;
    s.iterationsStarted = 0; // exec.scenario.iterationInTest: the scenario's, across its VUs
    s.progress = () => ctx.progress();
    ctxs.push(ctx);
    return (async () => {
      if (s.startMs > 0) await sleep(s.startMs);
      if (aborted !== null) return;
      s.startedAt = Date.now();
      for (const vu of own) vu.initDone = true;
      await EXECUTORS[s.executor].run(s, ctx);
    })();
  });

  async function iterate(vu, s, ctx) {
    vu.busy = true;
    vu.scenario = s;
    vu.iteration++;
    vu.iterationInScenario++;
    vu.iterationInInstance++;
    vu.scenarioIteration = s.iterationsStarted++;
    vu.env = Object.keys(s.env).length ? { ...shared.env, ...s.env } : shared.env;
    vu.jar = new CookieJar(); // k6 empties the VU's jar at each iteration
    vu.groupPath = '';
    if (vu.data === undefined && dataJson !== undefined) vu.data = JSON.parse(dataJson);
    const fn = vu.exports[s.exec];
    const t0 = performance.now();
    const p = (async () => {
      try {
        const r = fn(vu.data);
        if (r instanceof Promise) await r;
        if (vu.interrupted) return;
        shared.iterationsCompleted++;
        state.iteration(performance.now() - t0, vu.tags());
      } catch (err) {
        if (err instanceof Interruption || vu.interrupted) return;
        state.warn(messageOf(err));
        shared.iterationsCompleted++;
        state.iteration(performance.now() - t0, vu.tags());
      }
    })();
    const cut = new Promise((resolve) => (vu.cut = resolve));
    const ended = Promise.race([p, cut]);
    ctx.running.add(ended);
    await ended;
    ctx.running.delete(ended);
    vu.cut = null;
    if (vu.interrupted) shared.iterationsInterrupted++;
    vu.busy = false;
  }

  // An abort (test.abort(), a threshold with abortOnFail) stops every scenario at once.
  const abortStop = new Promise((resolve) => {
    const t = setInterval(() => {
      if (aborted !== null) {
        clearInterval(t);
        for (const vu of vus) vu.interrupt();
        resolve();
      }
    }, 20);
    Promise.all(runs).then(() => {
      clearInterval(t);
      resolve();
    });
  });
  await abortStop;
  // The children report even when aborted (the parent relays the abort to them all).
  if (aborted === null || remote !== null) await Promise.all(runs);
  if (remote !== null) {
    let vusMax = 0;
    for (const child of await runs[0]) {
      registry.merge(child.metrics);
      state.merge(child.state);
      vusMax += child.vusInitialized;
      shared.iterationsCompleted += child.iterationsCompleted;
      shared.iterationsInterrupted += child.iterationsInterrupted;
    }
    registry.add(state.vusMax, vusMax, {});
  }
  clearInterval(sampler);
  if (seconds !== null) seconds.close();
  if (abortWatch !== null) clearInterval(abortWatch);
  const elapsedMs = performance.now() - shared.startedAt;
  finished = true;

  if (!child && typeof exports0.teardown === 'function' && !options.noTeardown) {
    try {
      await withinTime(inGroup(first, 'teardown', () => exports0.teardown(data === undefined ? undefined : JSON.parse(dataJson))), teardownMs, 'teardown');
    } catch (err) {
      if (err instanceof ScriptRunError) throw err;
      state.warn(`teardown() failed: ${messageOf(err)}`);
    }
  }
  for (const vu of [first, ...vus]) vu.close();
  shared.network.close();

  const results = evaluateThresholds(thresholds, elapsedMs / 1000);
  return {
    exports: exports0,
    options,
    elapsedMs,
    state,
    registry,
    thresholds: results,
    aborted,
    messages: state.messages,
    vusInitialized: shared.vusInitialized,
    iterationsCompleted: shared.iterationsCompleted,
    iterationsInterrupted: shared.iterationsInterrupted,
    data: summaryData({ registry, state, thresholds: results, options, elapsedMs, md5: facilities.md5Hex }),
  };
}

// setup() and teardown() each within its time (setupTimeout, teardownTimeout: 60 s by default),
// or the run ends with k6's line and exit code (100, 101).
function withinTime(promise, ms, place) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new ScriptRunError(`${place}() execution timed out after ${Math.round(ms / 1000)} seconds`, place === 'setup' ? EXIT.setupTimeout : EXIT.teardownTimeout)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

// setup() and teardown() run in groups of their own, as in k6 (their checks show under them),
// and their durations count in iteration_duration, tagged with the group.
async function inGroup(vu, name, fn) {
  vu.enterGroup(`::${name}`, name);
  // k6 v1.3 lists setup's and teardown's groups only when something was checked or grouped in
  // them (v0.49 always listed setup's).
  vu.shared.state.groupsByPath.get(`::${name}`).implicit = true;
  const start = performance.now();
  try {
    return await fn();
  } finally {
    vu.groupPath = '';
    vu.shared.registry.add(vu.shared.state.iterationDuration, performance.now() - start, { ...vu.tags(), group: `::${name}` });
  }
}

async function initVU(factory, vu) {
  try {
    const exports = await factory(vu);
    return exports;
  } catch (err) {
    if (err instanceof ScriptRunError) throw err;
    throw new ScriptRunError(`the init context of VU ${vu.id} failed: ${messageOf(err)}`, EXIT.scriptException);
  }
}

// An exception as k6 logs it: its message, with where it was thrown in the script when known.
export function messageOf(err) {
  if (!(err instanceof Error)) return String(err);
  // The innermost frame in the script: `at f (FILE:L:C)`, or `at FILE:L:C` in a function
  // without a name (a group's callback).
  const at = /(?:\(|at )(?:file:\/\/)?[^()\s]*?\.([^/()\s]+)\.loadtest-\d+-\d+\.mjs:(\d+):(\d+)/.exec(err.stack || '');
  return at ? `${err.message} at ${at[1]}:${at[2]}:${at[3]}` : err.message;
}

// --dashboard: the run a second at a time, in the shape of a load run's series (src/run/series.js):
// the requests begun, ended and failed in it and its http_req_duration percentiles, exact from a
// histogram of its own that is emptied as each second closes, kept as its latency buckets so that
// a --cores run's children's seconds merge exactly (series.js mergeSeries). The last second is
// closed at the end of the scenarios, however short.
function secondsOf(state, shared, onSecond) {
  const h = new Histogram();
  state.secondHistogram = h;
  let second = 0;
  let closedAt = shared.startedAt;
  const last = { begun: 0, ended: 0, errors: 0, bytes: 0 };
  return {
    close() {
      const now = performance.now();
      const ended = state.ended - last.ended;
      const errors = state.errors - last.errors;
      const buckets = h.pairs();
      const [p50, p99] = h.count ? percentilesOfPairs(buckets, [50, 99]) : [null, null];
      onSecond({
        second: ++second,
        durationMs: now - closedAt,
        sent: state.begun - last.begun,
        completed: ended - errors,
        errors,
        bytes: state.bytesIn - last.bytes,
        p50Ms: p50 === null ? null : p50 / 1000,
        p99Ms: p99 === null ? null : p99 / 1000,
        maxMs: h.count ? h.max / 1000 : 0,
        connections: 0,
        vus: shared.vusActive,
        buckets,
      });
      closedAt = now;
      last.begun = state.begun;
      last.ended = state.ended;
      last.errors = state.errors;
      last.bytes = state.bytesIn;
      h.clear();
    },
  };
}
