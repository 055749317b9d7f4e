// src/script/: `loadtest run`, k6 scripts, in folders by job (doc/design.md, the layout).
// A scripted run, as `k6 run` makes one: the script's init code once per VU, setup() once, the
// scenarios at once (each its executor, src/script/scenarios/executors/), teardown(), then the summary's
// data and the thresholds. Every VU is a few objects on this one event loop (src/script/vu/vu.js).

import { Registry, checkTrendStats } from './metrics/metrics.js';
import { RunState } from './metrics/run-state.js';
import { VU, Interruption, loadModules } from './vu/vu.js';
import { Network } from './net/client.js';
import { scenariosOf, segmentOf } from './scenarios/scenarios.js';
import { checkOptions, numberOption, k6Names, scriptFeatures } from './scenarios/options.js';
import { checkOptionTypes } from './scenarios/option-types.js';
import { consolidated } from './scenarios/option-tiers.js';
import { DEFAULT_SYSTEM_TAGS, systemTagsOf } from './scenarios/system-tags.js';
import { dialerOf } from './k6/http/dialer.js';
import { tlsSettingsOf, withTls } from './net/tls-options.js';
import { rpsLimiter } from './k6/http/rps.js';
import { parseDuration, timeoutMessage } from './scenarios/duration.js';
import { parseThresholds, evaluateThresholds, crossedMetrics } from './metrics/thresholds.js';
import { summaryData } from './summary/summary-data.js';
import { Breakdown } from './summary/breakdown.js';
import { iterate, iterateThen, RunningIterations } from './vu/iteration.js';
import { announce, secondsOf } from './metrics/live.js';
import { messageOf } from './vu/messages.js';
import * as sharedIterations from './scenarios/executors/shared-iterations.js';
import * as perVuIterations from './scenarios/executors/per-vu-iterations.js';
import * as constantVus from './scenarios/executors/constant-vus.js';
import * as rampingVus from './scenarios/executors/ramping-vus.js';
import * as arrivalRate from './scenarios/executors/arrival-rate.js';
import { sleep } from './scenarios/executors/common.js';
import { Secrets } from './secrets/secrets.js';
import { scriptConsole } from './k6/console.js';
import { unseed } from './k6/k6.js';
import { useProxyCheck } from './k6/console-format.js';
import { installK6Crypto } from './k6/crypto/webcrypto.js';
import { loadHTML } from './k6/html/html-load.js';

export { messageOf };

const EXECUTORS = {
  'shared-iterations': sharedIterations,
  'per-vu-iterations': perVuIterations,
  'constant-vus': constantVus,
  'externally-controlled': constantVus,
  'ramping-vus': rampingVus,
  'constant-arrival-rate': arrivalRate,
  'ramping-arrival-rate': arrivalRate,
};

// From how many VUs a run asks the engine for a small heap (facilities.preferSmallHeap).
const MANY_VUS = 1000;

// k6's exit codes (errext/exitcodes).
export const EXIT = { thresholds: 99, setupTimeout: 100, teardownTimeout: 101, invalidConfig: 104, scriptException: 107, scriptAborted: 108, markedAsFailed: 110 };

export class ScriptRunError extends Error {
  constructor(message, code) {
    super(message);
    this.code = code;
  }
}

/**
 * Runs `factory` (the script's transformed module: src/script/transform/transform.js). `facilities`:
 * { resolve(host), adapterFor({ hostname, tls, insecure }), open(path, mode), hash, hmac,
 * randomBytes, md5Hex(text), preferSmallHeap(), env, version, afterReads(fn) }.
 * `hooks.onMessage(text)`: a line for the user (a warning, an exception's message the first time
 * it comes).
 *
 * --cores (src/script/cores.js): a child runs with `segment` ({ index, count }: its share of
 * every scenario, its VUs' ids interleaved with the other children's) and, once its VUs are
 * made, awaits `hooks.ready()` for the setup data and the common start ({ dataJson, startAt });
 * it runs no setup() or teardown(). The parent runs with `remote`: no VU of its own, the
 * scenarios run by `remote.run()`, whose children's figures it merges into its registry.
 * `secrets`: the run's (src/script/secrets/secrets.js, from --secret-source), for k6/secrets and for
 * the console, which hides their values.
 */
