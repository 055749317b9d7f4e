// --out's lines: the samples queued as numbers (sample-queue.js), taken back on the thread's side
// and formatted as bytes (sample-lines.js) must give the lines k6's shape gives, value for value.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SampleQueue, SampleStream } from '../src/outputs/sample-queue.js';
import { SampleLines, CSV_HEADER } from '../src/outputs/sample-lines.js';

const decoder = new TextDecoder();

/** Queue → structured clone (as postMessage does) → stream → lines; returns the text written. */
async function through(kind, samples) {
  const written = [];
  const lines = new SampleLines(kind, (bytes) => written.push(decoder.decode(bytes)));
  const stream = new SampleStream(lines);
  let clock = 0;
  const queue = new SampleQueue(
    (batch) => {
      stream.take(structuredClone(batch));
      queue.reuse(batch.samples);
    },
    () => clock,
  );
  for (const [metric, value, tags, now] of samples) {
    clock = now;
    queue.sample(metric, value, tags);
  }
  queue.flush(true);
  lines.flush();
  return written.join('');
}

/** The JSON lines' points of `samples`, one each. */
async function pointsOf(samples) {
  const points = (await through('json', samples))
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l))
    .filter((l) => l.type === 'Point');
  assert.equal(points.length, samples.length);
  return points;
}

const trend = { name: 'http_req_duration', type: 'trend', isTime: true };
const counter = { name: 'data_sent', type: 'counter', isTime: false };
const gauge = { name: 'my_gauge', type: 'gauge', isTime: false };
const T0 = Date.UTC(2026, 10, 25, 1, 2, 3, 456);

