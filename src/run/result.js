// The result of a run, with loadtest 8's keys (totalRequests, totalErrors, effectiveRps, rps,
// meanLatencyMs, percentiles, errorCodes, show()) and a few more that it lacked.

import { formatReport } from '../results/report.js';
import { LAYOUT } from './histogram.js';
import { PHASES } from './stats.js';
import { checkThresholds } from '../results/thresholds.js';
import { codeName } from '../grpc/status.js';

// loadtest 8's four, and the tail that a load test is usually about.
const PERCENTILES = [50, 75, 90, 95, 99, 99.9, 99.99];

const ms = (us) => Math.round(us) / 1000; // µs resolution, in ms

/** A histogram's (of µs) percentiles in ms: loadtest 8's four and the tail. */
export function percentilesOf(h) {
  const percentiles = {};
  for (const p of PERCENTILES) percentiles[p] = ms(h.percentile(p));
  return percentiles;
}

/** Builds the result object from a run's config and Stats. */
export function makeResult(config, stats, extra = {}) {
  const h = stats.histogram;
  const elapsedSeconds = stats.elapsedMs / 1000;
  const totalRequests = stats.completed + stats.failed;
  const protocol = protocolOf(config);
  // gRPC: statuses are the calls' codes (0 OK to 16), and every code but OK is an error, by name.
  const grpc = protocol === 'grpc' || protocol === 'grpcs';
  const errorCodes = errorCodesOf(stats, grpc);
  const statusCodes = statusCodesOf(stats);
  const percentiles = percentilesOf(h);
  const effectiveRps = elapsedSeconds > 0 ? Math.round(totalRequests / elapsedSeconds) : 0;
  const result = {
    ...runSettings(config, extra, protocol, grpc, statusCodes),
    // A request sequence: each entry's requests, errors and latencies.
    entries: stats.entries ? stats.entries.summary() : undefined,
    totalRequests,
    totalErrors: stats.failed + stats.httpErrors,
    totalTimeSeconds: elapsedSeconds,
    elapsedSeconds,
    accumulatedMs: ms(h.sum),
    meanLatencyMs: Math.round(h.mean()) / 1000,
    minLatencyMs: h.count ? ms(h.min) : 0,
    maxLatencyMs: ms(h.max),
    percentiles,
    effectiveRps,
    rps: effectiveRps,
    errorCodes,
    statusCodes,
    requestsSent: stats.sent,
    inFlight: stats.inFlightAtStop,
    retries: stats.retries,
    connections: stats.connections,
    clients: stats.clients,
    unexpectedData: stats.unexpectedData,
    abortReason: stats.abortReason || null,
    // Stopped by Ctrl-C, SIGTERM or the API's signal: the counts are of a partial run.
    interrupted: stats.interrupted,
    // Failures with no response, by reason; responses a contentInspector marked, by "status[:code]".
    errorsByReason: { ...stats.errors },
    customErrors: { ...stats.customErrors },
    bytesReceived: stats.bytes,
    bytesPerSecond: elapsedSeconds > 0 ? Math.round(stats.bytes / elapsedSeconds) : 0,
    startTime: stats.startTime,
    series: stats.series,
    childErrors: extra.childErrors || [],
    // Open model (requestsPerSecond): the schedule kept, or not.
    achievedRps: (config.requestsPerSecond || config.stages) && elapsedSeconds > 0 ? Math.round((stats.sent / elapsedSeconds) * 10) / 10 : undefined,
    notSent: stats.notSent,
    maxQueue: stats.maxQueue,
    lateSends: stats.lateSends,
    maxLagMs: Math.round(stats.maxLagMs * 1000) / 1000,
    connectMs: Math.round(stats.connectMs),
    // Where the time went (src/run/stats.js): connect and tls per new connection, wait and
    // receive per response; in ms.
    phases: phaseSummary(stats.phases),
  };
  Object.defineProperty(result, 'histogram', { value: h, enumerable: false });
  Object.defineProperty(result, 'phaseHistograms', { value: stats.phases, enumerable: false });
  if (config.thresholds && config.thresholds.length > 0) result.thresholds = checkThresholds(config.thresholds, result);
  defineJsonAndShow(result, h, stats);
  return result;
}

