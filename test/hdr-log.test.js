// The HdrHistogram interval log (src/results/hdr-log.js), read back with the reference implementation
// (hdr-histogram-js's HistogramLogReader and its decoder): what it decodes is the proof that
// HdrHistogram's tools see the same histograms we recorded.

// The log's format is the core's: under node (scope.js).
import { oneRuntimeTest as test } from './scope.js';
import assert from 'node:assert/strict';
import { HistogramLogReader, decodeFromCompressedBase64 } from 'hdr-histogram-js';
import { Histogram } from '../src/run/histogram.js';
import { hdrLogText, toHdrHistogram, fromHdrHistogram } from '../src/results/hdr-log.js';
import { mulberry32 } from './random.js';


const START = 1700000000123; // epoch ms, with a fraction of a second

// Bucket edges, both sides of each power of two, the top of the range and one value above it
// (clamped to 2^32 - 1 µs by the recorder).
const EDGES = [0, 1, 2, 3, 1023, 1024, 1025, 2046, 2047, 2048, 2049, 2050, 4095, 4096, 4097, 65535, 65536,
  999999, 1000000, 5000000, 2 ** 31, 2 ** 32 - 2, 2 ** 32 - 1, 2 ** 33];

function intervalsOf(valueLists) {
  return valueLists.map((values, k) => {
    const histogram = new Histogram();
    for (const v of values) histogram.record(v);
    return { startMs: k * 1000, endMs: k * 1000 + 1000, histogram, values };
  });
}

function makeIntervals() {
  const random = mulberry32(7);
  // 1 µs to about 4 s, evenly spread on a log scale, so every bucket size is used.
  const wide = Array.from({ length: 20000 }, () => Math.round(Math.exp(random() * Math.log(4e6))));
  // A server at about 2 ms with a slow tail.
  const typical = Array.from({ length: 1000 }, () => 1800 + random() * 400 + (random() < 0.01 ? 250000 * random() : 0));
  const intervals = intervalsOf([wide, [], typical, EDGES, [1234.4]]);
  intervals[4].endMs = 4456.7; // the last second is cut short by the end of the run
  return intervals;
}

async function readLog(text) {
  const reader = new HistogramLogReader(text, 64);
  const decoded = [];
  for (let h; (h = reader.nextIntervalHistogram()) !== null; ) decoded.push(h);
  return decoded;
}

test('the log has the header lines HdrHistogram writes, then one line per interval', async () => {
  const intervals = makeIntervals();
  const text = await hdrLogText({ startTimeMs: START, intervals, comment: 'Logged with loadtest\nagainst x' });
  const lines = text.split('\n');
  assert.equal(lines[0], '#[Logged with loadtest against x]');
  assert.equal(lines[1], '#[Histogram log format version 1.3]');
  assert.equal(lines[2], '#[StartTime: 1700000000.123 (seconds since epoch), 2023-11-14T22:13:20.123Z]');
  assert.equal(lines[3], '#[BaseTime: 1700000000.123 (seconds since epoch)]');
  assert.equal(lines[4], '"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"');
  assert.equal(lines.length, 5 + intervals.length + 1);
  assert.equal(lines.at(-1), '', 'ends with a newline');
  const rows = lines.slice(5, -1).map((l) => l.split(','));
  assert.deepEqual(rows.map((r) => r.slice(0, 2).join(',')), ['0.000,1.000', '1.000,1.000', '2.000,1.000', '3.000,1.000', '4.000,0.457']);
  // Interval_Max in ms (µs / 1000, the reference's ratio), our exact max.
  assert.deepEqual(rows.map((r) => r[2]), intervals.map(({ histogram }) => (histogram.max / 1000).toFixed(3)));
  assert.deepEqual([rows[1][2], rows[3][2], rows[4][2]], ['0.000', '4294967.295', '1.234']);
  for (const r of rows) {
    assert.equal(r.length, 4);
    assert.match(r[3], /^HISTF[A-Za-z0-9+/]+=*$/, 'V2 compressed, base64');
  }
  const noComment = await hdrLogText({ startTimeMs: START, intervals: [] });
  assert.equal(noComment.split('\n')[0], '#[Histogram log format version 1.3]');
  assert.equal(noComment.split('\n').length, 5);
});

