// `loadtest compare --html FILE`: one self-contained page from the JSON document `--json` writes,
// in the look of a run's --html page (src/results/html/html-report.js): the settings, plots drawn as
// inline SVG when the page is written, the tables, and the document itself embedded as JSON. The
// page runs no script and loads nothing (its Content-Security-Policy forbids both). One level:
// per metric each candidate's rounds as dots and its median as a bar, beside the table of medians,
// ratios and p-values. Load levels: latency, achieved rate (and errors) against the level, a curve
// per candidate through its medians, each candidate's knee ringed; then a table per level.

import { chart, linearAxis, logAxis, escapeHtml, COLORS } from '../results/html/svg-chart.js';
import { median } from './welch.js';
import { pageHead } from '../results/html/html-page.js';
import { METRIC_INFO, summariesOf, metricsOf, rowOf, levelRow, sloKey, formatValue, pText, ratioText, levelText, kneeRule, kneeText, settingsOf } from './markdown.js';


// The run page's style, and the legends', knees' and level tables' own.
const STYLE = `
body { font: 14px/1.45 system-ui, -apple-system, 'Segoe UI', sans-serif; margin: 24px auto; max-width: 1500px; padding: 0 16px; color: #1f2937; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px; } h3 { font-size: 15px; margin: 16px 0 4px; }
.sub { color: #374151; } .sub b { font-weight: 600; }
.stats { display: flex; flex-wrap: wrap; gap: 8px; margin: 16px 0; }
.stat { border: 1px solid #e5e7eb; border-radius: 6px; padding: 6px 12px; min-width: 96px; }
.stat .label { display: block; font-size: 12px; color: #6b7280; } .stat .value { font-size: 18px; font-weight: 600; }
.stat.bad .value, td.bad, .bad { color: #dc2626; }
.charts { display: flex; flex-wrap: wrap; gap: 12px; } .charts > figure { flex: 1 1 560px; max-width: 680px; }
figure { margin: 0; border: 1px solid #e5e7eb; border-radius: 6px; padding: 8px; }
figcaption { font-weight: 600; margin-bottom: 4px; } figcaption small { font-weight: 400; color: #6b7280; }
svg.chart { display: block; max-width: 100%; height: auto; font-size: 11px; }
svg .grid { stroke: #eef0f3; } svg .frame { fill: none; stroke: #9ca3af; }
svg .tick, svg .legend { fill: #4b5563; } svg .axis { fill: #374151; font-size: 12px; }
svg .knee-label { font-size: 11px; font-weight: 600; } svg .rule-label { fill: #6b7280; font-size: 11px; }
table { border-collapse: collapse; margin: 8px 0; } th, td { padding: 3px 10px; border-bottom: 1px solid #e5e7eb; text-align: left; vertical-align: top; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; } td code { word-break: break-all; }
td small { color: #6b7280; } td.bad small { color: #dc2626; }
.key { display: flex; flex-wrap: wrap; gap: 2px 14px; font-size: 12px; font-weight: 400; color: #4b5563; margin: 2px 0 4px; }
.key i, i.sw { display: inline-block; margin-right: 5px; vertical-align: middle; }
i.sw { width: 12px; height: 12px; } .key .ln { width: 24px; border-top: 2px solid #374151; }
.key .ln.dash { border-top-style: dashed; } .key .ln.dot { border-top-style: dotted; } .key .ln.grey { border-color: #9ca3af; }
.key .ring { width: 10px; height: 10px; border: 2px solid #374151; border-radius: 50%; }
${COLORS.map((c, i) => `.c${i} { background: ${c}; }`).join(' ')}
.note { color: #6b7280; } footer { margin-top: 32px; color: #6b7280; font-size: 12px; }
`;

const GREY = '#9ca3af';
const DASH = { solid: '', dash: '6 4', dot: '1.5 3' };
const px = (n) => Math.round(n * 10) / 10;

