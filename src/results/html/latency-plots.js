// The latency plots of an --html page, from a run's document: the latency by percentile (as
// HdrHistogram plots it), its histogram, and the request phases by percentile with their table.
// A load run's document and a scripted run's (src/script/summary/report-doc.js) have the same fields:
// latencyHistogram, phases and phaseHistograms, in µs buckets and ms figures.

import { chart, linearAxis, logAxis, COLORS } from './svg-chart.js';
import { highestOf, lowestOf } from '../../run/histogram.js';
import { figure, empty, table } from './html-blocks.js';

/** The Latency section: every plot, then the phases' table (`phaseNote`: what the phases are). */
export function latencySection(r, prefix, phaseNote) {
  return ['<h2>Latency</h2><div class="charts">', percentileChart(r, prefix), histogramChart(r, prefix), phaseChart(r, prefix), phaseTable(r, prefix, phaseNote), '</div>'].join('\n');
}

const bucketsOf = (r) => (r.latencyHistogram && Array.isArray(r.latencyHistogram.buckets) ? r.latencyHistogram.buckets : []);

const countOf = (pairs) => {
  let total = 0;
  for (let k = 1; k < pairs.length; k += 2) total += pairs[k];
  return total;
};

/**
 * The percentile axis as HdrHistogram plots it: x is 1/(1-p) on a log scale, so that 90 %, 99 %,
 * 99.9 % ... are evenly spaced and the tail gets the room. The tail of `total` values reaches
 * 1 - 1/total; the axis ends at the next power of ten (99 % at least).
 */
function percentileAxis(total) {
  const xmax = Math.max(2, Math.ceil(Math.log10(total)));
  const ticks = [];
  for (let e = 0; e <= xmax; e++) ticks.push({ value: e, label: e === 0 ? '0%' : `${Number((100 - 100 / 10 ** e).toFixed(e))}%` });
  return { min: 0, max: xmax, ticks, title: 'percentile' };
}

/** A step curve over percentileAxis(): [x, ms] per bucket of sparse [index, count, ...] pairs. */
function spectrum(pairs, maxUs, xmax) {
  const total = countOf(pairs);
  const u = (p) => (p >= 1 ? xmax : Math.min(xmax, Math.log10(1 / (1 - p))));
  const points = [];
  let seen = 0;
  for (let k = 0; k < pairs.length; k += 2) {
    // A bucket's value (capped by the exact max, as the result's percentiles are) holds from
    // the share before it up to the share that includes it.
    points.push([u(seen / total), Math.min(highestOf(pairs[k]), maxUs || Infinity) / 1000]);
    seen += pairs[k + 1];
  }
  points.push([xmax, points[points.length - 1][1]]);
  return points;
}

/** The latency's percentile distribution. */
export function percentileChart(r, prefix) {
  const id = `${prefix}percentiles`;
  const caption = 'Latency by percentile';
  const pairs = bucketsOf(r);
  const total = countOf(pairs);
  if (total === 0) return empty(id, caption, 'No responses.');
  const x = percentileAxis(total);
  const points = spectrum(pairs, r.latencyHistogram.max, x.max);
  const y = linearAxis(points.map((pt) => pt[1]), 'latency', { unit: ' ms' });
  return figure(caption, 'x: 1/(1−p), log scale', chart({ id, title: caption, series: [{ name: 'latency', kind: 'step', points }], x, y }));
}

// The request phases (src/run/stats.js), in the order a request goes through them; red is the errors'.
const PHASE_COLORS = { connect: COLORS[0], tls: COLORS[3], wait: COLORS[2], receive: COLORS[4] };

// Phases that happened, with their histograms' buckets: none in a document written before phases were kept.
function phaseBuckets(r) {
  const histograms = r.phaseHistograms || {};
  const buckets = (p) => (histograms[p] && Array.isArray(histograms[p].buckets) ? histograms[p].buckets : []);
  return Object.keys(PHASE_COLORS).map((name) => ({ name, pairs: buckets(name), maxUs: histograms[name] && histograms[name].max })).filter((p) => countOf(p.pairs) > 0);
}

/**
 * Each phase's percentile distribution on one plot. y is on a log scale: a connect takes
 * milliseconds where a response's receive may take none. The histograms count whole µs, so a
 * value of 0 is under 1 µs: drawn on the bottom line, which is then 1 µs.
 */
