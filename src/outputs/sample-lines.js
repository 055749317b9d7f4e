// src/outputs/: where a run's samples and requests are written, for load runs and scripts alike.
// --out json=F and csv=F: every sample as a line of k6's shape, written as bytes into a chunk
// (in the thread of src/outputs/out-thread.js). A request makes 11 to 13 samples that share
// one tag set and mostly one millisecond: the tags, the time and each metric's head are encoded
// once and copied, the value written digit by digit, so a line costs a few copies and no string
// (building lines as strings and encoding them had taken a third of a run).

const encoder = new TextEncoder();
// k6's metrics of bytes (metrics.Data): a script's own cannot be.
export const DATA = new Set(['data_sent', 'data_received', 'browser_data_sent', 'browser_data_received']);
// The lines are written a chunk at a time, the chunk reused at once (the write blocks): small
// enough to stay in the cache between its formatting and its write.
const CHUNK = 1 << 16;
// As k6's: a column for each system tag of the run (k6's default set here) but vu and iter (its
// metadata, in the last column), in the order of their names; the other tags in extra_tags.
const CSV_TAGS = ['check', 'error', 'error_code', 'expected_response', 'group', 'method', 'name', 'proto', 'scenario', 'service', 'status', 'subproto', 'tls_version', 'url'];

/** The CSV's tag columns for the run's system tags (their names). */
export const csvColumns = (names) => names.filter((n) => n !== 'vu' && n !== 'iter').sort();

/** The CSV's header line for these tag columns. */
export const csvHeader = (columns) => `${['metric_name', 'timestamp', 'metric_value', ...columns, 'extra_tags', 'metadata'].join(',')}\n`;

export const CSV_HEADER = csvHeader(CSV_TAGS);

