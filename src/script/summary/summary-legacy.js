// The end-of-test summary as k6 v0 printed it (k6 v1's --summary-mode legacy): the checks by
// group with ✓ and ✗, then every metric on a line of dots with its values, thresholds marked ✓
// or ✗ before the name.

const PAD = 4; // k6 indents by groups of spaces

function humanDuration(ms, unit) {
  if (unit === 'ms') return `${round(ms)}ms`;
  if (unit === 's') return `${round(ms / 1000)}s`;
  if (unit === 'us') return `${round(ms * 1000)}µs`;
  if (ms === 0) return '0s';
  if (ms < 0.001) return `${round(ms * 1e6)}ns`;
  if (ms < 1) return `${round(ms * 1000)}µs`;
  if (ms < 1000) return `${round(ms)}ms`;
  if (ms < 60000) return `${round(ms / 1000)}s`;
  const m = Math.floor(ms / 60000);
  const s = (ms % 60000) / 1000;
  return m >= 60 ? `${Math.floor(m / 60)}h${m % 60}m${round(s, 1)}s` : `${m}m${round(s, 1)}s`;
}

const round = (v, digits = 2) => {
  const f = 10 ** digits;
  return String(Math.round(v * f) / f);
};

function humanBytes(n) {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let u = 0;
  while (n >= 1000 && u < units.length - 1) {
    n /= 1000;
    u++;
  }
  return `${u === 0 ? Math.round(n) : round(n, 1)} ${units[u]}`;
}

function number(v) {
  if (Number.isInteger(v)) return String(v);
  return round(v, 6).replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');
}

function valuesText(m, timeUnit) {
  const v = m.values;
  const fmt = (x) => (m.contains === 'time' ? humanDuration(x, timeUnit) : m.contains === 'data' ? humanBytes(x) : number(x));
  switch (m.type) {
    case 'counter':
      return [fmt(v.count), m.contains === 'data' ? `${humanBytes(v.rate)}/s` : `${v.rate.toFixed(6)}/s`];
    case 'gauge':
      return [fmt(v.value), `min=${fmt(v.min)}`, `max=${fmt(v.max)}`];
    case 'rate':
      // k6 cuts the percentage to two decimals (2/3 is 66.66%), it does not round it.
      return [`${(Math.floor(v.rate * 10000 + 1e-9) / 100).toFixed(2)}%`, `✓ ${v.passes}`, `✗ ${v.fails}`];
    default:
      return Object.entries(v).map(([k, x]) => `${k}=${k === 'count' ? x : fmt(x)}`);
  }
}

function checksText(group, indent, out) {
  for (const c of group.checks) {
    const mark = c.fails === 0 ? '✓' : '✗';
    out.push(`${' '.repeat(indent)}${mark} ${c.name}`);
    if (c.fails > 0) {
      const total = c.passes + c.fails;
      out.push(`${' '.repeat(indent + 1)}↳  ${Math.floor((c.passes / total) * 100)}% — ✓ ${c.passes} / ✗ ${c.fails}`);
    }
  }
  for (const g of group.groups) {
    if (out[out.length - 1] !== '') out.push('');
    out.push(`${' '.repeat(indent)}█ ${g.name}`, '');
    checksText(g, indent + 2, out);
  }
}

/** The text k6 prints at the end of a run (without handleSummary). */
export function legacySummaryText(data, { color = false } = {}) {
  const green = (s) => (color ? `\x1b[32m${s}\x1b[0m` : s);
  const red = (s) => (color ? `\x1b[31m${s}\x1b[0m` : s);
  const out = [''];
  checksText(data.root_group, PAD + 1, out);
  if (out[out.length - 1] !== '') out.push('');
  // Each metric, then its sub-metrics in the order they were made, the metrics by name.
  const names = Object.keys(data.metrics);
  const bases = [...new Set(names.map((n) => n.split('{')[0]))].sort();
  const rows = [];
  for (const base of bases) {
    if (data.metrics[base]) rows.push({ name: base, label: base, sub: false });
    for (const n of names) if (n.startsWith(base + '{')) rows.push({ name: n, label: `{ ${n.slice(base.length + 1, -1)} }`, sub: true });
  }
  const width = Math.max(...rows.map((r) => r.label.length + (r.sub ? 2 : 0))) + 3;
  // Columns line up as k6's do: each value padded to the widest of its column, trends by statistic.
  for (const r of rows) r.cells = valuesText(data.metrics[r.name], data.options.summaryTimeUnit);
  const widths = [];
  const trendWidths = {};
  for (const r of rows) {
    const m = data.metrics[r.name];
    if (m.type === 'trend') Object.keys(m.values).forEach((k, i) => (trendWidths[k] = Math.max(trendWidths[k] || 0, r.cells[i].length)));
    else r.cells.forEach((c, i) => (widths[i] = Math.max(widths[i] || 0, c.length)));
  }
  for (const r of rows) {
    const m = data.metrics[r.name];
    const marks = m.thresholds ? Object.values(m.thresholds) : null;
    const mark = marks ? (marks.every((x) => x.ok) ? green('✓') : red('✗')) : ' ';
    const cells = m.type === 'trend' ? r.cells.map((c, i) => c.padEnd(trendWidths[Object.keys(m.values)[i]])) : r.cells.map((c, i) => c.padEnd(widths[i]));
    const lead = ' '.repeat(PAD - 1 + (r.sub ? 2 : 0));
    const dots = '.'.repeat(Math.max(1, width - r.label.length - (r.sub ? 2 : 0)));
    out.push(`${lead}${mark} ${r.label}${dots}: ${cells.join(' ')}`);
  }
  out.push('', '');
  return out.join('\n');
}
