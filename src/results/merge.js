// Merging results: the JSON documents of --json / --json-file from several processes or machines
// (the shards of one run) into one result, exactly: counters add up, latency histograms add up
// bucket by bucket (so the percentiles are those of one histogram fed every response), and the
// series add up second by second (the shards share one start, --start-at).

import { Stats, PHASES } from '../run/stats.js';
import { Histogram, LAYOUT } from '../run/histogram.js';
import { makeResult } from '../run/result.js';

const sum = (values) => values.reduce((a, b) => a + b, 0);

/** A run's Stats back from its JSON document (what makeResult made of them). */
export function statsFromResult(doc, name = 'result') {
  const h = doc && doc.latencyHistogram;
  if (!h || !Array.isArray(h.buckets) || typeof doc.requestsSent !== 'number') {
    throw new Error(`${name} is not a loadtest result (write one with --json or --json-file)`);
  }
  for (const key of ['unit', 'lowest', 'highest', 'significantDigits']) {
    if (h[key] !== LAYOUT[key]) throw new Error(`${name}: its latency histogram has ${key} ${h[key]}, not ${LAYOUT[key]}`);
  }
  const s = new Stats();
  s.histogram = histogramOf(h);
  // A result written before the phases were kept has none: it merges as empty ones.
  const phases = doc.phaseHistograms || {};
  for (const p of PHASES) if (phases[p] && Array.isArray(phases[p].buckets)) s.phases[p] = histogramOf(phases[p], `${name}: its ${p} histogram`);
  s.errors = { ...doc.errorsByReason };
  s.customErrors = { ...doc.customErrors };
  // statusCodes counts the responses a contentInspector marked under their status as well.
  for (const code in doc.statusCodes) s.statusCounts[code] = doc.statusCodes[code];
  for (const key in s.customErrors) s.statusCounts[parseInt(key, 10)] -= s.customErrors[key];
  s.sent = doc.requestsSent;
  s.completed = sum(Object.values(doc.statusCodes));
  s.failed = sum(Object.values(s.errors));
  s.httpErrors = doc.totalErrors - s.failed;
  s.inFlightAtStop = doc.inFlight;
  for (const key of ['retries', 'connections', 'clients', 'unexpectedData', 'notSent', 'lateSends', 'maxQueue', 'maxLagMs', 'connectMs']) s[key] = doc[key] || 0;
  s.bytes = doc.bytesReceived || 0;
  s.elapsedMs = doc.totalTimeSeconds * 1000;
  s.startTime = doc.startTime || 0;
  s.series = (doc.series || []).map((entry) => ({ ...entry, buckets: entry.buckets.slice() }));
  s.abortReason = doc.abortReason || null;
  s.interrupted = Boolean(doc.interrupted);
  return s;
}

function histogramOf(h, name) {
  if (name !== undefined) {
    for (const key of ['unit', 'lowest', 'highest', 'significantDigits']) {
      if (h[key] !== LAYOUT[key]) throw new Error(`${name} has ${key} ${h[key]}, not ${LAYOUT[key]}`);
    }
  }
  return Histogram.fromJSON({ pairs: h.buckets, count: h.count, sum: h.sum, min: h.count ? h.min : null, max: h.max });
}

/**
 * One result from several JSON documents. `names` label them in errors (file names). The
 * settings add up as the shards' shares did: connections, requests and rate are totals again.
 */
export function mergeResults(docs, names = docs.map((_, i) => `result ${i + 1}`)) {
  if (docs.length === 0) throw new Error('nothing to merge');
  const stats = new Stats();
  docs.forEach((doc, i) => stats.merge(statsFromResult(doc, names[i])));
  const first = docs[0];
  const urls = [...new Set(docs.map((d) => d.url))];
  const runtimes = [...new Set(docs.map((d) => d.runtime).filter(Boolean))];
  const sockets = [...new Set(docs.map((d) => d.socket).filter(Boolean))];
  const config = {
    url: urls.join(', '),
    maxRequests: sum(docs.map((d) => d.maxRequests || 0)),
    maxSeconds: Math.max(...docs.map((d) => d.maxSeconds || 0)),
    concurrency: sum(docs.map((d) => d.concurrency || 0)),
    keepAlive: first.agent === 'keepalive',
    pipelining: first.pipelining,
    protocol: first.protocol,
    streams: first.streams,
    call: first.call,
    requestsPerSecond: sum(docs.map((d) => d.requestsPerSecond || 0)),
  };
  const result = makeResult(config, stats, {
    cores: sum(docs.map((d) => d.cores || 1)),
    runtime: runtimes.join(', '),
    socket: sockets.join(', '),
    childErrors: docs.flatMap((d) => d.childErrors || []),
  });
  result.merged = docs.length;
  // Shards that did not start together have series that do not line up: say so.
  const starts = docs.map((d) => d.startTime).filter(Boolean);
  const spread = starts.length ? Math.max(...starts) - Math.min(...starts) : 0;
  result.startSpreadMs = spread;
  return result;
}
