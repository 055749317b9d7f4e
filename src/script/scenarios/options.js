// A script's options against k6 v1.3's (lib/options.go): each one is honored, or refused before
// the run with one line naming it; none is taken and then ignored. doc/scripts.md#options has
// the table and why each refused one is.

// Honored: the run does what k6 does with them.
const HONORED = new Set([
  'vus', 'duration', 'iterations', 'stages', 'scenarios', 'thresholds', 'tags',
  'summaryTrendStats', 'summaryTimeUnit', 'insecureSkipTLSVerify', 'maxRedirects', 'userAgent',
  'discardResponseBodies', 'setupTimeout', 'teardownTimeout', 'handleSummaryTimeout', 'noSetup', 'noTeardown',
  'hosts', 'blockHostnames', 'blacklistIPs', 'noConnectionReuse', 'noVUConnectionReuse', 'noCookiesReset',
  'batch', 'batchPerHost', 'rps', 'throw', 'minIterationDuration', 'httpDebug', 'systemTags',
  'tlsVersion', 'tlsCipherSuites', 'tlsAuth',
  // The config file's (src/commands/run-features.js); a script's are warned of (scriptFeatures).
  'features',
]);

// k6 itself uses these only for k6 Cloud: a local `k6 run` ignores them, and so does this one.
const CLOUD_ONLY = new Set(['cloud', 'ext']);

// k6's options that loadtest does not do yet, and what a script may do instead. Each is taken
// at the value that asks for what happens here anyway (`noConnectionReuse: false`, as many
// scripts write it, or an empty list): `as` says which.
const off = (v) => v === false || v === null;
const none = (v) => v === null || (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && Object.keys(v).length === 0);
const REFUSED = {
  paused: ['a run starts at once here', off],
  executionSegment: ['give loadtest run --shard I/N', (v) => v === null || v === '' || v === '0:1'],
  executionSegmentSequence: ['give loadtest run --shard I/N', (v) => v === null || v === ''],
  dns: ["the runtime's resolver is used", none],
  metricSamplesBufferSize: ['samples are not buffered that way here', () => false],
};

/**
 * `object` with its keys named as `known` names them when they differ only in case (`VUs`,
 * `preAllocatedVus`): k6 reads its options with Go's encoding/json, which matches a field's name
 * whatever its case (an exact name first).
 */
export function foldedNames(object, known) {
  if (!object || typeof object !== 'object' || Array.isArray(object)) return object;
  const lower = new Map(known.map((k) => [k.toLowerCase(), k]));
  const out = {};
  for (const [k, v] of Object.entries(object)) {
    const name = known.includes(k) ? k : lower.get(k.toLowerCase()) ?? k;
    if (!(name in out) || name === k) out[name] = v;
  }
  return out;
}

/** The script's options with k6's names (foldedNames). */
export function k6Names(options) {
  return foldedNames(options, [...HONORED, ...CLOUD_ONLY, ...Object.keys(REFUSED)]);
}

/**
 * Checks `options` (the script's, after the flags): throws the first refused one's line, and
 * `warn(line)`s the names that are no k6 option, as k6 does (and ignores them, as k6 does).
 */
export function checkOptions(options, warn) {
  checkValues(options);
  const unknown = [];
  for (const key of Object.keys(options)) {
    if (options[key] === undefined || HONORED.has(key) || CLOUD_ONLY.has(key) || INTERNAL.has(key)) continue;
    if (Object.hasOwn(REFUSED, key)) {
      const [why, asHere] = REFUSED[key];
      if (asHere(options[key])) continue;
      throw new Error(`the option '${key}' is not supported by loadtest run (${why}): leave it out`);
    }
    unknown.push(key);
  }
  if (unknown.length) warn(`there were unknown fields in the options exported in the script: ${unknown.join(', ')} (not k6 options: nothing uses them)`);
}

/**
 * k6 v2.2's warning for feature flags in the script's own options (`options`, k6's names): it
 * takes them from --features, K6_FEATURES or the config file only. Null when there are none.
 */
export function scriptFeatures(options) {
  const f = options.features;
  return Array.isArray(f) && f.length > 0 ? 'Feature flags in script options are not supported; use --features, K6_FEATURES, or the JSON config' : null;
}

// The honored options whose values are not checked where they are used: k6's types for them.
function checkValues(o) {
  for (const k of ['batch', 'batchPerHost', 'rps']) numberOption(o[k], k);
  for (const k of ['noConnectionReuse', 'noVUConnectionReuse', 'noCookiesReset', 'throw']) {
    if (o[k] !== undefined && o[k] !== null && typeof o[k] !== 'boolean') throw new Error(`${k}: true or false, not ${JSON.stringify(o[k])}`);
  }
  if (o.httpDebug !== undefined && o.httpDebug !== null && typeof o.httpDebug !== 'string' && typeof o.httpDebug !== 'boolean') throw new Error(`httpDebug: 'headers' or 'full', not ${JSON.stringify(o.httpDebug)}`);
}

/** A whole number option (batch, rps) that may be written as a string of digits, as k6 reads it; 0 when unset. */
export function numberOption(value, what) {
  if (value === undefined || value === null) return 0;
  const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  if (!Number.isInteger(n) || n < 0) throw new Error(`${what}: a whole number, not ${JSON.stringify(value)}`);
  return n;
}

// What the command line puts in the options besides k6's own.
const INTERNAL = new Set(['noThresholds']);
