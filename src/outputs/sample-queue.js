// --out's samples on their way to the thread that writes them (src/outputs/out-thread.js): four
// numbers a sample (the metric's id, the value, the tag set's slot, the time) in batches that move
// to the thread without a copy and come back to be reused. The run's thread so spends a few
// stores on a sample; formatting the lines (k6's shape: 13 of some 280 bytes a request) and
// writing them is the other thread's, on another core where there is one.

import { keyOf } from '../script/metrics/tag-sets.js';
import { META } from '../script/scenarios/system-tags.js';

const BATCH = 16384; // samples: some 50 batches a second at full speed
// Tag sets the thread keeps encoded, each in a slot: a script whose URLs carry ids (`/items/${id}`)
// has a tag set per URL name, and its requests, its checks and its iterations take turns.
const SLOTS = 1024;
const RECENT = 4;
const TAG_SET = -1; // a marker in the stream: [TAG_SET, defs index, slot, 0]
const METRIC = -2; // [METRIC, defs index, 0, 0]

export class SampleQueue {
  /**
   * `post(batch)`: { samples: Float64Array's buffer, count, defs, partial } to the thread, the
   * buffer moved; `clock()`: the time in epoch milliseconds.
   */
  constructor(post, clock = Date.now) {
    this.post = post;
    this.clock = clock;
    this.lastTags = null;
    this.lastSlot = 0;
    this.now = 0;
    this.moment = 1; // the samples of one moment share a clock reading: this one's number
    this.seen = new Uint32Array(64); // by metric id: the moment of its last sample
    this.pool = [];
    this.samples = new Float64Array(BATCH * 4);
    this.n = 0;
    this.defs = [];
    this.metrics = []; // by id
    // A tag set's slot by its content (a key: keyOf), and by the tags objects seen with it: the
    // same object comes again and again (a VU's tags while they last, a request's for its URL:
    // k6/http/http.js requestTags()). An object's entry is its slot and the slot's generation then
    // (gen * SLOTS + slot), stale once the slot has been given to another set.
    this.slotByKey = new Map();
    this.slotOfObject = new WeakMap();
    this.keys = []; // slot → its set's key
    this.gens = new Uint32Array(SLOTS);
    this.nextSlot = 0;
    this.recent = new Array(RECENT).fill(null); // the objects slotOf() was asked for last, and their slots
    this.recentSlots = new Uint32Array(RECENT);
    this.nextRecent = 0;
  }

  /** A batch the thread is done with. */
  reuse(buffer) {
    if (this.pool.length < 8) this.pool.push(new Float64Array(buffer));
  }

  push(a, b, c, d) {
    const s = this.samples;
    const i = this.n * 4;
    s[i] = a;
    s[i + 1] = b;
    s[i + 2] = c;
    s[i + 3] = d;
    if (++this.n === BATCH) this.flush(false);
  }

  slotOf(tags) {
    // The last few objects first: a request's, its check's and its iteration's sets take turns.
    // None of them can have lost its slot: that takes SLOTS sets new to the queue, each of which
    // has come through here since.
    const recent = this.recent;
    for (let i = 0; i < RECENT; i++) if (recent[i] === tags) return this.recentSlots[i];
    const slot = this.slotOfNew(tags);
    const i = this.nextRecent;
    this.nextRecent = (i + 1) % RECENT;
    recent[i] = tags;
    this.recentSlots[i] = slot;
    return slot;
  }

  slotOfNew(tags) {
    const known = this.slotOfObject.get(tags);
    if (known !== undefined) {
      const slot = known % SLOTS;
      if (this.gens[slot] === (known - slot) / SLOTS) return slot;
    }
    const key = keyOf(tags);
    let slot = this.slotByKey.get(key);
    if (slot === undefined) slot = this.defineTags(key, tags);
    this.slotOfObject.set(tags, this.gens[slot] * SLOTS + slot);
    return slot;
  }

