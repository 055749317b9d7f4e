// `loadtest compare --markdown` / `--md FILE`: the comparison as GitHub Markdown, from the JSON
// document `--json` writes. One level: a table per metric (median, min - max, ratio, p-value and
// stars); load levels: a table per metric with a column per level, then each candidate's knee.
// The figures' formatting is shared with the HTML page (src/compare/html.js). The output depends on
// the document alone (its own `date` is the only date in it).

import { median } from './welch.js';

/** The metrics of a summary, in the order of the text report; a key not listed here goes last. */
// The metrics and their titles are the text report's (src/compare/report.js).
import { METRICS as METRIC_INFO, levelText } from './report.js';
export { METRIC_INFO, levelText };

/** The summaries of the document: [{ level, summary }], one with level null without levels. */
export function summariesOf(doc) {
  if (doc.levels && Array.isArray(doc.byLevel)) return doc.byLevel;
  return doc.summary ? [{ level: null, summary: doc.summary }] : [];
}

/** The metrics any of the summaries has, as METRIC_INFO entries. */
export function metricsOf(summaries) {
  const keys = new Set(summaries.flatMap((s) => Object.keys(s.summary || {})));
  const known = METRIC_INFO.filter((m) => keys.has(m.key));
  const other = [...keys].filter((k) => !METRIC_INFO.some((m) => m.key === k)).map((key) => ({ key, title: key, column: key, better: '' }));
  return [...known, ...other];
}

/** A candidate's row of a metric in a summary, or null. */
export const rowOf = (summary, key, name) => ((summary && summary[key]) || []).find((r) => r.name === name) || null;

/**
 * A candidate's row of a metric at a level; where the level's summary left the metric out (errors:
 * none there), its median, min and max from the level's records, without a test.
 */
export function levelRow(doc, { level, summary }, key, name) {
  const row = rowOf(summary, key, name);
  if (row || (summary && summary[key])) return row;
  const xs = (doc.records || []).filter((r) => r.candidate === name && r.level === level && typeof r[key] === 'number').map((r) => r[key]);
  if (xs.length === 0) return null;
  return { name, n: xs.length, median: median(xs), min: Math.min(...xs), max: Math.max(...xs), ratio: null, t: null, df: null, p: null, stars: '' };
}

/** The record key the SLO limits: p50, p99 or p999 (for p99.9). */
export const sloKey = (slo) => (slo ? slo.key || { 'p99.9': 'p999' }[slo.metric] || slo.metric : null);

/** 1234567.5 → '1,234,567.5'. */
export function grouped(n) {
  const [whole, frac] = String(n).split('.');
  const withCommas = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return frac ? `${withCommas}.${frac}` : withCommas;
}

/** A figure with about three significant digits (as the text report prints them); counts as integers. */
export function formatValue(metric, x) {
  if (typeof x !== 'number' || !Number.isFinite(x)) return '-';
  const a = Math.abs(x);
  if (metric.digits === 0) return a >= 100 || Number.isInteger(x) ? grouped(Math.round(x)) : x.toFixed(1);
  if (a >= 1000) return grouped(Math.round(x));
  return x.toFixed(a >= 100 ? 1 : a >= 10 ? 2 : 3);
}

/** The p-value as the text report prints it: 0.012, 6.1e-4, '' when there is none. */
export function pText(p) {
  if (p === null || p === undefined || Number.isNaN(p)) return '';
  return p >= 0.001 ? p.toFixed(3) : p === 0 ? '0' : p.toExponential(1);
}

/** 0.98×; two significant digits under 0.01 (0.0045×), where a level's medians are far apart. */
export const ratioText = (ratio) => (typeof ratio === 'number' && Number.isFinite(ratio) ? `${ratio > 0 && ratio < 0.01 ? ratio.toPrecision(2) : ratio.toFixed(2)}×` : '');


/** A level for people: '5000 rps', '64 connections'. */

/** What the knee means, for the document's levels and SLO. */
export function kneeRule(doc) {
  if (!doc.slo) return '';
  return `the highest level up to which ${doc.slo.text}${doc.levels && doc.levels.kind === 'rps' ? ', the achieved rate at least 95 % of the target' : ''} and no errors`;
}

/** A candidate's knee for people: '5000 rps', 'none met p99<10ms', or '' when there are no knees. */
export function kneeText(doc, name) {
  if (!doc.knees || !doc.levels || !(name in doc.knees)) return '';
  const knee = doc.knees[name];
  return knee === null ? `none met ${doc.slo ? doc.slo.text : 'the SLO'}` : levelText(doc.levels, knee);
}

/** A median with its ratio and stars for a candidate that is not the baseline: '4,990 (0.98×) ***'. */
export function cellText(metric, row, baseline) {
  if (!row || !row.n) return '-';
  const value = formatValue(metric, row.median);
  if (row.name === baseline) return value;
  const ratio = ratioText(row.ratio);
  return `${value}${ratio ? ` (${ratio})` : ''}${row.stars ? ` ${row.stars}` : ''}`;
}

/** The load flags as one shell line, a word quoted where the shell would split or expand it. */
export const shellLine = (args) => (args || []).map((a) => (/^[\w@%+=:,./-]+$/.test(String(a)) ? String(a) : `'${String(a).replace(/'/g, "'\\''")}'`)).join(' ');