export async function runScript(factory, { flags = {}, facilities, hooks = {}, segment = null, remote = null, startAt = 0, secrets = new Secrets() }) {
  installK6Crypto();
  if (facilities.isProxy) useProxyCheck(facilities.isProxy);
  await loadHTML();
  await loadModules(facilities);
  const run = newRun(facilities, flags, hooks, segment, remote, secrets);
  // As k6: a promise of the script's rejected with no handler is logged, and the run goes on.
  if (facilities.onUnhandledRejection) facilities.onUnhandledRejection((reason) => run.state.warn(`Uncaught (in promise) ${messageOf(reason)}`));
  let plan;
  try {
    plan = await init(factory, run);
    // As k6: test.abort() in a VU's init code or in setup() ends the run there (no teardown()),
    // its summary still made; in the scenarios, teardown() still runs.
    if (run.aborted === null) await setup(run, plan, startAt);
    if (run.aborted === null) {
      await scenarios(factory, run, plan);
      // A turn of the event loop: a rejection the last iterations left unhandled is told now.
      await new Promise((resolve) => setTimeout(resolve, 0));
      await teardown(run, plan);
    }
  } finally {
    if (run.vusTicker !== null) clearInterval(run.vusTicker);
  }
  if (run.aborted !== null && run.startTime === 0) {
    run.startTime = Date.now();
    run.shared.testStartedAt = performance.now() - run.shared.setupMs;
  }
  // k6's test run: from setup()'s start to teardown()'s end (the rates of its summary).
  const elapsedMs = performance.now() - run.shared.testStartedAt;
  for (const vu of [plan.first, ...plan.vus]) {
    vu.wake(); // one sleeping out its minIterationDuration
    vu.close();
  }
  run.shared.network.close();
  // What a module opened for the whole run (k6/browser's Chromium).
  if (run.shared.closers) await Promise.all(run.shared.closers.map((f) => f()));
  const results = evaluateThresholds(plan.thresholds, elapsedMs / 1000);
  const { shared, state, registry } = run;
  return {
    exports: plan.exports0,
    options: plan.options,
    handleSummaryMs: plan.handleSummaryMs,
    loop: plan.first.loop, // VU 0's, where handleSummary()'s timers go
    scenarios: plan.scenarios,
    startTime: run.startTime,
    elapsedMs,
    state,
    registry,
    thresholds: results,
    aborted: run.aborted,
    teardownFailure: run.teardownFailure, // a ScriptRunError, or null
    messages: state.messages,
    vusInitialized: shared.vusInitialized,
    iterationsCompleted: shared.iterationsCompleted,
    iterationsInterrupted: shared.iterationsInterrupted,
    data: { ...summaryData({ registry, state, thresholds: results, options: plan.options, elapsedMs, md5: facilities.md5Hex }), setup_data: run.dataJson === undefined ? undefined : JSON.parse(run.dataJson) },
  };
}

