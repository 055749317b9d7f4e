// src/script/scenarios/: options, their tiers, scenarios and their executors.
// A script's scenarios from its options, as k6 makes them: `scenarios` as given, or one scenario
// named 'default' from the shortcuts (vus, duration, iterations, stages); each checked and given
// k6's defaults before anything runs, so that a wrong option is one line before the run.

import { parseDuration, formatDuration } from './duration.js';
import { foldedNames } from './options.js';
import { split } from '../../run/cores.js';
import { systemTagsJSON } from './system-tags.js';

const COMMON = ['executor', 'startTime', 'gracefulStop', 'exec', 'env', 'tags', 'options'];
const EXECUTORS = {
  'shared-iterations': ['vus', 'iterations', 'maxDuration'],
  'per-vu-iterations': ['vus', 'iterations', 'maxDuration'],
  'constant-vus': ['vus', 'duration'],
  // k6 v1's, which k6 v2.0 removed (scenariosOf says so): its VUs for its duration, 0 for ever.
  'externally-controlled': ['vus', 'maxVUs', 'duration'],
  'ramping-vus': ['startVUs', 'stages', 'gracefulRampDown'],
  'constant-arrival-rate': ['rate', 'timeUnit', 'duration', 'preAllocatedVUs', 'maxVUs'],
  'ramping-arrival-rate': ['startRate', 'timeUnit', 'stages', 'preAllocatedVUs', 'maxVUs'],
};

// k6 reads its whole numbers as Go does (strconv.ParseInt): a string of digits is one, as every
// __ENV value is a string (`rate: __ENV.RPS`); '5.5' or 'x' is refused.
const whole = (v) => (typeof v === 'string' && /^[+-]?\d+$/.test(v) ? Number(v) : v);

const int = (v, what, min = 0) => {
  v = whole(v);
  if (!Number.isInteger(v) || v < min) throw new Error(`${what} must be a whole number${min ? ` of at least ${min}` : ''}, not ${JSON.stringify(v)}`);
  return v;
};

function stagesOf(stages, what) {
  if (!Array.isArray(stages) || stages.length === 0) throw new Error(`${what}: stages must be a list of { duration, target }`);
  return stages.map((s, i) => {
    if (!s || typeof s !== 'object') throw new Error(`${what}: stage ${i + 1} must be { duration, target }`);
    // As k6 (null durations and targets): a stage without a duration lasts 0, without a target
    // goes to 0 (`{ thresholds: ... }` in the list of stages, as scripts have it).
    const ms = s.duration === undefined || s.duration === null ? 0 : parseDuration(s.duration, `${what}: stage ${i + 1}'s duration`);
    return { ms, target: s.target === undefined || s.target === null ? 0 : int(s.target, `${what}: stage ${i + 1}'s target`) };
  });
}

// The scenarios as given, or the one named 'default' the shortcuts make, as k6 v2.2 derives it
// (lib/executor/execution_config_shortcuts.go), in its order: iterations, a duration, stages,
// then VUs alone (v2.1: as many iterations shared among them, over any scenarios), then the
// scenarios. A shortcut beside scenarios or stages of the same tier is refused (option-tiers.js
// drops a lower tier's). What is not given is left out (k6's null), the defaults come with
// scenario() below. With none of them, k6 runs 1 iteration of 1 VU as a per-vu-iterations scenario.
function givenScenarios(o, warn = () => {}) {
  const given = (v) => v !== undefined && v !== null;
  const conflict = (a, b) => new Error(`using \`${a}\` and \`${b}\` options simultaneously is not allowed`);
  const hasStages = Array.isArray(o.stages) && o.stages.length > 0;
  if (given(o.iterations)) {
    if (hasStages) throw conflict('iterations', 'stages');
    if (given(o.scenarios)) throw conflict('iterations', 'scenarios');
    return { default: { executor: 'shared-iterations', vus: o.vus, iterations: o.iterations, maxDuration: given(o.duration) ? o.duration : undefined } };
  }
  if (given(o.duration)) {
    if (hasStages) throw conflict('duration', 'stages');
    if (given(o.scenarios)) throw conflict('duration', 'scenarios');
    if (parseDuration(o.duration, 'duration') <= 0) throw new Error('`duration` option should be more than 0, for infinite duration use the externally-controlled executor');
    return { default: { executor: 'constant-vus', vus: o.vus, duration: o.duration } };
  }
  if (hasStages) {
    if (given(o.scenarios)) throw conflict('stages', 'scenarios');
    return { default: { executor: 'ramping-vus', startVUs: o.vus, stages: o.stages } };
  }
  if (given(o.vus) && !given(o.stages)) {
    if (given(o.scenarios)) warn(`\`vus=${o.vus}\` overrides scenarios configuration`);
    return { default: { executor: 'shared-iterations', vus: o.vus, iterations: o.vus } };
  }
  if (o.scenarios && Object.keys(o.scenarios).length) return o.scenarios;
  if (Array.isArray(o.stages)) warn('`stages` was explicitly set to an empty value, running the script with 1 iteration in 1 VU');
  if (given(o.scenarios)) warn('`scenarios` was explicitly set to an empty value, running the script with 1 iteration in 1 VU');
  return { default: { executor: 'per-vu-iterations' } };
}

