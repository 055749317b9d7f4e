// src/results/html/: the --html and --dashboard pages.
// --html FILE: one self-contained page from a result's JSON document (or a --sweep document):
// the figures, the run's settings, and plots drawn as inline SVG when the page is written. The
// page runs no script and loads nothing (its Content-Security-Policy forbids both); the document
// it was made from is embedded as JSON, so the page is also the data. Its parts are shared with
// a scripted run's page (script-report.js).

import { chart, linearAxis, escapeHtml } from './svg-chart.js';
import { describeActual } from '../thresholds.js';
import { pageHead, pageEnd, commandLine } from './html-page.js';
import { figure, table, settingsTable } from './html-blocks.js';
import { headline, responseTables, percent, errorRate } from './request-figures.js';
import { latencySection } from './latency-plots.js';
import { overTimeSection } from './time-plots.js';

/**
 * The page, as one string. doc: the JSON document of a result (JSON.parse(JSON.stringify(result)))
 * or of a sweep ({ sweep, url, results }). meta.command: the command's arguments, shown redacted;
 * meta.generatedAt: epoch ms.
 */
export function htmlReport(doc, meta = {}) {
  const sweep = Array.isArray(doc.sweep);
  const first = sweep ? doc.results[0] || {} : doc;
  const title = `loadtest ${sweep ? 'sweep' : 'report'}: ${first.url || ''}`;
  const body = sweep ? sweepSections(doc, meta) : runSections(doc, meta, '');
  return `${pageHead({ title })}
<h1>loadtest ${sweep ? 'concurrency sweep' : 'report'}</h1>
<div class="url">${escapeHtml(first.url || '')}</div>
${body}
${pageEnd(doc, meta, "The result's JSON document")}`;
}

function runSections(r, meta, prefix) {
  const parts = [headline(r), latencySection(r, prefix), overTimeSection(r, prefix)];
  if (Array.isArray(r.entries) && r.entries.length > 0) parts.push('<h2>Requests by entry</h2>', entriesTable(r.entries));
  parts.push(outcomes(r));
  parts.push('<h2>Settings</h2>', settings(r, meta));
  return parts.join('\n');
}

// Per-entry figures (request sequences): whatever scalar fields the entries have, percentiles
// spread into columns.
function entriesTable(entries) {
  const rows = entries.map((e) => {
    const row = {};
    for (const [k, v] of Object.entries(e)) {
      if (v && typeof v === 'object' && k === 'percentiles') for (const [p, ms] of Object.entries(v)) row[`p${p} (ms)`] = ms;
      else if (v === null || typeof v !== 'object') row[k] = v;
    }
    return row;
  });
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  return table(columns, rows.map((row) => columns.map((c) => row[c] ?? '')), 'entries');
}

function outcomes(r) {
  const parts = responseTables(r);
  if (r.childErrors && r.childErrors.length > 0) parts.push('<h3>Child process errors</h3>', `<ul>${r.childErrors.map((e) => `<li>${escapeHtml(e)}</li>`).join('')}</ul>`);
  if (r.thresholds && r.thresholds.length > 0) parts.push('<h3>Thresholds</h3>', table(['threshold', 'passed', 'actual'], r.thresholds.map((t) => [t.threshold, t.passed ? 'yes' : 'NO', describeActual(t)])));
  return parts.length ? `<h2>Outcomes</h2>${parts.join('')}` : '';
}

function settings(r, meta) {
  const rows = [['Target URL', r.url]];
  if (r.runtime) rows.push(['Runtime', r.runtime]);
  if (r.socket) rows.push(['Socket adapter', r.socket]);
  rows.push(['Cores', r.cores]);
  if (r.shard) rows.push(['Shard', r.shard]);
  if (r.merged) rows.push(['Merged results', r.merged]);
  rows.push(['Concurrency', r.concurrency]);
  rows.push(['Agent', r.agent]);
  if (r.maxRequests) rows.push(['Max requests', r.maxRequests]);
  if (r.maxSeconds) rows.push(['Max seconds', r.maxSeconds]);
  if (r.requestsPerSecond) rows.push(['Target rps', r.requestsPerSecond], ['Achieved rps', r.achievedRps]);
  const stageText = (stages) => stages.map((s) => `${s.duration}s:${s.target}`).join(', ');
  if (r.stages) rows.push(['Stages (rps)', stageText(r.stages)], ['Achieved rps', r.achievedRps]);
  if (r.connectionStages) rows.push(['Connection stages', stageText(r.connectionStages)]);
  if (r.startTime) rows.push(['Start time', new Date(r.startTime).toISOString()]);
  if (meta.command) rows.push(['Command', commandLine(meta.command)]);
  return settingsTable(rows);
}

// --- sweep: one row per concurrency level, rate and p99 against concurrency, each level's page.

function sweepSections(doc, meta) {
  const results = doc.results;
  const rows = results.map((r) => [r.concurrency, r.totalRequests, r.effectiveRps, r.meanLatencyMs, r.percentiles['50'], r.percentiles['99'], r.totalErrors, percent(errorRate(r))]);
  const parts = [table(['concurrency', 'requests', 'requests/s', 'mean (ms)', 'p50 (ms)', 'p99 (ms)', 'errors', 'error rate'], rows, 'sweep-table')];
  const levels = results.map((r) => r.concurrency);
  const lo = Math.log2(Math.min(...levels));
  const hi = Math.log2(Math.max(...levels));
  const pad = hi > lo ? (hi - lo) / 20 : 0.5;
  const x = { min: lo - pad, max: hi + pad, title: 'concurrency (connections), log scale', ticks: levels.map((c) => ({ value: Math.log2(c), label: String(c) })) };
  const at = (key) => results.map((r) => [Math.log2(r.concurrency), key(r)]);
  const rate = at((r) => r.effectiveRps);
  const p50 = at((r) => r.percentiles['50']);
  const p99 = at((r) => r.percentiles['99']);
  const tips = (key, unit) => results.map((r) => `${r.concurrency} connections: ${key(r)}${unit}`);
  parts.push('<h2>Against concurrency</h2><div class="charts">');
  parts.push(figure('Requests per second', '', chart({
    id: 'sweep-rate', title: 'Requests per second against concurrency', x, y: linearAxis(rate.map((pt) => pt[1]), 'requests/s'),
    series: [{ name: 'requests/s', kind: 'line', points: rate, tips: tips((r) => r.effectiveRps, ' requests/s') }],
  })));
  parts.push(figure('Latency', 'p50 and p99', chart({
    id: 'sweep-latency', title: 'Latency against concurrency', x, y: linearAxis([...p50, ...p99].map((pt) => pt[1]), 'latency', { unit: ' ms' }),
    series: [
      { name: 'p50', kind: 'line', points: p50, tips: tips((r) => r.percentiles['50'], ' ms p50') },
      { name: 'p99', kind: 'line', points: p99, tips: tips((r) => r.percentiles['99'], ' ms p99') },
    ],
  })));
  parts.push('</div>', '<h2>Each level</h2>');
  for (const r of results) {
    parts.push(`<details><summary>${escapeHtml(r.concurrency)} connections: ${escapeHtml(r.totalRequests)} requests, ${escapeHtml(r.effectiveRps)} requests/s</summary>${runSections(r, {}, `c${r.concurrency}-`)}</details>`);
  }
  parts.push('<h2>Settings</h2>', settings({ ...results[0], concurrency: levels.join(', '), startTime: results[0].startTime }, meta));
  return parts.join('\n');
}
