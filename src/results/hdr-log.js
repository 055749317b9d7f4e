// HdrHistogram interval log (`--hdr-log F`): one line per interval with the histogram in
// HdrHistogram's V2 compressed base64 encoding ("HISTF..."), the format that HdrHistogram's own
// tools read (Java HistogramLogProcessor, hdr-histogram-js HistogramLogReader, HdrLogProcessing).
// The encoding comes from hdr-histogram-js, loaded only when a log is written; our recorder stays
// src/run/histogram.js, whose bucket layout is HdrHistogram's with lowest value 1 and 3 significant
// digits, so converting is copying counts index for index: nothing is lost or re-bucketed.

import { Histogram } from '../run/histogram.js';

// Values up to 2^32 - 1 µs, as src/run/histogram.js clamps: the same 23552 counts as ours.
const LAYOUT = {
  lowestDiscernibleValue: 1,
  highestTrackableValue: 2 ** 32 - 1,
  numberOfSignificantValueDigits: 3,
  bitBucketSize: 64, // counts are doubles in ours too
  autoResize: false,
  useWebAssembly: false, // pure JS: the same on node, bun and deno, and nothing to initialise
};
// HistogramLogWriter.java's version, the first that has the BaseTime line.
const FORMAT_VERSION = '1.3';
// Java's writer deflates with Deflater.BEST_COMPRESSION.
const COMPRESSION_LEVEL = 9;

let library;
const load = () => (library ??= import('hdr-histogram-js'));

/** An hdr-histogram-js histogram with the same count in every bucket as `histogram` (ours). */
export async function toHdrHistogram(histogram) {
  const hdr = (await load()).build(LAYOUT);
  const counts = histogram.counts;
  // The same layout, so our index i is theirs; filling counts and then letting it find min, max
  // and total is what its own decoder does, and 5 times faster than recording bucket by bucket.
  for (let i = 0; i < counts.length; i++) if (counts[i] !== 0) hdr.setCountAtIndex(i, counts[i]);
  hdr.establishInternalTackingValues();
  return hdr;
}

/**
 * Ours from an hdr-histogram-js histogram (e.g. decoded from a log) of the same layout. Only
 * bucket counts travel in the encoding, so min is the lowest and max the highest value of their
 * buckets, and sum is estimated from each bucket's middle (as HdrHistogram's mean is).
 */
export function fromHdrHistogram(hdr) {
  if (hdr.unitMagnitude !== 0 || hdr.subBucketHalfCountMagnitude !== 10) {
    throw new Error('hdr log: histograms must have lowest value 1 and 3 significant digits, as loadtest writes them');
  }
  const h = new Histogram();
  const last = h.counts.length - 1;
  for (let i = 0; i < hdr.countsArrayLength; i++) {
    const c = hdr.getCountAtIndex(i);
    if (c !== 0) h.addAt(Math.min(i, last), c); // above 2^32 µs: clamped, as record() does
  }
  h.count = hdr.totalCount;
  if (h.count === 0) return h;
  h.sum = hdr.mean * h.count;
  h.min = h.counts[0] !== 0 ? 0 : hdr.minNonZeroValue;
  h.max = Math.min(hdr.highestEquivalentValue(hdr.maxValue), 2 ** 32 - 1);
  return h;
}

const seconds = (ms) => (ms / 1000).toFixed(3);

/**
 * The whole log as text. `startTimeMs`: the run's start, epoch ms; `intervals`: [{ startMs, endMs,
 * histogram }] with offsets in ms from the start and histograms of µs; `comment`: one line.
 */
export async function hdrLogText({ startTimeMs, intervals, comment }) {
  const { encodeIntoCompressedBase64 } = await load();
  const lines = [];
  if (comment) lines.push(`#[${String(comment).replace(/[\r\n]+/g, ' ')}]`);
  lines.push(`#[Histogram log format version ${FORMAT_VERSION}]`);
  // Readers take only the number; an ISO date reads the same in every runtime and time zone.
  lines.push(`#[StartTime: ${seconds(startTimeMs)} (seconds since epoch), ${new Date(startTimeMs).toISOString()}]`);
  // Timestamps are offsets from BaseTime. Without this line readers guess "relative" only because
  // the first timestamp is more than a year before StartTime.
  lines.push(`#[BaseTime: ${seconds(startTimeMs)} (seconds since epoch)]`);
  lines.push('"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"');
  for (const { startMs, endMs, histogram } of intervals) {
    const base64 = encodeIntoCompressedBase64(await toHdrHistogram(histogram), COMPRESSION_LEVEL);
    // Interval_Max is in ms (µs / 1000, the reference's maxValueUnitRatio for µs). Readers skip
    // it, so it carries our exact max rather than the top of its bucket.
    lines.push(`${seconds(startMs)},${seconds(endMs - startMs)},${seconds(histogram.max)},${base64}`);
  }
  return lines.join('\n') + '\n';
}