// What every phase shares: the metrics, the run's state, what every VU shares, whether and why
// the run was aborted.
function newRun(facilities, flags, hooks, segment, remote, secrets) {
  const registry = new Registry();
  if (flags.summaryMode === 'full') registry.breakdown = new Breakdown();
  const state = new RunState(registry);
  if (hooks.onMessage) state.onMessage = hooks.onMessage;
  if (hooks.onSample) registry.out = hooks.onSample;
  const run = {
    registry,
    state,
    hooks,
    facilities,
    segment,
    remote,
    // A --cores child: its setup() data and start come from the parent. A shard (--shard I/N, on
    // its own machine) has a segment too, but runs setup() and teardown() itself, as a k6
    // instance given an execution segment does, and starts at startAt (wall-clock ms).
    child: segment !== null && typeof hooks.ready === 'function',
    aborted: null,
    teardownFailure: null,
    vusTicker: null, // the vus and vus_max gauges' (vusTicker())
    remoteVUs: 0, // --cores: the VUs the children made before the start
    startTime: 0, // when the scenarios started (epoch ms)
    turnAt: 0, // when an iteration last let the event loop take a turn (src/script/vu/iteration.js)
    answeredAt: 0, // the network's count of responses then
    data: undefined,
    dataJson: undefined,
    // A child's VU k is VU (k - 1) · count + index + 1 of the whole run: unique across children.
    idOf: segment === null ? (k) => k : (k) => (k - 1) * segment.count + segment.index + 1,
  };
  run.shared = {
    registry,
    state,
    options: {},
    env: runEnv(facilities, flags),
    globalTags: {},
    systemTags: DEFAULT_SYSTEM_TAGS, // the options' (init())
    arrays: new Map(),
    facilities,
    version: facilities.version,
    resolve: facilities.resolve,
    open: facilities.open,
    vusActive: 0,
    vusInitialized: 0,
    vusPlanned: 0, // the most VUs its scenarios may have, known once they are (init)
    iterationsCompleted: 0,
    iterationsInterrupted: 0,
    startedAt: 0, // the scenarios'
    testStartedAt: 0, // the test's, as k6 counts it: setup() is in it (exec.instance.currentTestRunDuration)
    setupMs: 0,
    abort: (message) => {
      if (run.aborted !== null) return;
      run.aborted = message;
      if (hooks.onAbort) hooks.onAbort(message);
    },
    network: null,
    segment,
    dialer: null,
    rps: null,
    httpDebug: '',
    minIterationMs: 0,
    secrets,
    console: scriptConsole(undefined, (text) => secrets.redact(text), Boolean(flags.verbose)),
  };
  run.flags = flags;
  return run;
}

// __ENV, as `k6 run` makes it: the system's variables, unless --include-system-env-vars=false,
// under -e's; K6_FEATURES the feature flags in force (k6 v2.2 writes it so, and drops it when
// there are none), and the whole frozen under freeze-env (k6 v2.2: a write throws in a module).
function runEnv(facilities, flags) {
  const env = { ...(flags.systemEnv === false ? {} : facilities.env), ...(flags.env || {}) };
  const features = flags.features || [];
  if (features.length) env.K6_FEATURES = features.join(',');
  else delete env.K6_FEATURES;
  return features.includes('freeze-env') ? Object.freeze(env) : env;
}

// The option's statistics as k6 checks them (a percentile above 100 is refused since k6 v2.1).
function checkSummaryTrendStats(stats) {
  if (!Array.isArray(stats)) return;
  try {
    checkTrendStats(stats);
  } catch (err) {
    throw new Error(`options.summaryTrendStats: ${err.message}`);
  }
}

