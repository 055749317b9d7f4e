// --dashboard: the page a run serves while it goes (runtimes/run-servers/dashboard.js). It looks like
// the --html page, but is drawn in the browser: a small script reads the run's seconds from
// /events (Server-Sent Events) and redraws its figures and plots at each. It fetches nothing
// else, and puts what it receives in the DOM as text only (textContent, setAttribute), so no
// figure, report line or title can become markup.

import { escapeHtml, COLORS } from './svg-chart.js';
import { VERSION } from '../../version.js';
import { STYLE as PAGE_STYLE, pageHead } from './html-page.js';

/** The page's policy: its own inline script and style, and a connection back to where it came from. */
export const DASHBOARD_CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:";

// The --html page's look (src/results/html/html-report.js), and the rules of this page's own parts.
const STYLE =
  PAGE_STYLE +
  `
.state { color: #6b7280; margin-top: 6px; } #status { font-weight: 600; color: #374151; } #status.done { color: #059669; } #status.lost { color: #dc2626; }
.stat .value { font-variant-numeric: tabular-nums; }
pre#report { border: 1px solid #e5e7eb; border-radius: 6px; padding: 8px 12px; overflow-x: auto; font: 13px/1.4 ui-monospace, monospace; }
`;

// The page's script: no template literal in it, so that this module's own cannot end early.
const SCRIPT = `
'use strict';
const SVG = 'http://www.w3.org/2000/svg';
const COLORS = ${JSON.stringify(COLORS)};
const W = 660, H = 300, PAD = { left: 64, right: 36, top: 16, bottom: 44 };
const $ = (id) => document.getElementById(id);
const seconds = [];
let updates = 0;
let lastId = 0;
let errorsSoFar = 0;

const num = (v) => (typeof v === 'number' && isFinite(v) ? v : null);
// As the --html page's plots, at most 4 significant digits; counts past 1000 whole (a count of
// 123456 is not 123500).
const fmt = (v) => (num(v) === null ? '–' : Math.abs(v) >= 1000 ? String(Math.round(v)) : String(Number(v.toPrecision(4))));
const ms = (v) => (num(v) === null ? '–' : fmt(v) + ' ms');

function node(tag, attrs, text, ns) {
  const e = ns ? document.createElementNS(SVG, tag) : document.createElement(tag);
  for (const k in attrs || {}) e.setAttribute(k, String(attrs[k]));
  if (text !== undefined) e.textContent = String(text);
  return e;
}

function showStats(list) {
  $('stats').replaceChildren(...list.map(([key, label, value, shown, bad]) => {
    const box = node('div', { class: bad ? 'stat bad' : 'stat', 'data-key': key, 'data-value': value === null ? '' : value });
    box.append(node('span', { class: 'label' }, label), node('span', { class: 'value' }, shown));
    return box;
  }));
}

/** About five round values (1, 2 or 5 times a power of ten) from min to max. */
function niceTicks(min, max) {
  if (!(max > min)) max = min + 1;
  const raw = (max - min) / 5;
  const power = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw);
  const out = [];
  for (let v = Math.ceil(min / step) * step; v <= max + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

/** One plot into svg: lines or bars of [second, value], x over the seconds so far, y from 0 to a round top. */
function plot(svg, series, yTitle, unit) {
  const w = W - PAD.left - PAD.right, h = H - PAD.top - PAD.bottom;
  const xs = seconds.map((s) => s.second);
  const x0 = xs[0] - 0.5, x1 = xs[xs.length - 1] + 0.5;
  // Not Math.max(...values): a day's run has more seconds than a call takes arguments.
  const top = series.reduce((m, s) => s.points.reduce((n, p) => (p[1] !== null && p[1] > n ? p[1] : n), m), 0);
  const yt = niceTicks(0, top > 0 ? top : 1);
  const step = yt.length > 1 ? yt[1] - yt[0] : 1;
  if (yt[yt.length - 1] < top) yt.push(Number((yt[yt.length - 1] + step).toPrecision(12)));
  const y1 = yt[yt.length - 1];
  const sx = (v) => PAD.left + ((v - x0) / (x1 - x0)) * w;
  const sy = (v) => PAD.top + h - (v / y1) * h;
  const r = (v) => Math.round(v * 10) / 10;
  const parts = [node('title', {}, svg.getAttribute('aria-label'), true)];
  for (const v of yt) {
    parts.push(node('line', { class: 'grid', x1: PAD.left, x2: PAD.left + w, y1: r(sy(v)), y2: r(sy(v)) }, undefined, true));
    parts.push(node('text', { class: 'tick', x: PAD.left - 6, y: r(sy(v)) + 4, 'text-anchor': 'end' }, fmt(v) + unit, true));
  }
  for (const v of niceTicks(xs[0], Math.max(xs[xs.length - 1], xs[0] + 1)).filter((t) => Number.isInteger(t) && t <= xs[xs.length - 1])) {
    parts.push(node('line', { class: 'grid', x1: r(sx(v)), x2: r(sx(v)), y1: PAD.top, y2: PAD.top + h }, undefined, true));
    parts.push(node('text', { class: 'tick', x: r(sx(v)), y: PAD.top + h + 16, 'text-anchor': 'middle' }, v, true));
  }
  parts.push(node('rect', { class: 'frame', x: PAD.left, y: PAD.top, width: w, height: h }, undefined, true));
  parts.push(node('text', { class: 'axis', x: PAD.left + w / 2, y: H - 6, 'text-anchor': 'middle' }, 'second of the run', true));
  parts.push(node('text', { class: 'axis', transform: 'translate(14 ' + (PAD.top + h / 2) + ') rotate(-90)', 'text-anchor': 'middle' }, yTitle, true));
  // Past a couple of minutes, dots and their tooltips would be too many to point at.
  const dots = xs.length <= 120;
  series.forEach((s, i) => {
    const g = node('g', { class: 'series ' + s.kind, 'data-series': s.name, fill: s.color }, undefined, true);
    let d = '';
    let pen = 'M';
    s.points.forEach(([px, py]) => {
      // A second without the value (no response in it) breaks the line.
      if (py === null) return void (pen = 'M');
      const tip = 'second ' + px + ': ' + fmt(py) + unit + ' ' + s.name;
      if (s.kind === 'bars') {
        const half = (sx(1) - sx(0)) / 2;
        const height = Math.max(r(sy(0) - sy(py)), 0.5);
        const bar = node('rect', { x: r(sx(px) - half * 0.9), y: r(sy(0) - height), width: r(Math.max(half * 1.8, 1)), height: height }, undefined, true);
        bar.append(node('title', {}, tip, true));
        return void g.append(bar);
      }
      d += pen + r(sx(px)) + ' ' + r(sy(py));
      pen = 'L';
      if (dots) {
        const dot = node('circle', { cx: r(sx(px)), cy: r(sy(py)), r: 3 }, undefined, true);
        dot.append(node('title', {}, tip, true));
        g.append(dot);
      }
    });
    if (s.kind !== 'bars') g.prepend(node('path', { d: d, fill: 'none', stroke: s.color, 'stroke-width': 2 }, undefined, true));
    parts.push(g);
    if (series.length > 1) {
      const lx = PAD.left + 10 + i * 110;
      parts.push(node('rect', { x: lx, y: PAD.top + 6, width: 12, height: 12, fill: s.color }, undefined, true));
      parts.push(node('text', { class: 'legend', x: lx + 16, y: PAD.top + 16 }, s.name, true));
    }
  });
  svg.replaceChildren(...parts);
}

function draw() {
  const last = seconds[seconds.length - 1];
  showStats([
    ['elapsedSeconds', 'Elapsed', num(last.elapsedSeconds), num(last.elapsedSeconds) === null ? '–' : last.elapsedSeconds.toFixed(1) + ' s'],
    ['sent', 'Sent', num(last.sent), fmt(last.sent)],
    ['completed', 'Completed', num(last.completed), fmt(last.completed)],
    // The seconds' errors count error statuses too (failed counts requests without a response), as the final report does.
    ['errors', 'Errors', errorsSoFar, fmt(errorsSoFar), errorsSoFar > 0],
    ['rps', 'Requests/s', num(last.rps), fmt(num(last.rps) === null ? null : Math.round(last.rps))],
    ['p50', 'p50 (last second)', num(last.p50Ms), ms(last.p50Ms)],
    ['p99', 'p99 (last second)', num(last.p99Ms), ms(last.p99Ms)],
    last.vus !== undefined ? ['vus', 'VUs', num(last.vus), fmt(last.vus)] : ['connections', 'Connections', num(last.connections), fmt(last.connections)],
  ]);
  const at = (key) => seconds.map((s) => [s.second, num(s[key])]);
  plot($('rate'), [{ name: 'requests/s', kind: 'line', color: COLORS[0], points: at('rps') }], 'requests/s', '');
  plot($('latency-over-time'), [
    { name: 'p50', kind: 'line', color: COLORS[0], points: at('p50Ms') },
    { name: 'p99', kind: 'line', color: COLORS[1], points: at('p99Ms') },
  ], 'latency', ' ms');
  plot($('errors-over-time'), [{ name: 'errors', kind: 'bars', color: COLORS[1], points: at('errors') }], 'errors', '');
  $('errors-note').textContent = errorsSoFar === 0 ? 'none' : errorsSoFar + ' in all';
}

function setStatus(text, className) {
  $('status').textContent = text;
  $('status').className = className || '';
}

const events = new EventSource('/events');
// After a reconnection the server replays what the page has not seen (Last-Event-ID); the check
// keeps a second from being drawn twice all the same.
const fresh = (e) => {
  const id = Number(e.lastEventId);
  if (id > 0 && id <= lastId) return false;
  if (id > 0) lastId = id;
  return true;
};
events.onopen = () => setStatus('running');
events.onerror = () => setStatus(events.readyState === EventSource.CLOSED ? 'disconnected' : 'reconnecting', 'lost');
events.onmessage = (e) => {
  if (!fresh(e)) return;
  const data = JSON.parse(e.data);
  if (!data || typeof data.second !== 'number') return;
  seconds.push(data);
  errorsSoFar += num(data.errors) || 0;
  updates += 1;
  $('updates').textContent = 'updates: ' + updates;
  setStatus('running');
  draw();
};
events.addEventListener('done', (e) => {
  if (!fresh(e)) return;
  events.close();
  const { report, summary } = JSON.parse(e.data);
  const s = summary || {};
  const p = s.percentiles || {};
  showStats([
    ['totalRequests', 'Requests', num(s.totalRequests), fmt(s.totalRequests)],
    ['totalErrors', 'Errors', num(s.totalErrors), fmt(s.totalErrors), s.totalErrors > 0],
    ['effectiveRps', 'Requests/s', num(s.effectiveRps), fmt(s.effectiveRps)],
    ['p50', 'p50', num(p['50']), ms(p['50'])],
    ['p99', 'p99', num(p['99']), ms(p['99'])],
    ['maxLatencyMs', 'Max', num(s.maxLatencyMs), ms(s.maxLatencyMs)],
  ]);
  setStatus('done', 'done');
  const link = node('p');
  link.append(node('a', { id: 'save', href: '/report.html', download: 'loadtest-report.html' }, 'Save the report as a page'));
  $('final').replaceChildren(node('h2', {}, 'Report'), node('pre', { id: 'report' }, typeof report === 'string' ? report : ''), link);
});
`;

