// The latency histogram drawn in the terminal: log-scaled bins (1-2-5 per decade, in µs) from
// the fastest response to the slowest, one bar each, with its count. Read from the recorder's
// buckets after the run, so it costs nothing while the run goes on.

import { lowestOf } from '../run/histogram.js';

const STEPS = [1, 2, 5];
const BAR = 30;

// 1, 2, 5, 10, 20, 50, ... µs: the bin edges that cover [min, max].
function edges(min, max) {
  const out = [];
  for (let decade = 1; ; decade *= 10) {
    for (const step of STEPS) {
      const edge = step * decade;
      if (edge > max) {
        out.push(edge);
        return out.slice(Math.max(0, out.findLastIndex((e) => e <= Math.max(1, min))));
      }
      out.push(edge);
    }
  }
}

const label = (us) => (us >= 1000 ? `${us / 1000}` : `${Number((us / 1000).toFixed(3))}`);

/** Lines of the chart for a Histogram (src/run/histogram.js), or [] when it is empty. */
export function latencyChart(histogram, c) {
  if (histogram.count === 0) return [];
  const bins = edges(histogram.min, histogram.max);
  const counts = new Array(bins.length - 1).fill(0);
  const pairs = histogram.pairs();
  let bin = 0;
  for (let k = 0; k < pairs.length; k += 2) {
    const value = lowestOf(pairs[k]);
    while (bin < counts.length - 1 && value >= bins[bin + 1]) bin++;
    counts[bin] += pairs[k + 1];
  }
  const most = Math.max(...counts);
  const labels = counts.map((_, i) => `${label(bins[i])} – ${label(bins[i + 1])} ms`);
  const width = Math.max(...labels.map((l) => l.length));
  const digits = String(most).length;
  return counts.map((n, i) => {
    const length = n === 0 ? 0 : Math.max(1, Math.round((n / most) * BAR));
    return `  ${labels[i].padStart(width)}  ${c.cyan('█'.repeat(length))}${' '.repeat(BAR - length)} ${String(n).padStart(digits)}`;
  });
}
