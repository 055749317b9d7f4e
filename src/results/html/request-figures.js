// A run's requests as parts of its --html page: the headline figures (requests, errors, rate,
// latency percentiles, time) and the responses by status and failures by reason. A load run's
// document and a scripted run's (src/script/summary/report-doc.js) have the same fields for them.

import { stat, table } from './html-blocks.js';

/** Errors as a percentage of requests. */
export const errorRate = (r) => (r.totalRequests > 0 ? (r.totalErrors / r.totalRequests) * 100 : 0);

/** A share in percent, with the digits a small one needs. */
export const percent = (x) => `${Number(x.toFixed(x < 1 ? 3 : 2))} %`;

/** The row of headline figures; `errors`: the errors' label, `more`: stat boxes after them. */
export function headline(r, { errors = 'Errors', more = [] } = {}) {
  const p = r.percentiles || {};
  const ms = (v) => `${v} ms`;
  const stats = [
    stat('totalRequests', 'Requests', r.totalRequests, r.totalRequests),
    stat('totalErrors', errors, r.totalErrors, `${r.totalErrors} (${percent(errorRate(r))})`, r.totalErrors > 0),
    stat('effectiveRps', 'Requests/s', r.effectiveRps, r.effectiveRps),
    stat('meanLatencyMs', 'Mean', r.meanLatencyMs, ms(r.meanLatencyMs)),
  ];
  for (const k of ['50', '90', '99', '99.9']) if (p[k] !== undefined) stats.push(stat(`p${k}`, `p${k}`, p[k], ms(p[k])));
  stats.push(stat('maxLatencyMs', 'Max', r.maxLatencyMs, ms(r.maxLatencyMs)));
  stats.push(stat('totalTimeSeconds', 'Time', r.totalTimeSeconds, `${Number(Number(r.totalTimeSeconds).toFixed(3))} s`));
  return `<div class="stats">${[...stats, ...more].join('')}</div>`;
}

/** The responses by status and the failures without a response, each a table when there are any. */
export function responseTables(r) {
  const parts = [];
  // gRPC: the calls' codes by name (OK, UNAVAILABLE, ...).
  const grpc = r.grpcStatuses !== undefined;
  const statuses = Object.entries((grpc ? r.grpcStatuses : r.statusCodes) || {});
  if (statuses.length > 0) parts.push(grpc ? '<h3>Calls by gRPC status</h3>' : '<h3>Responses by status</h3>', table([grpc ? 'grpc-status' : 'status', grpc ? 'calls' : 'responses'], statuses.map(([k, v]) => [k, v])));
  const reasons = Object.entries(r.errorsByReason || {});
  if (reasons.length > 0) parts.push('<h3>Failures without a response</h3>', table(['reason', 'requests'], reasons.map(([k, v]) => [k, v])));
  return parts;
}