test('JSON lines: each value as k6 writes it, the metric defined once, the tags of each sample its own', async () => {
  // Ten tag sets taking turns: each sample must keep its own.
  const sets = Array.from({ length: 10 }, (_, i) => ({ scenario: 'default', group: i % 3 ? '' : '::g', name: `http://h/${i}`, status: String(200 + i) }));
  const values = [0, 1, 120, 1.070254, 1.0702540000000056, 0.000001, 0.0000004, 12345.678901, 2 ** 53, -3, -0.5, 1e21, NaN, Infinity];
  const samples = [];
  for (let i = 0; i < 400; i++) {
    const metric = [trend, counter, gauge][i % 3];
    // A fresh object each time with the same content, as a request's tags are.
    samples.push([metric, values[i % values.length], { ...sets[(i * 7) % sets.length] }, T0 + Math.floor(i / 5)]);
  }
  const text = await through('json', samples);
  const lines = text.trimEnd().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(
    lines.filter((l) => l.type === 'Metric').map((l) => [l.metric, l.data.type, l.data.contains]),
    [
      ['http_req_duration', 'trend', 'time'],
      ['data_sent', 'counter', 'data'],
      ['my_gauge', 'gauge', 'default'],
    ],
  );
  const points = lines.filter((l) => l.type === 'Point');
  assert.equal(points.length, samples.length);
  points.forEach((p, i) => {
    const [metric, value, tags, now] = samples[i];
    assert.equal(p.metric, metric.name);
    assert.equal(p.data.time, new Date(now).toISOString());
    assert.deepEqual(p.data.tags, tags);
    // Times to the nanosecond (k6 keeps them so); any other value exactly; no number is null.
    const want = !Number.isFinite(value) ? null : metric.isTime && !Number.isInteger(value) && Math.abs(value) < 9e6 ? Math.round(value * 1e6) / 1e6 : value;
    assert.equal(p.data.value, want, `sample ${i}: ${value}`);
  });
  assert.match(text, /"metric":"http_req_duration","type":"Point","data":\{"time":"[^"]*","value":1\.070254,/);
});

test('JSON lines: random values and times, back and forth, each line its own', async () => {
  // A seeded generator: the same cases each run. Values about the int32 edges the digits are
  // written with, times to the nanosecond, and times that go back to one a line already had.
  let seed = 42;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const edges = [2 ** 31 - 1, 2 ** 31, 2 ** 31 + 1, 2 ** 32, 999999, 1000000, 1e6 - 1e-6, 2147.483647, 2147.483648, 8999999.999999];
  const samples = [];
  for (let i = 0; i < 3000; i++) {
    const metric = i % 2 ? trend : counter;
    const r = rand();
    const value = i % 5 === 0 ? edges[i % edges.length] : r < 0.3 ? Math.floor(rand() * 2 ** (rand() * 53)) : rand() * 10 ** Math.floor(rand() * 9 - 3);
    samples.push([metric, value, { scenario: 'default' }, T0 + Math.floor(rand() * 4) * 997]);
  }
  const points = await pointsOf(samples);
  points.forEach((p, i) => {
    const [metric, value, , now] = samples[i];
    assert.equal(p.data.time, new Date(now).toISOString(), `sample ${i}`);
    const want = metric.isTime && !Number.isInteger(value) && value < 9e6 ? Math.round(value * 1e6) / 1e6 : value;
    assert.equal(p.data.value, want, `sample ${i}: ${value}`);
  });
});

test('JSON lines: a time below 2147 ms written as the shortest decimal of its nanoseconds, digit for digit', async () => {
  // The text itself, not its parsed value: k6's lines are compared as text too. Below 2147 ms a
  // time's nanoseconds are an int32 and its decimals are written two at a time; JavaScript's own
  // shortest form of ns / 1e6 is the reference (never an exponent: ns >= 1 gives >= 0.000001).
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const edges = [0, 0.0000004, 0.0000005, 0.000001, 0.00001, 0.1, 0.10000049, 0.9999995, 1, 9.99, 10, 99.999999, 100.0000001, 1000, 2146.9999994, 2146.9999996, 2147, 2147.5];
  const samples = [];
  for (let i = 0; i < 5000; i++) {
    const value = i < edges.length ? edges[i] : i % 4 === 0 ? Math.floor(rand() * 2147e6) / 1e6 : rand() * 10 ** Math.floor(rand() * 7 - 3);
    samples.push([trend, value, { scenario: 'default' }, T0]);
  }
  const text = await through('json', samples);
  const values = [...text.matchAll(/"value":([^,]*),/g)].map((m) => m[1]);
  assert.equal(values.length, samples.length);
  values.forEach((v, i) => {
    const ms = samples[i][1];
    assert.equal(v, String(Math.round(ms * 1e6) / 1e6), `sample ${i}: ${ms}`);
  });
});

test("one tags object from moment to moment (a VU's own while its tags stay): each moment its own time", async () => {
  // An iteration's end: the same metrics with the VU's shared tags object, moment after moment;
  // sometimes a request's samples between two, with tags of their own.
  const received = { name: 'data_received', type: 'counter', isTime: false };
  const iterations = { name: 'iterations', type: 'counter', isTime: false };
  const vuTags = { scenario: 'default', group: '' };
  const samples = [];
  let now = T0;
  for (let i = 0; i < 200; i++) {
    now += 1 + (i % 7);
    if (i % 3 === 0) for (const m of [trend, gauge]) samples.push([m, i, { ...vuTags, name: 'http://h/' }, now]);
    now += i % 2; // the same millisecond as the request's, or the next
    for (const m of [counter, received, iterations]) samples.push([m, i, vuTags, now]);
  }
  const points = await pointsOf(samples);
  points.forEach((p, i) => {
    assert.equal(p.metric, samples[i][0].name);
    assert.equal(p.data.time, new Date(samples[i][3]).toISOString(), `sample ${i}`);
    assert.deepEqual(p.data.tags, samples[i][2]);
  });
});

test('CSV rows: k6 columns, the value with six decimals, the other tags as extra_tags', async () => {
  const text = await through('csv', [
    [counter, 1, { scenario: 'default', status: '200', url: 'http://h/a,b', team: 'qa', empty: '' }, T0],
    [trend, 0.5, { scenario: 'default', check: 'say "hi"' }, T0 + 1000],
  ]);
  const columns = CSV_HEADER.trimEnd().split(',');
  assert.equal(columns.length, 19);
  const rows = text.trimEnd().split('\n');
  assert.equal(rows.length, 2);
  assert.equal(rows[0], `data_sent,${Math.floor(T0 / 1000)},1.000000,,,,,,,,,default,,200,,,"http://h/a,b",team=qa,`);
  assert.equal(rows[1], `http_req_duration,${Math.floor(T0 / 1000) + 1},0.500000,"say ""hi""",,,,,,,,default,,,,,,,`);
});

test('more tag sets than the queue has slots: the same objects come back after theirs were given to others, and each sample keeps its own tags', async () => {
  // 1500 sets (the queue keeps 1024), each an object used three times, far apart: the third time
  // its slot holds another set, and the object must be told again, not taken for that one.
  const sets = Array.from({ length: 1500 }, (_, i) => ({ scenario: 'default', name: `http://h/items/${i}`, status: String(200 + (i % 3)) }));
  const samples = [];
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < sets.length; i++) samples.push([counter, round * 10 + (i % 7), sets[(i * 7 + round * 11) % sets.length], T0 + round]);
  }
  // And fresh objects of the same content as ones seen, as a check's or a custom metric's tags are.
  for (let i = 0; i < 300; i++) samples.push([trend, i, { ...sets[(i * 13) % sets.length] }, T0 + 9]);
  const points = await pointsOf(samples);
  points.forEach((p, i) => {
    assert.deepEqual(p.data.tags, samples[i][2], `sample ${i}`);
    assert.equal(p.data.value, samples[i][1]);
  });
});

test('a failed write is said once, at the end, and nothing more is written', async () => {
  let calls = 0;
  const lines = new SampleLines('json', () => {
    calls++;
    throw new Error('--out json=f: ENOSPC');
  });
  lines.metric(0, trend);
  lines.tags(0, { a: 'x'.repeat(200) });
  for (let i = 0; i < 2000; i++) lines.sample(0, 1.5, 0, T0);
  assert.throws(() => lines.flush(), /ENOSPC/);
  assert.equal(calls, 1);
});
