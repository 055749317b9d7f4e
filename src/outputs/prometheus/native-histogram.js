// A Trend as a Prometheus native histogram, as k6 makes one (client_golang's with a bucket factor
// of 1.1, which picks schema 3: eight buckets a power of two) and maps it for remote write: its
// spans and deltas as client_golang's makeBuckets writes them (a gap of one or two buckets stays
// in the span, as empty buckets).

export const SCHEMA = 3;
export const ZERO_THRESHOLD = 2.938735877055719e-39; // client_golang's DefNativeHistogramZeroThreshold, 2^-128
// client_golang's nativeHistogramBounds[3]: 2^(i/8) / 2, a frexp fraction's bucket within its power.
const BOUNDS = [0.5, 0.5452538663326288, 0.5946035575013605, 0.6484197773255048, 0.7071067811865476, 0.7711054127039704, 0.8408964152537144, 0.9170040432046711];

/** Go's math.Frexp for a positive finite v: [frac in [0.5, 1), exp] with v = frac * 2^exp. */
function frexp(v) {
  let exp = Math.max(-1073, Math.floor(Math.log2(v)) + 1);
  let frac = v * 2 ** -exp;
  // log2 may be off by one near a power of two: set it right.
  while (frac < 0.5) {
    frac *= 2;
    exp--;
  }
  while (frac >= 1) {
    frac /= 2;
    exp++;
  }
  return [frac, exp];
}

/** The bucket's key of |v| > the zero threshold: the first bound not below its fraction. */
export function bucketKey(v) {
  const [frac, exp] = frexp(Math.abs(v));
  let i = 0;
  while (i < BOUNDS.length && BOUNDS[i] < frac) i++;
  return i + (exp - 1) * BOUNDS.length;
}

export class NativeHistogram {
  constructor() {
    this.count = 0;
    this.sum = 0;
    this.zeroCount = 0;
    this.positive = new Map(); // key → count
    this.negative = new Map();
  }

  add(v) {
    this.count++;
    this.sum += v;
    if (Math.abs(v) <= ZERO_THRESHOLD || v !== v) {
      if (v === v) this.zeroCount++;
      return;
    }
    const buckets = v > 0 ? this.positive : this.negative;
    const key = bucketKey(v);
    buckets.set(key, (buckets.get(key) || 0) + 1);
  }

  /** client_golang's makeBuckets: { spans: [{ offset, length }], deltas }. */
  static spans(buckets) {
    const keys = [...buckets.keys()].sort((a, b) => a - b);
    const spans = [];
    const deltas = [];
    let prev = 0;
    let next = 0;
    const append = (count) => {
      spans[spans.length - 1].length++;
      deltas.push(count - prev);
      prev = count;
    };
    keys.forEach((key, n) => {
      const gap = key - next;
      if (n === 0 || gap > 2) spans.push({ offset: gap, length: 0 });
      else for (let j = 0; j < gap; j++) append(0);
      append(buckets.get(key));
      next = key + 1;
    });
    return { spans, deltas };
  }
}