// The init phase: the first VU's init code gives the options; they are checked, the scenarios
// and thresholds made from them, and every VU made with its init code run before the test
// starts, as k6 does.
async function init(factory, run) {
  const { shared, state, registry, facilities, segment, remote } = run;
  const first = new VU(shared, 0);
  const exports0 = await initVU(factory, first, run);
  // Aborted while k6 reads the options: no run and no summary.
  if (exports0 === null) throw new ScriptRunError(run.aborted, EXIT.scriptAborted);
  const options = consolidated(exports0.options || {}, run.flags, (m) => state.warn(m));
  shared.options = options;
  first.options = options;
  shared.globalTags = options.tags ? { ...options.tags } : {};
  shared.tls = null;
  shared.network = networkOf(run, options);
  let list;
  let setupMs;
  let teardownMs;
  let handleSummaryMs;
  try {
    if (run.flags.config) checkOptionTypes(k6Names(run.flags.config));
    const given = k6Names(exports0.options || {});
    checkOptionTypes(given);
    const ignored = scriptFeatures(given);
    if (ignored !== null) state.warn(ignored);
    checkSummaryTrendStats(options.summaryTrendStats);
    checkOptions(options, (m) => state.warn(m));
    shared.systemTags = systemTagsOf(options.systemTags, (m) => state.warn(m));
    state.useSystemTags(shared.systemTags);
    setupMs = parseDuration(options.setupTimeout ?? '60s', 'setupTimeout');
    teardownMs = parseDuration(options.teardownTimeout ?? '60s', 'teardownTimeout');
    handleSummaryMs = parseDuration(options.handleSummaryTimeout ?? '120s', 'handleSummaryTimeout');
    shared.dialer = dialerOf(options);
    shared.tls = tlsSettingsOf(options, facilities, (m) => state.warn(m));
    // rps is the whole run's: a --cores child takes its share.
    const rps = numberOption(options.rps, 'rps');
    shared.rps = rps > 0 ? rpsLimiter(run.child ? rps / segment.count : rps) : null;
    shared.httpDebug = options.httpDebug === true ? 'headers' : options.httpDebug || '';
    shared.minIterationMs = options.minIterationDuration ? parseDuration(options.minIterationDuration, 'minIterationDuration') : 0;
    list = scenariosOf(options, (m) => state.warn(m));
    // Many VUs: memory, not speed, is what runs out first (every VU holds its module state,
    // its connections and its iteration's objects while it sleeps).
    if (list.reduce((a, s) => a + s.maxVUs, 0) >= MANY_VUS && facilities.preferSmallHeap) facilities.preferSmallHeap();
    if (segment !== null) list = list.map((s) => segmentOf(s, segment.index, segment.count));
  } catch (err) {
    throw new ScriptRunError(err.message, EXIT.invalidConfig);
  }
  for (const s of list) {
    if (typeof exports0[s.exec] !== 'function') {
      const why = s.exec === 'default' ? 'the script has no default export function (export default function () { ... }), and no scenario names another with exec' : `exec '${s.exec}' is not a function the script exports`;
      throw new ScriptRunError(`scenario '${s.name}': ${why}`, EXIT.invalidConfig);
    }
  }
  // --out csv's columns are the run's system tags (its header is made again for them).
  if (run.hooks.onSystemTags) await run.hooks.onSystemTags(shared.systemTags);
  let thresholds = [];
  if (!options.noThresholds) {
    try {
      thresholds = parseThresholds(options.thresholds || {}, registry);
    } catch (err) {
      throw new ScriptRunError(err.message, EXIT.invalidConfig);
    }
  }
  const initial = list.reduce((a, s) => a + (s.preAllocatedVUs ?? s.maxVUs), 0);
  const total = remote === null ? initial : 0;
  shared.vusPlanned = list.reduce((a, s) => a + s.maxVUs, 0);
  run.vusTicker = vusTicker(run);
  const vus = await makeVUs(factory, run, total);
  if (remote !== null) {
    await remote.prepare({ scenarios: list, options });
    run.remoteVUs = initial;
  }
  first.initDone = true;
  return { first, exports0, options, scenarios: list, thresholds, vus, nextId: total + 1, setupMs, teardownMs, handleSummaryMs };
}

// The VUs made at the start, their init code run; fewer if it aborted the run.
async function makeVUs(factory, run, total) {
  const vus = [];
  for (let k = 1; k <= total; k++) {
    const vu = new VU(run.shared, run.idOf(k));
    vu.exports = await initVU(factory, vu, run);
    if (vu.exports === null) {
      // A --cores child: the parent ends the run (without its summary: the children's figures never came).
      if (run.child) throw new ScriptRunError(run.aborted, EXIT.scriptAborted);
      break;
    }
    vus.push(vu);
    run.shared.vusInitialized++;
  }
  return vus;
}

