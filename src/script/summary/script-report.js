// `loadtest run --html F`: a scripted run's page, from its document (src/script/summary/report-doc.js).
// The parts of a load run's page (html-report.js) for its requests: the headline figures, the
// latency plots, the seconds of the run, the responses; then the script's own: thresholds marked
// ✓ or ✗, the checks by group, the scenarios, the script's metrics, its messages, and k6's
// summary. Self-contained as a load run's page: no script runs and nothing is fetched.

import { escapeHtml } from '../../results/html/svg-chart.js';
import { pageHead, pageEnd, commandLine, STYLE } from '../../results/html/html-page.js';
import { stat, table, settingsTable } from '../../results/html/html-blocks.js';
import { headline, responseTables, percent } from '../../results/html/request-figures.js';
import { latencySection } from '../../results/html/latency-plots.js';
import { overTimeSection } from '../../results/html/time-plots.js';
import { PHASES_NOTE } from './report-doc.js';
import { valueText } from './summary.js';

// A mark's colour, and each group's checks indented under its parent.
const SCRIPT_STYLE = `${STYLE}
.ok { color: #059669; } .bad { color: #dc2626; } td.mark { font-weight: 600; }
.group { margin-left: 18px; } .group h3 { margin: 12px 0 4px; }
pre.summary { font: 12px/1.4 ui-monospace, monospace; overflow-x: auto; }
`;

/** The page, as one string; meta: { command (the arguments), generatedAt (epoch ms) }. */
export function scriptReport(doc, meta = {}) {
  return `${pageHead({ title: `loadtest run: ${doc.script}`, style: SCRIPT_STYLE })}
<h1>loadtest run</h1>
<div class="url">${escapeHtml(doc.script)}</div>
${sections(doc, meta).join('\n')}
${pageEnd(doc, meta, "The run's JSON document")}`;
}

function sections(doc, meta) {
  return [
    headline(doc, { errors: 'Failed', more: scriptStats(doc.summary.metrics) }),
    aborted(doc),
    thresholdsSection(doc),
    checksSection(doc.summary.root_group),
    scenariosSection(doc.scenarios),
    latencySection(doc, '', PHASES_NOTE),
    overTimeSection(doc, ''),
    metricsSection(doc),
    responsesSection(doc),
    messagesSection(doc.messages),
    `<details><summary>k6's end-of-test summary</summary><pre class="summary">${escapeHtml(doc.summaryText)}</pre></details>`,
    '<h2>Settings</h2>',
    settings(doc, meta),
  ];
}

// Beside the requests' figures: iterations, checks passed, the most VUs.
function scriptStats(m) {
  const out = [];
  if (m.iterations) out.push(stat('iterations', 'Iterations', m.iterations.values.count, m.iterations.values.count));
  if (m.checks) {
    const c = m.checks.values;
    out.push(stat('checks', 'Checks passed', c.rate, `${c.passes} / ${c.passes + c.fails} (${percent(c.rate * 100)})`, c.fails > 0));
  }
  if (m.vus_max) out.push(stat('vusMax', 'VUs max', m.vus_max.values.max, m.vus_max.values.max));
  return out;
}

// test.abort()'s message or the thresholds that stopped the run, as the command logs it.
const aborted = (doc) => (doc.aborted ? `<p class="bad" id="aborted">Stopped early: ${escapeHtml(doc.aborted)}</p>` : '');

const mark = (ok) => ({ value: ok ? '✓' : '✗', className: `mark ${ok ? 'ok' : 'bad'}` });

// A value as k6's summary shows it, by the metric's kind (a time, bytes, a rate in %).
function shown(doc, metric, key, value) {
  const m = doc.summary.metrics[metric];
  return m ? valueText(m, key, value, doc.summary.options.summaryTimeUnit) : String(value);
}

function thresholdsSection(doc) {
  if (doc.thresholds.length === 0) return '';
  const rows = doc.thresholds.map((t) => [mark(t.ok), { value: t.metric, className: 'metric' }, { value: t.source, className: 'source' }, shown(doc, t.metric, t.stat, t.actual)]);
  const failed = doc.thresholds.filter((t) => !t.ok).length;
  return `<h2>Thresholds <small class="${failed ? 'bad' : 'ok'}">${failed ? `${failed} of ${doc.thresholds.length} failed` : 'all passed'}</small></h2>${table(['', 'metric', 'threshold', 'actual'], rows, 'thresholds')}`;
}

