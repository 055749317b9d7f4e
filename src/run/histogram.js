// Latency histogram in microseconds with HdrHistogram's bucket layout (1 µs to 2^32 µs, about
// 71 minutes, 3 significant digits): each power of two is split into 1024 linear sub-buckets,
// so a recorded value is off by at most 1/1024 of itself. Recording is two integer operations
// and an array increment: no allocation, no strings. Histograms of the same layout merge by
// adding counts, which loses nothing.

const SUB_BUCKET_BITS = 10; // half of the 2048 sub-buckets of the first bucket
const SUB_BUCKET_MASK = (1 << (SUB_BUCKET_BITS + 1)) - 1; // 2047
const MAX_VALUE = 0xffffffff;
const LENGTH = ((32 - SUB_BUCKET_BITS) << SUB_BUCKET_BITS) + (1 << SUB_BUCKET_BITS); // 23552

function indexOf(v) {
  const bucket = 31 - Math.clz32(v | SUB_BUCKET_MASK) - SUB_BUCKET_BITS;
  return (bucket << SUB_BUCKET_BITS) + (v >>> bucket);
}

/** The highest value (µs) that falls into the bucket at index, as HdrHistogram reports. */
export function highestOf(index) {
  const bucket = Math.max(0, (index >>> SUB_BUCKET_BITS) - 1);
  const sub = index - (bucket << SUB_BUCKET_BITS);
  return sub * 2 ** bucket + 2 ** bucket - 1;
}

/** The lowest value (µs) that falls into the bucket at index. */
export function lowestOf(index) {
  const bucket = Math.max(0, (index >>> SUB_BUCKET_BITS) - 1);
  return (index - (bucket << SUB_BUCKET_BITS)) * 2 ** bucket;
}

// How many recordings are at or below the percentile. As HdrHistogram: one ulp off before
// rounding up, or p99.9 of 20000 (19980.000000000004) would take the 19981st value.
function rank(percent, count) {
  const fp = (percent / 100) * count;
  return Math.max(1, Math.ceil(fp - 2 ** (Math.floor(Math.log2(fp)) - 52)));
}

/** Percentiles (µs, each bucket's highest value) of sparse [index, count, ...] pairs. */
export function percentilesOfPairs(pairs, percents) {
  let total = 0;
  for (let k = 1; k < pairs.length; k += 2) total += pairs[k];
  return percents.map((percent) => {
    if (total === 0) return 0;
    const target = rank(percent, total);
    let seen = 0;
    for (let k = 0; k < pairs.length; k += 2) {
      seen += pairs[k + 1];
      if (seen >= target) return highestOf(pairs[k]);
    }
    return highestOf(pairs[pairs.length - 2]);
  });
}

/** The layout, for readers of exported histograms (HdrHistogram's parameters). */
export const LAYOUT = { unit: 'us', lowest: 1, highest: MAX_VALUE, significantDigits: 3 };

export class Histogram {
  constructor() {
    this.counts = new Float64Array(LENGTH);
    this.count = 0;
    this.sum = 0; // exact, for the mean
    this.min = Infinity;
    this.max = 0;
    // The buckets that may hold counts, lo to hi (none: lo > hi). A second's histogram is read,
    // merged and cleared each second, and a run's latencies span a few thousand buckets of the
    // 23 552: those loops go over these only. Widened as min and max move, so a record costs
    // nothing more.
    this.lo = LENGTH;
    this.hi = -1;
  }

  /** Records one latency in microseconds (rounded, clamped to the range). */
  record(us) {
    let v = Math.round(us);
    if (!(v > 0)) v = 0; // NaN and -0 too
    else if (v > MAX_VALUE) v = MAX_VALUE;
    const i = indexOf(v);
    this.counts[i]++;
    this.count++;
    this.sum += v;
    if (v < this.min) {
      this.min = v;
      if (i < this.lo) this.lo = i;
      // The first record comes here: max starts at 0, and a run of zeros never moves it.
      if (i > this.hi) this.hi = i;
    }
    if (v > this.max) {
      this.max = v;
      if (i > this.hi) this.hi = i;
    }
  }

  /** Adds n to the count of the bucket at index i (the count, sum, min and max are the caller's). */
  addAt(i, n) {
    this.counts[i] += n;
    if (i < this.lo) this.lo = i;
    if (i > this.hi) this.hi = i;
  }

  /** Adds another histogram's counts to this one. */
  merge(other) {
    const a = this.counts;
    const b = other.counts;
    for (let i = other.lo; i <= other.hi; i++) if (b[i] !== 0) a[i] += b[i];
    if (other.lo < this.lo) this.lo = other.lo;
    if (other.hi > this.hi) this.hi = other.hi;
    this.count += other.count;
    this.sum += other.sum;
    if (other.min < this.min) this.min = other.min;
    if (other.max > this.max) this.max = other.max;
  }

  /** The value below or at which `percent` % of the recordings fall, in µs. */
  percentile(percent) {
    if (this.count === 0) return 0;
    // As HdrHistogram: one ulp off before rounding up, or p99.9 of 20000 (19980.000000000004)
    // would take the 19981st value.
    const target = rank(percent, this.count);
    let seen = 0;
    const counts = this.counts;
    for (let i = this.lo; i <= this.hi; i++) {
      seen += counts[i];
      if (seen >= target) return Math.min(highestOf(i), this.max);
    }
    return this.max;
  }

  /** Empties it (the per-second histogram, once its second is over). */
  clear() {
    if (this.count === 0) return;
    this.counts.fill(0, this.lo, this.hi + 1);
    this.lo = LENGTH;
    this.hi = -1;
    this.count = 0;
    this.sum = 0;
    this.min = Infinity;
    this.max = 0;
  }

  /** The used buckets as [index, count, ...], by index. */
  pairs() {
    const pairs = [];
    const counts = this.counts;
    for (let i = this.lo; i <= this.hi; i++) if (counts[i] !== 0) pairs.push(i, counts[i]);
    return pairs;
  }

  mean() {
    return this.count === 0 ? 0 : this.sum / this.count;
  }

  /** A compact form for sending between processes: [index, count] pairs of the used buckets. */
  toJSON() {
    return { pairs: this.pairs(), count: this.count, sum: this.sum, min: this.min, max: this.max };
  }

  /**
   * A histogram from [index, count, ...] pairs alone: counts exact, min and max those of the
   * buckets (the lowest and highest values they hold), the sum from the buckets' middles.
   */
  static fromPairs(pairs) {
    const h = new Histogram();
    for (let k = 0; k < pairs.length; k += 2) {
      const i = pairs[k];
      const n = pairs[k + 1];
      h.addAt(i, n);
      h.count += n;
      const low = lowestOf(i);
      const high = highestOf(i);
      h.sum += ((low + high) / 2) * n;
      if (low < h.min) h.min = low;
      if (high > h.max) h.max = high;
    }
    return h;
  }

  static fromJSON(json) {
    const h = new Histogram();
    for (let k = 0; k < json.pairs.length; k += 2) h.addAt(json.pairs[k], json.pairs[k + 1]);
    h.count = json.count;
    h.sum = json.sum;
    h.min = json.min === null ? Infinity : json.min;
    h.max = json.max;
    return h;
  }
}