// As k6 (its scheduler's emitVUsAndVUsMax): the vus and vus_max gauges once a second from the
// VUs' making to the run's end, and at no other moment: a run under a second has neither. A
// --cores child has none (its parent samples the children's sums, once they have made their VUs).
function vusTicker(run) {
  if (run.child) return null;
  const { registry, state, shared, remote } = run;
  return setInterval(() => {
    if (remote === null) {
      registry.add(state.vus, shared.vusActive, shared.globalTags);
      registry.add(state.vusMax, shared.vusInitialized, shared.globalTags);
    } else if (run.remoteVUs > 0) {
      const c = remote.counters();
      registry.add(state.vus, c.vus, shared.globalTags);
      registry.add(state.vusMax, Math.max(run.remoteVUs, c.vusMax), shared.globalTags);
    }
  }, 1000);
}

// The VUs' connections. Each origin's adapter is picked at its first request, when the run knows
// how many VUs it may have (shared.vusPlanned) and whether they keep their connections: what a
// default adapter may depend on (runtimes/index.js). Only HTTP/1.1's (OriginClient's `http1`):
// WebSocket and gRPC keep their runtime's own, as in a load run (not measured at many).
function networkOf(run, options) {
  const { shared, facilities } = run;
  const keepAlive = !options.noConnectionReuse && !options.noVUConnectionReuse;
  const insecure = Boolean(options.insecureSkipTLSVerify);
  const adapterFor = ({ http1 = false, ...origin }) =>
    facilities.adapterFor({ ...withTls(shared.tls, origin), insecure, load: http1 ? { connections: shared.vusPlanned, keepAlive } : null });
  return new Network(adapterFor, facilities.afterReads);
}

// setup() once (a --cores child gets its data from the parent), then the wait for the common start.
async function setup(run, plan, startAt) {
  const { first, exports0, options } = plan;
  if (run.child) {
    // A child: the parent's setup() data, and the moment every child starts at.
    const go = await run.hooks.ready();
    run.dataJson = go.dataJson;
    if (go.startAt > Date.now()) await sleep(go.startAt - Date.now());
  } else {
    if (typeof exports0.setup === 'function' && !options.noSetup) {
      first.scenario = null;
      const t0 = performance.now();
      let r;
      try {
        r = await withinTime(inGroup(first, 'setup', () => exports0.setup()), plan.setupMs, 'setup');
      } catch (err) {
        if (err instanceof ScriptRunError) throw err;
        if (run.aborted !== null) {
          // test.abort(): the run ends here, its summary made.
          run.shared.setupMs = performance.now() - t0;
          return;
        }
        throw new ScriptRunError(`setup() failed: ${messageOf(err)}`, EXIT.scriptException);
      }
      run.data = r === undefined ? undefined : JSON.parse(JSON.stringify(r), sortedKeys);
      run.shared.setupMs = performance.now() - t0;
    }
    run.dataJson = run.data === undefined ? undefined : JSON.stringify(run.data);
  }
  if (startAt > Date.now()) await sleep(startAt - Date.now());
}

