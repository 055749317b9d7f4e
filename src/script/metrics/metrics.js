// src/script/metrics/: samples, tags and thresholds of a scripted run.
// k6's metrics for a scripted run: Counter, Gauge, Rate and Trend, each with the sub-metrics
// that thresholds name (`http_req_duration{status:200}`). A sample is added to its metric and
// to the sub-metrics whose tags it matches, and nothing of it is kept: Trends are histograms
// (src/run/histogram.js, values in thousandths so that 1.5 ms keeps its fraction), so a run of a
// million requests holds no more than a run of ten.

import { Histogram } from '../../run/histogram.js';

export const COUNTER = 'counter';
export const GAUGE = 'gauge';
export const RATE = 'rate';
export const TREND = 'trend';
const TYPES = new Set([COUNTER, GAUGE, RATE, TREND]);

const SCALE = 1000; // a Trend's value in thousandths of its unit, as the histogram's integers

/** What one metric (or sub-metric) has seen. */
export class Sink {
  constructor(type) {
    this.type = type;
    this.count = 0;
    this.sum = 0;
    this.min = Infinity;
    this.max = -Infinity;
    this.last = 0;
    this.lastAt = 0; // Gauge: when `last` came (Date.now()), so that merged children keep the latest
    this.passes = 0; // Rate: non-zero samples
    this.histogram = type === TREND ? new Histogram() : null;
  }
  add(value) {
    this.count++;
    this.sum += value;
    if (value < this.min) this.min = value;
    if (value > this.max) this.max = value;
    this.last = value;
    // The histogram holds 0 to 2^32 (record() rounds and clamps); a Trend's samples are
    // durations and sizes, seldom below a thousandth or negative (those count in min, max and
    // avg, and as 0 in the histogram). A 0 stays 0: the connecting time of a reused connection,
    // whose median k6 shows as 0s.
    if (this.histogram !== null) this.histogram.record(value * SCALE);
    else if (this.type === RATE) {
      if (value !== 0) this.passes++;
    } else if (this.type === GAUGE) this.lastAt = Date.now();
  }
  /** What a --cores child sends of it (src/script/cores.js): everything, the histogram as pairs. */
  toJSON() {
    return { count: this.count, sum: this.sum, min: this.count ? this.min : null, max: this.count ? this.max : null, last: this.last, lastAt: this.lastAt, passes: this.passes, histogram: this.histogram === null ? null : this.histogram.toJSON() };
  }
  /** Adds a child's sink (its toJSON()): exact, as if every sample had come here. */
  merge(j) {
    if (j.count === 0) return;
    this.count += j.count;
    this.sum += j.sum;
    if (j.min < this.min) this.min = j.min;
    if (j.max > this.max) this.max = j.max;
    if (j.lastAt >= this.lastAt) {
      this.last = j.last;
      this.lastAt = j.lastAt;
    }
    this.passes += j.passes;
    if (this.histogram !== null && j.histogram !== null) this.histogram.merge(Histogram.fromJSON(j.histogram));
  }
  percentile(p) {
    if (this.count === 0) return 0;
    if (p >= 100) return this.max;
    if (p <= 0) return this.min;
    const v = this.histogram.percentile(p) / SCALE;
    return Math.min(this.max, Math.max(this.min, v));
  }
  /** k6's values of this sink ('avg', 'p(95)', 'rate', ...), for the summary and thresholds. */
  values(seconds, trendStats = DEFAULT_TREND_STATS) {
    switch (this.type) {
      case COUNTER:
        return { count: this.sum, rate: seconds > 0 ? this.sum / seconds : 0 };
      case GAUGE:
        return { value: this.last, min: this.count ? this.min : 0, max: this.count ? this.max : 0 };
      case RATE:
        return { rate: this.count ? this.passes / this.count : 0, passes: this.passes, fails: this.count - this.passes };
      default: {
        const v = {};
        for (const s of trendStats) v[s] = this.trendStat(s);
        return v;
      }
    }
  }
  trendStat(name) {
    if (name === 'avg') return this.count ? this.sum / this.count : 0;
    if (name === 'min') return this.count ? this.min : 0;
    if (name === 'max') return this.count ? this.max : 0;
    if (name === 'med') return this.percentile(50);
    if (name === 'count') return this.count;
    const m = /^p\((\d+(?:\.\d+)?)\)$/.exec(name);
    if (m) return this.percentile(Number(m[1]));
    throw new Error(`unknown trend statistic '${name}'`);
  }
}

export const DEFAULT_TREND_STATS = ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)'];

