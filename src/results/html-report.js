// --html FILE: one self-contained page from a result's JSON document (or a --sweep document):
// the figures, the run's settings, and plots drawn as inline SVG when the page is written. The
// page runs no script and loads nothing (its Content-Security-Policy forbids both); the document
// it was made from is embedded as JSON, so the page is also the data.

import { chart, linearAxis, logAxis, niceTicks, escapeHtml, COLORS } from './svg-chart.js';
import { highestOf, lowestOf } from '../run/histogram.js';
import { VERSION } from '../version.js';
import { describeActual } from './thresholds.js';

/** The policy of a page that runs no script and loads nothing (its images are data: URLs). */
export const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

/** The page's look, which the live dashboard (dashboard-page.js) shares. */
export const STYLE = `
body { font: 14px/1.45 system-ui, -apple-system, 'Segoe UI', sans-serif; margin: 24px auto; max-width: 1500px; padding: 0 16px; color: #1f2937; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px; } h3 { font-size: 15px; margin: 8px 0; }
.url { font-family: ui-monospace, monospace; word-break: break-all; color: #374151; }
.stats { display: flex; flex-wrap: wrap; gap: 8px; margin: 16px 0; }
.stat { border: 1px solid #e5e7eb; border-radius: 6px; padding: 6px 12px; min-width: 96px; }
.stat .label { display: block; font-size: 12px; color: #6b7280; } .stat .value { font-size: 18px; font-weight: 600; }
.stat.bad .value { color: #dc2626; }
.charts { display: flex; flex-wrap: wrap; gap: 12px; }
figure { margin: 0; border: 1px solid #e5e7eb; border-radius: 6px; padding: 8px; }
figcaption { font-weight: 600; margin-bottom: 4px; } figcaption small { font-weight: 400; color: #6b7280; }
svg.chart { display: block; max-width: 100%; height: auto; font-size: 11px; }
svg .grid { stroke: #eef0f3; } svg .frame { fill: none; stroke: #9ca3af; }
svg .tick, svg .legend { fill: #4b5563; } svg .axis { fill: #374151; font-size: 12px; }
table { border-collapse: collapse; margin: 8px 0; } th, td { padding: 3px 10px; border-bottom: 1px solid #e5e7eb; text-align: left; vertical-align: top; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; } td code { word-break: break-all; }
details { border: 1px solid #e5e7eb; border-radius: 6px; padding: 6px 12px; margin: 8px 0; } summary { cursor: pointer; font-weight: 600; }
.note { color: #6b7280; } figure.aside { align-self: flex-start; max-width: 520px; } figure.aside th { white-space: nowrap; } footer { margin-top: 32px; color: #6b7280; font-size: 12px; }
`;

/**
 * A page's head, up to and with <body>: its policy, the loadtest that wrote it (`generator`), its
 * title, `extra` tags and its style. The --html page, compare's and the live dashboard's.
 */
export function pageHead({ csp = CSP, generator = VERSION, title, extra = '', style = STYLE }) {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="loadtest ${escapeHtml(generator)}">
<title>${escapeHtml(title)}</title>
${extra}<style>${style}</style>
</head>
<body>`;
}

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
<footer>Written by loadtest ${escapeHtml(VERSION)}${meta.generatedAt ? ` on ${escapeHtml(new Date(meta.generatedAt).toISOString())}` : ''}. The result's JSON document is in this page: the script element <code>#loadtest-result</code>.</footer>
<script type="application/json" id="loadtest-result">${embedJson(doc)}</script>
</body>
</html>
`;
}