/** The page, as one string. doc: the JSON document of `loadtest compare --json`. */
export function compareHtml(doc) {
  const names = (doc.candidates || []).map((c) => c.name);
  const ctx = { doc, names, colorOf: (name) => Math.max(0, names.indexOf(name)) % COLORS.length };
  const body = doc.levels ? levelSections(ctx) : oneLevelSections(ctx);
  const e = escapeHtml;
  return `${pageHead({ generator: doc.loadtest || '', title: `loadtest compare: ${names.join(' vs ')}`, style: STYLE })}
<h1>loadtest compare: ${names.map((n) => e(n)).join(' vs ')}</h1>
<div class="sub">baseline <b>${e(doc.baseline)}</b> · ${e(doc.date || '')} · ${e(doc.rounds)} rounds${doc.levels ? ` at each of ${e(doc.levels.values.length)} levels` : ''}${doc.slo ? ` · SLO ${e(doc.slo.text)}` : ''}</div>
${doc.interrupted ? '<p class="bad">Interrupted: the figures of the rounds done before Ctrl-C.</p>' : ''}
${headline(ctx)}
<h2>Candidates</h2>
${table(['candidate', 'server', 'client', ''], (doc.candidates || []).map((c) => [swatch(ctx, c.name) + e(c.name), e(c.server ?? '-'), e(c.client ?? '-'), c.name === doc.baseline ? 'baseline' : '']), 'candidates')}
<h2>Settings</h2>
${settingsTable(doc)}
${body}
<footer>Written by loadtest ${e(doc.loadtest || '')} compare. The comparison's JSON document is in this page: the script element <code>#data</code>.</footer>
<script type="application/json" id="data">${embedJson(doc)}</script>
</body>
</html>
`;
}

