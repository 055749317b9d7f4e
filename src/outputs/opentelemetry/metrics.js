// The samples of a run as OTLP metrics, as k6's output records them in the OpenTelemetry Go SDK
// and its periodic reader exports them: cumulative, each series (a metric and the sample's tags as
// attributes, empty ones left out) since the metric's first sample. A Counter is a monotonic Sum
// of doubles, a Gauge its last value, a Trend a Histogram with the SDK's default bounds (in the
// metric's unit: ms for a time), a Rate an integer Sum named NAME.total counting its samples by a
// `condition` attribute, zero or nonzero. Units: ms for times, By for data. The sink of a
// SampleStream (src/outputs/sample-queue.js), in the thread of src/outputs/out-thread.js.

import { ProtoWriter } from '../protobuf-writer.js';
import { DATA } from '../sample-lines.js';

// The Go SDK's default explicit bucket histogram boundaries.
export const BOUNDS = [0, 5, 10, 25, 50, 75, 100, 250, 500, 750, 1000, 2500, 5000, 7500, 10000];
const CUMULATIVE = 2;

const ns = (ms) => BigInt(Math.round(ms)) * 1000000n;

/** An OTLP KeyValue of a string (field `field` of its message). */
function putAttribute(w, field, key, value) {
  w.fork(field);
  w.string(1, key);
  w.fork(2);
  w.string(1, value);
  w.join();
  w.join();
}

/** The first bucket whose upper bound is not below v (the SDK's sort.SearchFloat64s). */
export function bucketOf(v) {
  let i = 0;
  while (i < BOUNDS.length && BOUNDS[i] < v) i++;
  return i;
}

export class OtelMetrics {
  /**
   * `config`: the output's settings (config.js); `write(body, points)`: an
   * ExportMetricsServiceRequest's bytes and how many data points it holds; `instance` of
   * `instances`: this process among those writing the run (--cores, shards), its
   * service.instance.id where there are several.
   */
  constructor(config, write, instance = 0, instances = 1, clock = Date.now) {
    this.config = config;
    this.write = write;
    this.clock = clock;
    this.instance = instances > 1 ? String(instance) : null;
    this.defs = []; // by metric id
    this.instruments = new Map(); // by the exported name: { name, unit, kind, start, points: Map }
    this.slots = []; // by tag set slot: { attributes, key, points: by metric id }
    this.proto = new ProtoWriter();
  }

  metric(id, def) {
    const name = this.config.metricPrefix + def.name + (def.type === 'rate' ? '.total' : '');
    const unit = def.type === 'rate' ? '' : def.isTime ? 'ms' : DATA.has(def.name) ? 'By' : '';
    let inst = this.instruments.get(name);
    if (inst === undefined) this.instruments.set(name, (inst = { name, unit, kind: def.type, start: 0n, points: new Map() }));
    this.defs[id] = inst;
  }

  tags(slot, tags) {
    const attributes = Object.keys(tags)
      .filter((k) => k !== '' && String(tags[k]) !== '')
      .sort()
      .map((k) => [k, String(tags[k])]);
    this.slots[slot] = { attributes, key: JSON.stringify(attributes), points: [] };
  }

  sample(id, value, slot, now) {
    const at = this.slots[slot];
    const inst = this.defs[id];
    if (inst.start === 0n) inst.start = ns(now);
    if (inst.kind === 'rate') return this.rate(inst, at, value, id);
    const p = at.points[id] || this.pointOf(inst, at, at.key, at.attributes, id);
    if (inst.kind === 'counter') p.value += value;
    else if (inst.kind === 'gauge') p.value = value;
    else {
      p.count++;
      p.sum += value;
      if (value < p.min) p.min = value;
      if (value > p.max) p.max = value;
      p.buckets[bucketOf(value)]++;
    }
  }

  // A Rate's sample counts once, under the condition its value makes: the slot keeps both
  // series of the metric, zero's and nonzero's.
  rate(inst, at, value, id) {
    const i = value !== 0 ? 1 : 0;
    let pair = at.points[id];
    if (pair === undefined) pair = at.points[id] = [null, null];
    let p = pair[i];
    if (p === null) {
      const condition = i === 1 ? 'nonzero' : 'zero';
      const attributes = [...at.attributes, ['condition', condition]].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      p = pair[i] = this.pointOf(inst, at, `${at.key} ${condition}`, attributes, -1);
    }
    p.value++;
  }

  pointOf(inst, at, key, attributes, id) {
    let p = inst.points.get(key);
    if (p === undefined) {
      p = { attributes, value: 0, count: 0, sum: 0, min: Infinity, max: -Infinity, buckets: inst.kind === 'trend' ? new Array(BOUNDS.length + 1).fill(0) : null };
      inst.points.set(key, p);
    }
    if (id >= 0) at.points[id] = p;
    return p;
  }

  /** Every series at `now`, as the periodic reader's collect and export: one ExportMetricsServiceRequest written. */
  push(now = this.clock()) {
    const insts = [...this.instruments.values()].filter((i) => i.points.size > 0);
    if (insts.length === 0) return;
    let points = 0;
    for (const i of insts) points += i.points.size;
    const w = this.proto;
    const time = ns(now);
    w.fork(1); // ResourceMetrics
    this.putResource(w);
    w.fork(2); // ScopeMetrics
    w.fork(1);
    w.string(1, 'k6'); // the meter's name, as k6's
    w.join();
    for (const inst of insts) this.putMetric(w, inst, time);
    w.join();
    w.join();
    this.write(w.finish(), points);
  }

  putResource(w) {
    w.fork(1);
    const attributes = [
      ['service.name', this.config.serviceName],
      ['service.version', this.config.serviceVersion],
      ['telemetry.sdk.language', 'javascript'],
      ['telemetry.sdk.name', 'loadtest'],
      ['telemetry.sdk.version', this.config.serviceVersion],
    ];
    if (this.instance !== null) attributes.push(['service.instance.id', this.instance]);
    for (const [k, v] of attributes) putAttribute(w, 1, k, v);
    w.join();
  }

  putMetric(w, inst, time) {
    w.fork(2); // Metric
    w.string(1, inst.name);
    if (inst.unit !== '') w.string(3, inst.unit);
    const field = inst.kind === 'gauge' ? 5 : inst.kind === 'trend' ? 9 : 7;
    w.fork(field);
    for (const p of inst.points.values()) {
      w.fork(1);
      if (inst.kind === 'trend') this.putHistogramPoint(w, p, inst.start, time);
      else this.putNumberPoint(w, p, inst, time);
      w.join();
    }
    if (field !== 5) w.uint(2, CUMULATIVE);
    if (field === 7) w.uint(3, 1); // is_monotonic
    w.join();
    w.join();
  }

  putNumberPoint(w, p, inst, time) {
    w.fixed64(2, inst.start);
    w.fixed64(3, time);
    if (inst.kind === 'rate') w.fixed64(6, BigInt(p.value)); // as_int
    else w.double(4, p.value);
    for (const [k, v] of p.attributes) putAttribute(w, 7, k, v);
  }

  putHistogramPoint(w, p, start, time) {
    w.fixed64(2, start);
    w.fixed64(3, time);
    w.fixed64(4, BigInt(p.count));
    w.double(5, p.sum);
    w.packedFixed64(6, p.buckets);
    w.packedDoubles(7, BOUNDS);
    for (const [k, v] of p.attributes) putAttribute(w, 9, k, v);
    w.double(11, p.min);
    w.double(12, p.max);
  }

  handOff() {}

  /** The run's end: the last export (k6's meter provider's Shutdown). */
  flush() {
    this.push();
  }
}