test('HistogramLogReader decodes every interval with its time, and the same count in every bucket', async () => {
  const intervals = makeIntervals();
  const decoded = await readLog(await hdrLogText({ startTimeMs: START, intervals }));
  assert.equal(decoded.length, intervals.length);
  for (const [k, { startMs, endMs, histogram, values }] of intervals.entries()) {
    const h = decoded[k];
    assert.ok(Math.abs(h.startTimeStampMsec - (START + startMs)) < 1e-3, `start of ${k}: ${h.startTimeStampMsec}`);
    // Times are written to the ms: 4456.7 is 4.457 s.
    assert.ok(Math.abs(h.endTimeStampMsec - (START + Math.round(endMs))) < 1e-3, `end of ${k}: ${h.endTimeStampMsec}`);
    assert.equal(h.totalCount, values.length, `count of ${k}`);
    assert.equal(h.totalCount, histogram.count);
    // The reference's own bucketing of the raw values (clamped as the recorder does) ...
    const expected = new Map();
    for (const v of values) {
      const index = h.countsArrayIndex(Math.min(Math.round(v), 2 ** 32 - 1));
      expected.set(index, (expected.get(index) ?? 0) + 1);
    }
    // ... is what it decoded, bucket for bucket, and what we recorded, index for index.
    for (let i = 0; i < h.countsArrayLength; i++) {
      assert.equal(h.getCountAtIndex(i), expected.get(i) ?? 0, `interval ${k}, bucket ${i}`);
      assert.equal(h.getCountAtIndex(i), histogram.counts[i], `interval ${k}, index ${i}`);
    }
  }
});

test('min, max and percentiles from the log agree with ours: both report the top of the bucket', async () => {
  const intervals = makeIntervals();
  const decoded = await readLog(await hdrLogText({ startTimeMs: START, intervals }));
  for (const [k, { histogram: ours }] of intervals.entries()) {
    const h = decoded[k];
    if (ours.count === 0) {
      assert.equal(h.maxValue, 0);
      assert.equal(h.getValueAtPercentile(50), 0);
      continue;
    }
    // Only bucket counts are encoded: the reference knows the max to the top of its bucket and the
    // (non-zero) min to the bottom of its bucket; we know both exactly.
    assert.equal(h.maxValue, h.highestEquivalentValue(ours.max), `max of ${k}`);
    const lowestNonZero = ours.min === 0 ? Math.min(...intervals[k].values.filter((v) => Math.round(v) > 0)) : ours.min;
    assert.equal(h.minNonZeroValue, h.lowestEquivalentValue(Math.round(lowestNonZero)), `min of ${k}`);
    for (const p of [1, 50, 90, 99, 99.9, 99.99, 100]) {
      const theirs = h.getValueAtPercentile(p);
      // The same bucket, whose highest value both report; ours never above the exact max.
      assert.equal(h.highestEquivalentValue(ours.percentile(p)), theirs, `p${p} of ${k}: bucket`);
      assert.equal(ours.percentile(p), Math.min(theirs, ours.max), `p${p} of ${k}`);
    }
  }
});

test('an empty interval is a valid, empty histogram', async () => {
  const text = await hdrLogText({ startTimeMs: START, intervals: intervalsOf([[]]) });
  const line = text.trim().split('\n').at(-1);
  assert.match(line, /^0\.000,1\.000,0\.000,HISTF/);
  const h = decodeFromCompressedBase64(line.split(',')[3], 64);
  assert.equal(h.totalCount, 0);
  assert.equal(h.maxValue, 0);
});

test('a decoded histogram converts back to ours with the same counts and percentiles', async () => {
  const intervals = makeIntervals();
  const decoded = await readLog(await hdrLogText({ startTimeMs: START, intervals }));
  for (const [k, { histogram: ours }] of intervals.entries()) {
    const back = fromHdrHistogram(decoded[k]);
    assert.deepEqual(back.counts, ours.counts, `counts of ${k}`);
    assert.equal(back.count, ours.count);
    if (ours.count === 0) {
      assert.equal(back.max, 0);
      assert.equal(back.min, Infinity);
      continue;
    }
    assert.equal(back.max, decoded[k].maxValue, 'max: the top of its bucket');
    assert.ok(back.min <= ours.min && decoded[k].highestEquivalentValue(back.min) >= ours.min, 'min: in its bucket');
    assert.ok(Math.abs(back.mean() - ours.mean()) <= ours.mean() / 1024, `mean of ${k}: ${back.mean()} vs ${ours.mean()}`);
    for (const p of [50, 99, 99.9]) assert.equal(back.percentile(p), decoded[k].getValueAtPercentile(p), `p${p} of ${k}`);
  }
});

test('merging converted histograms is merging ours', async () => {
  const intervals = makeIntervals();
  const whole = new Histogram();
  const fromLog = new Histogram();
  for (const { histogram } of intervals) {
    whole.merge(histogram);
    fromLog.merge(fromHdrHistogram(await toHdrHistogram(histogram)));
  }
  assert.deepEqual(fromLog.counts, whole.counts);
  assert.equal(fromLog.count, whole.count);
});

test('a histogram of another layout is refused with a clear error', async () => {
  const { build } = await import('hdr-histogram-js');
  const twoDigits = build({ lowestDiscernibleValue: 1, highestTrackableValue: 2 ** 32, numberOfSignificantValueDigits: 2 });
  assert.throws(() => fromHdrHistogram(twoDigits), /lowest value 1 and 3 significant digits/);
  const nanoseconds = build({ lowestDiscernibleValue: 1000, highestTrackableValue: 2 ** 40, numberOfSignificantValueDigits: 3 });
  assert.throws(() => fromHdrHistogram(nanoseconds), /lowest value 1 and 3 significant digits/);
});
