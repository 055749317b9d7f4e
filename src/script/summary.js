// The end-of-test summary as k6 prints it: the checks by group with ✓ and ✗, then every metric
// on a line of dots with its values, thresholds marked ✓ or ✗ before the name.

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
      return [`${(v.rate * 100).toFixed(2)}%`, `✓ ${v.passes}`, `✗ ${v.fails}`];
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
      out.push(`${' '.repeat(indent + 2)}↳  ${Math.floor((c.passes / total) * 100)}% — ✓ ${c.passes} / ✗ ${c.fails}`);
    }
  }
  for (const g of group.groups) {
    out.push('', `${' '.repeat(indent)}█ ${g.name}`, '');
    checksText(g, indent + 2, out);
  }
}

/** The text k6 prints at the end of a run (without handleSummary). */
export function summaryText(data, { color = false } = {}) {
  const green = (s) => (color ? `\x1b[32m${s}\x1b[0m` : s);
  const red = (s) => (color ? `\x1b[31m${s}\x1b[0m` : s);
  const out = [''];
  const indent = PAD + 1;
  checksText(data.root_group, indent, out);
  if (data.root_group.checks.length || data.root_group.groups.length) out.push('');
  const names = Object.keys(data.metrics).sort((a, b) => {
    const [ba] = a.split('{');
    const [bb] = b.split('{');
    return ba === bb ? a.length - b.length : ba < bb ? -1 : 1;
  });
  const label = (name) => {
    const sub = name.indexOf('{');
    return sub < 0 ? name : `  { ${name.slice(sub + 1, -1)} }`;
  };
  const width = Math.max(...names.map((n) => label(n).length + 2), 30) + 3;
  for (const name of names) {
    const m = data.metrics[name];
    const marks = m.thresholds ? Object.values(m.thresholds) : null;
    const mark = marks ? (marks.every((t) => t.ok) ? green('✓') : red('✗')) : ' ';
    const l = label(name);
    const values = valuesText(m, data.options.summaryTimeUnit);
    const first = values[0].padEnd(values.length > 1 && m.type !== 'trend' ? 7 : 0);
    out.push(`${' '.repeat(PAD - 1)}${mark} ${l}${'.'.repeat(Math.max(1, width - l.length))}: ${m.type === 'trend' ? values.join(' ') : [first, ...values.slice(1)].join(' ')}`);
  }
  out.push('', '');
  return out.join('\n');
}
