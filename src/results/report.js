// The text report, in loadtest 8's shape (same labels and order), with latency in ms to the µs.

import pc from 'picocolors';
import { latencyChart } from './latency-chart.js';
import { describeActual } from './thresholds.js';

const label = (text) => (text + ':').padEnd(21);

// Failures whose code alone does not say what happened, nor what to do.
const HINTS = {
  EADDRNOTAVAIL: 'no free local port: the ephemeral ports are used up, each request without -k takes one and TIME_WAIT holds it for a minute; use -k',
  EMFILE: 'too many open files: the open-file limit (ulimit -n) is reached; raise it or lower -c',
  ENFILE: 'the system-wide limit of open files is reached',
};

export function formatReport(r, color = false) {
  const c = pc.createColors(color);
  const grpc = r.protocol === 'grpc' || r.protocol === 'grpcs';
  return [
    '',
    ...settingLines(r, grpc),
    '',
    ...countLines(r, c, grpc),
    '',
    ...latencyLines(r, c),
    ...errorLines(r, c, grpc),
    ...warningLines(r, c),
    ...thresholdLines(r, c),
  ].join('\n');
}

// What ran: the target, its limits, connections and protocol, and the schedule.
function settingLines(r, grpc) {
  const lines = [];
  lines.push(label('Target URL') + r.url);
  if (r.proxy) lines.push(label('Proxy') + r.proxy);
  if (r.maxRequests) lines.push(label('Max requests') + r.maxRequests);
  else if (r.maxSeconds) lines.push(label('Max time (s)') + r.maxSeconds);
  lines.push(label('Concurrency level') + r.concurrency);
  lines.push(label('Running on cores') + r.cores);
  if (r.shard) lines.push(label('Shard') + `${r.shard} (this process's share of the run)`);
  if (r.merged) lines.push(label('Merged results') + r.merged);
  lines.push(label('Agent') + r.agent);
  if (r.pipelining > 1) lines.push(label('Pipelining') + `${r.pipelining} (requests in flight per connection, at most)`);
  const streams = `${r.streams} stream${r.streams === 1 ? '' : 's'} per connection at most`;
  if (r.protocol === 'h2' || r.protocol === 'h2c') lines.push(label('Protocol') + `HTTP/2 (${r.protocol}), ${streams}`);
  if (grpc) lines.push(label('Protocol') + `gRPC over HTTP/2 (${r.protocol === 'grpcs' ? 'h2' : 'h2c'}), ${streams}`);
  if (grpc && r.call) lines.push(label('Call') + r.call);
  if (r.runtime) lines.push(label('Runtime') + `${r.runtime} (${r.socket})`);
  if (r.requestsPerSecond) lines.push(label('Target rps') + r.requestsPerSecond);
  if (r.connectMs && r.concurrency >= 100) lines.push(label('Connections opened') + `${r.concurrency} in ${r.connectMs} ms (until each had its first response)`);
  if (r.stages) lines.push(label('Stages (rps)') + stageList(r.stages));
  if (r.connectionStages) lines.push(label('Connection stages') + stageList(r.connectionStages));
  if (r.requestsPerSecond || r.stages) lines.push(label('Achieved rps') + `${r.achievedRps} (requests sent per second)`);
  return lines;
}

// The totals: requests, errors, time, rate and bytes (and the calls by status over gRPC).
function countLines(r, c, grpc) {
  const lines = [];
  lines.push(label('Completed requests') + c.bold(r.totalRequests));
  lines.push(label('Total errors') + (r.totalErrors ? c.red(r.totalErrors) : r.totalErrors));
  if (r.inFlight) lines.push(label('In flight at stop') + r.inFlight);
  if (r.retries) {
    const why = r.protocol === 'h2' || r.protocol === 'h2c' || grpc ? 'not processed by the server: refused, or above a GOAWAY' : 'the server closed a kept-alive connection under them';
    lines.push(label('Retried') + `${r.retries} (${why})`);
  }
  lines.push(label('Total time') + `${round(r.totalTimeSeconds, 3)} s`);
  lines.push(label('Mean latency') + `${r.meanLatencyMs} ms`);
  lines.push(label('Effective rps') + c.bold(r.effectiveRps));
  if (r.bytesReceived !== undefined) lines.push(label('Received') + `${bytes(r.bytesReceived)} (${bytes(r.bytesPerSecond)}/s)`);
  if (grpc && r.grpcStatuses && Object.keys(r.grpcStatuses).length > 0) lines.push('', 'Calls by gRPC status', ...statusLines(r.grpcStatuses, c));
  return lines;
}

// The percentiles, the phases, the histogram's chart and a sequence's entries.
function latencyLines(r, c) {
  const lines = [];
  lines.push('Percentage of the requests served within a certain time' + (r.requestsPerSecond || r.stages ? ' (from their time in the schedule)' : ''));
  for (const p of Object.keys(r.percentiles)) {
    lines.push(`  ${(p + '%').padEnd(9)}${r.percentiles[p]} ms`);
  }
  lines.push(` 100%      ${r.maxLatencyMs} ms (longest request)`);
  if (r.phases) lines.push(...phaseTable(r.phases));
  const chart = r.histogram ? latencyChart(r.histogram, c) : [];
  if (chart.length > 0) {
    lines.push('');
    lines.push('Latency histogram (responses per latency range)');
    lines.push(...chart);
  }
  if (r.entries) lines.push('', ...entriesTable(r.entries));
  return lines;
}

