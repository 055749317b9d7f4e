// The counters of a run. A child process sends its Stats to the parent as JSON (histogram as
// sparse bucket counts, no per-request data) and the parent adds them up without loss.

import { Histogram } from './histogram.js';
import { mergeSeries } from './series.js';
import { EntryStats } from '../requests/sequence.js';

const COUNTERS = ['sent', 'completed', 'failed', 'httpErrors', 'inFlightAtStop', 'retries', 'connections', 'clients', 'unexpectedData', 'notSent', 'lateSends', 'bytes'];
// Largest values, not sums, when merging.
const MAXIMA = ['maxQueue', 'maxLagMs', 'connectMs'];
// Where the time of a request goes: TCP connect (per new connection, a proxy's CONNECT
// included), the TLS handshake (per new TLS connection), wait (written → first byte of the
// response) and receive (first byte → last), each in the latency histogram's layout.
export const PHASES = ['connect', 'tls', 'wait', 'receive'];

export class Stats {
  /** `sequence`: the entries of a request sequence, whose results are kept apart too. */
  constructor(sequence = null) {
    this.histogram = new Histogram(); // every latency of the run, once its second is closed
    this.recent = new Histogram(); // latencies of the current second (src/run/series.js)
    this.phases = { connect: new Histogram(), tls: new Histogram(), wait: new Histogram(), receive: new Histogram() };
    this.series = []; // one entry per second
    this.seriesTotals = { sent: 0, ended: 0, errors: 0, bytes: 0 }; // counters at the last close
    this.statusCounts = new Uint32Array(1000);
    this.errors = {}; // reason → count, for requests that got no response
    this.customErrors = {}; // "status:code" → count, from contentInspector
    this.sent = 0;
    this.completed = 0; // got a response, whatever its status
    this.failed = 0; // got no response
    this.httpErrors = 0; // completed with status >= 400 or a custom error
    this.inFlightAtStop = 0;
    this.retries = 0; // requests re-sent after a kept-alive connection closed under them
    this.connections = 0; // connections opened
    this.clients = 0; // connection loops started (loadtest 8's clients): concurrency, or more with --max-connections
    this.unexpectedData = 0; // bytes after a complete response, nobody's reply
    this.notSent = 0; // open model: due in the schedule, never sent before the stop
    this.lateSends = 0; // open model: sent late on a free connection (the tool fell behind)
    this.bytes = 0; // received, headers and bodies
    this.maxQueue = 0; // open model: most requests due at once with no free connection
    this.maxLagMs = 0; // open model: the latest a request left a free connection
    this.connectMs = 0; // until every first connection had ended its first request
    this.elapsedMs = 0;
    this.startTime = 0; // wall-clock ms at the start (the series' second 0)
    this.abortReason = null;
    this.interrupted = false; // stopped from outside (a signal, an AbortSignal), not by its limits
    this.entries = sequence ? new EntryStats(sequence) : null;
  }

  recordEntry(i, elapsedMs, isError) {
    const e = this.entries;
    e.completed[i]++;
    if (isError) e.errors[i]++;
    e.histograms[i].record(elapsedMs * 1000);
  }

  fail(reason) {
    this.failed++;
    this.errors[reason] = (this.errors[reason] || 0) + 1;
  }

  toJSON() {
    const json = { histogram: this.histogram.toJSON(), statusCounts: {}, errors: this.errors, customErrors: this.customErrors };
    for (const key of [...COUNTERS, ...MAXIMA]) json[key] = this[key];
    for (let code = 0; code < this.statusCounts.length; code++) if (this.statusCounts[code]) json.statusCounts[code] = this.statusCounts[code];
    json.phases = {};
    for (const p of PHASES) json.phases[p] = this.phases[p].toJSON();
    json.elapsedMs = this.elapsedMs;
    json.startTime = this.startTime;
    json.series = this.series;
    json.abortReason = this.abortReason;
    if (this.entries !== null) json.entries = this.entries.toJSON();
    json.interrupted = this.interrupted;
    return json;
  }

  static fromJSON(json) {
    const s = new Stats();
    s.histogram = Histogram.fromJSON(json.histogram);
    for (const key of [...COUNTERS, ...MAXIMA]) s[key] = json[key];
    for (const code in json.statusCounts) s.statusCounts[code] = json.statusCounts[code];
    s.errors = { ...json.errors };
    s.customErrors = { ...json.customErrors };
    if (json.phases) for (const p of PHASES) if (json.phases[p]) s.phases[p] = Histogram.fromJSON(json.phases[p]);
    s.elapsedMs = json.elapsedMs;
    s.startTime = json.startTime || 0;
    s.series = json.series || [];
    s.abortReason = json.abortReason;
    if (json.entries) s.entries = EntryStats.fromJSON(json.entries);
    s.interrupted = Boolean(json.interrupted);
    return s;
  }

  /** Adds another run's counts (a child's) to these. Elapsed time is the longest. */
  merge(other) {
    this.histogram.merge(other.histogram);
    for (const p of PHASES) this.phases[p].merge(other.phases[p]);
    for (const key of COUNTERS) this[key] += other[key];
    for (const key of MAXIMA) this[key] = Math.max(this[key], other[key]);
    for (let code = 0; code < this.statusCounts.length; code++) this.statusCounts[code] += other.statusCounts[code];
    for (const k in other.errors) this.errors[k] = (this.errors[k] || 0) + other.errors[k];
    for (const k in other.customErrors) this.customErrors[k] = (this.customErrors[k] || 0) + other.customErrors[k];
    this.elapsedMs = Math.max(this.elapsedMs, other.elapsedMs);
    // Second k of every process is the same second: they share one start (startAt).
    mergeSeries(this.series, other.series);
    if (other.startTime && (!this.startTime || other.startTime < this.startTime)) this.startTime = other.startTime;
    this.abortReason = this.abortReason || other.abortReason;
    if (other.entries) {
      if (this.entries === null) this.entries = EntryStats.fromJSON(other.entries.toJSON());
      else this.entries.merge(other.entries);
    }
    this.interrupted = this.interrupted || other.interrupted;
  }
}
