// The per-second series: each second's requests, errors, bytes, p50/p99 and connections add up
// to the run's totals, on one process and merged across cores.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadTest } from '../src/index.js';
import { Histogram, percentilesOfPairs } from '../src/run/histogram.js';
import { mergeSeries, closeSecond } from '../src/run/series.js';
import { Stats } from '../src/run/stats.js';
import { rawServer, ok, paced } from './servers.js';

const total = (series, key) => series.reduce((a, e) => a + e[key], 0);

function assertSeriesAddsUp(r) {
  assert.equal(total(r.series, 'completed'), r.totalRequests);
  assert.equal(total(r.series, 'errors'), r.totalErrors);
  assert.equal(total(r.series, 'sent'), r.requestsSent);
  assert.equal(total(r.series, 'bytes'), r.bytesReceived);
  let counted = 0;
  for (const e of r.series) for (let k = 1; k < e.buckets.length; k += 2) counted += e.buckets[k];
  assert.equal(counted, r.histogram.count, 'every latency is in exactly one second');
  for (const e of r.series) {
    const [p50, p99] = percentilesOfPairs(e.buckets, [50, 99]);
    assert.equal(e.p50Ms, p50 / 1000);
    assert.equal(e.p99Ms, p99 / 1000);
  }
}

test('series: one entry per second whose counts add up to the totals, p99 of each second from its own latencies', async () => {
  // Errors every 10th request, and slow answers (100 ms) from 1.1 s on: the third second's p50
  // must show it while the first's does not (by a margin a loaded machine does not eat).
  const started = performance.now();
  const server = await rawServer(({ socket, server: s }) => {
    const n = s.requests; // this request's number, not the count when its answer goes
    const answer = () => socket.write(n % 10 === 0 ? ok('no', '').replace('200 OK', '503 Busy') : ok());
    // 1 ms before the slow part: the rate is not the point, and full speed costs the suite a core.
    setTimeout(answer, performance.now() - started > 1100 ? 100 : 1);
  });
  try {
    const r = await loadTest({ url: server.url, maxSeconds: 2.5, concurrency: 4, agentKeepAlive: true });
    assert.equal(r.series.length, 3, JSON.stringify(r.series.map((e) => e.durationMs)));
    assert.deepEqual(r.series.map((e) => e.second), [1, 2, 3]);
    // Seconds close on whole seconds from the start: never early (an early timer waits again);
    // a late close lengthens its second and shortens the next by as much.
    const [d1, d2] = r.series.map((e) => e.durationMs);
    assert.ok(d1 >= 999 && d1 < 1600 && d1 + d2 >= 1999 && d1 + d2 < 2600, `whole seconds: ${d1}, ${d2}`);
    assert.ok(r.series[2].durationMs < 600);
    assert.ok(r.series[0].p50Ms < 50, `fast first second: ${r.series[0].p50Ms}`);
    assert.ok(r.series[2].p50Ms >= 100, `slow last second: ${r.series[2].p50Ms}`);
    assert.ok(r.series.every((e) => e.connections === 4), JSON.stringify(r.series.map((e) => e.connections)));
    assert.ok(r.totalErrors > 0);
    assert.ok(r.bytesReceived > r.totalRequests * 40);
    assertSeriesAddsUp(r);
  } finally {
    await server.close();
  }
});

test('series: merged across cores second by second, still adding up to the totals', async () => {
  const server = await rawServer(paced());
  try {
    const r = await loadTest({ url: server.url, maxSeconds: 1.5, concurrency: 4, agentKeepAlive: true, cores: 2 });
    assert.deepEqual(r.childErrors, []);
    assert.equal(r.series.length, 2, JSON.stringify(r.series.map((e) => e.durationMs)));
    assert.ok(r.series[0].connections === 4, 'both children\'s connections');
    assertSeriesAddsUp(r);
  } finally {
    await server.close();
  }
});

