// --out json=F and csv=F: every sample as a line of k6's shape, written as bytes into large
// chunks (in the thread of src/script/out-thread.js). A request makes 11 to 13 samples that share
// one tag set and mostly one millisecond: the tags, the time and each metric's head are encoded
// once and copied, the value written digit by digit, so a line costs a few copies and no string
// (building lines as strings and encoding them had taken a third of a run).

const encoder = new TextEncoder();
const CHUNK = 1 << 18;
// Chunks kept for reuse: a batch of samples (src/script/sample-queue.js, 16384: some 4 MB of
// lines) is formatted at once, before any of its writes is done; a new chunk each time (zeroed,
// its pages faulted in as they are written) had cost more than the formatting.
const FREE_CHUNKS = 32;
const TAG_SETS = 4; // as src/script/sample-queue.js's slots
const CSV_TAGS = ['check', 'error', 'error_code', 'expected_response', 'group', 'method', 'name', 'proto', 'scenario', 'service', 'status', 'subproto', 'tls_version', 'url'];

export const CSV_HEADER = `metric_name,timestamp,metric_value,${CSV_TAGS.join(',')},extra_tags,metadata\n`;

const csvField = (v) => (v === undefined || v === null ? '' : /[",\r\n]/.test(String(v)) ? `"${String(v).replace(/"/g, '""')}"` : String(v));

/** Non-negative integer `n` (below 2^53) in decimal at `b[p]`; returns the position after it. */
function putUint(b, p, n) {
  let len = 1;
  for (let x = n; x >= 10; x = Math.floor(x / 10)) len++;
  let q = p + len;
  while (n >= 10) {
    const d = n % 10;
    b[--q] = 48 + d;
    n = (n - d) / 10;
  }
  b[--q] = 48 + n;
  return p + len;
}

/** A string known to be ASCII (a number's) at `b[p]`. */
function putAscii(b, p, s) {
  for (let i = 0; i < s.length; i++) b[p++] = s.charCodeAt(i);
  return p;
}

/** k6's JSON value: integers as such, times to the nanosecond as k6 keeps them, the rest as JS prints them. */
function putJsonValue(b, p, v, isTime) {
  if (v !== v || v === Infinity || v === -Infinity) return putAscii(b, p, 'null');
  if (v < 0) {
    b[p++] = 45; // '-'
    v = -v;
  }
  if (Number.isInteger(v) && v < 2 ** 53) return putUint(b, p, v);
  if (isTime && v < 9e6) {
    const ns = Math.round(v * 1e6);
    p = putUint(b, p, Math.floor(ns / 1e6));
    let frac = ns % 1e6;
    if (frac === 0) return p;
    b[p++] = 46; // '.'
    let digits = 6;
    while (frac % 10 === 0) {
      frac /= 10;
      digits--;
    }
    for (let i = digits - 1; i >= 0; i--) {
      b[p + i] = 48 + (frac % 10);
      frac = Math.floor(frac / 10);
    }
    return p + digits;
  }
  return putAscii(b, p, String(v));
}

/**
 * One output's lines. `kind`: 'json' or 'csv'; `write(bytes)` → Promise, called with whole lines,
 * a chunk at a time, in order; the chunk is not touched again until its promise settles.
 */
export class SampleLines {
  constructor(kind, write) {
    this.json = kind === 'json';
    this.write = write;
    this.free = [];
    this.chunk = new Uint8Array(CHUNK);
    this.pos = 0;
    this.heads = new Map(); // metric → its line's bytes up to the time (json) or the value (csv)
    this.sets = []; // { ref: a tags object, bytes }: the thread's tag sets are the same objects while they last
    this.nextSet = 0;
    this.lastNow = -1;
    this.timeBytes = null;
    this.pending = Promise.resolve();
    this.error = null;
  }

  tagBytes(tags) {
    const sets = this.sets;
    for (let i = 0; i < sets.length; i++) if (sets[i].ref === tags) return sets[i].bytes;
    // In the order of their names, as k6 writes a tag set.
    const keys = Object.keys(tags).sort();
    let text;
    if (this.json) {
      const sorted = {};
      for (const k of keys) sorted[k] = tags[k];
      text = `,"tags":${JSON.stringify(sorted)}}}\n`;
    } else {
      let extra = '';
      for (const k of keys) if (!CSV_TAGS.includes(k) && tags[k] !== '') extra += `${extra ? '&' : ''}${k}=${tags[k]}`;
      text = `,${CSV_TAGS.map((k) => csvField(tags[k])).join(',')},${csvField(extra)},\n`;
    }
    const set = { ref: tags, bytes: encoder.encode(text) };
    if (sets.length < TAG_SETS) sets.push(set);
    else sets[this.nextSet++ % TAG_SETS] = set;
    return set.bytes;
  }

  headOf(metric) {
    let head = this.heads.get(metric);
    if (head === undefined) {
      // k6's order of keys; a metric's name has no character JSON escapes (metrics.js NAME).
      const text = this.json ? `{"metric":"${metric.name}","type":"Point","data":{"time":"` : `${csvField(metric.name)},`;
      head = encoder.encode(text);
      this.heads.set(metric, head);
      if (this.json) {
        const contains = metric.isTime ? 'time' : metric.name === 'data_sent' || metric.name === 'data_received' ? 'data' : 'default';
        // Its thresholds' sources and sub-metrics, as k6 lists them.
        const subs = metric.subs || [];
        const submetrics = subs.length ? subs.map((x) => ({ name: x.name, suffix: x.name.slice(metric.name.length + 1, -1), tags: Object.fromEntries(x.tags) })) : null;
        this.put(encoder.encode(JSON.stringify({ type: 'Metric', data: { name: metric.name, type: metric.type, contains, thresholds: metric.thresholds || [], submetrics }, metric: metric.name }) + '\n'));
      }
    }
    return head;
  }

  /** Room for `n` more bytes in the chunk. */
  room(n) {
    if (this.pos + n <= this.chunk.length) return;
    this.handOff();
    if (n > this.chunk.length) this.chunk = new Uint8Array(n);
  }

  put(bytes) {
    this.room(bytes.length);
    this.chunk.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  sample(metric, value, tags, now) {
    const head = this.headOf(metric);
    const tail = this.tagBytes(tags);
    if (now !== this.lastNow) {
      this.lastNow = now;
      this.timeBytes = this.json ? encoder.encode(new Date(now).toISOString() + '","value":') : encoder.encode(`${Math.floor(now / 1000)},`);
    }
    const time = this.timeBytes;
    this.room(head.length + time.length + 32 + tail.length);
    const b = this.chunk;
    let p = this.pos;
    b.set(head, p);
    p += head.length;
    b.set(time, p);
    p += time.length;
    p = this.json ? putJsonValue(b, p, value, metric.isTime) : putAscii(b, p, value.toFixed(6));
    b.set(tail, p);
    this.pos = p + tail.length;
  }

  /** Hands the lines so far to `write`; resolves when everything handed has been written. */
  flush() {
    this.handOff();
    return this.pending.then(() => {
      if (this.error !== null) throw this.error;
    });
  }

  handOff() {
    if (this.pos > 0) {
      const chunk = this.chunk;
      const bytes = chunk.subarray(0, this.pos);
      // After a failed write nothing more is written; the error comes out of the last flush.
      this.pending = this.pending.then(() => {
        if (this.error !== null) return;
        return this.write(bytes).then(
          () => {
            if (chunk.length === CHUNK && this.free.length < FREE_CHUNKS) this.free.push(chunk);
          },
          (err) => {
            this.error = err;
          },
        );
      });
      this.chunk = this.free.pop() || new Uint8Array(CHUNK);
      this.pos = 0;
    }
  }
}