// Inside <script>, only "</script" (or "<!--") ends the element early; with every "<" escaped
// neither can occur, and JSON.parse reads \u003c back as "<".
function embedJson(doc) {
  return JSON.stringify(doc).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

function runSections(r, meta, prefix) {
  const parts = [summary(r), '<h2>Latency</h2><div class="charts">', percentileChart(r, prefix), histogramChart(r, prefix), phaseChart(r, prefix), phaseTable(r, prefix), '</div>'];
  parts.push('<h2>Over time</h2><div class="charts">', ...timeCharts(r, prefix), '</div>');
  if (Array.isArray(r.entries) && r.entries.length > 0) parts.push('<h2>Requests by entry</h2>', entriesTable(r.entries));
  parts.push(outcomes(r));
  parts.push('<h2>Settings</h2>', settings(r, meta));
  return parts.join('\n');
}

const errorRate = (r) => (r.totalRequests > 0 ? (r.totalErrors / r.totalRequests) * 100 : 0);
const percent = (x) => `${Number(x.toFixed(x < 1 ? 3 : 2))} %`;

function stat(key, label, value, shown, bad = false) {
  return `<div class="stat${bad ? ' bad' : ''}" data-key="${key}" data-value="${escapeHtml(value)}"><span class="label">${escapeHtml(label)}</span><span class="value">${escapeHtml(shown)}</span></div>`;
}

function summary(r) {
  const p = r.percentiles || {};
  const ms = (v) => `${v} ms`;
  const stats = [
    stat('totalRequests', 'Requests', r.totalRequests, r.totalRequests),
    stat('totalErrors', 'Errors', r.totalErrors, `${r.totalErrors} (${percent(errorRate(r))})`, r.totalErrors > 0),
    stat('effectiveRps', 'Requests/s', r.effectiveRps, r.effectiveRps),
    stat('meanLatencyMs', 'Mean', r.meanLatencyMs, ms(r.meanLatencyMs)),
  ];
  for (const k of ['50', '90', '99', '99.9']) if (p[k] !== undefined) stats.push(stat(`p${k}`, `p${k}`, p[k], ms(p[k])));
  stats.push(stat('maxLatencyMs', 'Max', r.maxLatencyMs, ms(r.maxLatencyMs)));
  stats.push(stat('totalTimeSeconds', 'Time', r.totalTimeSeconds, `${Number(Number(r.totalTimeSeconds).toFixed(3))} s`));
  return `<div class="stats">${stats.join('')}</div>`;
}

function figure(caption, note, svg, className = '') {
  return `<figure${className ? ` class="${className}"` : ''}><figcaption>${escapeHtml(caption)}${note ? ` <small>${escapeHtml(note)}</small>` : ''}</figcaption>${svg}</figure>`;
}

const empty = (id, caption, why) => `<figure><figcaption>${escapeHtml(caption)}</figcaption><p class="note" id="${escapeHtml(id)}" data-empty="1">${escapeHtml(why)}</p></figure>`;

const bucketsOf = (r) => (r.latencyHistogram && Array.isArray(r.latencyHistogram.buckets) ? r.latencyHistogram.buckets : []);

const countOf = (pairs) => {
  let total = 0;
  for (let k = 1; k < pairs.length; k += 2) total += pairs[k];
  return total;
};

/**
 * The percentile axis as HdrHistogram plots it: x is 1/(1-p) on a log scale, so that 90 %, 99 %,
 * 99.9 % ... are evenly spaced and the tail gets the room. The tail of `total` values reaches
 * 1 - 1/total; the axis ends at the next power of ten (99 % at least).
 */
function percentileAxis(total) {
  const xmax = Math.max(2, Math.ceil(Math.log10(total)));
  const ticks = [];
  for (let e = 0; e <= xmax; e++) ticks.push({ value: e, label: e === 0 ? '0%' : `${Number((100 - 100 / 10 ** e).toFixed(e))}%` });
  return { min: 0, max: xmax, ticks, title: 'percentile' };
}

/** A step curve over percentileAxis(): [x, ms] per bucket of sparse [index, count, ...] pairs. */
function spectrum(pairs, maxUs, xmax) {
  const total = countOf(pairs);
  const u = (p) => (p >= 1 ? xmax : Math.min(xmax, Math.log10(1 / (1 - p))));
  const points = [];
  let seen = 0;
  for (let k = 0; k < pairs.length; k += 2) {
    // A bucket's value (capped by the exact max, as the result's percentiles are) holds from
    // the share before it up to the share that includes it.
    points.push([u(seen / total), Math.min(highestOf(pairs[k]), maxUs || Infinity) / 1000]);
    seen += pairs[k + 1];
  }
  points.push([xmax, points[points.length - 1][1]]);
  return points;
}

/** The latency's percentile distribution. */
function percentileChart(r, prefix) {
  const id = `${prefix}percentiles`;
  const caption = 'Latency by percentile';
  const pairs = bucketsOf(r);
  const total = countOf(pairs);
  if (total === 0) return empty(id, caption, 'No responses.');
  const x = percentileAxis(total);
  const points = spectrum(pairs, r.latencyHistogram.max, x.max);
  const y = linearAxis(points.map((pt) => pt[1]), 'latency', { unit: ' ms' });
  return figure(caption, 'x: 1/(1−p), log scale', chart({ id, title: caption, series: [{ name: 'latency', kind: 'step', points }], x, y }));
}

// The request phases (src/run/stats.js), in the order a request goes through them; red is the errors'.
const PHASE_COLORS = { connect: COLORS[0], tls: COLORS[3], wait: COLORS[2], receive: COLORS[4] };

// Phases that happened, with their histograms' buckets: none in a document written before phases were kept.
function phaseBuckets(r) {
  const histograms = r.phaseHistograms || {};
  const buckets = (p) => (histograms[p] && Array.isArray(histograms[p].buckets) ? histograms[p].buckets : []);
  return Object.keys(PHASE_COLORS).map((name) => ({ name, pairs: buckets(name), maxUs: histograms[name] && histograms[name].max })).filter((p) => countOf(p.pairs) > 0);
}

/**
 * Each phase's percentile distribution on one plot. y is on a log scale: a connect takes
 * milliseconds where a response's receive may take none. The histograms count whole µs, so a
 * value of 0 is under 1 µs: drawn on the bottom line, which is then 1 µs.
 */
function phaseChart(r, prefix) {
  const phases = phaseBuckets(r);
  if (phases.length === 0) return '';
  const caption = 'Request phases by percentile';
  const x = percentileAxis(Math.max(...phases.map((p) => countOf(p.pairs))));
  const curves = phases.map((p) => ({ ...p, points: spectrum(p.pairs, p.maxUs, x.max) }));
  // Four histograms may have thousands of buckets each: too many to spread into Math.min's arguments.
  let lo = Infinity;
  let hi = 0;
  let zero = false;
  for (const c of curves) {
    for (const [, v] of c.points) {
      if (v > 0) lo = Math.min(lo, v);
      else zero = true;
      hi = Math.max(hi, v);
    }
  }
  if (zero) lo = Math.min(lo, 0.001);
  hi = Math.max(hi, lo);
  let y = logAxis(lo, hi, 'time', { unit: ' ms' });
  // The legend takes the plot's top tenth: a decade more when the highest curve would run into it.
  if (curves.length > 1 && (y.max - Math.log10(hi)) / (y.max - y.min) < 0.1) y = logAxis(lo, hi * 10, 'time', { unit: ' ms' });
  const series = curves.map((c) => ({ name: c.name, kind: 'step', color: PHASE_COLORS[c.name], points: c.points.map(([u, v]) => [u, Math.log10(Math.max(v, 10 ** y.min))]) }));
  // One line gets no legend: its name goes in the note.
  const note = `${series.length === 1 ? `${series[0].name}; ` : ''}x: 1/(1−p), log scale; y: log scale${zero ? ', under 1 µs on the bottom line' : ''}`;
  return figure(caption, note, chart({ id: `${prefix}phases`, title: caption, series, x, y }));
}

// The phases' figures, a row per phase that happened (no tls row over http).
function phaseTable(r, prefix) {
  const phases = r.phases || {};
  const names = Object.keys(PHASE_COLORS).filter((p) => phases[p] && phases[p].count > 0);
  if (names.length === 0) return '';
  const rows = names.map((p) => [p, phases[p].count, phases[p].p50, phases[p].p90, phases[p].p99, phases[p].max]);
  const note = 'connect and tls: per new connection; wait: written → first byte; receive: first → last byte';
  return figure('Request phases', note, table(['phase', 'count', 'p50 (ms)', 'p90 (ms)', 'p99 (ms)', 'max (ms)'], rows, `${prefix}phase-table`), 'aside');
}

/** The latency histogram in bins of equal width on a log scale (the buckets are far finer). */
function histogramChart(r, prefix) {
  const id = `${prefix}histogram`;
  const caption = 'Latency histogram';
  const pairs = bucketsOf(r);
  if (pairs.length === 0) return empty(id, caption, 'No responses.');
  // log10 of ms, from the buckets' middles.
  const logs = [];
  for (let k = 0; k < pairs.length; k += 2) logs.push(Math.log10(Math.max((lowestOf(pairs[k]) + highestOf(pairs[k])) / 2, 1) / 1000));
  const lo = Math.min(...logs);
  const hi = Math.max(...logs);
  const perDecade = hi - lo <= 2 ? 20 : 10;
  const bins = new Map();
  logs.forEach((v, i) => {
    const bin = Math.floor(v * perDecade);
    bins.set(bin, (bins.get(bin) || 0) + pairs[2 * i + 1]);
  });
  const keys = [...bins.keys()].sort((a, b) => a - b);
  const points = keys.map((b) => [(b + 0.5) / perDecade, bins.get(b)]);
  const tips = keys.map((b) => `${fmtMs(10 ** (b / perDecade))} – ${fmtMs(10 ** ((b + 1) / perDecade))} ms: ${bins.get(b)} responses`);
  const x = logAxis(10 ** (keys[0] / perDecade), 10 ** ((keys[keys.length - 1] + 1) / perDecade), 'latency', { unit: ' ms' });
  const y = linearAxis(points.map((pt) => pt[1]), 'responses');
  return figure(caption, 'x: log scale', chart({ id, title: caption, series: [{ name: 'responses', kind: 'bars', points, tips }], x, y, barWidth: 1 / perDecade }));
}

const fmtMs = (v) => String(Number(v.toPrecision(3)));

function timeCharts(r, prefix) {
  const series = Array.isArray(r.series) ? r.series : [];
  const ids = ['rate', 'latency-over-time', 'errors-over-time'].map((n) => prefix + n);
  if (series.length === 0) return ids.map((id) => empty(id, 'Over time', 'No per-second series in this result.'));
  const seconds = series.map((s) => s.second);
  // Half a second either side, so that the first and last seconds' bars fit in.
  const first = seconds[0];
  const last = seconds[seconds.length - 1];
  const ticks = niceTicks(first, Math.max(last, first + 1)).filter((t) => Number.isInteger(t) && t <= last);
  const x = { min: first - 0.5, max: last + 0.5, title: 'second of the run', ticks: ticks.map((t) => ({ value: t, label: String(t) })) };
  const rate = series.map((s) => (s.durationMs > 0 ? (s.completed / s.durationMs) * 1000 : 0));
  const rateTips = series.map((s, i) => `second ${s.second}: ${Math.round(rate[i])} requests/s (${s.completed} in ${s.durationMs} ms), ${s.connections} connections`);
  const p50 = series.map((s) => [s.second, s.p50Ms]);
  const p99 = series.map((s) => [s.second, s.p99Ms]);
  const latencyTips = (key) => series.map((s) => `second ${s.second}: ${key} ${s[`${key}Ms`]} ms`);
  const errors = series.map((s) => [s.second, s.errors]);
  const totalErrors = series.reduce((a, s) => a + s.errors, 0);
  // With --stages, the rate the ramp asked for beside the rate achieved.
  const rateSeries = [{ name: 'requests/s', kind: 'line', points: series.map((s, i) => [s.second, rate[i]]), tips: rateTips }];
  const staged = series.some((s) => typeof s.targetRequests === 'number');
  if (staged) {
    const target = series.map((s) => [s.second, s.durationMs > 0 ? ((s.targetRequests || 0) / Math.min(s.durationMs, 1000)) * 1000 : 0]);
    rateSeries.push({ name: 'target', kind: 'line', points: target, color: COLORS[2], tips: target.map(([sec, v]) => `second ${sec}: target ${Math.round(v)} requests/s`) });
  }
  return [
    figure('Requests per second', staged ? 'ended in each second, beside the stages\' target' : 'responses and failures ended in each second', chart({
      id: ids[0], title: 'Requests per second', x, y: linearAxis(rateSeries.flatMap((s) => s.points.map((pt) => pt[1])), 'requests/s'),
      series: rateSeries,
    })),
    figure('Latency over time', 'p50 and p99 of each second', chart({
      id: ids[1], title: 'Latency over time', x, y: linearAxis([...p50, ...p99].map((pt) => pt[1]), 'latency', { unit: ' ms' }),
      series: [{ name: 'p50', kind: 'line', points: p50, tips: latencyTips('p50') }, { name: 'p99', kind: 'line', points: p99, tips: latencyTips('p99') }],
    })),
    figure('Errors per second', totalErrors === 0 ? 'none' : `${totalErrors} in all`, chart({
      id: ids[2], title: 'Errors per second', x, y: linearAxis(errors.map((pt) => pt[1]), 'errors'),
      series: [{ name: 'errors', kind: 'bars', points: errors, color: COLORS[1], tips: series.map((s) => `second ${s.second}: ${s.errors} errors`) }],
    })),
  ];
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

function table(columns, rows, id) {
  const cell = (v, tag) => `<${tag}${typeof v === 'number' ? ' class="num"' : ''}>${escapeHtml(v)}</${tag}>`;
  const head = `<tr>${columns.map((c) => `<th>${escapeHtml(c)}</th>`).join('')}</tr>`;
  const body = rows.map((row) => `<tr>${row.map((v) => cell(v, 'td')).join('')}</tr>`).join('');
  return `<table${id ? ` id="${escapeHtml(id)}"` : ''}>${head}${body}</table>`;
}

function outcomes(r) {
  const parts = [];
  const statuses = Object.entries(r.statusCodes || {});
  if (statuses.length > 0) parts.push('<h3>Responses by status</h3>', table(['status', 'responses'], statuses.map(([k, v]) => [k, v])));
  const reasons = Object.entries(r.errorsByReason || {});
  if (reasons.length > 0) parts.push('<h3>Failures without a response</h3>', table(['reason', 'requests'], reasons.map(([k, v]) => [k, v])));
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
  const body = rows.map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td><code>${escapeHtml(v ?? '')}</code></td></tr>`).join('');
  return `<table class="settings">${body}</table>`;
}

// Values that give access: kept out of a page that is made to be passed around.
const SECRET_HEADERS = /^\s*(authorization|proxy-authorization|cookie|x-api-key|api-key)\s*:/i;

/** The arguments as one shell line, quoted where needed, with credentials replaced by "…". */
export function commandLine(args) {
  const out = ['loadtest'];
  for (let i = 0; i < args.length; i++) {
    let word = String(args[i]);
    const prev = i > 0 ? String(args[i - 1]) : '';
    if ((prev === '-H' || prev === '--header') && SECRET_HEADERS.test(word)) word = `${word.slice(0, word.indexOf(':') + 1)}…`;
    else if (/^--header=/.test(word) && SECRET_HEADERS.test(word.slice(9))) word = `${word.slice(0, word.indexOf(':') + 1)}…`;
    else if (prev === '-C' || prev === '--cookie') word = `${word.split('=')[0]}=…`;
    else if (/^--cookie=/.test(word)) word = `${word.split('=').slice(0, 2).join('=')}=…`;
    else word = word.replace(/^([a-z]+:\/\/[^/:@\s]*:)[^/@\s]*@/i, '$1…@');
    out.push(/^[\w@%+=:,./…-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`);
  }
  return out.join(' ');
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
