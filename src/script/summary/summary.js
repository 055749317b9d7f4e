// src/script/summary/: the end-of-test summary, its data, exports and page.
// The end-of-test summary as k6 v1 prints it (--summary-mode compact, its default, and full):
// █ THRESHOLDS, █ TOTAL RESULTS, and in full mode █ GROUP and █ SCENARIO sections, from the
// report of summary-report.js. Figures are written as k6 v1 writes them: durations and
// percentages cut (not rounded) to two decimals, bytes in units of 1000. Names line up on their
// dots within each block of lines, as k6's do. --summary-mode legacy: summary-legacy.js.

import { legacySummaryText } from './summary-legacy.js';
import { summaryReport } from './summary-report.js';

/** --summary-mode's value (the last, if repeated): k6 v1's modes, compact when none. */
export function summaryMode(value) {
  const mode = Array.isArray(value) ? value[value.length - 1] : value;
  if (mode === undefined) return 'compact';
  if (['compact', 'full', 'legacy', 'disabled'].includes(mode)) return mode;
  throw new Error(`--summary-mode '${mode}': compact, full, legacy or disabled`);
}

const PASS = '✓';
const FAIL = '✗';
const BLANK = '\n'; // a line of its own that adds an empty line

const width = (s) => [...s.normalize('NFKC')].length;
const pad = (s, n) => s + ' '.repeat(Math.max(0, n - width(s)));
const spaces = (level) => ' '.repeat(level * 2);

// ANSI styles when the output is a terminal: colour codes after any styles, as k6 writes them.
function styler(color) {
  const codes = { red: '31', green: '32', cyan: '36', white: '37' };
  const styles = { bold: '1', faint: '2' };
  return {
    paint: (text, c, ...st) => (color ? `\x1b[${[...st.map((x) => styles[x]), codes[c]].join(';')}m${text}\x1b[0m` : text),
    bold: (text) => (color ? `\x1b[1m${text}\x1b[0m` : text),
  };
}

// --- figures -------------------------------------------------------------------------------

const fixed = (v, digits) => String(parseFloat(v.toFixed(digits)));
const cut = (v, digits) => fixed(Math.trunc(v * 10 ** digits) / 10 ** digits, digits);

function duration(ms, unit) {
  const units = { s: ['s', 0.001], ms: ['ms', 1], us: ['µs', 1000] };
  if (units[unit]) return (ms * units[unit][1]).toFixed(2) + units[unit][0];
  if (ms === 0) return '0s';
  if (ms < 0.001) return `${Math.trunc(ms * 1e6)}ns`;
  if (ms < 1) return `${cut(ms * 1000, 2)}µs`;
  if (ms < 1000) return `${cut(ms, 2)}ms`;
  const seconds = `${cut((ms % 60000) / 1000, ms > 60000 ? 0 : 2)}s`;
  const minutes = Math.trunc(ms / 60000);
  if (minutes < 1) return seconds;
  const hours = Math.trunc(minutes / 60);
  return `${hours >= 1 ? `${hours}h` : ''}${minutes % 60}m${seconds}`;
}