// The scenarios, each its executor, all at once (or the --cores children's); resolves once all
// have ended or the run was aborted.
async function scenarios(factory, run, plan) {
  const { shared, state, registry, hooks, remote } = run;
  const { vus } = plan;
  shared.startedAt = performance.now();
  shared.testStartedAt = shared.startedAt - shared.setupMs;
  run.startTime = Date.now();
  let finished = false;
  announce(run, plan.scenarios, remote, () => finished);
  const seconds = hooks.onSecond ? secondsOf(state, shared, hooks.onSecond) : null;
  const sampler = seconds === null ? null : setInterval(() => seconds.close(), 1000);
  const abortWatch = watchThresholds(run, plan.thresholds);
  const runs = remote !== null ? [remote.run({ dataJson: run.dataJson, abort: shared.abort })] : startScenarios(factory, run, plan);

  // An abort (test.abort(), a threshold with abortOnFail) stops every scenario at once.
  await new Promise((resolve) => {
    const t = setInterval(() => {
      if (run.aborted !== null) {
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
  // The children report even when aborted (the parent relays the abort to them all).
  if (run.aborted === null || remote !== null) await Promise.all(runs);
  if (remote !== null) {
    for (const child of await runs[0]) {
      registry.merge(child.metrics);
      state.merge(child.state);
      shared.iterationsCompleted += child.iterationsCompleted;
      shared.iterationsInterrupted += child.iterationsInterrupted;
    }
  }
  if (sampler !== null) clearInterval(sampler);
  if (seconds !== null) seconds.close();
  if (abortWatch !== null) clearInterval(abortWatch);
  finished = true;
}

// A scenario's context for its executor (src/script/scenarios/executors/). `stopped` is its prototype's
// getter: V8 makes an object literal with a getter of its own a dictionary, and each of its
// reads, several an iteration (`ctx.running`, `ctx.stopped`, `ctx.iterateThen`), a hash look-up.
class ScenarioContext {
  #run;
  constructor(run, fields) {
    this.#run = run;
    Object.assign(this, fields);
  }
  get stopped() {
    return this.#run.aborted !== null;
  }
}

// Each scenario on its share of the VUs made at init, with its executor.
function startScenarios(factory, run, plan) {
  const { shared, state, hooks } = run;
  let pool = 0;
  return plan.scenarios.map((s) => {
    const own = plan.vus.slice(pool, pool + (s.preAllocatedVUs ?? s.maxVUs));
    pool += own.length;
    // As k6: a dropped iteration's sample has the run's tags and the scenario's name, not its
    // tags; per-vu-iterations' VU's id too where vu is a system tag (a tag there, not metadata).
    const droppedTags = shared.systemTags.scenario ? { ...shared.globalTags, scenario: s.name } : shared.globalTags;
    const vuDroppedTags = (vu) => (vu !== undefined && shared.systemTags.vu ? { ...droppedTags, vu: String(vu.id) } : droppedTags);
    const ctx = new ScenarioContext(run, {
      vus: own,
      running: new RunningIterations(),
      progress: () => 0,
      active: (d) => {
        shared.vusActive += d;
        if (d > 0 && hooks.onVUs) hooks.onVUs(shared.vusActive);
      },
      dropped: (n, vu) => state.dropped(vuDroppedTags(vu), n),
      warn: (m) => state.warn(m),
      newVU: async () => {
        const vu = new VU(shared, run.idOf(plan.nextId++));
        vu.exports = await initVU(factory, vu, run);
        if (vu.exports === null) throw new ScriptRunError(run.aborted, EXIT.scriptAborted);
        vu.initDone = true;
        shared.vusInitialized++;
        return vu;
      },
      iterate: (vu) => iterate(vu, s, ctx, run),
      iterateThen: (vu, next, fail) => iterateThen(vu, s, ctx, run, next, fail),
    });
    s.startedAt = 0;
    s.iterationsStarted = 0; // exec.scenario.iterationInTest: the scenario's, across its VUs
    s.progress = () => ctx.progress();
    return (async () => {
      if (s.startMs > 0) await sleep(s.startMs);
      if (run.aborted !== null) return;
      s.startedAt = Date.now();
      for (const vu of own) vu.initDone = true;
      await EXECUTORS[s.executor].run(s, ctx);
    })();
  });
}

// Thresholds with abortOnFail, evaluated every 2 s (k6's engine's thresholdsRate). With --cores each child watches its own
// share (the parent's figures come at the end). As k6's metrics engine: a metric with no sample
// yet is left out (a check's rate is not 0 before the first check), and the run stops when a
// threshold with abortOnFail has failed (past its delayAbortEval), naming every metric whose
// thresholds fail then.
function watchThresholds(run, thresholds) {
  if (run.remote !== null || !thresholds.some((t) => t.abortOnFail)) return null;
  return setInterval(() => {
    const elapsed = performance.now() - run.shared.testStartedAt;
    const failed = evaluateThresholds(thresholds.filter((t) => t.sink.count > 0), elapsed / 1000).filter((t) => !t.ok);
    if (failed.some((t) => t.abortOnFail && elapsed >= t.delayAbortEvalMs)) run.shared.abort(thresholdsAbort(failed));
  }, 2000);
}

const ABORTED_BY_THRESHOLDS = 'at least one has abortOnFail enabled, stopping test prematurely';

const thresholdsAbort = (failed) => `thresholds on metrics '${crossedMetrics(failed)}' were crossed; ${ABORTED_BY_THRESHOLDS}`;

/** Whether an abort's message is a threshold's (k6 then says nothing more of the thresholds). */
export const abortedByThresholds = (message) => typeof message === 'string' && message.endsWith(ABORTED_BY_THRESHOLDS);

// teardown() once, given setup()'s data anew (not the copy the VUs had). As in k6, its
// exception (or its timeout) comes after the summary, and is the run's exit code.
async function teardown(run, plan) {
  const { first, exports0, options } = plan;
  first.pastRun = true; // for handleSummary() too: k6/execution's instance is gone
  // k6 runs teardown() and handleSummary() each on a VU of its own: neither has the seed of a
  // randomSeed() before it.
  unseed(first);
  if (run.child || typeof exports0.teardown !== 'function' || options.noTeardown) return;
  try {
    await withinTime(inGroup(first, 'teardown', () => exports0.teardown(run.data === undefined ? undefined : JSON.parse(run.dataJson))), plan.teardownMs, 'teardown');
  } catch (err) {
    if (run.aborted !== null && err instanceof Interruption) return; // test.abort(): exit 108
    run.teardownFailure = err instanceof ScriptRunError ? err : new ScriptRunError(`teardown() failed: ${messageOf(err)}`, EXIT.scriptException);
  } finally {
    unseed(first);
  }
}

// setup()'s data goes to the VUs through Go's JSON in k6, whose objects are maps: their keys
// in order, at every depth.
function sortedKeys(_key, value) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const sorted = {};
  for (const k of Object.keys(value).sort()) sorted[k] = value[k];
  return sorted;
}

// setup() and teardown() each within its time (setupTimeout, teardownTimeout: 60 s by default),
// or the run ends with k6's line and exit code (100, 101).
function withinTime(promise, ms, place) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new ScriptRunError(timeoutMessage(place, ms), place === 'setup' ? EXIT.setupTimeout : EXIT.teardownTimeout)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}


// setup() and teardown() run in groups of their own, as in k6 (their checks show under them); as
// k6 v1.3 they count in no iteration_duration, and end with their data_sent and data_received.
async function inGroup(vu, name, fn) {
  vu.enterGroup(`::${name}`, name);
  // k6 v1.3 lists setup's and teardown's groups only when something was checked or grouped in
  // them (v0.49 always listed setup's).
  vu.shared.state.groupsByPath.get(`::${name}`).implicit = true;
  try {
    const r = await fn();
    if (vu.loop.busy) await vu.loop.settled();
    return r;
  } finally {
    vu.shared.state.io(vu, vu.tags());
    vu.groupPath = '';
  }
}

// A VU's exports; null when its init code aborted the test (exec.test.abort()).
async function initVU(factory, vu, run) {
  try {
    const exports = await factory(vu);
    unseed(vu);
    return run.aborted === null ? exports : null;
  } catch (err) {
    if (err instanceof ScriptRunError) throw err;
    if (run.aborted !== null) return null;
    throw new ScriptRunError(`the init context of VU ${vu.id} failed: ${messageOf(err)}`, EXIT.scriptException);
  }
}