/** The scenarios of `options` (after flags were applied): [{ name, executor, ..., ms values }]. */
export function scenariosOf(options, warn = () => {}) {
  const list = Object.entries(givenScenarios(options, warn)).map(([name, s]) => scenario(name, s));
  if (list.some((s) => s.executor === 'externally-controlled')) warn('the externally-controlled executor was removed in k6 v2.0: run as k6 v1 ran it, its VUs looping for its duration (there is no REST API here to scale or pause it)');
  return list;
}

// A scenario's keys in the order k6's configs have them (env before exec), and those that are
// durations, which k6 gives in Go's form ('1m' is "1m0s").
const K6_KEYS = ['executor', 'startTime', 'gracefulStop', 'env', 'exec', 'tags'];
const DURATIONS = new Set(['startTime', 'gracefulStop', 'maxDuration', 'duration', 'gracefulRampDown', 'timeUnit']);

/**
 * exec.test.options: the options as k6 consolidates them before the run, the shortcuts (vus,
 * duration, iterations, stages) turned into the scenario they make; each scenario with every
 * key of its executor, null where not given. Frozen, as k6's.
 */
export function consolidatedOptions(options) {
  const { vus, duration, iterations, stages, scenarios, ...rest } = options;
  const out = {};
  for (const [name, given] of Object.entries(givenScenarios(options))) {
    const s = given && typeof given === 'object' ? foldedNames(given, [...new Set([...COMMON, ...Object.values(EXECUTORS).flat()])]) : {};
    const c = {};
    for (const k of [...K6_KEYS, ...(EXECUTORS[s.executor] || [])]) {
      const v = s[k];
      if (v === undefined || v === null) c[k] = null;
      else if (DURATIONS.has(k)) c[k] = formatDuration(parseDuration(v, k));
      else if (k === 'stages' && Array.isArray(v)) c[k] = v.map((x) => ({ duration: x.duration == null ? null : formatDuration(parseDuration(x.duration, 'stage')), target: x.target == null ? null : whole(x.target) }));
      else c[k] = k === 'env' || k === 'tags' || k === 'exec' || k === 'executor' ? v : whole(v);
    }
    out[name] = c;
  }
  // As k6 gives them: every option of its Options, null where not given, through JSON (Go's
  // json.Marshal, then JSON.parse), frozen all through.
  const all = {};
  for (const k of K6_OPTIONS) {
    const v = k === 'scenarios' ? out : rest[k];
    if (k === 'dns') all.dns = { ttl: null, select: null, policy: null, ...(v || {}) };
    else if (v === undefined || v === null || k === 'features') all[k] = OPTION_DEFAULTS[k] ?? null;
    else if (k === 'systemTags') all[k] = systemTagsJSON(v);
    else all[k] = OPTION_DURATIONS.has(k) ? formatDuration(parseDuration(v, k)) : v;
  }
  return deepFreeze(JSON.parse(JSON.stringify(all)));
}

// k6 v2.2's Options (lib/options.go) in its order, as exec.test.options lists them; the
// defaults it shows, and the durations it shows in Go's form. `features` in a script's options
// is not taken (k6: "not supported"; --features and K6_FEATURES are).
const K6_OPTIONS = ['paused', 'scenarios', 'executionSegment', 'executionSegmentSequence', 'noSetup', 'setupTimeout', 'noTeardown', 'teardownTimeout', 'handleSummaryTimeout', 'rps', 'dns', 'maxRedirects', 'userAgent', 'batch', 'batchPerHost', 'httpDebug', 'insecureSkipTLSVerify', 'tlsCipherSuites', 'tlsVersion', 'tlsAuth', 'throw', 'thresholds', 'blacklistIPs', 'blockHostnames', 'hosts', 'noConnectionReuse', 'noVUConnectionReuse', 'minIterationDuration', 'ext', 'summaryTrendStats', 'summaryTimeUnit', 'systemTags', 'tags', 'metricSamplesBufferSize', 'noCookiesReset', 'discardResponseBodies', 'features', 'consoleOutput', 'localIPs'];
const OPTION_DEFAULTS = {
  summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)'],
  systemTags: ['check', 'error', 'error_code', 'expected_response', 'group', 'method', 'name', 'proto', 'scenario', 'service', 'status', 'subproto', 'tls_version', 'url'],
};
const OPTION_DURATIONS = new Set(['setupTimeout', 'teardownTimeout', 'handleSummaryTimeout', 'minIterationDuration']);