const csvField = (v) => (v === undefined || v === null ? '' : /[",\r\n]/.test(String(v)) ? `"${String(v).replace(/"/g, '""')}"` : String(v));

// '00' to '99', two bytes each: a time's six decimals are written two at a time.
export const PAIRS = new Uint8Array(200);
for (let i = 0; i < 100; i++) {
  PAIRS[2 * i] = 48 + ((i / 10) | 0);
  PAIRS[2 * i + 1] = 48 + (i % 10);
}

/** Non-negative integer `n` (below 2^53) in decimal at `b[p]`; returns the position after it. */
export function putUint(b, p, n) {
  if (n < 10) {
    b[p] = 48 + n;
    return p + 1;
  }
  if (n > 0x7fffffff) return putBigUint(b, p, n);
  // Below 2^31 in int32 arithmetic, which the engines do without a float division.
  let len = 1;
  for (let x = n; x >= 10; x = (x / 10) | 0) len++;
  let q = p + len;
  do {
    const next = (n / 10) | 0;
    b[--q] = 48 + n - next * 10;
    n = next;
  } while (n > 0);
  return p + len;
}

function putBigUint(b, p, n) {
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
export function putAscii(b, p, s) {
  for (let i = 0; i < s.length; i++) b[p++] = s.charCodeAt(i);
  return p;
}

/**
 * A time in ms at `b[p]` as k6 keeps it, to the nanosecond (its decimals less their trailing
 * zeros), for 0 <= ms < 2147: the nanoseconds below 2^31, in int32 arithmetic. Most of a request's
 * lines hold one: their digits are the most of what formatting them costs (bun: half).
 */
function putShortTime(b, p, ms) {
  const ns = Math.round(ms * 1e6);
  const whole = (ns / 1000000) | 0;
  p = putUint(b, p, whole);
  let frac = ns - whole * 1000000;
  if (frac === 0) return p;
  b[p] = 46; // '.'
  const hi = (frac / 10000) | 0;
  frac -= hi * 10000;
  const mid = (frac / 100) | 0;
  const lo = frac - mid * 100;
  b[p + 1] = PAIRS[2 * hi];
  b[p + 2] = PAIRS[2 * hi + 1];
  b[p + 3] = PAIRS[2 * mid];
  b[p + 4] = PAIRS[2 * mid + 1];
  b[p + 5] = PAIRS[2 * lo];
  b[p + 6] = PAIRS[2 * lo + 1];
  let end = p + 7;
  while (b[end - 1] === 48) end--; // a digit is not 0: the '.' stays
  return end;
}

/** k6's JSON value: integers as such, times to the nanosecond as k6 keeps them, the rest as JS prints them. */
export function putJsonValue(b, p, v, isTime) {
  if (isTime && v >= 0 && v < 2147) return putShortTime(b, p, v);
  if (v !== v || v === Infinity || v === -Infinity) return putAscii(b, p, 'null');
  if (v < 0) {
    b[p++] = 45; // '-'
    v = -v;
  }
  if (Number.isInteger(v) && v < 2 ** 53) return putUint(b, p, v);
  if (isTime && v < 9e6) {
    const ns = Math.round(v * 1e6);
    const ms = Math.floor(ns / 1e6);
    p = putUint(b, p, ms);
    // The fraction's six digits less its trailing zeros (below 10^6: int32 arithmetic).
    let frac = ns - ms * 1e6;
    if (frac === 0) return p;
    b[p++] = 46; // '.'
    let digits = 6;
    let next = (frac / 10) | 0;
    while (frac === next * 10) {
      frac = next;
      next = (frac / 10) | 0;
      digits--;
    }
    for (let i = digits - 1; i >= 0; i--) {
      next = (frac / 10) | 0;
      b[p + i] = 48 + frac - next * 10;
      frac = next;
    }
    return p + digits;
  }
  return putAscii(b, p, String(v));
}

function sorted(o) {
  const out = {};
  for (const k of Object.keys(o).sort()) out[k] = o[k];
  return out;
}

/**
 * One output's lines: the sink of a SampleStream (sample-queue.js), told each metric and tag set
 * once by its number. `kind`: 'json' or 'csv'; `write(bytes)`: writes whole lines, a chunk at a
 * time, in order, before it returns (the chunk is written again after), or throws.
 */
export class SampleLines {
  constructor(kind, write) {
    this.json = kind === 'json';
    this.write = write;
    this.chunk = new Uint8Array(CHUNK);
    this.pos = 0;
    this.lines = []; // by metric number: its line up to the value (metric())
    this.tails = []; // by tag set slot: a line's bytes after the value
    this.lastNow = -1;
    this.timeBytes = null; // the time of lastNow as a line has it
    this.error = null;
    this.columns = CSV_TAGS;
  }

  /** The run's system tags (their names), before its first sample: the CSV's columns. */
  systemTags(names) {
    this.columns = csvColumns(names);
  }

  /** The tag set of `slot` from now on, with its metadata (an object, or null: none). */
  tags(slot, tags, metadata = null) {
    // In the order of their names, as k6 writes a tag set (and Go a map, the metadata).
    let text;
    if (this.json) {
      text = `,"tags":${JSON.stringify(sorted(tags))}${metadata === null ? '' : `,"metadata":${JSON.stringify(sorted(metadata))}`}}}\n`;
    } else {
      const columns = this.columns;
      const pairs = (o, skip) => Object.keys(o).sort().filter((k) => !skip.includes(k) && o[k] !== '').map((k) => `${k}=${o[k]}`).join('&');
      const fields = [...columns.map((k) => csvField(tags[k])), csvField(pairs(tags, columns)), metadata === null ? '' : csvField(pairs(metadata, []))];
      text = `,${fields.join(',')}\n`;
    }
    this.tails[slot] = encoder.encode(text);
  }

  /**
   * Metric number `id` is `metric`: its line up to its value is { bytes, head (the length of the
   * part before the time), at (the time it holds) }. A request's samples come in the same
   * millisecond, most in the one before: the time is written into the metric's bytes when it
   * changes, and a line is then these bytes, the value and the tags' (two copies, not three).
   */
  metric(id, metric) {
    // k6's order of keys; a metric's name has no character JSON escapes (metrics.js NAME).
    const head = encoder.encode(this.json ? `{"metric":"${metric.name}","type":"Point","data":{"time":"` : `${csvField(metric.name)},`);
    this.lines[id] = { bytes: head, head: head.length, at: -1, isTime: metric.isTime };
    if (this.json) {
      const contains = metric.isTime ? 'time' : DATA.has(metric.name) ? 'data' : 'default';
      // Its thresholds' sources and sub-metrics, as k6 lists them.
      const subs = metric.subs || [];
      const submetrics = subs.length ? subs.map((x) => ({ name: x.name, suffix: x.name.slice(metric.name.length + 1, -1), tags: Object.fromEntries(x.tags) })) : null;
      this.put(encoder.encode(JSON.stringify({ type: 'Metric', data: { name: metric.name, type: metric.type, contains, thresholds: metric.thresholds || [], submetrics }, metric: metric.name }) + '\n'));
    }
  }

  /** Writes the time `now` into `line`. */
  stamp(line, now) {
    if (now !== this.lastNow) {
      this.lastNow = now;
      this.timeBytes = encoder.encode(this.json ? new Date(now).toISOString() + '","value":' : `${Math.floor(now / 1000)},`);
    }
    const time = this.timeBytes;
    if (line.bytes.length !== line.head + time.length) {
      const bytes = new Uint8Array(line.head + time.length);
      bytes.set(line.bytes.subarray(0, line.head));
      line.bytes = bytes;
    }
    line.bytes.set(time, line.head);
    line.at = now;
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

  sample(id, value, slot, now) {
    const line = this.lines[id];
    if (line.at !== now) this.stamp(line, now);
    const tail = this.tails[slot];
    const pre = line.bytes;
    this.room(pre.length + 32 + tail.length);
    const b = this.chunk;
    b.set(pre, this.pos);
    let p = this.pos + pre.length;
    p = this.json ? putJsonValue(b, p, value, line.isTime) : putAscii(b, p, value.toFixed(6));
    b.set(tail, p);
    this.pos = p + tail.length;
  }

  /** Writes the lines so far; throws the first write's error, if one failed. */
  flush() {
    this.handOff();
    if (this.error !== null) throw this.error;
  }

  handOff() {
    if (this.pos === 0) return;
    // After a failed write nothing more is written; the error comes out of the last flush.
    if (this.error === null) {
      try {
        this.write(this.chunk.subarray(0, this.pos));
      } catch (err) {
        this.error = err;
      }
    }
    this.pos = 0;
  }
}
