// What `loadtest compare` prints and writes: per metric, each candidate's median, min-max, ratio to
// the baseline and Welch's t-test against it; the rounds as Node's benchmark/compare.js CSV.

import { welchTest, stars, median } from './welch.js';

// Each round's record holds these keys; a metric no record has (no /proc, a shared server's
// memory) is left out of the table.
export const METRICS = [
  { key: 'rps', title: 'requests/s', column: 'requests/s', better: 'higher', digits: 0 },
  { key: 'p50', title: 'latency p50, ms', column: 'p50 ms', better: 'lower' },
  { key: 'p99', title: 'latency p99, ms', column: 'p99 ms', better: 'lower' },
  { key: 'p999', title: 'latency p99.9, ms', column: 'p99.9 ms', better: 'lower' },
  // Only at load levels (a comparison at one level stops at the first error), and only when any.
  { key: 'errors', title: 'errors', column: 'errors', better: 'lower', digits: 0, onlyAny: true },
  { key: 'serverCpuPerRequest', title: 'server CPU µs per request', column: 'server CPU µs/req', better: 'lower' },
  { key: 'serverRssMb', title: 'server peak RSS, MB', column: 'RSS MB', better: 'lower' },
];

/** Per metric, per candidate: { name, n, median, min, max, ratio, t, df, p, stars } (test null for the baseline). */
export function summarize(records, names, baseline) {
  const out = {};
  for (const metric of METRICS) {
    const values = (name) => records.filter((r) => r.candidate === name && typeof r[metric.key] === 'number').map((r) => r[metric.key]);
    if (!names.some((name) => values(name).length > 0)) continue;
    if (metric.onlyAny && !names.some((name) => values(name).some((x) => x > 0))) continue;
    const base = values(baseline);
    const baseMedian = base.length ? median(base) : NaN;
    out[metric.key] = names.map((name) => {
      const xs = values(name);
      if (xs.length === 0) return { name, n: 0 };
      const m = median(xs);
      const test = name === baseline ? null : welchTest(xs, base);
      return {
        name,
        n: xs.length,
        median: m,
        min: Math.min(...xs),
        max: Math.max(...xs),
        ratio: baseMedian > 0 ? m / baseMedian : null,
        t: test ? test.t : null,
        df: test ? test.df : null,
        p: test ? test.p : null,
        stars: test ? stars(test.p) : '',
      };
    });
  }
  return out;
}

function grouped(n) {
  const [whole, frac] = String(n).split('.');
  const withCommas = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return frac ? `${withCommas}.${frac}` : withCommas;
}

// Decimals for about three significant digits of a row's median, kept for its min and max.
function decimals(median, digits) {
  if (digits === 0 || Math.abs(median) >= 1000) return 0;
  return Math.abs(median) >= 100 ? 1 : Math.abs(median) >= 10 ? 2 : 3;
}

const figure = (x, places) => (places === 0 ? grouped(Math.round(x)) : x.toFixed(places));

function pText(p) {
  if (p === null || Number.isNaN(p)) return '';
  return p >= 0.001 ? p.toFixed(3) : p === 0 ? '0' : p.toExponential(1);
}

const pad = (text, width, right) => (right ? text.padStart(width) : text.padEnd(width));

/** The tables as text, one per metric, and the lines on how to read them. */
export function formatTables(summary, baseline, { rounds, label = '' } = {}) {
  const lines = [];
  let comparisons = 0;
  for (const metric of METRICS) {
    const rows = summary[metric.key];
    if (!rows) continue;
    lines.push(`${metric.title} (${metric.better} is better)`);
    const cells = [['candidate', 'median', 'min - max', 'ratio', 'p-value', '']];
    for (const r of rows) {
      if (r.n === 0) {
        cells.push([r.name, '-', '', '', '', '']);
        continue;
      }
      const isBase = r.name === baseline;
      if (!isBase && r.p !== null) comparisons++;
      const places = decimals(r.median, metric.digits);
      cells.push([
        r.name,
        figure(r.median, places),
        `${figure(r.min, places)} - ${figure(r.max, places)}`,
        r.ratio === null ? '' : r.ratio.toFixed(2),
        isBase ? 'baseline' : pText(r.p),
        r.stars,
      ]);
    }
    const widths = cells[0].map((_, col) => Math.max(...cells.map((row) => row[col].length)));
    for (const row of cells) {
      const text = row.map((cell, col) => pad(cell, widths[col], col === 1 || col === 2 || col === 3)).join('  ');
      lines.push(`  ${text}`.trimEnd());
    }
    lines.push('');
  }
  lines.push(`ratio: a candidate's median over ${baseline}'s. p-value: Welch's t-test of its rounds against ${baseline}'s${rounds ? ` (${rounds} rounds each${label})` : ''};`);
  lines.push(`* p<0.05, ** p<0.01, *** p<0.001; no star: the difference may be noise. With ${comparisons} comparisons, about one in`);
  lines.push('20 gets * by chance alone: trust ** and *** more than a lone *, and a difference that a second run repeats.');
  return lines.join('\n');
}