function deepFreeze(v) {
  if (v && typeof v === 'object') {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

// A scenario's options.browser.type (k6/browser's VUs): 'chromium', the one k6 has; or null.
function browserType(options, what) {
  if (options === undefined || options === null) return null;
  if (typeof options !== 'object') throw new Error(`${what}: options must be an object`);
  for (const k of Object.keys(options)) if (k !== 'browser') throw new Error(`${what}: options.${k} is not a scenario option (browser is)`);
  const type = options.browser?.type;
  if (type === undefined) return null;
  if (type !== 'chromium') throw new Error(`${what}: unsupported browser type: ${type}`);
  return type;
}

function scenario(name, s) {
  const what = `scenario '${name}'`;
  if (!/^[A-Za-z0-9_-]+$/.test(name)) throw new Error(`${what}: a scenario's name may only hold letters, digits, _ and -`);
  if (!s || typeof s !== 'object') throw new Error(`${what} must be an object`);
  // Names as k6 reads them: whatever their case (preAllocatedVus).
  s = foldedNames(s, [...new Set([...COMMON, ...Object.values(EXECUTORS).flat()])]);
  if (Array.isArray(s.stages)) s = { ...s, stages: s.stages.map((x) => foldedNames(x, ['duration', 'target'])) };
  const keys = EXECUTORS[s.executor];
  if (!keys) throw new Error(`${what}: executor '${s.executor}' is not one of ${Object.keys(EXECUTORS).join(', ')}`);
  for (const k of Object.keys(s)) if (!COMMON.includes(k) && !keys.includes(k)) throw new Error(`${what}: '${k}' is not an option of ${s.executor}`);
  const c = {
    name,
    executor: s.executor,
    startMs: s.startTime === undefined ? 0 : parseDuration(s.startTime, `${what}: startTime`),
    gracefulStopMs: s.gracefulStop === undefined ? 30000 : parseDuration(s.gracefulStop, `${what}: gracefulStop`),
    exec: s.exec === undefined ? 'default' : String(s.exec),
    env: s.env || {},
    tags: s.tags || {},
    browser: browserType(s.options, what),
  };
  switch (s.executor) {
    case 'shared-iterations':
    case 'per-vu-iterations':
      c.vus = int(s.vus ?? 1, `${what}: vus`, 1);
      c.iterations = int(s.iterations ?? 1, `${what}: iterations`, 1);
      c.maxDurationMs = atLeastASecond(parseDuration(s.maxDuration ?? '10m', `${what}: maxDuration`), 'maxDuration', what);
      if (s.executor === 'shared-iterations' && c.iterations < c.vus) throw new Error(`${what}: ${c.iterations} iterations cannot be shared by ${c.vus} VUs (k6: iterations must be at least vus)`);
      c.maxVUs = c.vus;
      break;
    case 'constant-vus':
      c.vus = int(s.vus ?? 1, `${what}: vus`, 1);
      if (s.duration === undefined) throw new Error(`${what}: constant-vus needs a duration`);
      c.durationMs = atLeastASecond(parseDuration(s.duration, `${what}: duration`), 'duration', what);
      c.maxVUs = c.vus;
      break;
    case 'externally-controlled':
      externallyControlled(c, s, what);
      break;
    case 'ramping-vus':
      c.startVUs = int(s.startVUs ?? 1, `${what}: startVUs`);
      c.stages = stagesOf(s.stages, what);
      c.gracefulRampDownMs = s.gracefulRampDown === undefined ? 30000 : parseDuration(s.gracefulRampDown, `${what}: gracefulRampDown`);
      c.maxVUs = Math.max(c.startVUs, ...c.stages.map((x) => x.target));
      if (c.maxVUs < 1) throw new Error(`${what}: the stages never ask for a VU`);
      break;
    case 'constant-arrival-rate':
    case 'ramping-arrival-rate':
      c.timeUnitMs = parseDuration(s.timeUnit ?? '1s', `${what}: timeUnit`);
      if (!(c.timeUnitMs > 0)) throw new Error(`${what}: timeUnit must be above 0`);
      c.preAllocatedVUs = int(s.preAllocatedVUs, `${what}: preAllocatedVUs`, 0);
      c.maxVUs = s.maxVUs === undefined ? c.preAllocatedVUs : int(s.maxVUs, `${what}: maxVUs`, 0);
      if (c.maxVUs < c.preAllocatedVUs) throw new Error(`${what}: maxVUs (${c.maxVUs}) is below preAllocatedVUs (${c.preAllocatedVUs})`);
      if (c.maxVUs < 1) throw new Error(`${what}: needs at least one VU (preAllocatedVUs)`);
      if (s.executor === 'constant-arrival-rate') {
        // k6 refuses 5.5 as it refuses '5.5': a rate is a whole number of iterations per timeUnit.
        c.rate = int(s.rate, `${what}: rate`, 1);
        if (s.duration === undefined) throw new Error(`${what}: constant-arrival-rate needs a duration`);
        c.durationMs = atLeastASecond(parseDuration(s.duration, `${what}: duration`), 'duration', what);
      } else {
        c.startRate = int(s.startRate ?? 0, `${what}: startRate`);
        c.stages = stagesOf(s.stages, what);
      }
      break;
  }
  return c;
}

// As k6 (lib/executor's minDuration): a duration or maxDuration under a second is refused.
function atLeastASecond(ms, name, what) {
  if (ms < 1000) throw new Error(`${what}: the ${name} must be at least 1s, but is ${formatDuration(ms)}`);
  return ms;
}

// k6 v1.3's checks of it (lib/executor/externally_controlled.go), in its words; run as its VUs
// looping for its duration, which k6 v1 did but for its REST API (k6 scale, pause), not here.
function externallyControlled(c, s, what) {
  c.vus = int(s.vus ?? 0, `${what}: vus`, 0);
  c.maxVUs = s.maxVUs === undefined || s.maxVUs === null ? c.vus : int(s.maxVUs, `${what}: maxVUs`, 0);
  if (c.maxVUs < c.vus) throw new Error(`${what}: the number of active VUs (${c.vus}) must be less than or equal to the number of maxVUs (${c.maxVUs})`);
  if (s.gracefulStop !== undefined) throw new Error(`${what}: gracefulStop is not supported by the externally controlled executor`);
  if (s.duration === undefined || s.duration === null) throw new Error(`${what}: the duration must be specified, for infinite duration use 0`);
  const ms = parseDuration(s.duration, `${what}: duration`);
  if (ms < 0) throw new Error(`${what}: the duration can't be negative, for infinite duration use 0`);
  c.durationMs = ms === 0 ? Infinity : ms;
  c.gracefulStopMs = 0;
}

/** How long a scenario runs at most, without its gracefulStop. */
export function scenarioMs(c) {
  if (c.durationMs !== undefined) return c.durationMs;
  if (c.maxDurationMs !== undefined) return c.maxDurationMs;
  return c.stages.reduce((a, s) => a + s.ms, 0);
}

/**
 * Share `index` of `count` of a checked scenario (--cores), as k6's execution segments make one:
 * the shares add up to the whole. VUs are taken in turn (slot j to share j mod count); a
 * share's shared iterations are those of its VUs; ramping-vus runs its slots of the global
 * target; an arrival rate starts iterations index, index + count, ... of the global schedule.
 */
export function segmentOf(s, index, count) {
  const share = (n) => split(n, count)[index];
  const c = { ...s, segment: { index, count } };
  switch (s.executor) {
    case 'shared-iterations': {
      // Iterations per VU as evenly as they go, then this share's VUs' worth of them.
      const perVU = split(s.iterations, s.vus);
      c.vus = share(s.vus);
      const shareOf = (i) => perVU.filter((_, j) => j % count === i).reduce((a, n) => a + n, 0);
      c.iterations = shareOf(index);
      // exec.scenario.iterationInTest: this share's run of the scenario's 0 … iterations - 1.
      for (let i = 0; i < index; i++) c.iterationOffset = (c.iterationOffset || 0) + shareOf(i);
      c.iterationOffset = c.iterationOffset || 0;
      c.maxVUs = c.vus;
      break;
    }
    case 'per-vu-iterations':
    case 'constant-vus':
      c.vus = share(s.vus);
      c.maxVUs = c.vus;
      break;
    case 'externally-controlled':
      c.vus = share(s.vus);
      c.maxVUs = share(s.maxVUs);
      break;
    case 'ramping-vus':
      c.maxVUs = share(s.maxVUs);
      break;
    default:
      c.preAllocatedVUs = share(s.preAllocatedVUs);
      c.maxVUs = share(s.maxVUs);
  }
  return c;
}

/** The global slot (a ramping-vus VU's place, an arrival-rate iteration) of local slot k. */
export const globalSlot = (s, k) => (s.segment ? k * s.segment.count + s.segment.index : k);

/** How many of the first `n` global slots are this share's. */
export function localCount(s, n) {
  if (!s.segment) return n;
  const { index, count } = s.segment;
  return n > index ? Math.floor((n - 1 - index) / count) + 1 : 0;
}