function bytes(n) {
  if (n < 10) return `${n} B`;
  const units = ['B', 'kB', 'MB', 'GB', 'TB', 'PB', 'EB', 'ZB', 'YB'];
  const e = Math.floor(Math.log(n) / Math.log(1000));
  const v = Math.floor((n / 1000 ** e) * 10 + 0.5) / 10;
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[e]}`;
}

function human(v, metric, unit) {
  // The same product as k6's (v * 100 * 100), for the same cut of the same float.
  if (metric.type === 'rate') return `${(Math.trunc(v * 100 * 100) / 100).toFixed(2)}%`;
  if (metric.contains === 'data') return bytes(v);
  if (metric.contains === 'time') return duration(v, unit);
  return fixed(v, 6);
}

/**
 * One of a metric's values (`key`: 'count', 'rate', 'p(95)', ...) as the summary writes it, for
 * `m`, the metric's entry in the summary's data: a time in its unit, bytes in kB, MB, ...
 */
export function valueText(m, key, x, unit = '') {
  if (m.type === 'rate') return key === 'rate' ? human(x, m, unit) : String(x);
  if (m.type === 'counter' && key === 'rate') return `${human(x, m, unit)}/s`;
  if (m.type === 'trend' && key === 'count') return String(x);
  return human(x, m, unit);
}

// A non-Trend metric's figures: its main one, then what k6 calls extras.
function plainFigures(m, unit) {
  const v = m.values;
  if (m.type === 'counter') return [human(v.count, m, unit), `${human(v.rate, m, unit)}/s`];
  if (m.type === 'gauge') return [human(v.value, m, unit), `min=${human(v.min, m, unit)}`, `max=${human(v.max, m, unit)}`];
  if (m.type === 'rate') return [human(v.rate, m, unit), `${v.passes} out of ${v.passes + v.fails}`];
  return ['[no data]'];
}

const trendFigure = (m, stat, unit) => (stat === 'count' ? String(m.values[stat]) : human(m.values[stat], m, unit));

// Metric names: parents by name, each followed by its sub-metrics.
// A metric before its sub-metrics: an empty selector first, as localeCompare puts it before any
// '{...}' (its '{' weighs something in any collation), and without loading ICU for it (every
// run has http_req_duration{expected_response:true}).
export function byName(names) {
  const parent = (n) => n.split('{', 1)[0];
  return names.sort((a, b) => collated(parent(a), parent(b)) || bySelector(a.slice(parent(a).length), b.slice(parent(b).length)));
}

const bySelector = (a, b) => (a === '' || b === '' ? (a === '' ? 0 : 1) - (b === '' ? 0 : 1) : collated(a, b));

// k6 orders names by its script engine's localeCompare (Unicode's collation). A process's first
// localeCompare loads ICU's collator: some 30 ms of CPU on node and Deno, more than the rest of
// the summary. Names of _, digits and small letters only (all of k6's, most of a script's)
// compare alike by their characters' order in that collation, _ then digits then letters, and
// a name before any longer one it begins; others are given to localeCompare.
export function collated(a, b) {
  const n = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < n; i++) {
    const x = collationRank(a.charCodeAt(i));
    const y = collationRank(b.charCodeAt(i));
    if (x < 0 || y < 0) return a.localeCompare(b);
    if (x !== y) return x - y;
  }
  const longer = a.length > b.length ? a : b;
  for (let i = n; i < longer.length; i++) if (collationRank(longer.charCodeAt(i)) < 0) return a.localeCompare(b);
  return a.length - b.length;
}

function collationRank(c) {
  if (c >= 97 && c <= 122) return c - 86; // a-z: 11-36
  if (c >= 48 && c <= 57) return c - 47; // 0-9: 1-10
  return c === 95 ? 0 : -1;
}

const displayName = (name) => {
  const brace = name.indexOf('{');
  return brace < 0 ? name : `  { ${name.slice(brace + 1, -1)} }`;
};

// --- a block of metric lines, lined up ------------------------------------------------------

// The widths a block of metrics lines up on: names, main figures, extras, Trend columns.
function layout(metrics, level, opts) {
  const L = { name: 0, main: 0, extras: [], cols: new Array(opts.trendStats.length).fill(0), figures: {} };
  for (const [name, m] of Object.entries(metrics)) {
    L.name = Math.max(L.name, width(spaces(level + 1) + displayName(name)));
    if (m.type === 'trend') {
      const cols = opts.trendStats.map((s) => trendFigure(m, s, opts.unit));
      cols.forEach((c, i) => (L.cols[i] = Math.max(L.cols[i], width(c))));
      L.figures[name] = cols;
    } else {
      const figures = plainFigures(m, opts.unit);
      L.main = Math.max(L.main, width(figures[0]));
      figures.slice(1).forEach((x, i) => (L.extras[i] = Math.max(L.extras[i] || 0, width(x))));
      L.figures[name] = figures;
    }
  }
  return L;
}

function metricLine(name, m, L, level, opts, s) {
  const shown = displayName(name);
  const dots = '.'.repeat(Math.max(3, L.name - width(shown) - width(spaces(level + 1)) + 3));
  const f = L.figures[name];
  let figures;
  if (m.type === 'trend') {
    figures = f.map((c, i) => `${opts.trendStats[i]}=${s.paint(c, 'cyan')}${' '.repeat(L.cols[i] - width(c))}`).join(' ');
  } else {
    figures = s.paint(f[0], 'cyan') + ' '.repeat(L.main - width(f[0]));
    if (f.length === 2) figures += ` ${s.paint(f[1], 'cyan', 'faint')}`;
    else if (f.length > 2) figures += ` ${f.slice(1).map((x, i) => s.paint(x, 'cyan', 'faint') + ' '.repeat(L.extras[i] - width(x))).join(' ')}`;
  }
  return spaces(level + 1) + shown + s.paint(`${dots}:`, 'white', 'faint') + ' ' + figures;
}

// A group's, a scenario's or the totals' metrics: each section under its name, at `level`.
function metricsLines(sectioned, level, opts, s) {
  const all = Object.assign({}, ...Object.values(sectioned));
  const L = layout(all, level, opts);
  const out = [];
  for (const [section, metrics] of Object.entries(sectioned)) {
    const names = Object.keys(metrics);
    if (names.length === 0) continue;
    out.push(spaces(level + 1) + s.bold(section.toUpperCase()));
    for (const name of byName(names)) out.push(metricLine(name, metrics[name], L, level, opts, s));
    out.push(BLANK);
  }
  return out;
}

// --- checks, thresholds, groups --------------------------------------------------------------

function checkLine(c, level, s) {
  if (c.fails === 0) return spaces(level + 1) + s.paint(`${PASS} ${c.name}`, 'green');
  const pct = Math.floor((100 * c.passes) / (c.passes + c.fails));
  // k6 indents the tally by twice the level plus one: deeper groups push it further right.
  const tally = spaces(2 * level + 1) + s.paint(`↳  ${pct}% — ${PASS} ${c.passes} / ${FAIL} ${c.fails}`, 'red');
  return `${spaces(level + 1)}${s.paint(`${FAIL} ${c.name}`, 'red')}\n${tally}`;
}

function checksLines(checks, level, opts, s) {
  if (checks === null) return [];
  const L = layout(checks.metrics, level, opts);
  const figures = Object.entries(checks.metrics).map(([name, m]) => metricLine(name, m, L, level, opts, s));
  return [...figures, BLANK, ...checks.ordered.map((c) => checkLine(c, level, s)), BLANK];
}

function thresholdsLines(thresholds, opts, s) {
  const metrics = Object.fromEntries(Object.entries(thresholds).map(([name, t]) => [name, t.metric]));
  const L = layout(metrics, 1, opts);
  const out = [];
  for (const name of byName(Object.keys(thresholds))) {
    const parent = name.split('{', 1)[0];
    const under = parent !== name && parent in thresholds;
    const indent = spaces(under ? 3 : 2);
    out.push(indent + (under ? name.slice(parent.length) : name));
    const m = thresholds[name].metric;
    for (const t of thresholds[name].thresholds) {
      const agg = t.source.split(/[=><]/)[0].trim();
      const mark = t.ok ? s.paint(PASS, 'green') : s.paint(FAIL, 'red');
      out.push(`${indent}${mark} ${s.paint(`'${t.source.trim()}'`, 'white')} ${s.paint(agg, 'white')}=${s.paint(thresholdFigure(m, agg, L.figures[name], opts), 'cyan')}`);
    }
    out.push(BLANK);
  }
  return out;
}

// The figure a threshold's aggregation names: a column shown, or one it alone asked for.
function thresholdFigure(m, agg, figures, opts) {
  if (m.type === 'trend') {
    const i = opts.trendStats.indexOf(agg);
    return i >= 0 ? figures[i] : m.values[agg] === undefined ? '' : trendFigure(m, agg, opts.unit);
  }
  if (m.type === 'counter') return agg === 'count' ? figures[0] : figures[1];
  return figures[0];
}

// A group's or a scenario's lines; `level`: its title's, its lines one deeper.
function partLines(part, level, opts, s) {
  const out = [...checksLines(part.checks, level + 1, opts, s), ...metricsLines(part.metrics, level + 1, opts, s)];
  for (const [name, g] of part.groups) {
    out.push(`${spaces(level + 2)}↳ ${s.bold(`GROUP: ${name}`)} \n`, ...partLines(g, level + 1, opts, s));
  }
  return out;
}

/**
 * The summary's text. `data`: the summary data; `state`: the run's (checks by name, breakdown);
 * `mode`: 'compact', 'full' or 'legacy'; `color`: ANSI styles.
 */
export function summaryText(data, { state, mode = 'compact', color = false } = {}) {
  if (mode === 'legacy') return legacySummaryText(data, { color });
  const report = summaryReport(data, state, mode);
  const s = styler(color);
  const opts = { trendStats: data.options.summaryTrendStats, unit: data.options.summaryTimeUnit || '' };
  const sections = [];
  if (Object.keys(report.thresholds).length > 0) sections.push(['THRESHOLDS', thresholdsLines(report.thresholds, opts, s)]);
  sections.push(['TOTAL RESULTS', [...checksLines(report.checks, 1, opts, s), ...metricsLines(report.metrics, 1, opts, s)]]);
  for (const [name, g] of report.groups) sections.push([`GROUP: ${name}`, partLines(g, 0, opts, s)]);
  const scenarios = [...report.scenarios].sort(([a], [b]) => collated(a, b));
  for (const [name, sc] of scenarios) sections.push([`SCENARIO: ${name}`, partLines(sc, 0, opts, s)]);
  // Every line follows a line break; a BLANK is one more break.
  let text = '';
  for (const [title, lines] of sections) {
    for (const line of [`  █ ${s.bold(title)} \n`, ...lines, BLANK]) text += line === BLANK ? '\n' : `\n${line}`;
  }
  return `\n${text}\n\n`;
}