function protocolOf(config) {
  // A merged result's config carries the protocol its shards ran.
  return config.protocol || (config.grpc ? (config.tls ? 'grpcs' : 'grpc') : config.websocket ? 'websocket' : config.http2 ? (config.tls ? 'h2' : 'h2c') : 'http/1.1');
}

function errorCodesOf(stats, grpc) {
  const errorCodes = {};
  for (let code = 0; code < stats.statusCounts.length; code++) {
    if (stats.statusCounts[code] === 0) continue;
    if (grpc ? code > 0 : code >= 400) errorCodes[grpc ? codeName(code) : code] = stats.statusCounts[code];
  }
  // Added, not assigned: a custom error without a code is keyed by its bare status ("503"),
  // the same key as that status's ordinary errors, and both must count.
  for (const k in stats.customErrors) errorCodes[k] = (errorCodes[k] || 0) + stats.customErrors[k];
  for (const k in stats.errors) errorCodes[k] = (errorCodes[k] || 0) + stats.errors[k];
  return errorCodes;
}

// Every response by status, those a contentInspector marked as errors included.
function statusCodesOf(stats) {
  const statusCodes = {};
  for (let code = 0; code < stats.statusCounts.length; code++) {
    if (stats.statusCounts[code] > 0) statusCodes[code] = stats.statusCounts[code];
  }
  for (const k in stats.customErrors) {
    const code = parseInt(k, 10);
    statusCodes[code] = (statusCodes[code] || 0) + stats.customErrors[k];
  }
  return statusCodes;
}

// The result's first keys: what ran, on what, through what.
function runSettings(config, extra, protocol, grpc, statusCodes) {
  return {
    url: config.url,
    cores: extra.cores || 1,
    shard: config.shard || undefined,
    maxRequests: config.maxRequests,
    maxSeconds: config.maxSeconds,
    concurrency: config.concurrency,
    agent: config.websocket ? 'websocket' : config.keepAlive ? 'keepalive' : 'none',
    pipelining: config.pipelining || 1,
    protocol,
    streams: protocol === 'h2' || protocol === 'h2c' || grpc ? config.streams : undefined,
    // gRPC: the method called, and the calls by status name ({ OK: 9990, UNAVAILABLE: 10 }).
    call: grpc ? (config.grpc ? config.grpc.call : config.call) : undefined,
    grpcStatuses: grpc ? namedStatuses(statusCodes) : undefined,
    requestsPerSecond: config.requestsPerSecond || undefined,
    stages: config.stages || undefined,
    connectionStages: config.connectionStages || undefined,
    runtime: extra.runtime,
    socket: extra.socket,
    proxy: config.proxy ? config.proxy.url : null, // without its password
  };
}

// The JSON document (--json, --json-file, loadtest merge): every field above and the latency
// histogram as sparse bucket counts in HdrHistogram's layout, which merge exactly.
function defineJsonAndShow(result, h, stats) {
  Object.defineProperty(result, 'toJSON', {
    value: function toJSON() {
      const phaseHistograms = {};
      for (const p of PHASES) phaseHistograms[p] = histogramDocument(stats.phases[p]);
      return { ...this, latencyHistogram: histogramDocument(h), phaseHistograms };
    },
    enumerable: false,
  });
  Object.defineProperty(result, 'show', {
    value: function show(color = false) {
      console.log(formatReport(this, color));
    },
    enumerable: false,
  });
}

function namedStatuses(statusCodes) {
  const out = {};
  for (const code in statusCodes) out[codeName(Number(code))] = statusCodes[code];
  return out;
}

/** A histogram in a result's JSON: its layout, totals and sparse bucket counts (exact to merge). */
export function histogramDocument(h) {
  const { pairs, ...totals } = h.toJSON();
  return { ...LAYOUT, ...totals, min: h.count ? h.min : 0, buckets: pairs };
}

// Each phase's count and its figures in ms (all 0 for a phase with no sample: no TLS over http).
function phaseSummary(phases) {
  const out = {};
  for (const p of PHASES) {
    const h = phases[p];
    out[p] = {
      count: h.count,
      min: h.count ? ms(h.min) : 0,
      mean: Math.round(h.mean()) / 1000,
      p50: ms(h.percentile(50)),
      p90: ms(h.percentile(90)),
      p99: ms(h.percentile(99)),
      max: ms(h.max),
    };
  }
  return out;
}
