// The samples of a run as Prometheus remote write's time series, as k6's output makes them: one
// series a metric and tag set (the tags as labels, empty ones left out, sorted, with __name__
// k6_<metric> and its suffix), each holding its value since the run began: a Counter's sum
// (k6_<name>_total), a Gauge's last value, a Rate's share of non-zero samples (_rate), a Trend's
// stats (_p99, _avg...: K6_PROMETHEUS_RW_TREND_STATS) or its native histogram (_seconds), times
// in seconds (a time Trend's _count too: k6 divides it by 1000 as it does the other stats). Each push interval, the series that had a sample in a later millisecond than they
// last went out with go out again, stamped with their latest sample's millisecond. The sink of a
// SampleStream (src/outputs/sample-queue.js), in the thread of src/outputs/out-thread.js.

import { ProtoWriter } from '../protobuf-writer.js';
import { NativeHistogram, SCHEMA, ZERO_THRESHOLD } from './native-histogram.js';
import { trendStats } from './config.js';
import { Sink, TREND } from '../../script/metrics/metrics.js';

// Prometheus' stale marker: a NaN of its own (its value package's StaleNaN), little-endian.
const STALE = new Uint8Array([2, 0, 0, 0, 0, 0, 0xf0, 0x7f]);

// A Trend's stats over every value since the start, as the run's summary makes them (its
// histogram: bounded memory, a value within its bucket's precision), where k6 keeps every value.
class Trend {
  constructor() {
    this.sink = new Sink(TREND);
  }

  add(v) {
    this.sink.add(v);
  }

  stat({ stat, p }) {
    const sink = this.sink;
    if (stat === 'p' || stat === 'med') return sink.percentile(p * 100);
    if (stat === 'count') return sink.count;
    if (stat === 'sum') return sink.sum;
    if (sink.count === 0) return 0;
    if (stat === 'avg') return sink.sum / sink.count;
    return stat === 'min' ? sink.min : sink.max;
  }
}

export class PromSeries {
  /**
   * `config`: the output's settings (config.js); `write(body, samples)`: a WriteRequest's
   * protobuf bytes (not yet compressed) and how many samples it holds; `instance` of `instances`:
   * this process among those writing the run (--cores, shards), told apart by an `instance` label.
   */
  constructor(config, write, instance = 0, instances = 1) {
    this.config = config;
    this.stats = trendStats(config.trendStats);
    this.write = write;
    this.instance = instances > 1 ? String(instance) : null;
    this.metrics = []; // by id: its definition
    this.slots = []; // by tag set slot: { labels, series: by metric id }
    this.all = new Map(); // every series, by metric id and labels
    this.seen = []; // series with a sample since the last push
    this.proto = new ProtoWriter();
  }

  metric(id, def) {
    this.metrics[id] = def;
  }

  tags(slot, tags) {
    const labels = Object.keys(tags)
      .filter((k) => k !== '' && String(tags[k]) !== '')
      .map((k) => [k, String(tags[k])]);
    if (this.instance !== null && !labels.some(([k]) => k === 'instance')) labels.push(['instance', this.instance]);
    this.slots[slot] = { labels, key: JSON.stringify(labels), series: [] };
  }

  sample(id, value, slot, now) {
    const at = this.slots[slot];
    const s = at.series[id] || this.seriesOf(id, at);
    const t = Math.floor(now);
    if (t > s.latest) {
      s.latest = t;
      if (!s.seen) {
        s.seen = true;
        this.seen.push(s);
      }
    }
    s.add(value);
  }

  seriesOf(id, at) {
    const key = `${id} ${at.key}`;
    let s = this.all.get(key);
    if (s === undefined) {
      s = this.newSeries(this.metrics[id], at.labels);
      this.all.set(key, s);
    }
    at.series[id] = s;
    return s;
  }

