// --new-machine-readable-summary (K6_NEW_MACHINE_READABLE_SUMMARY): k6 v1.5's summary for
// programs, still opt-in in k6 v2.2, which handleSummary(data) gets and --summary-export writes
// instead of the legacy shape. It is the summary's totals as k6 prints them (the same metrics:
// compact leaves out the parts of a request's time, as it does on screen), each metric with a
// fixed set of values; no groups, scenarios, thresholds or setup data.
//
// The keys are those k6 v2.2 writes, which are not all the schema's (grafana/k6-summary 1.0.0):
// k6 hands the script its Go structs, whose fields its JS bridge names in snake case
// (generated_at, k6_version) and whose Trend percentiles are p90 and p95, not p(90) and p(95).
// Every object's keys come in k6's order (its Go fields', alphabetical), so that the two files
// compare line for line; only the order of the metrics differs (k6's follows Go's maps).

import { summaryReport } from './summary-report.js';

/** The schema's version k6 v2.2 writes. */
export const SCHEMA_VERSION = '1.0.0';
/** The k6 whose summary this is: what a consumer checking k6_version expects to find. */
export const K6_VERSION = '2.2.0';

// k6's categories of metrics, in the order it lists them (its summary's Go fields), under our
// summary's names for them (summary-report.js).
const CATEGORIES = ['http', 'execution', 'network', 'browser', 'web_vitals', 'grpc', 'websocket', 'custom'];
// The Trend statistics the format has, and their keys in it.
const TREND_KEYS = [['avg', 'avg'], ['max', 'max'], ['med', 'med'], ['min', 'min'], ['p(90)', 'p90'], ['p(95)', 'p95']];

/**
 * The machine-readable summary of a run. `data`: the summary data (summary-data.js); `state`:
 * the run's (its checks by name and, in full mode, its breakdown); `mode`: the summary's mode
 * ('compact' when there is none to print); `script`: the script's text, left out when unknown
 * (the shards' merge); `now`: the time it is made.
 */
export function machineReadable(data, state, { mode, script, now = new Date() }) {
  const report = summaryReport(data, state, mode === 'full' ? 'full' : 'compact');
  const trendStats = data.options.summaryTrendStats;
  const config = { duration: data.state.testRunDurationMs / 1000, execution: 'local' };
  if (script !== undefined) config.script = script;
  const checks = report.checks;
  return {
    config,
    metadata: { generated_at: now.toISOString(), k6_version: K6_VERSION },
    results: {
      // k6's order: total, failed, succeeded; none of them (and no check) without checks.
      checks: {
        metrics: checks === null ? [] : ['checks_total', 'checks_failed', 'checks_succeeded'].map((name) => metricOf(name, checks.metrics[name], trendStats)),
        results: checks === null ? [] : checks.ordered.map((c) => ({ fails: c.fails, name: c.name, passes: c.passes })),
      },
      metrics: CATEGORIES.flatMap((category) => sorted(Object.keys(report.metrics[category])).map((name) => metricOf(name, report.metrics[category][name], trendStats))),
    },
    version: SCHEMA_VERSION,
  };
}

function metricOf(name, m, trendStats) {
  return { contains: m.contains, name, type: m.type, values: valuesOf(m, trendStats) };
}

// k6's values of each type: a Counter's count alone (no rate), a Rate's passes as matches out
// of a total, and a Trend's six statistics, null for one the summary does not show (even when a
// threshold asked for it).
function valuesOf(m, trendStats) {
  const v = m.values;
  if (m.type === 'counter') return { count: v.count };
  if (m.type === 'gauge') return { max: v.max, min: v.min, value: v.value };
  if (m.type === 'rate') return { matches: v.passes, rate: v.rate, total: v.passes + v.fails };
  return Object.fromEntries(TREND_KEYS.map(([stat, key]) => [key, trendStats.includes(stat) && v[stat] !== undefined ? v[stat] : null]));
}

// A metric's sub-metrics right after it.
const parentOf = (name) => name.split('{', 1)[0];
const sorted = (names) => names.sort((a, b) => (parentOf(a) < parentOf(b) ? -1 : parentOf(a) > parentOf(b) ? 1 : a < b ? -1 : a > b ? 1 : 0));
