// What `loadtest compare` prints and writes: per metric, each candidate's median, min-max, ratio to
// the baseline and Welch's t-test against it; the rounds as Node's benchmark/compare.js CSV.

import { welchTest, stars, median } from './welch.js';

// Each round's record holds these keys; a metric no record has (no /proc, a shared server's
// memory) is left out of the table.
export const METRICS = [
  { key: 'rps', title: 'requests/s', better: 'higher', digits: 0 },
  { key: 'p50', title: 'latency p50, ms', better: 'lower' },
  { key: 'p99', title: 'latency p99, ms', better: 'lower' },
  { key: 'serverCpuPerRequest', title: 'server CPU µs per request', better: 'lower' },
  { key: 'serverRssMb', title: 'server peak RSS, MB', better: 'lower' },
];

/** Per metric, per candidate: { name, n, median, min, max, ratio, t, df, p, stars } (test null for the baseline). */
export function summarize(records, names, baseline) {
  const out = {};
  for (const metric of METRICS) {
    const values = (name) => records.filter((r) => r.candidate === name && typeof r[metric.key] === 'number').map((r) => r[metric.key]);
    if (!names.some((name) => values(name).length > 0)) continue;
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
  const lines = ['"binary","filename","configuration","rate","time"'];
  for (const name of names) {
    if (name === baseline) continue;
    const filename = `${name} vs ${baseline}`;
    for (const r of records) {
      if (r.candidate !== name && r.candidate !== baseline) continue;
      const binary = r.candidate === baseline ? 'old' : 'new';
      lines.push(`${csvText(binary)},${csvText(filename)},${csvText(configuration)},${r.rps},${r.seconds}`);
    }
  }
  return lines.join('\n') + '\n';
}
