// The types of a script's options, as k6 v2.2 reads them: with Go's encoding/json into its
// Options struct (lib/options.go), whose fields are gopkg.in/guregu/null's Int, Bool and String,
// durations, lists and maps. A value of the wrong type stops k6 before the run (exit 104) with
// Go's words for it, where a check of ours would take it or say something else: `vus: 'abc'`
// ran here with a warning. What each value then means is checked where it is used.

const INT = ['vus', 'iterations', 'rps', 'maxRedirects', 'batch', 'batchPerHost', 'metricSamplesBufferSize'];
const BOOL = ['paused', 'noSetup', 'noTeardown', 'insecureSkipTLSVerify', 'throw', 'noConnectionReuse', 'noVUConnectionReuse', 'noCookiesReset', 'discardResponseBodies'];
const STRING = ['userAgent', 'httpDebug', 'summaryTimeUnit'];
const DURATION = ['duration', 'setupTimeout', 'teardownTimeout', 'handleSummaryTimeout', 'minIterationDuration'];
const STRINGS = ['summaryTrendStats', 'features'];
const STRING_MAPS = ['tags', 'hosts'];

// Go's json names a JavaScript value's kind so.
const jsonKind = (v) => (v === true || v === false ? 'bool' : typeof v === 'number' ? 'number' : typeof v === 'string' ? 'string' : Array.isArray(v) ? 'array' : 'object');
// And null's Unmarshal names the value it got by its Go type.
const goKind = (v) => (typeof v === 'number' ? 'float64' : jsonKind(v));

/**
 * Throws, for the first option of `options` (k6's names) whose type k6 refuses, its name and
 * Go's words ("options.vus: strconv.ParseInt: parsing "abc": invalid syntax").
 */
export function checkOptionTypes(options) {
  const at = (name, check) => {
    try {
      check();
    } catch (err) {
      throw new Error(`options.${name}: ${err.message}`);
    }
  };
  for (const name of INT) at(name, () => checkInt(options[name], `Options.${name}`));
  for (const name of BOOL) at(name, () => checkNull(options[name], 'boolean', 'null.Bool'));
  for (const name of STRING) at(name, () => checkNull(options[name], 'string', 'null.String'));
  for (const name of DURATION) at(name, () => checkDuration(options[name]));
  for (const name of [...STRINGS, 'blockHostnames']) at(name, () => checkList(options[name], `Options.${name}`, 'string', (v) => typeof v === 'string'));
  for (const name of STRING_MAPS) at(name, () => checkStringMap(options[name], `Options.${name}`));
  at('stages', () => checkStages(options.stages, 'Options.stages'));
  at('thresholds', () => checkThresholds(options.thresholds));
  const scenarios = options.scenarios;
  if (!scenarios || typeof scenarios !== 'object' || Array.isArray(scenarios)) return;
  for (const [key, s] of Object.entries(scenarios)) {
    if (!s || typeof s !== 'object') continue;
    for (const name of ['vus', 'iterations', 'maxVUs', 'preAllocatedVUs', 'startVUs', 'rate', 'startRate']) at(`scenarios.${key}.${name}`, () => checkInt(s[name], `Options.scenarios.${name}`));
    at(`scenarios.${key}.stages`, () => checkStages(s.stages, 'Options.scenarios.stages'));
  }
}

// null.Int: a whole number, a string strconv.ParseInt reads, or null.
function checkInt(v, field) {
  if (v === undefined || v === null) return;
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) throw new Error(`json: cannot unmarshal number ${v} into Go struct field ${field} of type int64`);
    return;
  }
  if (typeof v === 'string') {
    if (!/^[+-]?[0-9]+$/.test(v)) throw new Error(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
    if (Math.abs(Number(v)) > 2 ** 63 - 1) throw new Error(`strconv.ParseInt: parsing ${JSON.stringify(v)}: value out of range`);
    return;
  }
  if (typeof v === 'boolean') throw new Error('json: cannot unmarshal bool into Go value of type null.Int');
  // An object is read as nothing (k6 goes on to say there are no VUs); an array is refused.
  if (Array.isArray(v)) throw new Error('json: cannot unmarshal  into Go value of type null.Int');
}

// null.Bool and null.String: their own type or null (an object is taken as unset, as null's
// Unmarshal does).
function checkNull(v, type, goType) {
  if (v === undefined || v === null || typeof v === type || (typeof v === 'object' && !Array.isArray(v))) return;
  throw new Error(`json: cannot unmarshal ${goKind(v)} into Go value of type ${goType}`);
}

// types.NullDuration: a string (read where it is used) or a number of milliseconds.
function checkDuration(v) {
  if (v === undefined || v === null || typeof v === 'string' || typeof v === 'number') return;
  throw new Error(`'${typeof v === 'object' ? JSON.stringify(v) : String(v)}' is not a valid duration value`);
}

function checkList(v, field, itemType, ok) {
  if (v === undefined || v === null) return;
  if (!Array.isArray(v)) throw new Error(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${field} of type []${itemType}`);
  const bad = v.find((x) => x !== null && !ok(x));
  if (bad !== undefined) throw new Error(`json: cannot unmarshal ${jsonKind(bad)} into Go struct field ${field} of type ${itemType}`);
}

function checkStringMap(v, field) {
  if (v === undefined || v === null) return;
  if (typeof v !== 'object' || Array.isArray(v)) throw new Error(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${field} of type map[string]string`);
  for (const x of Object.values(v)) {
    if (x !== null && typeof x !== 'string') throw new Error(`json: cannot unmarshal ${jsonKind(x)} into Go struct field ${field} of type string`);
  }
}

function checkStages(v, field) {
  if (v === undefined || v === null) return;
  if (!Array.isArray(v)) throw new Error(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${field} of type []lib.Stage`);
  for (const stage of v) if (stage && typeof stage === 'object') checkInt(stage.target, `${field}.target`);
}

// thresholds: a list of expressions (or of { threshold, abortOnFail, delayAbortEval }) a metric.
function checkThresholds(v) {
  if (v === undefined || v === null) return;
  if (typeof v !== 'object' || Array.isArray(v)) throw new Error(`json: cannot unmarshal ${jsonKind(v)} into Go struct field Options.thresholds of type map[string]metrics.Thresholds`);
  for (const list of Object.values(v)) {
    if (list !== null && !Array.isArray(list)) throw new Error(`json: cannot unmarshal ${jsonKind(list)} into Go struct field Options.thresholds of type []metrics.thresholdConfig`);
  }
}