/** Checks --summary-trend-stats / summaryTrendStats as k6 does. */
export function checkTrendStats(stats) {
  for (const s of stats) {
    if (!['avg', 'min', 'med', 'max', 'count'].includes(s) && !/^p\(\d+(?:\.\d+)?\)$/.test(s)) {
      throw new Error(`stat '${s}' is not valid: use avg, min, med, max, count or p(N)`);
    }
    if (s.startsWith('p(') && Number(s.slice(2, -1)) > 100) throw new Error(`invalid percentile trend stat value '${s}', provide a number between 0 and 100`);
  }
  return stats;
}

/** How many sub-metrics have been made: what was worked out from them holds while it stays. */
export let subsMade = 0;

/** One metric: its sink and the sub-metrics that thresholds asked for. */
export class Metric {
  constructor(name, type, isTime) {
    this.name = name;
    this.type = type;
    this.isTime = Boolean(isTime);
    this.sink = new Sink(type);
    this.subs = []; // { name, tags: [[key, value]], sink }
    this.thresholds = []; // its thresholds as k6's --out json lists them, filled by thresholds.js
    this.outId = -1; // its number in --out's queue (src/outputs/sample-queue.js), once it has one
    this.custom = false; // made by the script (k6/metrics), not one of k6's
  }
  sub(selector) {
    const name = `${this.name}{${selector}}`;
    let s = this.subs.find((x) => x.name === name);
    if (s) return s;
    const tags = selector.split(',').map((kv) => {
      const colon = kv.indexOf(':');
      if (colon <= 0) throw new Error(`sub-metric '${name}': '${kv.trim()}' is not key:value`);
      return [kv.slice(0, colon).trim(), kv.slice(colon + 1).trim()];
    });
    s = { name, tags, sink: new Sink(this.type), metric: this };
    this.subs.push(s);
    subsMade++;
    return s;
  }
  add(value, tags) {
    this.sink.add(value);
    const subs = this.subs;
    for (let i = 0; i < subs.length; i++) {
      const want = subs[i].tags;
      let match = true;
      for (let k = 0; k < want.length; k++) {
        const v = tags[want[k][0]];
        if (v === undefined || String(v) !== want[k][1]) {
          match = false;
          break;
        }
      }
      if (match) subs[i].sink.add(value);
    }
  }
}

// k6 v1's rule (metrics/registry.go; k6 v0 took spaces and punctuation): its exact pattern, a
// single character refused too.
const NAME = /^[a-zA-Z_][a-zA-Z0-9_]{1,128}$/;

/** The run's metrics by name: k6's built-in ones and those a script makes. */
export class Registry {
  constructor() {
    this.metrics = new Map();
    this.out = null; // a sample's listener (--out json), or null
    this.breakdown = null; // by group and scenario (src/script/summary/breakdown.js), for the full summary
  }
  get(name, type, isTime = false) {
    let m = this.metrics.get(name);
    if (m === undefined) {
      if (!TYPES.has(type)) throw new Error(`unknown metric type '${type}'`);
      if (!NAME.test(name)) throw new Error(`Invalid metric name: '${name}'. Metric names must only include up to 128 ASCII letters, numbers, or underscores and start with a letter or an underscore.`);
      m = new Metric(name, type, isTime);
      this.metrics.set(name, m);
    } else if (m.type !== type) {
      throw new Error(`metric '${name}' is a ${m.type}, not a ${type}`);
    } else if (isTime && !m.isTime) {
      m.isTime = true;
    }
    return m;
  }
  /**
   * Whether a sample's tags are read at all: by --out, by the full summary's breakdown, or by a
   * sub-metric. When not, a sample may go with a shared tags object, not one made for it.
   */
  readsTags(metric) {
    return this.out !== null || this.breakdown !== null || metric.subs.length > 0;
  }
  add(metric, value, tags) {
    metric.add(value, tags);
    if (this.out !== null) this.out(metric, value, tags);
    if (this.breakdown !== null) this.breakdown.add(metric, value, tags);
  }
  /** Every metric and sub-metric's sink, for the parent of a --cores run; `skip`: names left out. */
  toJSON(skip = new Set()) {
    const out = [];
    for (const m of this.metrics.values()) {
      if (skip.has(m.name)) continue;
      out.push({ name: m.name, type: m.type, isTime: m.isTime, custom: m.custom, sink: m.sink.toJSON(), subs: m.subs.map((x) => ({ selector: x.name.slice(m.name.length + 1, -1), sink: x.sink.toJSON() })) });
    }
    return out;
  }
  /** Adds a child's metrics (its toJSON()) to this registry's. */
  merge(json) {
    for (const j of json) {
      const m = this.get(j.name, j.type, j.isTime);
      if (j.custom) m.custom = true;
      m.sink.merge(j.sink);
      for (const x of j.subs) m.sub(x.selector).sink.merge(x.sink);
    }
  }
}