function errorLines(r, c, grpc) {
  const lines = [];
  if (!r.totalErrors) return lines;
  // loadtest 8's lines (" 500:   3 errors"), grouped: responses with an error status, then
  // requests that got no response.
  const reasons = r.errorsByReason || {};
  const codes = Object.keys(r.errorCodes);
  // A failed --check or capture had a response; it is counted with the failures, by its reason.
  const inspected = (k) => k.startsWith('check ') || k.startsWith('capture ');
  const groups = [
    [grpc ? 'Errors by gRPC status' : 'Errors by status', codes.filter((k) => !(k in reasons))],
    ['Errors by check or capture (a response that did not pass)', codes.filter((k) => k in reasons && inspected(k))],
    ['Errors by reason (no response)', codes.filter((k) => k in reasons && !inspected(k))],
  ];
  for (const [title, keys] of groups) {
    if (keys.length === 0) continue;
    lines.push('');
    lines.push(title);
    for (const code of keys) {
      const padding = ' '.repeat(code.length < 4 ? 4 - code.length : 1);
      const hint = title.startsWith('Errors by status') || title.startsWith('Errors by gRPC') ? undefined : HINTS[code];
      lines.push(c.red(` ${padding}${code}:   ${r.errorCodes[code]} errors${hint ? ` (${hint})` : ''}`));
    }
  }
  return lines;
}

// The open model's queue and lag, children that failed, and bytes the server should not have sent.
function warningLines(r, c) {
  const lines = [];
  if ((r.requestsPerSecond || r.stages) && (r.maxQueue || r.notSent)) {
    lines.push('');
    lines.push(c.yellow(`Queue: up to ${r.maxQueue} requests waited for a free connection` + (r.notSent ? `; ${r.notSent} were still waiting at the stop (not sent)` : '') + '. Their wait is in the latency; raise -c or --max-connections to send them on time.'));
  }
  if ((r.requestsPerSecond || r.stages) && r.lateSends > r.requestsSent / 100) {
    lines.push(c.red(`Warning: loadtest itself fell behind its schedule: ${r.lateSends} requests left a free connection over 10 ms late (worst ${r.maxLagMs} ms). It is CPU-bound: use --cores, or a lower --rps.`));
  }
  if (r.childErrors && r.childErrors.length) lines.push('');
  for (const line of r.childErrors || []) lines.push(c.red(`Error: ${line}`));
  if (r.unexpectedData) {
    lines.push('');
    lines.push(c.yellow(`Warning: ${r.unexpectedData} times the server sent bytes after a complete response; those connections were closed.`));
  }
  return lines;
}

function thresholdLines(r, c) {
  const lines = [];
  if (!(r.thresholds && r.thresholds.length)) return lines;
  lines.push('');
  lines.push('Thresholds');
  for (const t of r.thresholds) {
    const line = `  ${t.passed ? '✓' : '✗'} ${t.threshold} (${describeActual(t)})`;
    lines.push(t.passed ? c.green(line) : c.red(line));
  }
  return lines;
}

// 'OK' and the codes that are errors, each with its count, aligned.
function statusLines(statuses, c) {
  const names = Object.keys(statuses);
  const width = Math.max(...names.map((n) => n.length));
  return names.map((n) => {
    const line = `  ${n.padEnd(width)}  ${statuses[n]}`;
    return n === 'OK' ? line : c.red(line);
  });
}

function bytes(n) {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let u = 0;
  while (n >= 1024 && u < units.length - 1) (n /= 1024), u++;
  return `${u === 0 ? n : n.toFixed(n < 10 ? 2 : 1)} ${units[u]}`;
}

function round(x, digits) {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

// '10s:100, 30s:1000, 10s:0': each stage's length and the target it ramps to.
const stageList = (stages) => stages.map((s) => `${s.duration}s:${s.target}`).join(', ') + ' (ramped from 0)';

// Where the time went: a row per phase that happened (no tls row over http).
function phaseTable(phases) {
  const names = Object.keys(phases).filter((p) => phases[p].count > 0);
  if (names.length === 0) return [];
  const head = ['count', 'p50', 'p90', 'p99', 'max'];
  const rows = names.map((p) => {
    const f = phases[p];
    return [String(f.count), `${f.p50} ms`, `${f.p90} ms`, `${f.p99} ms`, `${f.max} ms`];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (name, cells) => `  ${name.padEnd(8)}${cells.map((v, i) => v.padStart(widths[i])).join('  ')}`;
  return ['', 'Request phases (connect and tls: per new connection; wait: sent → first byte; receive: → last byte)', line('', head), ...names.map((p, i) => line(p, rows[i]))];
}

// A request sequence, one row per entry.
function entriesTable(entries) {
  const head = ['requests', 'errors', 'mean', 'p50', 'p90', 'p99', 'max'];
  const rows = entries.map((e) => [String(e.requests), String(e.errors), `${e.meanLatencyMs} ms`, `${e.percentiles[50]} ms`, `${e.percentiles[90]} ms`, `${e.percentiles[99]} ms`, `${e.maxLatencyMs} ms`]);
  const nameWidth = Math.min(48, Math.max(5, ...entries.map((e) => e.name.length)));
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const cut = (name) => (name.length > nameWidth ? name.slice(0, nameWidth - 1) + '…' : name);
  const line = (name, cells) => `  ${cut(name).padEnd(nameWidth)}  ${cells.map((v, i) => v.padStart(widths[i])).join('  ')}`;
  return ['Requests by entry', line('entry', head), ...entries.map((e, i) => line(e.name, rows[i]))];
}