/** The page, as one string; title: what the run is (its URL), shown in the page and its tab. */
export function dashboardPage({ title = '' } = {}) {
  const shown = title ? `loadtest dashboard: ${title}` : 'loadtest dashboard';
  const figure = (id, caption, note, noteId = '') =>
    `<figure><figcaption>${escapeHtml(caption)} <small${noteId ? ` id="${noteId}"` : ''}>${escapeHtml(note)}</small></figcaption>` +
    `<svg id="${id}" class="chart" viewBox="0 0 660 300" width="660" height="300" role="img" aria-label="${escapeHtml(caption)}"></svg></figure>`;
  return `${pageHead({ csp: DASHBOARD_CSP, title: shown, extra: '<link rel="icon" href="data:,">\n', style: STYLE })}
<h1>loadtest dashboard</h1>
<div class="url">${escapeHtml(title)}</div>
<div class="state">Run: <span id="status">connecting</span> · <span id="updates">updates: 0</span></div>
<div class="stats" id="stats"><p class="note">Waiting for the run's first second.</p></div>
<h2>Over time</h2>
<div class="charts">
${figure('rate', 'Requests per second', 'ended in each second')}
${figure('latency-over-time', 'Latency over time', 'p50 and p99 of each second')}
${figure('errors-over-time', 'Errors per second', 'none', 'errors-note')}
</div>
<section id="final"></section>
<footer>Served by loadtest ${escapeHtml(VERSION)} while the run goes; the figures come once a second from <code>/events</code>.</footer>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
