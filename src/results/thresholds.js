// Thresholds: pass/fail conditions on a result ("p99<50ms", "errors<1%", "rps>=5000"), so that
// a CI job fails when a run is too slow or too lossy. Parsed before the run (a typo must not cost
// a whole load test), checked on the final result (merged, for several cores or machines).

const EXPECTED = 'expected <metric><op><value>[unit], e.g. p99<50ms, errors<1%, rps>=5000';
const METRICS = 'p50, p99.9 or any pN (0 to 100), mean, min, max, errors, rps';
// Latency units, in µs each.
const LATENCY_UNITS = { us: 1, µs: 1, ms: 1000, s: 1000000 };

const SYNTAX = /^\s*([a-z][a-z0-9.]*)\s*(<=|>=|<|>)\s*(\d+(?:\.\d*)?|\.\d+)\s*(\S*)\s*$/i;

/** One threshold's text as { threshold, metric, op, limit, unit, percentile? }; throws a one-line Error. */
export function parseThreshold(text) {
  const bad = (why) => new Error(`threshold '${text}': ${why}`);
  if (typeof text !== 'string') throw new Error(`threshold ${JSON.stringify(text)}: must be a string, ${EXPECTED}`);
  const m = SYNTAX.exec(text);
  if (!m) throw bad(EXPECTED);
  const name = m[1].toLowerCase();
  const op = m[2];
  const limit = Number(m[3]);
  const unit = m[4];
  const threshold = text.trim();
  const pm = /^p(\d+(?:\.\d+)?)$/.exec(name);
  if (pm || name === 'mean' || name === 'min' || name === 'max') {
    if (unit && !(unit in LATENCY_UNITS)) throw bad(`latency takes us, µs, ms (the default) or s, not '${unit}'`);
    const percentile = pm ? Number(pm[1]) : undefined;
    if (pm && percentile > 100) throw bad('a percentile is between 0 and 100');
    // p99.90 and p99.9 are one metric.
    const metric = pm ? `p${percentile}` : name;
    return { threshold, metric, op, limit, unit: unit === 'µs' ? 'us' : unit || 'ms', ...(pm ? { percentile } : {}) };
  }
  if (name === 'errors') {
    if (unit && unit !== '%') throw bad(`errors are a count (errors<10) or a percentage (errors<1%), not '${unit}'`);
    if (unit === '%' && limit > 100) throw bad('a percentage is between 0 and 100');
    return { threshold, metric: 'errors', op, limit, unit };
  }
  if (name === 'rps') {
    if (unit) throw bad(`rps takes no unit, not '${unit}'`);
    return { threshold, metric: 'rps', op, limit, unit: '' };
  }
  throw bad(`unknown metric '${m[1]}' (${METRICS})`);
}

/** The API's `thresholds` option (a string or an array of them), parsed; [] when absent. */
export function parseThresholds(option) {
  if (option === undefined || option === null) return [];
  if (typeof option === 'string') return [parseThreshold(option)];
  if (!Array.isArray(option)) throw new Error('thresholds must be a string or an array of strings, e.g. [\'p99<50ms\', \'errors<1%\']');
  return option.map(parseThreshold);
}

const COMPARE = {
  '<': (a, b) => a < b,
  '<=': (a, b) => a <= b,
  '>': (a, b) => a > b,
  '>=': (a, b) => a >= b,
};

// The metric's value in the threshold's unit. Latency comes from the histogram in whole µs, the
// resolution it records at.
function actualOf(t, result) {
  if (t.metric === 'rps') return result.effectiveRps;
  if (t.metric === 'errors') {
    if (t.unit !== '%') return result.totalErrors;
    return result.totalRequests > 0 ? (result.totalErrors / result.totalRequests) * 100 : 0;
  }
  const h = result.histogram;
  // No response, no latency: a latency limit cannot be said to hold.
  if (!h || h.count === 0) return null;
  let us;
  if (t.percentile !== undefined) us = h.percentile(t.percentile);
  else if (t.metric === 'mean') us = h.mean();
  else if (t.metric === 'min') us = h.count ? h.min : 0;
  else us = h.max;
  return Math.round(us) / LATENCY_UNITS[t.unit];
}

/** Each parsed threshold checked on a result: [{ threshold, metric, op, limit, unit, actual, passed }]. */
export function checkThresholds(parsed, result) {
  return parsed.map((t) => {
    const actual = actualOf(t, result);
    const passed = actual !== null && COMPARE[t.op](actual, t.limit);
    return { threshold: t.threshold, metric: t.metric, op: t.op, limit: t.limit, unit: t.unit, actual, passed };
  });
}

/** "p99 = 12.4 ms", "errors = 1.5%", "rps = 4012": a checked threshold's actual value, for people. */
export function describeActual(t) {
  // To the µs that latency is recorded at; a percentage to three decimals.
  if (t.actual === null) return `${t.metric}: no responses`;
  const f = t.unit === 's' ? 1e6 : 1e3;
  const value = Math.round(t.actual * f) / f;
  if (t.unit === '%') return `${t.metric} = ${value}%`;
  return `${t.metric} = ${value}${t.unit ? ` ${t.unit}` : ''}`;
}

/** One line naming the failed thresholds of a result's `thresholds`, or null when none failed. */
export function failedThresholds(checked = []) {
  const failed = checked.filter((t) => !t.passed);
  if (failed.length === 0) return null;
  const list = failed.map((t) => `${t.threshold} (${describeActual(t)})`).join(', ');
  return `${failed.length} of ${checked.length} thresholds failed: ${list}`;
}
