// What k6 v1's end-of-test summary shows (--summary-mode compact or full), before it is text:
// the thresholds by metric; the totals (every check by name, the metrics sorted into custom,
// HTTP, execution, network, ... as k6 v1 sorts them); and in full mode each group and each
// scenario apart (src/script/summary/breakdown.js). The figures are those of the summary data
// (summary-data.js), which handleSummary() gets.

import { containsOf } from './summary-data.js';

// k6 v1's sections of metrics, in the order it prints them (custom first), and the metrics each
// takes by the start of their names; whatever no section takes is custom.
const SECTIONS = [
  ['http', ['http_reqs', 'http_req_failed', 'http_req_duration', 'http_req_blocked', 'http_req_connecting', 'http_req_tls_handshaking', 'http_req_sending', 'http_req_waiting', 'http_req_receiving']],
  ['execution', ['vus', 'vus_max', 'iterations', 'iteration_duration', 'dropped_iterations']],
  ['network', ['data_sent', 'data_received']],
  ['browser', ['browser_']],
  ['web_vitals', ['browser_web_vital_']],
  ['grpc', ['grpc_']],
  ['websocket', ['ws_']],
];
const ORDER = ['custom', ...SECTIONS.map(([name]) => name)];

// Left out of the sections: checks have their own lines, group durations are the groups'; the
// compact summary also leaves out the parts of a request's time.
const SKIPPED = { full: ['checks', 'group_duration'], compact: ['checks', 'group_duration', 'http_req_blocked', 'http_req_connecting', 'http_req_receiving', 'http_req_sending', 'http_req_tls_handshaking', 'http_req_waiting'] };

const startsWithOne = (name, prefixes) => prefixes.some((p) => name.startsWith(p));

function sectionOf(name) {
  if (name.startsWith('browser_web_vital_')) return 'web_vitals';
  for (const [section, prefixes] of SECTIONS) if (startsWithOne(name, prefixes)) return section;
  return 'custom';
}

/** Metrics ({ name: { type, contains, values } }) sorted into k6 v1's sections, in its order. */
function sections(metrics, mode) {
  const out = Object.fromEntries(ORDER.map((s) => [s, {}]));
  for (const [name, m] of Object.entries(metrics)) {
    if (startsWithOne(name, SKIPPED[mode])) continue;
    out[sectionOf(name)][name] = m;
  }
  return out;
}

// checks_total, checks_succeeded and checks_failed, from the checks' Rate and the run's seconds.
function checkMetrics(checks, seconds) {
  const total = checks.passes + checks.fails;
  const failed = total - checks.passes;
  return {
    checks_total: { type: 'counter', contains: 'default', values: { count: total, rate: seconds > 0 ? total / seconds : 0 } },
    checks_succeeded: { type: 'rate', contains: 'default', values: { rate: total > 0 ? checks.passes / total : 0, passes: checks.passes, fails: failed } },
    // As k6 has it: the failed checks as this Rate's passes.
    checks_failed: { type: 'rate', contains: 'default', values: { rate: total > 0 ? failed / total : 0, passes: failed, fails: checks.passes } },
  };
}

// A group's or a scenario's own figures (a Part of breakdown.js).
function partReport(part, mode, seconds, trendStats) {
  const metrics = {};
  for (const [name, s] of part.sinks) {
    metrics[name] = { type: s.type, contains: containsOf(name, s.isTime), values: s.sink.values(seconds, trendStats) };
  }
  const checks = part.sinks.get('checks');
  return {
    checks: checks === undefined ? null : { metrics: checkMetrics({ passes: checks.sink.passes, fails: checks.sink.count - checks.sink.passes }, seconds), ordered: [...part.checks.values()] },
    metrics: sections(metrics, mode),
    groups: [...part.groups].map(([name, g]) => [name, partReport(g, mode, seconds, trendStats)]),
  };
}

/**
 * The report k6 v1 prints from. `data`: the summary data; `state`: the run's (its checks by
 * name, and the breakdown of its registry in full mode); `mode`: 'compact' or 'full'.
 */
export function summaryReport(data, state, mode) {
  const seconds = data.state.testRunDurationMs / 1000;
  const thresholds = {};
  for (const [name, m] of Object.entries(data.metrics)) {
    if (m.thresholds) thresholds[name] = { metric: m, thresholds: Object.entries(m.thresholds).map(([source, t]) => ({ source, ok: t.ok })) };
  }
  const checks = data.metrics.checks;
  const report = {
    thresholds,
    // k6 v2 lists the checks by their samples' check tag: none where it is not a system tag.
    checks: checks ? { metrics: checkMetrics(checks.values, seconds), ordered: state.systemTags.check ? [...state.checksByName.values()] : [] } : null,
    metrics: sections(data.metrics, mode),
    groups: [],
    scenarios: [],
  };
  const breakdown = state.registry.breakdown;
  if (mode === 'full' && breakdown !== null) {
    const trendStats = data.options.summaryTrendStats;
    report.groups = partReport(breakdown.root, mode, seconds, trendStats).groups;
    report.scenarios = [...breakdown.scenarios].map(([name, p]) => [name, partReport(p, mode, seconds, trendStats)]);
  }
  return report;
}