export function phaseChart(r, prefix) {
  const phases = phaseBuckets(r);
  if (phases.length === 0) return '';
  const caption = 'Request phases by percentile';
  const x = percentileAxis(Math.max(...phases.map((p) => countOf(p.pairs))));
  const curves = phases.map((p) => ({ ...p, points: spectrum(p.pairs, p.maxUs, x.max) }));
  // Four histograms may have thousands of buckets each: too many to spread into Math.min's arguments.
  let lo = Infinity;
  let hi = 0;
  let zero = false;
  for (const c of curves) {
    for (const [, v] of c.points) {
      if (v > 0) lo = Math.min(lo, v);
      else zero = true;
      hi = Math.max(hi, v);
    }
  }
  if (zero) lo = Math.min(lo, 0.001);
  hi = Math.max(hi, lo);
  let y = logAxis(lo, hi, 'time', { unit: ' ms' });
  // The legend takes the plot's top tenth: a decade more when the highest curve would run into it.
  if (curves.length > 1 && (y.max - Math.log10(hi)) / (y.max - y.min) < 0.1) y = logAxis(lo, hi * 10, 'time', { unit: ' ms' });
  const series = curves.map((c) => ({ name: c.name, kind: 'step', color: PHASE_COLORS[c.name], points: c.points.map(([u, v]) => [u, Math.log10(Math.max(v, 10 ** y.min))]) }));
  // One line gets no legend: its name goes in the note.
  const note = `${series.length === 1 ? `${series[0].name}; ` : ''}x: 1/(1−p), log scale; y: log scale${zero ? ', under 1 µs on the bottom line' : ''}`;
  return figure(caption, note, chart({ id: `${prefix}phases`, title: caption, series, x, y }));
}

// What a load run's phases are; a scripted run's are k6's (src/script/summary/report-doc.js).
const LOAD_PHASES = 'connect and tls: per new connection; wait: written → first byte; receive: first → last byte';

// The phases' figures, a row per phase that happened (no tls row over http).
export function phaseTable(r, prefix, note = LOAD_PHASES) {
  const phases = r.phases || {};
  const names = Object.keys(PHASE_COLORS).filter((p) => phases[p] && phases[p].count > 0);
  if (names.length === 0) return '';
  const rows = names.map((p) => [p, phases[p].count, phases[p].p50, phases[p].p90, phases[p].p99, phases[p].max]);
  return figure('Request phases', note, table(['phase', 'count', 'p50 (ms)', 'p90 (ms)', 'p99 (ms)', 'max (ms)'], rows, `${prefix}phase-table`), 'aside');
}

/** The latency histogram in bins of equal width on a log scale (the buckets are far finer). */
export function histogramChart(r, prefix) {
  const id = `${prefix}histogram`;
  const caption = 'Latency histogram';
  const pairs = bucketsOf(r);
  if (pairs.length === 0) return empty(id, caption, 'No responses.');
  // log10 of ms, from the buckets' middles.
  const logs = [];
  for (let k = 0; k < pairs.length; k += 2) logs.push(Math.log10(Math.max((lowestOf(pairs[k]) + highestOf(pairs[k])) / 2, 1) / 1000));
  const lo = Math.min(...logs);
  const hi = Math.max(...logs);
  const perDecade = hi - lo <= 2 ? 20 : 10;
  const bins = new Map();
  logs.forEach((v, i) => {
    const bin = Math.floor(v * perDecade);
    bins.set(bin, (bins.get(bin) || 0) + pairs[2 * i + 1]);
  });
  const keys = [...bins.keys()].sort((a, b) => a - b);
  const points = keys.map((b) => [(b + 0.5) / perDecade, bins.get(b)]);
  const tips = keys.map((b) => `${fmtMs(10 ** (b / perDecade))} – ${fmtMs(10 ** ((b + 1) / perDecade))} ms: ${bins.get(b)} responses`);
  const x = logAxis(10 ** (keys[0] / perDecade), 10 ** ((keys[keys.length - 1] + 1) / perDecade), 'latency', { unit: ' ms' });
  const y = linearAxis(points.map((pt) => pt[1]), 'responses');
  return figure(caption, 'x: log scale', chart({ id, title: caption, series: [{ name: 'responses', kind: 'bars', points, tips }], x, y, barWidth: 1 / perDecade }));
}

const fmtMs = (v) => String(Number(v.toPrecision(3)));