test('series: merging seconds gives the p99 of one histogram fed every sample of that second', () => {
  const parts = [new Stats(), new Stats()];
  const one = [new Histogram(), new Histogram()];
  for (let second = 0; second < 2; second++) {
    for (let i = 0; i < 5000; i++) {
      const us = 100 + ((i * 7919 + second * 31) % (second ? 90000 : 3000));
      parts[i % 2].recent.record(us);
      parts[i % 2].completed++;
      one[second].record(us);
    }
    for (const p of parts) closeSecond(p, 1000, 3);
  }
  const merged = mergeSeries(JSON.parse(JSON.stringify(parts[0].series)), parts[1].series);
  for (let second = 0; second < 2; second++) {
    const [p50, p99] = percentilesOfPairs(one[second].pairs(), [50, 99]);
    assert.equal(merged[second].p99Ms, p99 / 1000);
    assert.equal(merged[second].p50Ms, p50 / 1000);
    assert.equal(merged[second].completed, 5000);
    assert.equal(merged[second].connections, 6);
  }
  // closing a second folds it into the run's histogram and empties it
  assert.equal(parts[0].histogram.count + parts[1].histogram.count, 10000);
  assert.equal(parts[0].recent.count, 0);
});

// A second's histogram is read, folded in and cleared over its used buckets only: what it
// reports must be what a scan of every bucket reports, at the range's ends too, and a cleared
// one must hold nothing of its last second.
test('series: seconds of far-apart latencies, at both ends of the range, fold in and clear whole', () => {
  const stats = new Stats();
  const all = new Histogram();
  const seconds = [[5, 7, 9], [0, 1], [2 ** 32 - 1, 3e9], [120, 450000, 2 ** 31, 64], []];
  for (const values of seconds) {
    for (const us of values) {
      stats.recent.record(us);
      all.record(us);
      stats.completed++;
    }
    closeSecond(stats, 1000, 1);
    assert.equal(stats.recent.count, 0);
    assert.equal(stats.recent.counts.reduce((a, b) => a + b, 0), 0, 'cleared');
  }
  const everyBucket = [];
  all.counts.forEach((n, i) => n !== 0 && everyBucket.push(i, n));
  assert.deepEqual(stats.histogram.pairs(), everyBucket);
  assert.deepEqual(
    seconds.map((values, i) => stats.series[i].buckets.length / 2),
    seconds.map((values) => new Set(values.map((us) => { const h = new Histogram(); h.record(us); return h.pairs()[0]; })).size),
  );
  for (const p of [0.1, 50, 90, 99, 99.9, 100]) assert.equal(stats.histogram.percentile(p), all.percentile(p));
  const back = Histogram.fromJSON(JSON.parse(JSON.stringify(stats.histogram)));
  assert.deepEqual(back.pairs(), everyBucket);
  const twice = new Histogram();
  twice.merge(back);
  twice.merge(Histogram.fromPairs(everyBucket));
  assert.deepEqual(twice.pairs(), everyBucket.map((x, i) => (i % 2 ? 2 * x : x)));
  assert.equal(twice.percentile(100), all.percentile(100));
});

// The buckets a histogram reads are those between its lowest and highest record: a histogram of
// zeros alone (a phase that took no time, as a response's receive in one read) is not empty.
test('a histogram of zeros only: its pairs, percentiles and merge see them, after a clear too', () => {
  const h = new Histogram();
  for (let round = 0; round < 2; round++) {
    for (let i = 0; i < 5; i++) h.record(0);
    assert.deepEqual(h.pairs(), [0, 5]);
    assert.equal(h.percentile(99), 0);
    const into = new Histogram();
    into.merge(h);
    assert.deepEqual(into.pairs(), [0, 5]);
    assert.equal(Histogram.fromJSON(h.toJSON()).pairs().length, 2);
    h.clear();
    assert.deepEqual(h.pairs(), []);
  }
  h.record(3);
  h.record(0);
  assert.deepEqual(h.pairs(), [0, 1, 3, 1]);
});
