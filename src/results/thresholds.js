// Thresholds: pass/fail conditions on a result ("p99<50ms", "errors<1%", "rps>=5000"), so that
// a CI job fails when a run is too slow or too lossy. Parsed before the run (a typo must not cost
// a whole load test), checked on the final result (merged, for several cores or machines).

const EXPECTED = 'expected <metric><op><value>[unit], e.g. p99<50ms, errors<1%, rps>=5000';
const METRICS = 'p50, p99.9 or any pN (0 to 100), mean, min, max, errors, rps, or a phase\'s latency: connect.p99, tls.max, wait.p50, receive.mean';
// The request phases (src/run/stats.js), whose latency metrics are named `<phase>.<metric>`.
const PHASES = ['connect', 'tls', 'wait', 'receive'];
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
  // wait.p99: the latency metric after the dot, of that phase's histogram.
  const dot = name.indexOf('.');
  const phase = dot > 0 && PHASES.includes(name.slice(0, dot)) ? name.slice(0, dot) : undefined;
  const latency = phase === undefined ? name : name.slice(dot + 1);
  const pm = /^p(\d+(?:\.\d+)?)$/.exec(latency);
  if (pm || latency === 'mean' || latency === 'min' || latency === 'max') {
    if (unit && !(unit in LATENCY_UNITS)) throw bad(`latency takes us, µs, ms (the default) or s, not '${unit}'`);
    const percentile = pm ? Number(pm[1]) : undefined;
    if (pm && percentile > 100) throw bad('a percentile is between 0 and 100');
    // p99.90 and p99.9 are one metric.
    const metric = (phase === undefined ? '' : phase + '.') + (pm ? `p${percentile}` : latency);
    return { threshold, metric, op, limit, unit: unit === 'µs' ? 'us' : unit || 'ms', ...(pm ? { percentile } : {}), ...(phase ? { phase } : {}) };
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
  const h = t.phase === undefined ? result.histogram : result.phaseHistograms && result.phaseHistograms[t.phase];
  // No response, no latency: a latency limit cannot be said to hold (nor one on a phase that
  // never happened: tls over http, connect when no connection was opened).
  if (!h || h.count === 0) return null;
  const what = t.phase === undefined ? t.metric : t.metric.slice(t.phase.length + 1);
  let us;
  if (t.percentile !== undefined) us = h.percentile(t.percentile);
  else if (what === 'mean') us = h.mean();
  else if (what === 'min') us = h.count ? h.min : 0;
  else us = h.max;
  return Math.round(us) / LATENCY_UNITS[t.unit];
}

/** Each parsed threshold checked on a result: [{ threshold, metric, op, limit, unit, actual, passed }]. */
export function checkThresholds(parsed, result) {
  return parsed.map((t) => {
    const actual = actualOf(t, result);
    const passed = actual !== null && COMPARE[t.op](actual, t.limit);
    return { threshold: t.threshold, metric: t.metric, op: t.op, limit: t.limit, unit: t.unit, actual, passed, ...(t.phase ? { phase: t.phase } : {}) };
  });
}

/** "p99 = 12.4 ms", "errors = 1.5%", "rps = 4012": a checked threshold's actual value, for people. */
export function describeActual(t) {
  // To the µs that latency is recorded at; a percentage to three decimals.
  if (t.actual === null) return t.phase === undefined || t.phase === 'wait' || t.phase === 'receive' ? `${t.metric}: no responses` : `${t.metric}: no ${t.phase === 'tls' ? 'TLS handshake' : 'connection opened'}`;
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