// Inside <script>, only "</script" (or "<!--") ends the element early; with every "<" escaped
// neither can occur, and JSON.parse reads \u003c back as "<".
function embedJson(doc) {
  return JSON.stringify(doc).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/** rows: cells as HTML (escaped by the caller); a cell { html, num, bad, title } gets attributes. */
function table(columns, rows, id, numeric = []) {
  const head = `<tr>${columns.map((c, i) => `<th${numeric.includes(i) ? ' class="num"' : ''}>${escapeHtml(c)}</th>`).join('')}</tr>`;
  const cell = (v, i) => {
    const c = typeof v === 'object' && v !== null ? v : { html: v };
    const cls = [numeric.includes(i) || c.num ? 'num' : '', c.bad ? 'bad' : ''].filter(Boolean).join(' ');
    return `<td${cls ? ` class="${cls}"` : ''}${c.title ? ` title="${escapeHtml(c.title)}"` : ''}>${c.html}</td>`;
  };
  const body = rows.map((row) => `<tr>${row.map(cell).join('')}</tr>`).join('');
  return `<table${id ? ` id="${escapeHtml(id)}"` : ''}>${head}${body}</table>`;
}

const swatch = (ctx, name) => `<i class="sw c${ctx.colorOf(name)}"></i>`;

function settingsTable(doc) {
  const rows = settingsOf(doc).filter(([label]) => label !== 'candidates');
  const body = rows.map(([label, text, code]) => `<tr><th>${escapeHtml(label)}</th><td>${[text === '' || text === undefined ? '' : escapeHtml(text), code ? `<code>${escapeHtml(code)}</code>` : ''].filter(Boolean).join(' ')}</td></tr>`).join('');
  return `<table class="settings" id="settings">${body}</table>`;
}

function stat(label, shown, bad = false) {
  return `<div class="stat${bad ? ' bad' : ''}"><span class="label">${escapeHtml(label)}</span><span class="value">${escapeHtml(shown)}</span></div>`;
}

// A box per candidate: its knee, or (one level) its rate and ratio.
function headline({ doc, names }) {
  if (doc.knees && doc.levels) return `<div class="stats" id="headline">${names.map((n) => stat(`${n}: knee`, kneeText(doc, n) || '-', doc.knees[n] === null)).join('')}</div>`;
  if (!doc.summary || !doc.summary.rps) return '';
  return `<div class="stats" id="headline">${names.map((n) => {
    const r = rowOf(doc.summary, 'rps', n);
    const shown = r && r.n ? `${formatValue(METRIC_INFO[0], r.median)} req/s${n === doc.baseline ? '' : ` · ${ratioText(r.ratio)}${r.stars ? ` ${r.stars}` : ''}`}` : '-';
    return stat(`${n}${n === doc.baseline ? ' (baseline)' : ''}`, shown);
  }).join('')}</div>`;
}

/** A legend above a plot: [{ color, label } | { line: 'solid'|'dash'|'dot', grey?, label } | { ring, label }]. */
function key(items) {
  const item = (it) => {
    if (it.color !== undefined) return `<span><i class="sw c${it.color}"></i>${escapeHtml(it.label)}</span>`;
    if (it.ring) return `<span><i class="ring"></i>${escapeHtml(it.label)}</span>`;
    return `<span><i class="ln ${it.line}${it.grey ? ' grey' : ''}"></i>${escapeHtml(it.label)}</span>`;
  };
  return `<div class="key">${items.map(item).join('')}</div>`;
}

const figure = (id, caption, note, legend, content) =>
  `<figure id="fig-${escapeHtml(id)}"><figcaption>${escapeHtml(caption)}${note ? ` <small>${escapeHtml(note)}</small>` : ''}${legend}</figcaption>${content}</figure>`;

// --- plots: chart() draws the frame, grid, ticks and titles (no series, so no legend of its own);
// the marks are drawn on the same scales, read back from the frame it drew.

function plot({ id, title, x, y, marks }) {
  const base = chart({ id, title, series: [], x, y });
  const [left, top, w, h] = /<rect class="frame" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"\/>/.exec(base).slice(1).map(Number);
  const g = {
    left, top, right: left + w, bottom: top + h,
    sx: (v) => px(left + ((v - x.min) / (x.max - x.min || 1)) * w),
    sy: (v) => px(top + h - ((v - y.min) / (y.max - y.min || 1)) * h),
  };
  // What a label must not cross: each curve's segments [x0, y0, x1, y1], the rings, the labels and
  // rules drawn before it (the rules are drawn first).
  g.avoid = [];
  for (const m of marks) {
    if (m.kind === 'line') for (let k = 1; k < m.points.length; k++) g.avoid.push([g.sx(m.points[k - 1][0]), g.sy(m.points[k - 1][1]), g.sx(m.points[k][0]), g.sy(m.points[k][1])]);
    if (m.kind === 'ring') g.avoid.push({ x0: g.sx(m.at[0]) - 9, x1: g.sx(m.at[0]) + 9, y0: g.sy(m.at[1]) - 9, y1: g.sy(m.at[1]) + 9 });
  }
  return base.replace(/<\/svg>$/, `${marks.map((m) => DRAW[m.kind](m, g)).join('')}</svg>`);
}

/** Whether a label's box, with a margin of 3, keeps clear of everything in g.avoid (of its boxes alone: boxesOnly). */
function free(g, b, boxesOnly = false) {
  const wide = { x0: b.x0 - 3, x1: b.x1 + 3, y0: b.y0 - 3, y1: b.y1 + 3 };
  return !g.avoid.some((o) => (o.length === 4 ? !boxesOnly && crosses(o, wide) : overlaps(o, wide)));
}

const overlaps = (a, b) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;

/** Whether the segment [x0, y0, x1, y1] crosses the box (Liang–Barsky clipping). */
function crosses([x0, y0, x1, y1], b) {
  let t0 = 0;
  let t1 = 1;
  const dx = x1 - x0;
  const dy = y1 - y0;
  for (const [p, q] of [[-dx, x0 - b.x0], [dx, b.x1 - x0], [-dy, y0 - b.y0], [dy, b.y1 - y0]]) {
    if (p === 0) {
      if (q < 0) return false;
    } else if (p < 0) t0 = Math.max(t0, q / p);
    else t1 = Math.min(t1, q / p);
  }
  return t0 <= t1;
}

const tip = (text) => (text ? `<title>${escapeHtml(text)}</title>` : '');

const DRAW = {
  // A curve through points, with a dot (and its tooltip) at each unless dots: false.
  line(m, g) {
    if (m.points.length === 0) return '';
    const d = m.points.map(([vx, vy], k) => `${k ? 'L' : 'M'}${g.sx(vx)} ${g.sy(vy)}`).join('');
    const dash = m.dash && DASH[m.dash] ? ` stroke-dasharray="${DASH[m.dash]}"` : '';
    const parts = [`<g class="series line${m.cls ? ` ${m.cls}` : ''}" data-series="${escapeHtml(m.name)}"><path d="${d}" fill="none" stroke="${m.color}" stroke-width="${m.width || 2}"${dash}/>`];
    if (m.dots !== false) {
      const fill = m.dash ? '#fff' : m.color;
      m.points.forEach(([vx, vy], k) => parts.push(`<circle cx="${g.sx(vx)}" cy="${g.sy(vy)}" r="3" fill="${fill}" stroke="${m.color}" stroke-width="1.5">${tip(m.tips && m.tips[k])}</circle>`));
    }
    return parts.join('') + '</g>';
  },
  dots(m, g) {
    const dots = m.points.map(([vx, vy], k) => `<circle cx="${g.sx(vx)}" cy="${g.sy(vy)}" r="3.5" fill="${m.color}" fill-opacity="0.7">${tip(m.tips && m.tips[k])}</circle>`);
    return `<g class="series dots" data-series="${escapeHtml(m.name)}">${dots.join('')}</g>`;
  },
  // A horizontal rule across the plot, its label above or below its left or right end, where no curve is.
  hline(m, g) {
    const at = g.sy(m.y);
    if (!(at >= g.top && at <= g.bottom)) return '';
    const width = 6 * String(m.label).length;
    const spots = [[g.left + 4, at - 4, 'start'], [g.right - 4, at - 4, 'end'], [g.left + 4, at + 13, 'start'], [g.right - 4, at + 13, 'end']].map(([x, y, anchor]) => ({ x, y, anchor, x0: anchor === 'start' ? x : x - width, x1: anchor === 'start' ? x + width : x, y0: y - 10, y1: y + 1 }));
    const spot = spots.find((b) => b.y0 >= g.top && b.y1 <= g.bottom && free(g, b)) || spots[0];
    g.avoid.push(spot, [g.left, at, g.right, at]);
    return `<g class="rule${m.cls ? ` ${m.cls}` : ''}"><line x1="${g.left}" x2="${g.right}" y1="${at}" y2="${at}" stroke="${m.color || '#6b7280'}" stroke-width="1.2" stroke-dasharray="${DASH.dash}"/><text class="rule-label" x="${spot.x}" y="${px(spot.y)}" text-anchor="${spot.anchor}">${escapeHtml(m.label)}</text></g>`;
  },
  // A knee: a ring on the curve and its label beside it, where the label crosses no curve and no
  // other label (g.avoid), trying the preferred side first (above off a rising curve, below under an SLO line).
  ring(m, g) {
    const cx = g.sx(m.at[0]);
    const cy = g.sy(m.at[1]);
    const width = 6.5 * String(m.label).length;
    const spots = [];
    for (const step of [0, 1, 2, 3]) {
      const up = { y: cy - 12 - 14 * step, top: cy - 22 - 14 * step };
      const down = { y: cy + 20 + 14 * step, top: cy + 10 + 14 * step };
      for (const v of m.side === 'below' ? [down, up] : [up, down]) for (const left of [true, false]) spots.push({ ...v, left });
    }
    const box = (s) => ({ x0: s.left ? cx - 12 - width : cx + 12, x1: s.left ? cx - 12 : cx + 12 + width, y0: s.top, y1: s.top + 12 });
    const inside = (b) => b.x0 >= g.left + 2 && b.x1 <= g.right - 2 && b.y0 >= g.top + 2 && b.y1 <= g.bottom - 2;
    // Clear of everything; else clear of the other labels and rings (crossing a curve); else inside.
    const spot = spots.find((s) => inside(box(s)) && free(g, box(s))) || spots.find((s) => inside(box(s)) && free(g, box(s), true)) || spots.find((s) => inside(box(s))) || spots[0];
    g.avoid.push(box(spot));
    const lx = spot.left ? cx - 12 : cx + 12;
    return `<g class="knee" data-series="${escapeHtml(m.name)}"><circle cx="${cx}" cy="${cy}" r="8" fill="none" stroke="${m.color}" stroke-width="2.5">${tip(m.tip)}</circle><text class="knee-label" x="${px(lx)}" y="${px(spot.y)}" text-anchor="${spot.left ? 'end' : 'start'}" fill="${m.color}">${escapeHtml(m.label)}</text></g>`;
  },
};

/** The x axis of the levels: log10 when they span more than 10× (concurrency: always), ticked at the levels. */
function levelAxis(levels) {
  const values = levels.values;
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const title = levels.kind === 'rps' ? 'target rate, requests/s' : 'concurrency (connections)';
  const log = lo > 0 && hi > lo && (levels.kind === 'concurrency' || hi / lo > 10);
  if (!log) return { ...linearAxis(values, title), t: (v) => v, log: false };
  const [a, b] = [Math.log10(lo), Math.log10(hi)];
  const pad = (b - a) / 16;
  const ticks = values.length <= 10 ? values.map((v) => ({ value: Math.log10(v), label: String(v) })) : logAxis(lo, hi, '').ticks.filter((t) => t.value >= a - pad && t.value <= b + pad);
  return { min: a - pad, max: b + pad, title: `${title}, log scale`, ticks, t: Math.log10, log: true };
}

/** The level axis's scale for rates measured at those levels: widened to take in all of `values`. */
function sameAxis(x, values, title) {
  if (!x.log) return { ...linearAxis([...values, x.max], title), t: (v) => v, log: false };
  const logs = values.filter((v) => v > 0).map(Math.log10);
  const pad = (x.max - x.min) / 20;
  const min = Math.min(x.min, ...logs.map((v) => v - pad));
  const max = Math.max(x.max, ...logs.map((v) => v + pad));
  return { ...x, min, max, title: `${title}, log scale` };
}

/** A y axis: linear from 0, or log10 when asked and the values span more than 30×. */
function valueAxis(values, title, { log = false } = {}) {
  const positive = values.filter((v) => v > 0);
  if (log && positive.length > 1 && Math.max(...positive) / Math.min(...positive) > 30) {
    const a = logAxis(Math.min(...positive), Math.max(...positive), `${title}, log scale`);
    return { ...a, t: (v) => Math.log10(Math.max(v, 10 ** a.min)), log: true };
  }
  return { ...linearAxis(values, title), t: (v) => v, log: false };
}

// --- one level: per metric, the rounds as dots and the medians as bars, beside the table.

function oneLevelSections(ctx) {
  const summary = ctx.doc.summary || {};
  const metrics = metricsOf([{ summary }]);
  if (metrics.length === 0) return '<p class="note">No rounds were done.</p>';
  const parts = ['<h2>Each metric</h2>', `<p class="note">Each dot is a round, the bar the candidate's median; the dashed line is ${escapeHtml(ctx.doc.baseline)}'s median. ${readingNote(ctx.doc)}</p>`];
  parts.push('<div class="charts">', ...metrics.map((m) => metricFigure(ctx, m, summary)), '</div>');
  return parts.join('\n');
}

const readingNote = (doc) =>
  escapeHtml(`ratio: a candidate's median over ${doc.baseline}'s; p-value: Welch's t-test of its rounds against ${doc.baseline}'s; * p<0.05, ** p<0.01, *** p<0.001 (no star: the difference may be noise).`);

function metricFigure({ doc, names, colorOf }, metric, summary) {
  const id = `metric-${metric.key}`;
  const records = (doc.records || []).filter((r) => typeof r[metric.key] === 'number');
  const rows = names.map((name) => rowOf(summary, metric.key, name));
  const tableHtml = table(['candidate', 'median', 'min – max', 'ratio', 'p-value', ''], names.map((name, i) => {
    const r = rows[i];
    if (!r || !r.n) return [escapeHtml(name), '-', '', '', '', ''];
    const f = (v) => formatValue(metric, v);
    return [escapeHtml(name), f(r.median), `${f(r.min)} – ${f(r.max)}`, escapeHtml(ratioText(r.ratio)), name === doc.baseline ? 'baseline' : pText(r.p), escapeHtml(r.stars || '')];
  }), `table-${metric.key}`, [1, 2, 3, 4]);
  const x = { min: -0.5, max: names.length - 0.5, title: 'candidate', ticks: names.map((n, i) => ({ value: i, label: n })) };
  const y = linearAxis([...records.map((r) => r[metric.key]), ...rows.map((r) => (r && r.n ? r.median : 0))], metric.title);
  const marks = [];
  const base = rowOf(summary, metric.key, doc.baseline);
  if (base && base.n) marks.push({ kind: 'hline', y: base.median, label: `${doc.baseline} median`, color: GREY, cls: 'baseline' });
  names.forEach((name, i) => {
    const own = records.filter((r) => r.candidate === name).sort((a, b) => a.round - b.round);
    const spread = own.length > 1 ? 0.24 : 0;
    const at = (k) => i + (own.length > 1 ? (k / (own.length - 1) - 0.5) * spread : 0);
    const color = COLORS[colorOf(name)];
    marks.push({ kind: 'dots', name, color, points: own.map((r, k) => [at(k), r[metric.key]]), tips: own.map((r) => `${name}, round ${r.round}: ${formatValue(metric, r[metric.key])}`) });
    const r = rows[i];
    if (r && r.n) marks.push({ kind: 'line', name: `${name} median`, cls: 'median', color, width: 3, dots: false, points: [[i - 0.3, r.median], [i + 0.3, r.median]] });
  });
  const note = `${metric.better ? `${metric.better} is better; ` : ''}${doc.rounds} rounds each`;
  return figure(id, metric.title, note, '', plot({ id, title: metric.title, x, y, marks }) + tableHtml);
}

// --- load levels: the curves against the level, the knees, a table per level.

function levelSections(ctx) {
  const { doc } = ctx;
  const byLevel = summariesOf(doc);
  if (byLevel.length === 0) return '<p class="note">No level was done.</p>';
  const parts = ['<h2>Against load</h2>', `<p class="note">Each point is the median of a candidate's ${escapeHtml(doc.rounds)} rounds at a level${doc.knees ? '; a ring marks its knee' : ''}; the tooltips give the rounds' range.</p>`];
  parts.push('<div class="charts">', latencyFigure(ctx, byLevel), rateFigure(ctx, byLevel), errorsFigure(ctx), '</div>');
  parts.push('<h2>Knees</h2>', kneesTable(ctx, byLevel));
  parts.push('<h2>Each level</h2>', `<p class="note">Each cell: the median, then its ratio to ${escapeHtml(doc.baseline)}'s and the stars. ${doc.slo ? `Red: above ${escapeHtml(doc.slo.text)}${doc.levels.kind === 'rps' ? ', or under 95 % of the target rate' : ''}, or errors. ` : ''}${readingNote(doc)}</p>`);
  for (const s of byLevel) parts.push(levelTable(ctx, s));
  return parts.join('\n');
}

const candidateKey = ({ names, colorOf }) => names.map((n) => ({ color: colorOf(n), label: n }));

/** Each candidate's curve of a metric's medians against the level. */
function curves({ doc, names, colorOf }, byLevel, metricKey, x, y, style = {}) {
  const metric = METRIC_INFO.find((m) => m.key === metricKey) || { key: metricKey };
  return names.map((name) => {
    const at = byLevel.map((s) => ({ level: s.level, r: rowOf(s.summary, metricKey, name) })).filter((p) => p.r && p.r.n);
    const tips = at.map(({ level, r }) => `${name} at ${levelText(doc.levels, level)}: ${metric.column || metricKey} ${formatValue(metric, r.median)} (rounds ${formatValue(metric, r.min)} – ${formatValue(metric, r.max)})`);
    return { kind: 'line', name: `${name} ${metricKey}`, color: COLORS[colorOf(name)], points: at.map(({ level, r }) => [x.t(level), y.t(r.median)]), tips, ...style };
  });
}

/** A ring at each candidate's knee on the curve of `metricKey`. */
function kneeRings({ doc, names, colorOf }, byLevel, metricKey, x, y, side = 'above') {
  if (!doc.knees) return [];
  const rings = [];
  for (const name of names) {
    const knee = doc.knees[name];
    const s = byLevel.find((l) => l.level === knee);
    const r = s && knee !== null ? rowOf(s.summary, metricKey, name) : null;
    if (!r || !r.n) continue;
    const stack = rings.filter((o) => o.level === knee).length;
    rings.push({ kind: 'ring', level: knee, stack, side, name, color: COLORS[colorOf(name)], at: [x.t(knee), y.t(r.median)], label: `${name} knee: ${levelText(doc.levels, knee)}`, tip: `${name}'s knee: ${levelText(doc.levels, knee)}` });
  }
  return rings;
}

function latencyFigure(ctx, byLevel) {
  const { doc } = ctx;
  const limited = sloKey(doc.slo);
  const has = (k) => byLevel.some((s) => s.summary && s.summary[k]);
  const keys = ['p99', 'p50', ...(limited && !['p99', 'p50'].includes(limited) ? [limited] : [])].filter(has);
  if (keys.length === 0) return '';
  const values = keys.flatMap((k) => byLevel.flatMap((s) => (s.summary[k] || []).filter((r) => r.n).map((r) => r.median)));
  if (doc.slo) values.push(doc.slo.limitMs);
  const x = levelAxis(doc.levels);
  const y = valueAxis(values, 'latency, ms', { log: true });
  const styles = { p99: 'solid', p50: 'dash', p999: 'dot' };
  const marks = [];
  if (doc.slo) marks.push({ kind: 'hline', y: y.t(doc.slo.limitMs), label: `SLO ${doc.slo.text}`, cls: 'slo', color: '#dc2626' });
  for (const k of keys) marks.push(...curves(ctx, byLevel, k, x, y, { dash: styles[k] === 'solid' ? null : styles[k] || 'dot' }));
  marks.push(...kneeRings(ctx, byLevel, limited || 'p99', x, y, 'below'));
  const label = { p99: 'p99', p50: 'p50', p999: 'p99.9' };
  const legend = key([...candidateKey(ctx), ...keys.map((k) => ({ line: styles[k] || 'dot', label: label[k] || k })), ...(doc.knees ? [{ ring: true, label: 'knee' }] : [])]);
  const title = `Latency against ${doc.levels.kind === 'rps' ? 'the target rate' : 'concurrency'}`;
  return figure('latency', title, `${keys.map((k) => label[k] || k).join(' and ')} medians`, legend, plot({ id: 'latency', title, x, y, marks }));
}

function rateFigure(ctx, byLevel) {
  const { doc } = ctx;
  if (!byLevel.some((s) => s.summary && s.summary.rps)) return '';
  const x = levelAxis(doc.levels);
  const achieved = byLevel.flatMap((s) => (s.summary.rps || []).filter((r) => r.n).map((r) => r.median));
  const marks = [];
  const rps = doc.levels.kind === 'rps';
  // Rate levels: achieved against target on the x axis's scale (and ticks), widened to take in
  // every achieved rate, with the line where the two are equal.
  const y = rps ? sameAxis(x, achieved, 'achieved requests/s') : valueAxis(achieved, 'achieved requests/s');
  if (rps) {
    const s = Math.max(x.min, y.min);
    const e = Math.min(x.max, y.max);
    const shift = (v) => (x.log ? v + Math.log10(0.95) : v * 0.95);
    marks.push({ kind: 'line', name: 'achieved = target', cls: 'target', color: GREY, dots: false, width: 1.5, points: [[s, s], [e, e]] });
    marks.push({ kind: 'line', name: '95 % of target', cls: 'target95', color: GREY, dots: false, width: 1.2, dash: 'dot', points: [[s, shift(s)], [e, shift(e)]] });
  }
  marks.push(...curves(ctx, byLevel, 'rps', x, y));
  marks.push(...kneeRings(ctx, byLevel, 'rps', x, y));
  const legend = key([...candidateKey(ctx), ...(rps ? [{ line: 'solid', grey: true, label: 'achieved = target' }, { line: 'dot', grey: true, label: '95 % of target' }] : []), ...(doc.knees ? [{ ring: true, label: 'knee' }] : [])]);
  const title = rps ? 'Achieved rate against the target rate' : 'Requests per second against concurrency';
  return figure('rate', title, 'medians', legend, plot({ id: 'rate', title, x, y, marks }));
}

function errorsFigure(ctx) {
  const { doc, names, colorOf } = ctx;
  const records = doc.records || [];
  if (!records.some((r) => r.errors > 0)) return '';
  const x = levelAxis(doc.levels);
  const perLevel = (name) => doc.levels.values.map((level) => ({ level, xs: records.filter((r) => r.candidate === name && r.level === level).map((r) => r.errors || 0) })).filter((p) => p.xs.length > 0);
  const y = linearAxis(records.map((r) => r.errors || 0), 'errors per round');
  const marks = names.map((name) => {
    const ps = perLevel(name);
    return { kind: 'line', name: `${name} errors`, color: COLORS[colorOf(name)], points: ps.map((p) => [x.t(p.level), median(p.xs)]), tips: ps.map((p) => `${name} at ${levelText(doc.levels, p.level)}: errors ${median(p.xs)} (rounds ${Math.min(...p.xs)} – ${Math.max(...p.xs)})`) };
  });
  return figure('errors', 'Errors against the level', 'median of the rounds', key(candidateKey(ctx)), plot({ id: 'errors', title: 'Errors against the level', x, y, marks }));
}

function kneesTable({ doc, names }, byLevel) {
  if (!doc.slo || !doc.knees) return `<p class="note" id="knees">No knee: ${doc.slo ? 'no knees in the document' : 'give --slo (e.g. p99<10ms) to find each candidate\'s'}.</p>`;
  const limited = sloKey(doc.slo);
  const info = METRIC_INFO.find((m) => m.key === limited) || { key: limited };
  const rows = names.map((name) => {
    const knee = doc.knees[name];
    const s = byLevel.find((l) => l.level === knee);
    const lat = s && knee !== null ? rowOf(s.summary, limited, name) : null;
    const rate = s && knee !== null ? rowOf(s.summary, 'rps', name) : null;
    return [escapeHtml(name), { html: escapeHtml(kneeText(doc, name) || '-'), bad: knee === null }, lat && lat.n ? formatValue(info, lat.median) : '', rate && rate.n ? formatValue(METRIC_INFO[0], rate.median) : ''];
  });
  return `<p class="note">The knee: ${escapeHtml(kneeRule(doc))}.</p>${table(['candidate', 'knee', `${doc.slo.metric} ms at the knee`, 'requests/s at the knee'], rows, 'knees', [2, 3])}`;
}

function levelTable({ doc, names }, s) {
  const { level } = s;
  // The same columns at every level (a level without errors has none in its summary).
  const metrics = metricsOf(summariesOf(doc));
  const limited = sloKey(doc.slo);
  const over = (key, v) => {
    if (!doc.slo) return false;
    if (key === limited) return doc.slo.op === '<=' ? v > doc.slo.limitMs : v >= doc.slo.limitMs;
    if (key === 'rps') return doc.levels.kind === 'rps' && v < 0.95 * level;
    return key === 'errors' && v > 0;
  };
  const rows = names.map((name) => [
    `${escapeHtml(name)}${name === doc.baseline ? ' <small>baseline</small>' : ''}`,
    ...metrics.map((m) => {
      const r = levelRow(doc, s, m.key, name);
      if (!r || !r.n) return { html: '-', num: true };
      const extra = name === doc.baseline ? '' : [ratioText(r.ratio), r.stars].filter(Boolean).join(' ');
      const title = `rounds ${formatValue(m, r.min)} – ${formatValue(m, r.max)}${name === doc.baseline ? '' : `; p = ${pText(r.p) || '-'}`}`;
      return { html: `${formatValue(m, r.median)}${extra ? ` <small>${escapeHtml(extra)}</small>` : ''}`, num: true, bad: over(m.key, r.median), title };
    }),
  ]);
  const heading = `${levelText(doc.levels, level)}${doc.levels.kind === 'rps' ? ' (target)' : ''}`;
  return `<h3>${escapeHtml(heading)}</h3>${table(['candidate', ...metrics.map((m) => m.column)], rows, `level-${level}`, metrics.map((_, i) => i + 1))}`;
}
