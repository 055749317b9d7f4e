// Plots as inline SVG text, drawn when the report is written: lines or bars over two axes with
// ticks. No script runs in the page and nothing is fetched; a point's value shows in its <title>
// tooltip. Values are plain numbers; the caller picks the scale (a log axis is the log of its
// values, with ticks labelled in the original units).

const WIDTH = 660;
const HEIGHT = 300;
const PAD = { left: 64, right: 36, top: 16, bottom: 44 };
export const COLORS = ['#2563eb', '#dc2626', '#059669', '#d97706', '#7c3aed'];

/** Text made safe inside HTML and SVG, elements and attributes alike. */
export function escapeHtml(value) {
  return String(value).replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]);
}

// Figures within the plot's width need no more than 4 significant digits.
const fmt = (n) => String(Number(n.toPrecision(4)));
const px = (n) => Math.round(n * 10) / 10;

/** About `count` round tick values (1, 2 or 5 times a power of ten) covering min..max. */
export function niceTicks(min, max, count = 5) {
  if (!(max > min)) max = min + 1;
  const raw = (max - min) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw);
  const ticks = [];
  for (let v = Math.ceil(min / step) * step; v <= max + step * 1e-9; v += step) ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

/**
 * One plot. series: [{ name, points: [[x, y], ...], kind: 'line' | 'step' | 'bars', tips? }];
 * x and y: { min, max, ticks: [{ value, label }], title }. A 'step' line holds each y from the
 * previous point's x to its own (a percentile curve); bars are centred on x, `barWidth` wide in x units.
 */
export function chart({ id, title, series, x, y, barWidth = 1 }) {
  const w = WIDTH - PAD.left - PAD.right;
  const h = HEIGHT - PAD.top - PAD.bottom;
  const sx = (v) => PAD.left + ((v - x.min) / (x.max - x.min || 1)) * w;
  const sy = (v) => PAD.top + h - ((v - y.min) / (y.max - y.min || 1)) * h;
  const parts = [];
  parts.push(`<svg id="${escapeHtml(id)}" class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-label="${escapeHtml(title)}">`);
  parts.push(`<title>${escapeHtml(title)}</title>`);
  for (const t of y.ticks) {
    const at = px(sy(t.value));
    parts.push(`<line class="grid" x1="${PAD.left}" x2="${PAD.left + w}" y1="${at}" y2="${at}"/>`);
    parts.push(`<text class="tick" x="${PAD.left - 6}" y="${at + 4}" text-anchor="end">${escapeHtml(t.label)}</text>`);
  }
  for (const t of x.ticks) {
    const at = px(sx(t.value));
    parts.push(`<line class="grid" x1="${at}" x2="${at}" y1="${PAD.top}" y2="${PAD.top + h}"/>`);
    parts.push(`<text class="tick" x="${at}" y="${PAD.top + h + 16}" text-anchor="middle">${escapeHtml(t.label)}</text>`);
  }
  parts.push(`<rect class="frame" x="${PAD.left}" y="${PAD.top}" width="${w}" height="${h}"/>`);
  parts.push(`<text class="axis" x="${PAD.left + w / 2}" y="${HEIGHT - 6}" text-anchor="middle">${escapeHtml(x.title)}</text>`);
  parts.push(`<text class="axis" transform="translate(14 ${PAD.top + h / 2}) rotate(-90)" text-anchor="middle">${escapeHtml(y.title)}</text>`);
  series.forEach((s, i) => {
    const color = s.color || COLORS[i % COLORS.length];
    const name = escapeHtml(s.name);
    if (s.kind === 'bars') {
      parts.push(`<g class="series bars" data-series="${name}" fill="${color}">`);
      const half = (sx(x.min + barWidth) - sx(x.min)) / 2;
      s.points.forEach(([vx, vy], k) => {
        const top = sy(Math.max(vy, y.min));
        const tip = s.tips ? s.tips[k] : `${fmt(vx)}: ${fmt(vy)}`;
        // A bar of zero still gets a hairline, so that the plot shows where a value is zero.
        const height = Math.max(px(sy(y.min) - top), 0.5);
        parts.push(`<rect x="${px(sx(vx) - half * 0.9)}" y="${px(sy(y.min) - height)}" width="${px(Math.max(half * 1.8, 1))}" height="${height}"><title>${escapeHtml(tip)}</title></rect>`);
      });
      parts.push('</g>');
      return;
    }
    let d = '';
    s.points.forEach(([vx, vy], k) => {
      const X = px(sx(vx));
      const Y = px(sy(vy));
      if (k === 0) d += `M${X} ${Y}`;
      else if (s.kind === 'step') d += `H${X}V${Y}`;
      else d += `L${X} ${Y}`;
    });
    parts.push(`<g class="series line" data-series="${name}"><path d="${d}" fill="none" stroke="${color}" stroke-width="2"/>`);
    // Dots with tooltips, unless there are too many to point at.
    if (s.points.length <= 120 && s.kind !== 'step') {
      s.points.forEach(([vx, vy], k) => {
        const tip = s.tips ? s.tips[k] : `${fmt(vx)}: ${fmt(vy)}`;
        parts.push(`<circle cx="${px(sx(vx))}" cy="${px(sy(vy))}" r="3" fill="${color}"><title>${escapeHtml(tip)}</title></circle>`);
      });
    }
    parts.push('</g>');
  });
  if (series.length > 1) {
    series.forEach((s, i) => {
      const color = s.color || COLORS[i % COLORS.length];
      const lx = PAD.left + 10 + i * 110;
      parts.push(`<rect x="${lx}" y="${PAD.top + 6}" width="12" height="12" fill="${color}"/><text class="legend" x="${lx + 16}" y="${PAD.top + 16}">${escapeHtml(s.name)}</text>`);
    });
  }
  parts.push('</svg>');
  return parts.join('');
}

/** A linear axis from 0 (or min) to a little above max, with round ticks. */
export function linearAxis(values, title, { unit = '', min = 0 } = {}) {
  let max = Math.max(min, ...values);
  if (max <= min) max = min + 1;
  const ticks = niceTicks(min, max);
  // Room above the highest value: the axis ends on the round tick above it.
  const step = ticks.length > 1 ? ticks[1] - ticks[0] : max - min;
  if (ticks[ticks.length - 1] < max) ticks.push(Number((ticks[ticks.length - 1] + step).toPrecision(12)));
  const top = ticks[ticks.length - 1];
  return { min, max: top, title, ticks: ticks.map((v) => ({ value: v, label: fmt(v) + unit })) };
}

/** An axis over log10 of values from lo to hi (both > 0), ticked at 1, 2 and 5 times powers of ten. */
export function logAxis(lo, hi, title, { unit = '' } = {}) {
  let min = Math.floor(Math.log10(lo));
  let max = Math.ceil(Math.log10(hi));
  if (max <= min) max = min + 1;
  const decades = max - min;
  const ticks = [];
  for (let e = min; e <= max; e++) {
    for (const m of decades <= 3 ? [1, 2, 5] : [1]) {
      const value = Math.log10(m * 10 ** e);
      if (value <= max) ticks.push({ value, label: fmt(m * 10 ** e) + unit });
    }
  }
  return { min, max, title, ticks };
}