/** The document's settings as [label, text, code]: code (a path, the flags, the URL) is shown as code after the text. */
export function settingsOf(doc) {
  const rows = [];
  const candidates = doc.candidates || [];
  rows.push(['candidates', candidates.map((c) => `${c.name}${c.server || c.client ? ` (${[c.server && `server: ${c.server}`, c.client && `client: ${c.client}`].filter(Boolean).join(', ')})` : ''}`).join('; ')]);
  rows.push(['baseline', doc.baseline]);
  rows.push(['date', doc.date]);
  for (const r of doc.runtimes || []) rows.push([`runtime ${r.name}`, r.version, r.path || '']);
  rows.push(['server cores', doc.serverCpus ?? 'not pinned']);
  rows.push(['client cores', doc.clientCpus ?? 'not pinned']);
  if (doc.machine) rows.push(['machine', `${doc.machine.cpuModel || 'unknown CPU'}, ${doc.machine.cpus} CPUs`]);
  rows.push(['load flags', '', shellLine(doc.loadArgs)]);
  rows.push(['rounds', `${doc.rounds}${doc.interrupted ? ' (interrupted: the rounds done)' : ''}`]);
  rows.push(['warm-up', `${doc.warmup} s`]);
  rows.push(doc.url ? ['URL', '', doc.url] : ['URL', 'each built-in server on a free port']);
  if (doc.levels) rows.push(['levels', `${doc.levels.kind === 'rps' ? 'target rates' : 'concurrency'} ${doc.levels.values.join(', ')}`]);
  if (doc.slo) rows.push(['SLO', `${doc.slo.text} (knee: ${kneeRule(doc)})`]);
  rows.push(['loadtest', doc.loadtest]);
  return rows;
}

// Markdown's punctuation, and a table's |, as literal text.
const md = (text) => String(text ?? '').replace(/[\\`*_[\]<>|&]/g, (ch) => `\\${ch}`);
// A code span (only in the settings list: in a table cell a | would still end the cell).
const code = (text) => (String(text).includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``);

function table(head, align, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(head), line(align.map((a) => (a === 'r' ? '---:' : '---'))), ...rows.map(line)].join('\n');
}

/** The comparison as GitHub Markdown. */
export function compareMarkdown(doc) {
  const names = (doc.candidates || []).map((c) => c.name);
  const baseline = doc.baseline;
  const summaries = summariesOf(doc);
  const metrics = metricsOf(summaries);
  const out = [`# loadtest compare: ${names.map(md).join(', ')} (baseline ${md(baseline)})`, ''];
  for (const [label, text, path] of settingsOf(doc)) out.push(`- ${label}: ${[text === '' ? '' : md(text), path ? code(path) : ''].filter(Boolean).join(' ')}`);
  if (doc.interrupted) out.push('', '**Interrupted**: the figures of the rounds done before Ctrl-C.');
  const levels = doc.levels;
  for (const metric of metrics) {
    out.push('', `## ${md(metric.title)}${metric.better ? ` (${metric.better} is better)` : ''}`, '');
    if (!levels) {
      const rows = names.map((name) => {
        const r = rowOf(summaries[0] && summaries[0].summary, metric.key, name);
        if (!r || !r.n) return [md(name), '-', '', '', '', ''];
        return [md(name), formatValue(metric, r.median), `${formatValue(metric, r.min)} - ${formatValue(metric, r.max)}`, ratioText(r.ratio), name === baseline ? 'baseline' : pText(r.p), r.stars || ''];
      });
      out.push(table(['candidate', 'median', 'min - max', 'ratio', 'p-value', ''], ['l', 'r', 'r', 'r', 'r', 'l'], rows));
      continue;
    }
    const head = ['candidate', ...summaries.map((s) => levelText(levels, s.level))];
    const rows = names.map((name) => [`${md(name)}${name === baseline ? ' (baseline)' : ''}`, ...summaries.map((s) => cellText(metric, levelRow(doc, s, metric.key, name), baseline))]);
    out.push(table(head, ['l', ...summaries.map(() => 'r')], rows));
  }
  if (levels && doc.knees && doc.slo) {
    const key = sloKey(doc.slo);
    const info = METRIC_INFO.find((m) => m.key === key) || { key, digits: undefined };
    out.push('', '## Knees', '', `The knee: ${md(kneeRule(doc))}.`, '');
    const rows = names.map((name) => {
      const knee = doc.knees[name];
      const at = summaries.find((s) => s.level === knee);
      const latency = at && knee !== null ? rowOf(at.summary, key, name) : null;
      const rate = at && knee !== null ? rowOf(at.summary, 'rps', name) : null;
      return [md(name), md(kneeText(doc, name) || '-'), latency && latency.n ? formatValue(info, latency.median) : '', rate && rate.n ? formatValue(METRIC_INFO[0], rate.median) : ''];
    });
    out.push(table(['candidate', 'knee', `${md(doc.slo.metric)} ms at the knee`, 'requests/s at the knee'], ['l', 'l', 'r', 'r'], rows));
  }
  if (metrics.length > 0) {
    out.push('', `Medians of ${doc.rounds} rounds${levels ? ' at each level' : ''}. ratio: a candidate's median over ${md(baseline)}'s; p-value: Welch's t-test of its rounds against ${md(baseline)}'s; \\* p<0.05, \\*\\* p<0.01, \\*\\*\\* p<0.001 (no star: the difference may be noise).`);
  }
  return out.join('\n') + '\n';
}
