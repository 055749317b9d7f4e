// The samples of a run as InfluxDB v1's line protocol, as k6's client writes a point: the
// metric's name as the measurement, the sample's tags (sorted, empty ones left out) but those
// k6 writes as fields (tagsAsFields: vu, iter and url by default), then the fields sorted by name
// (`value` among them) and the time. The sink of a SampleStream (src/outputs/sample-queue.js),
// told each metric and tag set once by its number, in the thread of src/outputs/out-thread.js.

import { fieldKinds } from './config.js';
import { goBool } from '../settings.js';
import { putJsonValue, putAscii, PAIRS } from '../sample-lines.js';

// Line protocol's escapes (InfluxDB's models): a measurement's commas and spaces, a tag's commas,
// equal signs and spaces, a string field's quotes and backslashes.
const measurement = (name) => name.replace(/[, ]/g, (c) => `\\${c}`);
const tagText = (s) => s.replace(/[,= ]/g, (c) => `\\${c}`);
const stringField = (s) => `"${s.replace(/["\\]/g, (c) => `\\${c}`)}"`;

/** A float as Go's strconv.FormatFloat(v, 'f', -1, 64): the shortest digits, never an exponent. */
export function goFloat(v) {
  const s = String(v);
  if (!s.includes('e')) return s;
  const [mantissa, exp] = s.split('e');
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace(/^-/, '').replace('.', '');
  const point = mantissa.replace(/^-/, '').indexOf('.');
  const at = (point < 0 ? digits.length : point) + Number(exp);
  const out = at <= 0 ? `0.${'0'.repeat(-at)}${digits}` : at >= digits.length ? digits + '0'.repeat(at - digits.length) : `${digits.slice(0, at)}.${digits.slice(at)}`;
  return (negative ? '-' : '') + out;
}

// A tag k6 writes as a field, in its kind; a value that does not parse stays a string (k6's
// extractTagsToValues).
function fieldValue(kind, text) {
  if (kind === 'int' && /^[+-]?\d+$/.test(text)) return `${BigInt(text)}i`;
  if (kind === 'float' && text.trim() !== '' && Number.isFinite(Number(text))) return goFloat(Number(text));
  if (kind === 'bool' && goBool(text) !== undefined) return String(goBool(text));
  return stringField(text);
}

// Nanoseconds in a unit of each precision k6 takes (InfluxDB's GetPrecisionMultiplier).
const UNIT_MS = { ms: 1, s: 1000, m: 60000, h: 3600000 };
const encoder = new TextEncoder();
// Lines are written into a chunk, handed to the writer (which copies it) when full and each
// second: a point costs a few copies and its digits, no string (at full speed a run makes close
// to a million points a second).
const CHUNK = 1 << 16;

/** A value as Go's FormatFloat(v, 'f', -1, 64) writes k6's: times are whole nanoseconds in ms. */
function putValue(b, p, v, isTime) {
  if (isTime || (Number.isInteger(v) && Math.abs(v) < 2 ** 53)) return putJsonValue(b, p, v, isTime);
  return putAscii(b, p, goFloat(v));
}

export class InfluxLines {
  /**
   * `config`: the output's settings (config.js); `write(bytes, points)`: takes whole lines (a view
   * it must copy) and how many points they are; `instance`, `instances`: this process's number
   * among those writing the run (--cores, shards), which spreads their points' nanoseconds apart.
   */
  constructor(config, write, instance = 0, instances = 1, room = null) {
    // `room`: the writer's { hasRoom(bytes), loseFull(points) }: while it has no room for a chunk,
    // points are counted as lost without being formatted (a database slower than the run would
    // otherwise cost the run the formatting of every point it drops).
    this.room = room;
    this.skipping = false;
    this.skipped = 0;
    this.fields = fieldKinds(config.tagsAsFields);
    this.unit = UNIT_MS[config.precision];
    this.write = write;
    this.instance = instance;
    this.instances = instances;
    this.names = []; // by metric number: { bytes: its measurement, isTime }
    this.heads = []; // by tag set slot: ',tags ' and the fields before `value=`
    this.tails = []; // by tag set slot: the fields after the value, and a space
    this.chunk = new Uint8Array(CHUNK);
    this.pos = 0;
    this.points = 0;
    this.lastNow = -1;
    this.nowBytes = null; // the time of lastNow: its whole ms (at ns), or its whole units
    this.seq = 0;
  }

