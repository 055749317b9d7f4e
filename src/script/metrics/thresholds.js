// Thresholds in k6's syntax: { 'http_req_duration': ['p(95)<200'], 'http_req_duration{status:200}':
// [{ threshold: 'avg<100', abortOnFail: true, delayAbortEval: '10s' }], 'checks': ['rate>0.99'] }.

import { parseDuration, formatDuration } from '../scenarios/duration.js';
import { COUNTER, GAUGE, RATE, TREND } from './metrics.js';

const EXPRESSION = /^\s*(avg|min|max|med|count|rate|value|p\(\d+(?:\.\d+)?\))\s*(<=|>=|===|==|!=|<|>)\s*(-?\d+(?:\.\d+)?)\s*$/;
const ALLOWED = {
  [COUNTER]: ['count', 'rate'],
  [GAUGE]: ['value'],
  [RATE]: ['rate'],
  [TREND]: ['avg', 'min', 'max', 'med', 'p'], // k6 v2.2 refuses count on a Trend (exit 104)
};

/** The thresholds of `options.thresholds`, bound to the registry's metrics (and sub-metrics). */
export function parseThresholds(spec, registry) {
  const out = [];
  for (const [key, list] of Object.entries(spec)) {
    const m = /^([^{]+)(?:\{(.*)\})?$/.exec(key.trim());
    if (!m) throw new Error(`threshold '${key}': not a metric name or name{tag:value}`);
    const metric = registry.metrics.get(m[1].trim());
    if (!metric) throw new Error(`invalid threshold defined on ${key}: no metric named '${m[1].trim()}' (a built-in one, or one the init code makes)`);
    const sink = m[2] !== undefined ? metric.sub(m[2]).sink : metric.sink;
    const items = Array.isArray(list) ? list : [list];
    for (const item of items) {
      const t = typeof item === 'string' ? { threshold: item } : item;
      if (!t || typeof t.threshold !== 'string') throw new Error(`threshold on ${key}: each is a string ('p(95)<200') or { threshold, abortOnFail, delayAbortEval }`);
      const e = EXPRESSION.exec(t.threshold);
      if (!e) throw new Error(`threshold on ${key}: '${t.threshold}' is not 'aggregation operator number' (p(95)<200, rate<0.01, count>10)`);
      const agg = e[1];
      const kind = agg.startsWith('p(') ? 'p' : agg;
      // k6 v2.1: a percentile is between 0 and 100, in its words.
      if (kind === 'p' && Number(agg.slice(2, -1)) > 100) throw new Error(`failed parsing threshold expression's "${t.threshold}" left hand side; reason: malformed percentile value, provide a number between 0 and 100`);
      if (!ALLOWED[metric.type].includes(kind)) throw new Error(`threshold on ${key}: '${agg}' does not apply to a ${metric.type} (use ${ALLOWED[metric.type].join(', ')})`);
      const delayAbortEvalMs = t.delayAbortEval ? parseDuration(t.delayAbortEval, `threshold on ${key}: delayAbortEval`) : 0;
      // The metric's own thresholds, as k6's --out json lists them with it (not its sub-metrics'):
      // one that aborts in its long form, its delay in Go's form.
      if (m[2] === undefined) metric.thresholds.push(t.abortOnFail ? { threshold: t.threshold, abortOnFail: true, delayAbortEval: t.delayAbortEval ? formatDuration(delayAbortEvalMs) : null } : t.threshold);
      out.push({
        key,
        metricName: key,
        source: t.threshold,
        agg,
        op: e[2],
        value: Number(e[3]),
        sink,
        metricType: metric.type,
        abortOnFail: Boolean(t.abortOnFail),
        delayAbortEvalMs,
      });
    }
  }
  return out;
}

function actual(t, seconds) {
  const s = t.sink;
  if (t.metricType === TREND) return s.trendStat(t.agg);
  const v = s.values(seconds);
  return v[t.agg];
}

const OPS = { '<': (a, b) => a < b, '<=': (a, b) => a <= b, '>': (a, b) => a > b, '>=': (a, b) => a >= b, '==': (a, b) => a === b, '===': (a, b) => a === b, '!=': (a, b) => a !== b };

/**
 * Each threshold with `ok` and its `actual` value now. As k6's: a Rate without a sample has no
 * rate to compare (its 0 is only shown), and its thresholds pass.
 */
export function evaluateThresholds(thresholds, seconds) {
  return thresholds.map((t) => {
    const a = actual(t, seconds);
    return { ...t, actual: a, ok: (t.metricType === RATE && t.sink.count === 0) || OPS[t.op](a, t.value) };
  });
}

/** The metrics of failed thresholds as k6 names them in its messages: sorted, joined by ', '. */
export const crossedMetrics = (failed) => [...new Set(failed.map((t) => t.key))].sort().join(', ');
