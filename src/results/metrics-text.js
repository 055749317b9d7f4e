// --metrics: the run's figures in Prometheus' text exposition format (version 0.0.4, which
// OpenMetrics scrapers read too), for a Prometheus to scrape while the run goes. Everything comes
// from counters the run keeps anyway and from the latency histogram of its closed seconds
// (src/run/series.js): a scrape costs the run nothing per request.

import { highestOf, Histogram } from '../run/histogram.js';

// Latency bucket boundaries, in seconds: fixed, so that the series of every core and shard add
// up (a Prometheus sums `_bucket` by `le`). 100 µs to 10 s, about three a decade.
export const BOUNDARIES = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const BOUNDARIES_US = BOUNDARIES.map((s) => Math.round(s * 1e6));

// A label value as the format quotes it: backslash, double quote and line feed escaped.
const quoted = (v) => `"${String(v).replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
const labelText = (labels) => Object.entries(labels).map(([k, v]) => `${k}=${quoted(v)}`).join(',');

// Go's and Prometheus' float forms: +Inf, and numbers as JavaScript prints them.
const num = (x) => (x === Infinity ? '+Inf' : Number.isFinite(x) ? String(x) : 'NaN');

/**
 * The histogram's counts at each boundary, cumulative: [count ≤ 100 µs, …, count ≤ 10 s, all].
 * A recorded value counts at the first boundary its HdrHistogram bucket lies under entirely.
 */
export function cumulativeBuckets(histogram) {
  const out = new Array(BOUNDARIES.length + 1).fill(0);
  const counts = histogram.counts;
  let b = 0;
  let seen = 0;
  for (let i = 0; i < counts.length; i++) {
    if (counts[i] === 0) continue;
    const high = highestOf(i);
    while (b < BOUNDARIES_US.length && high > BOUNDARIES_US[b]) out[b++] = seen;
    seen += counts[i];
  }
  while (b < BOUNDARIES_US.length) out[b++] = seen;
  out[BOUNDARIES.length] = seen;
  return out;
}

/**
 * The exposition text of one process, or of several (the children of --cores, each its own
 * series by its `core` label). `s`: { sent, completed, failed, bytes, errors: { reason: n },
 * statusCounts: { code: n }, connections, inFlight, targetRps (or null), achievedRps (the last
 * closed second's, or null), histogram (a Histogram of the closed seconds' latencies, µs),
 * elapsedSeconds, done }; `labels`: its labels ({ run, runtime, core or shard }).
 */
export function metricsText(s, labels) {
  return processesText([{ s, labels }]);
}

/** A process's figures from its Stats: a --cores child's result, or (with the run's gauges) the run's own. */
export function statsSnapshot(stats) {
  // Responses a contentInspector marked count under their status too, as the result's statusCodes.
  const statusCounts = {};
  for (let code = 0; code < stats.statusCounts.length; code++) if (stats.statusCounts[code] > 0) statusCounts[code] = stats.statusCounts[code];
  for (const k in stats.customErrors) statusCounts[parseInt(k, 10)] = (statusCounts[parseInt(k, 10)] || 0) + stats.customErrors[k];
  const last = stats.series[stats.series.length - 1];
  return {
    sent: stats.sent,
    completed: stats.completed,
    failed: stats.failed,
    bytes: stats.bytes,
    errors: stats.errors,
    statusCounts,
    connections: 0,
    inFlight: 0,
    targetRps: null,
    achievedRps: last === undefined || !last.durationMs ? null : Math.round((last.completed * 1000) / last.durationMs),
    histogram: stats.histogram,
    elapsedSeconds: stats.elapsedMs / 1000,
    done: true,
  };
}

/**
 * The exposition text of the children of --cores: `figures`, each child's latest (with its
 * histogram as JSON), its result once done (`final`), or null before it sent any; each under
 * `labels` and its own core="i".
 */
export function childrenText(figures, labels) {
  const processes = [];
  figures.forEach((m, i) => {
    if (m === null) return;
    const s = m.final ? statsSnapshot(m) : { ...m, histogram: Histogram.fromJSON(m.histogram) };
    processes.push({ s, labels: { ...labels, core: String(i) } });
  });
  return processesText(processes);
}

/** The exposition text of several processes: [{ s, labels }], each family once. */
export function processesText(processes) {
  const families = new Map();
  for (const { s, labels } of processes) addSamples(families, s, labels);
  const lines = [];
  for (const [name, { type, help, samples }] of families) lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, ...samples);
  return lines.join('\n') + '\n';
}

function addSamples(families, s, labels) {
  const base = labelText(labels);
  const withBase = (extra) => (extra ? `{${base}${base ? ',' : ''}${extra}}` : base ? `{${base}}` : '');
  const family = (name, type, help, samples) => {
    if (!families.has(name)) families.set(name, { type, help, samples: [] });
    const out = families.get(name).samples;
    for (const [suffix, extra, value] of samples) out.push(`${name}${suffix}${withBase(extra)} ${num(value)}`);
  };
  family('loadtest_requests_sent_total', 'counter', 'Requests sent.', [['', '', s.sent]]);
  family('loadtest_requests_completed_total', 'counter', 'Requests that got a response, by status.', Object.entries(s.statusCounts).map(([code, n]) => ['', `status=${quoted(code)}`, n]));
  family('loadtest_requests_failed_total', 'counter', 'Requests that got no response (or failed a check), by reason.', Object.entries(s.errors).map(([reason, n]) => ['', `reason=${quoted(reason)}`, n]));
  family('loadtest_received_bytes_total', 'counter', 'Bytes received: heads and bodies.', [['', '', s.bytes]]);
  family('loadtest_open_connections', 'gauge', 'Connections open now.', [['', '', s.connections]]);
  family('loadtest_in_flight_requests', 'gauge', 'Requests sent and not yet ended.', [['', '', s.inFlight]]);
  if (s.targetRps !== null && s.targetRps !== undefined) family('loadtest_target_requests_per_second', 'gauge', 'The open model\'s target rate (this process\'s share).', [['', '', s.targetRps]]);
  if (s.achievedRps !== null && s.achievedRps !== undefined) family('loadtest_achieved_requests_per_second', 'gauge', 'Requests ended in the last whole second.', [['', '', s.achievedRps]]);
  family('loadtest_elapsed_seconds', 'gauge', 'Seconds since the run began.', [['', '', s.elapsedSeconds]]);
  family('loadtest_run_done', 'gauge', '1 once the run is over (the figures are its totals).', [['', '', s.done ? 1 : 0]]);
  const cumulative = cumulativeBuckets(s.histogram);
  const buckets = BOUNDARIES.map((le, k) => ['_bucket', `le=${quoted(num(le))}`, cumulative[k]]);
  buckets.push(['_bucket', 'le="+Inf"', cumulative[BOUNDARIES.length]]);
  family('loadtest_latency_seconds', 'histogram', 'Latency of the responses of the closed seconds of the run.', [
    ...buckets,
    ['_sum', '', s.histogram.sum / 1e6],
    ['_count', '', s.histogram.count],
  ]);
}