  metric(id, metric) {
    this.names[id] = { bytes: encoder.encode(measurement(metric.name)), isTime: Boolean(metric.isTime) };
  }

  tags(slot, tags) {
    const keys = Object.keys(tags).sort();
    let head = '';
    const fields = [];
    for (const k of keys) {
      const v = String(tags[k]);
      if (this.fields.has(k)) fields.push([k, fieldValue(this.fields.get(k), v)]);
      else if (v !== '') head += `,${tagText(k)}=${tagText(v)}`;
    }
    const before = fields.filter(([k]) => k < 'value').map(([k, v]) => `${tagText(k)}=${v},`).join('');
    const after = fields.filter(([k]) => k > 'value').map(([k, v]) => `,${tagText(k)}=${v}`).join('');
    this.heads[slot] = encoder.encode(`${head} ${before}value=`);
    this.tails[slot] = encoder.encode(`${after} `);
  }

  /**
   * The time of a point at b[p]. At nanoseconds (the default) the samples of one millisecond take
   * its nanoseconds in turn: a point's time and tags are its identity in InfluxDB, and two of the
   * same series at the same time would be one.
   */
  putTime(b, p, now) {
    if (now !== this.lastNow) {
      this.lastNow = now;
      this.seq = this.instance;
      this.nowBytes = encoder.encode(String(Math.floor(this.unit === undefined ? now : now / this.unit)));
    }
    b.set(this.nowBytes, p);
    p += this.nowBytes.length;
    if (this.unit !== undefined) return p;
    const ns = this.seq % 1000000;
    this.seq += this.instances;
    const hi = (ns / 10000) | 0;
    const mid = ((ns / 100) | 0) % 100;
    const lo = ns % 100;
    b[p] = PAIRS[2 * hi];
    b[p + 1] = PAIRS[2 * hi + 1];
    b[p + 2] = PAIRS[2 * mid];
    b[p + 3] = PAIRS[2 * mid + 1];
    b[p + 4] = PAIRS[2 * lo];
    b[p + 5] = PAIRS[2 * lo + 1];
    return p + 6;
  }

  sample(id, value, slot, now) {
    // InfluxDB takes no NaN or infinity: k6's client fails such a point.
    if (value !== value || value === Infinity || value === -Infinity) return;
    if (this.skipping) {
      // A look at the writer each thousand points: room again, and the lines go on.
      if (((this.skipped + 1) & 1023) !== 0 || !this.room.hasRoom(CHUNK)) {
        this.skipped++;
        return;
      }
      this.resume();
    }
    const name = this.names[id];
    const head = this.heads[slot];
    const tail = this.tails[slot];
    const need = name.bytes.length + head.length + tail.length + 64;
    if (this.pos + need > this.chunk.length) {
      this.handOff();
      if (need > this.chunk.length) this.chunk = new Uint8Array(need);
    }
    const b = this.chunk;
    let p = this.pos;
    b.set(name.bytes, p);
    p += name.bytes.length;
    b.set(head, p);
    p = putValue(b, p + head.length, value, name.isTime);
    b.set(tail, p);
    p = this.putTime(b, p + tail.length, now);
    b[p] = 10; // '\n'
    this.pos = p + 1;
    this.points++;
  }

  handOff() {
    if (this.pos === 0) return;
    const taken = this.write(this.chunk.subarray(0, this.pos), this.points);
    this.pos = 0;
    this.points = 0;
    if (taken === false && this.room !== null) this.skipping = true;
  }

  /** The points skipped so far are the writer's lost ones. */
  resume() {
    this.skipping = false;
    if (this.skipped > 0) this.room.loseFull(this.skipped);
    this.skipped = 0;
  }

  flush() {
    if (this.skipping) this.resume();
    this.handOff();
  }
}
