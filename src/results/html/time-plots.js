// The "Over time" plots of an --html page, from a run's per-second series (src/run/series.js):
// requests per second (beside the stages' target, with --stages), p50 and p99 of each second,
// errors per second, and a scripted run's VUs (its seconds carry them: src/script/metrics/live.js).

import { chart, linearAxis, niceTicks, COLORS } from './svg-chart.js';
import { figure, empty } from './html-blocks.js';

const IDS = ['rate', 'latency-over-time', 'errors-over-time'];

/** The section, its plots in a row. */
export function overTimeSection(r, prefix) {
  const series = Array.isArray(r.series) ? r.series : [];
  const parts = ['<h2>Over time</h2><div class="charts">'];
  if (series.length === 0) parts.push(...IDS.map((n) => empty(prefix + n, 'Over time', 'No per-second series in this result.')));
  else {
    const x = secondsAxis(series);
    parts.push(rateFigure(series, x, prefix + IDS[0]), latencyFigure(series, x, prefix + IDS[1]), errorsFigure(series, x, prefix + IDS[2]));
    if (series.every((s) => typeof s.vus === 'number')) parts.push(vusFigure(series, x, `${prefix}vus-over-time`));
  }
  parts.push('</div>');
  return parts.join('\n');
}

// Half a second either side, so that the first and last seconds' bars fit in.
function secondsAxis(series) {
  const first = series[0].second;
  const last = series[series.length - 1].second;
  const ticks = niceTicks(first, Math.max(last, first + 1)).filter((t) => Number.isInteger(t) && t <= last);
  return { min: first - 0.5, max: last + 0.5, title: 'second of the run', ticks: ticks.map((t) => ({ value: t, label: String(t) })) };
}

// A load run's load is its connections, a scripted run's its VUs.
const loadOf = (s) => (typeof s.vus === 'number' ? `${s.vus} VUs` : `${s.connections} connections`);

function rateFigure(series, x, id) {
  const rate = series.map((s) => (s.durationMs > 0 ? (s.completed / s.durationMs) * 1000 : 0));
  const tips = series.map((s, i) => `second ${s.second}: ${Math.round(rate[i])} requests/s (${s.completed} in ${s.durationMs} ms), ${loadOf(s)}`);
  const lines = [{ name: 'requests/s', kind: 'line', points: series.map((s, i) => [s.second, rate[i]]), tips }];
  // With --stages, the rate the ramp asked for beside the rate achieved.
  const staged = series.some((s) => typeof s.targetRequests === 'number');
  if (staged) {
    const target = series.map((s) => [s.second, s.durationMs > 0 ? ((s.targetRequests || 0) / Math.min(s.durationMs, 1000)) * 1000 : 0]);
    lines.push({ name: 'target', kind: 'line', points: target, color: COLORS[2], tips: target.map(([sec, v]) => `second ${sec}: target ${Math.round(v)} requests/s`) });
  }
  const y = linearAxis(lines.flatMap((s) => s.points.map((pt) => pt[1])), 'requests/s');
  return figure('Requests per second', staged ? 'ended in each second, beside the stages\' target' : 'responses and failures ended in each second', chart({ id, title: 'Requests per second', x, y, series: lines }));
}

function latencyFigure(series, x, id) {
  // A second without a response has no percentiles (a scripted run's): no point, rather than 0.
  const timed = series.filter((s) => typeof s.p50Ms === 'number');
  const line = (key) => ({ name: key, kind: 'line', points: timed.map((s) => [s.second, s[`${key}Ms`]]), tips: timed.map((s) => `second ${s.second}: ${key} ${s[`${key}Ms`]} ms`) });
  const lines = [line('p50'), line('p99')];
  const y = linearAxis(lines.flatMap((l) => l.points.map((pt) => pt[1])), 'latency', { unit: ' ms' });
  return figure('Latency over time', 'p50 and p99 of each second', chart({ id, title: 'Latency over time', x, y, series: lines }));
}

function errorsFigure(series, x, id) {
  const errors = series.map((s) => [s.second, s.errors]);
  const total = series.reduce((a, s) => a + s.errors, 0);
  const bars = { name: 'errors', kind: 'bars', points: errors, color: COLORS[1], tips: series.map((s) => `second ${s.second}: ${s.errors} errors`) };
  return figure('Errors per second', total === 0 ? 'none' : `${total} in all`, chart({ id, title: 'Errors per second', x, y: linearAxis(errors.map((pt) => pt[1]), 'errors'), series: [bars] }));
}

function vusFigure(series, x, id) {
  const points = series.map((s) => [s.second, s.vus]);
  const line = { name: 'VUs', kind: 'line', points, color: COLORS[4], tips: series.map((s) => `second ${s.second}: ${s.vus} VUs`) };
  return figure('VUs', 'running at the end of each second', chart({ id, title: 'VUs', x, y: linearAxis(points.map((pt) => pt[1]), 'VUs'), series: [line] }));
}