  /** A slot for the tag set `key` (the next one in turn once all are taken), told to the thread. */
  defineTags(key, tags) {
    const slot = this.nextSlot;
    this.nextSlot = (slot + 1) % SLOTS;
    if (this.keys.length > slot) {
      this.slotByKey.delete(this.keys[slot]);
      this.gens[slot]++;
    }
    this.keys[slot] = key;
    this.slotByKey.set(key, slot);
    const copy = {};
    for (const k in tags) copy[k] = tags[k];
    this.defs.push(copy);
    this.push(TAG_SET, this.defs.length - 1, slot, 0);
    return slot;
  }

  sample(metric, value, tags) {
    let id = metric.outId;
    if (this.metrics[id] !== metric) id = this.define(metric);
    // A moment's samples share a tags object and are of different metrics (a request's 11, an
    // iteration's end): the clock is read once for them. A new tags object or a metric sampled
    // again begins the next moment: a VU's tags object lasts while its tags stay
    // (vu.currentTags()), and its iterations' ends are each their own moment.
    if (tags !== this.lastTags || this.seen[id] === this.moment) {
      if (tags !== this.lastTags) {
        this.lastTags = tags;
        this.lastSlot = this.slotOf(tags);
      }
      this.moment = (this.moment + 1) >>> 0;
      this.now = this.clock();
    }
    this.seen[id] = this.moment;
    const s = this.samples;
    const i = this.n * 4;
    s[i] = id;
    s[i + 1] = value;
    s[i + 2] = this.lastSlot;
    s[i + 3] = this.now;
    if (++this.n === BATCH) this.flush(false);
  }

  /** `metric`'s number in the stream, told to the thread the first time. */
  define(metric) {
    const id = this.metrics.length;
    this.metrics.push(metric);
    if (id === this.seen.length) {
      const seen = new Uint32Array(id * 2);
      seen.set(this.seen);
      this.seen = seen;
    }
    metric.outId = id;
    this.defs.push({ name: metric.name, type: metric.type, isTime: metric.isTime, thresholds: metric.thresholds || [], subs: (metric.subs || []).map((x) => ({ name: x.name, tags: x.tags })) });
    this.push(METRIC, this.defs.length - 1, 0, 0);
    return id;
  }

  /** Sends what is queued; `partial`: before the batch is full (the lines go to the file too). */
  flush(partial = false) {
    if (this.n === 0) return;
    this.post({ samples: this.samples.buffer, count: this.n, defs: this.defs, partial });
    this.samples = this.pool.pop() || new Float64Array(BATCH * 4);
    this.n = 0;
    this.defs = [];
  }
}

/**
 * The thread's side: turns batches back into samples for `sink`, which is told each metric and
 * tag set by its number once (sink.metric(id, def), sink.tags(slot, tags, metadata): the slot's
 * set from then on, its metadata apart, or null), then each sample by those numbers
 * (sink.sample(id, value, slot, now)).
 */
export class SampleStream {
  constructor(sink) {
    this.sink = sink;
    this.metrics = 0;
  }

  take({ samples, count, defs }) {
    const s = new Float64Array(samples);
    const sink = this.sink;
    for (let i = 0; i < count * 4; i += 4) {
      const kind = s[i];
      if (kind >= 0) sink.sample(kind, s[i + 1], s[i + 2], s[i + 3]);
      else if (kind === TAG_SET) {
        const [tags, metadata] = withoutMetadata(defs[s[i + 1]]);
        sink.tags(s[i + 2], tags, metadata);
      }
      else sink.metric(this.metrics++, defs[s[i + 1]]);
    }
  }
}

// A tag set's metadata (k6's vu and iter: src/script/scenarios/system-tags.js META) taken out of it.
function withoutMetadata(def) {
  let metadata = null;
  for (const k in def) {
    if (k[0] !== META) continue;
    if (metadata === null) metadata = {};
    metadata[k.slice(1)] = def[k];
    delete def[k];
  }
  return [def, metadata];
}