const csvText = (text) => `"${String(text).replace(/"/g, '""')}"`;

/**
 * Node's benchmark/compare.js CSV: "binary","filename","configuration","rate","time", rate in
 * requests/s. compare.R compares the rows of binary "old" with those of "new" for each filename
 * and configuration, so each candidate is "new" against the baseline as "old" under the filename
 * "CANDIDATE vs BASELINE": with two candidates, one row per round each; with more, the baseline's
 * rows appear once per comparison.
 */
export function compareCsv(records, names, baseline, configuration) {
  // With load levels, each level is a configuration of its own (a function of the record).
  const configOf = typeof configuration === 'function' ? configuration : () => configuration;
  const lines = ['"binary","filename","configuration","rate","time"'];
  for (const name of names) {
    if (name === baseline) continue;
    const filename = `${name} vs ${baseline}`;
    for (const r of records) {
      if (r.candidate !== name && r.candidate !== baseline) continue;
      const binary = r.candidate === baseline ? 'old' : 'new';
      lines.push(`${csvText(binary)},${csvText(filename)},${csvText(configOf(r))},${r.rps},${r.seconds}`);
    }
  }
  return lines.join('\n') + '\n';
}

const LEVEL_UNITS = { rps: 'rps', concurrency: 'connections' };

/** A level's name for people: '5000 rps', '64 connections'. */
export const levelText = (levels, level) => `${level} ${LEVEL_UNITS[levels.kind]}`;

/**
 * Each candidate's knee: the highest level up to which, level after level from the lowest, the
 * median of the SLO's latency holds, no request failed (median), and with rate levels the
 * median achieved rate is at least 95 % of the target. null: not even the lowest level.
 */
export function kneesOf(records, names, levels, slo) {
  if (!levels || !slo) return null;
  const out = {};
  for (const name of names) {
    let knee = null;
    for (const level of levels.values) {
      const rs = records.filter((r) => r.candidate === name && r.level === level);
      if (rs.length === 0) break;
      const latency = median(rs.map((r) => r[slo.key]));
      const holds = slo.op === '<' ? latency < slo.limitMs : latency <= slo.limitMs;
      const rate = levels.kind !== 'rps' || median(rs.map((r) => r.rps)) >= 0.95 * level;
      if (!holds || !rate || median(rs.map((r) => r.errors || 0)) > 0) break;
      knee = level;
    }
    out[name] = knee;
  }
  return out;
}

// The short titles of a level's compact table.
const SHORT = { rps: 'req/s', p50: 'p50 ms', p99: 'p99 ms', p999: 'p99.9 ms', errors: 'errors', serverCpuPerRequest: 'CPU µs/req', serverRssMb: 'RSS MB' };

/**
 * The text report of a comparison at levels: a table a level (a row per candidate, a column per
 * metric: the median, and for the others their ratio to the baseline and stars), then the knees.
 */
export function formatLevels(byLevel, levels, baseline, { rounds, label = '', knees = null, slo = null } = {}) {
  const lines = [];
  let comparisons = 0;
  for (const { level, summary } of byLevel) {
    const metrics = METRICS.filter((m) => summary[m.key]);
    const names = summary[metrics[0].key].map((r) => r.name);
    const cells = [['candidate', ...metrics.map((m) => SHORT[m.key])]];
    for (const name of names) {
      cells.push([
        name,
        ...metrics.map((m) => {
          const r = summary[m.key].find((x) => x.name === name);
          if (!r || r.n === 0) return '-';
          const text = figure(r.median, decimals(r.median, m.digits));
          if (name === baseline || r.ratio === null) return text;
          if (r.p !== null) comparisons++;
          return `${text} ×${r.ratio.toFixed(2)}${r.stars ? ' ' + r.stars : ''}`;
        }),
      ]);
    }
    const widths = cells[0].map((_, col) => Math.max(...cells.map((row) => row[col].length)));
    lines.push(`${levelText(levels, level)}${levels.kind === 'rps' ? ' (target)' : ''}`);
    for (const row of cells) lines.push(`  ${row.map((cell, col) => pad(cell, widths[col], col > 0)).join('  ')}`.trimEnd());
    lines.push('');
  }
  lines.push(`×: a candidate's median over ${baseline}'s at that level; stars: Welch's t-test of its rounds against ${baseline}'s (${rounds} rounds each${label}):`);
  lines.push(`* p<0.05, ** p<0.01, *** p<0.001; no star: the difference may be noise. With ${comparisons} comparisons, about one in`);
  lines.push('20 gets * by chance alone: trust ** and *** more than a lone *, and a difference that a second run repeats.');
  if (knees) {
    const rule = `${slo.text}${levels.kind === 'rps' ? ', achieved rate at least 95 % of the target' : ''}, no errors`;
    lines.push('', `knee (the highest level up to which ${rule}):`);
    for (const [name, knee] of Object.entries(knees)) lines.push(`  ${name}: ${knee === null ? `none (not even ${levelText(levels, levels.values[0])})` : levelText(levels, knee)}`);
  }
  return lines.join('\n');
}