// The checks of a group, then its groups, each under its name and indented: k6's tree.
function groupHtml(g) {
  const parts = [];
  if (g.checks.length > 0) {
    const rows = g.checks.map((c) => [mark(c.fails === 0), c.name, c.passes, c.fails, { value: percent((c.passes / (c.passes + c.fails)) * 100), className: 'num' }]);
    parts.push(table(['', 'check', 'passes', 'fails', 'passed'], rows));
  }
  for (const child of g.groups) parts.push(`<div class="group" data-group="${escapeHtml(child.path)}"><h3>█ ${escapeHtml(child.name)}</h3>${groupHtml(child)}</div>`);
  return parts.join('');
}

function checksSection(root) {
  if (root.checks.length === 0 && root.groups.length === 0) return '';
  return `<h2>Checks and groups</h2><div id="checks">${groupHtml(root)}</div>`;
}

// How a scenario was set, in its executor's words.
function shape(s) {
  const d = (ms) => `${ms / 1000}s`;
  const vus = (n) => `${n} VU${n === 1 ? '' : 's'}`;
  const stages = (list) => list.map((x) => `${d(x.ms)}:${x.target}`).join(', ');
  switch (s.executor) {
    case 'shared-iterations':
      return `${s.iterations} iterations shared, within ${d(s.maxDurationMs)}`;
    case 'per-vu-iterations':
      return `${s.iterations} iterations per VU, within ${d(s.maxDurationMs)}`;
    case 'constant-vus':
      return `for ${d(s.durationMs)}`;
    case 'ramping-vus':
      return `from ${vus(s.startVUs)}, stages ${stages(s.stages)}`;
    case 'constant-arrival-rate':
      return `${s.rate} per ${d(s.timeUnitMs)} for ${d(s.durationMs)}`;
    default:
      return `from ${s.startRate} per ${d(s.timeUnitMs)}, stages ${stages(s.stages)}`;
  }
}

// A scenario's VUs: those it runs, or up to its most.
const vusOf = (s) => (s.vus !== undefined ? s.vus : s.preAllocatedVUs !== undefined ? `${s.preAllocatedVUs} (up to ${s.maxVUs})` : `up to ${s.maxVUs}`);

function scenariosSection(scenarios) {
  const rows = scenarios.map((s) => [s.name, s.executor, { value: vusOf(s), className: 'num' }, s.iterationsCompleted, shape(s), s.exec, s.startMs ? `${s.startMs / 1000}s` : '0s']);
  return `<h2>Scenarios</h2>${table(['scenario', 'executor', 'VUs', 'iterations', 'as set', 'exec', 'start'], rows, 'scenarios')}`;
}

// The script's metrics (and the sub-metrics thresholds made of them), a table per type.
function metricsSection(doc) {
  const metrics = doc.summary.metrics;
  const names = Object.keys(metrics).filter((n) => doc.customMetrics.includes(n.split('{')[0])).sort();
  if (names.length === 0) return '';
  const parts = ['<h2>The script\'s metrics</h2>'];
  for (const type of ['counter', 'rate', 'gauge', 'trend']) {
    const ofType = names.filter((n) => metrics[n].type === type);
    if (ofType.length === 0) continue;
    const keys = [...new Set(ofType.flatMap((n) => Object.keys(metrics[n].values)))];
    const rows = ofType.map((n) => [thresholdMark(metrics[n]), n, ...keys.map((k) => (k in metrics[n].values ? shown(doc, n, k, metrics[n].values[k]) : ''))]);
    parts.push(`<h3>${type[0].toUpperCase()}${type.slice(1)}s</h3>`, table(['', 'metric', ...keys], rows, `metrics-${type}`));
  }
  const unseen = doc.customMetrics.filter((n) => !metrics[n]);
  if (unseen.length > 0) parts.push(`<p class="note">No sample: ${escapeHtml(unseen.join(', '))}</p>`);
  return parts.join('');
}

// ✓ or ✗ when the metric has thresholds, as k6's summary marks it.
const thresholdMark = (m) => (m.thresholds ? mark(Object.values(m.thresholds).every((t) => t.ok)) : '');

function responsesSection(doc) {
  const parts = responseTables(doc);
  return parts.length ? `<h2>Responses</h2>${parts.join('')}` : '';
}

function messagesSection(messages) {
  if (messages.length === 0) return '';
  return `<h2>Messages</h2>${table(['message', 'times'], messages, 'messages')}`;
}

function settings(doc, meta) {
  const rows = [['Script', doc.script]];
  if (doc.runtime) rows.push(['Runtime', doc.runtime]);
  rows.push(['Cores', doc.cores]);
  if (doc.shard) rows.push(['Shard', doc.shard]);
  if (doc.startTime) rows.push(['Start time', new Date(doc.startTime).toISOString()]);
  if (meta.command) rows.push(['Command', commandLine(meta.command)]);
  return settingsTable(rows);
}