  newSeries(def, labels) {
    const s = { def, labels, latest: -1, seen: false, encoded: new Map(), add: null, value: 0, trues: 0, total: 0, sink: null };
    if (def.type === 'counter') s.add = (v) => (s.value += v);
    else if (def.type === 'gauge') s.add = (v) => (s.value = v);
    else if (def.type === 'rate') {
      s.add = (v) => {
        s.total++;
        if (v !== 0) s.trues++;
      };
    } else {
      // A native histogram takes each value in seconds, as k6's; stats are made in the metric's
      // unit, then each (its count too, as k6's adaptUnit does) given in seconds.
      const sink = this.config.nativeHistograms ? new NativeHistogram() : new Trend();
      s.sink = sink;
      s.add = def.isTime && sink instanceof NativeHistogram ? (v) => sink.add(v / 1000) : (v) => sink.add(v);
    }
    return s;
  }

  /** The series' label fields with `suffix` on its name, encoded once. */
  labelsOf(s, suffix) {
    let bytes = s.encoded.get(suffix);
    if (bytes !== undefined) return bytes;
    const name = `k6_${s.def.name}${suffix === '' ? '' : `_${suffix}`}`;
    const labels = [...s.labels, ['__name__', name]].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const w = new ProtoWriter(256);
    for (const [k, v] of labels) {
      w.fork(1);
      w.string(1, k);
      w.string(2, v);
      w.join();
    }
    bytes = w.finish();
    s.encoded.set(suffix, bytes);
    return bytes;
  }

  /** One TimeSeries of one sample (field 1 of a WriteRequest). */
  putSample(s, suffix, value, t) {
    const w = this.proto;
    w.fork(1);
    w.raw(this.labelsOf(s, suffix));
    w.fork(2);
    if (value === STALE) w.doubleBytes(1, STALE);
    else w.double(1, value);
    w.uint(2, t);
    w.join();
    w.join();
  }

  putHistogram(s, t) {
    const h = s.sink;
    const w = this.proto;
    w.fork(1);
    w.raw(this.labelsOf(s, s.def.isTime ? 'seconds' : ''));
    w.fork(4);
    w.uint(1, h.count);
    w.double(3, h.sum);
    w.sint(4, SCHEMA);
    w.double(5, ZERO_THRESHOLD);
    w.uint(6, h.zeroCount);
    for (const [buckets, spansField, deltasField] of [[h.negative, 8, 9], [h.positive, 11, 12]]) {
      if (buckets.size === 0) continue;
      const { spans, deltas } = NativeHistogram.spans(buckets);
      for (const span of spans) {
        w.fork(spansField);
        w.sint(1, span.offset);
        w.uint(2, span.length);
        w.join();
      }
      w.packedSints(deltasField, deltas);
    }
    w.uint(15, t);
    w.join();
    w.join();
  }

  /** A series' samples at `t` (its value, or the stale marker): how many it wrote. */
  putSeries(s, t, stale) {
    const v = (value) => (stale ? STALE : value);
    const type = s.def.type;
    if (type === 'counter') this.putSample(s, 'total', v(s.value), t);
    else if (type === 'gauge') this.putSample(s, '', v(s.value), t);
    else if (type === 'rate') this.putSample(s, 'rate', v(s.total === 0 ? 0 : s.trues / s.total), t);
    else if (s.sink instanceof NativeHistogram) {
      // A stale histogram is a sample of the marker under the histogram's name, as k6 sends it.
      if (stale) this.putSample(s, s.def.isTime ? 'seconds' : '', STALE, t);
      else this.putHistogram(s, t);
    } else {
      const unit = s.def.isTime ? 1000 : 1;
      for (const stat of this.stats) this.putSample(s, stat.suffix, v(s.sink.stat(stat) / unit), t);
      return this.stats.length;
    }
    return 1;
  }

  /** The series seen since the last push, as one WriteRequest to write. */
  push() {
    if (this.seen.length === 0) return;
    let n = 0;
    for (const s of this.seen) {
      n += this.putSeries(s, s.latest, false);
      s.seen = false;
    }
    this.seen = [];
    this.write(this.proto.finish(), n);
  }

  /** Every series marked stale, a millisecond after `now` (k6's Stop with stale markers on). */
  pushStale(now) {
    let n = 0;
    const t = Math.floor(now) + 1;
    for (const s of this.all.values()) n += this.putSeries(s, t, true);
    if (n > 0) this.write(this.proto.finish(), n);
  }

  handOff() {}

  /** The run's end: the last push, then the stale markers where they are asked for. */
  flush() {
    this.push();
    if (this.config.staleMarkers) this.pushStale(Date.now());
  }
}
