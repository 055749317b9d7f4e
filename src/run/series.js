// The per-second series: what happened in each second of a run (requests ended, errors, bytes,
// p50/p99 of that second, the most connections open at once in it). Requests record their latency into a
// histogram of the current second only; once a second it is read, folded into the run's total
// and cleared, so the series costs nothing per request. Each second keeps its latency counts as
// sparse [index, count] pairs, so that series from several processes merge exactly.

import { Histogram, percentilesOfPairs } from './histogram.js';

/** Closes the current second of `stats` into its series (stats.recent folds into the total). */
export function closeSecond(stats, durationMs, connections) {
  const recent = stats.recent;
  const last = stats.seriesTotals;
  const ended = stats.completed + stats.failed;
  const errors = stats.failed + stats.httpErrors;
  const buckets = recent.pairs();
  // From the buckets, not the histogram (which also knows its exact max), so that a second's
  // figures are the same whether it comes from one process or from merging several.
  const [p50, p99] = percentilesOfPairs(buckets, [50, 99]);
  stats.series.push({
    second: stats.series.length + 1,
    durationMs: Math.round(durationMs * 1000) / 1000,
    sent: stats.sent - last.sent,
    completed: ended - last.ended,
    errors: errors - last.errors,
    bytes: stats.bytes - last.bytes,
    p50Ms: p50 / 1000,
    p99Ms: p99 / 1000,
    maxMs: recent.max / 1000,
    connections,
    buckets,
  });
  last.sent = stats.sent;
  last.ended = ended;
  last.errors = errors;
  last.bytes = stats.bytes;
  stats.histogram.merge(recent);
  recent.clear();
}

/**
 * The seconds of several processes' series that every one still going has closed, from second
 * `from` on, merged (--cores: the run's seconds as its children send them). `lists`: each
 * process's series so far; `going`: those of the processes not done yet.
 */
export function closedSeconds(lists, going, from) {
  const n = going.length ? Math.min(...going.map((l) => l.length)) : Math.max(0, ...lists.map((l) => l.length));
  const part = [];
  if (n > from) for (const list of lists) mergeSeries(part, list.slice(from, n));
  return part;
}

/** Adds series b into series a, second by second (children and shards share one clock). */
export function mergeSeries(a, b) {
  for (let i = 0; i < b.length; i++) {
    const y = b[i];
    const x = a[i];
    if (x === undefined) {
      a.push({ ...y, buckets: y.buckets.slice() });
      continue;
    }
    x.durationMs = Math.max(x.durationMs, y.durationMs);
    x.sent += y.sent;
    x.completed += y.completed;
    x.errors += y.errors;
    x.bytes += y.bytes;
    x.connections += y.connections;
    // A scripted run's VUs and failed requests (src/script/metrics/live.js).
    if (y.vus !== undefined) x.vus += y.vus;
    if (y.failed !== undefined) x.failed += y.failed;
    x.maxMs = Math.max(x.maxMs, y.maxMs);
    x.buckets = mergePairs(x.buckets, y.buckets);
    // Two empty seconds keep what an empty second says (a scripted run's: no percentiles).
    if (x.buckets.length === 0) continue;
    const [p50, p99] = percentilesOfPairs(x.buckets, [50, 99]);
    x.p50Ms = p50 / 1000;
    x.p99Ms = p99 / 1000;
  }
  return a;
}

// Two sorted [index, count, ...] lists into one.
function mergePairs(a, b) {
  const out = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i] < b[j])) out.push(a[i], a[i + 1]), (i += 2);
    else if (i >= a.length || b[j] < a[i]) out.push(b[j], b[j + 1]), (j += 2);
    else out.push(a[i], a[i + 1] + b[j + 1]), (i += 2), (j += 2);
  }
  return out;
}

/** A second's latency counts as a Histogram (for the HdrHistogram log). */
export function secondHistogram(entry) {
  const h = Histogram.fromPairs(entry.buckets);
  if (h.count > 0) h.max = Math.round(entry.maxMs * 1000);
  return h;
}
