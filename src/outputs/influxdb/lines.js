// The samples of a run as InfluxDB v1's line protocol, as k6's client writes a point: the
// metric's name as the measurement, the sample's tags (sorted, empty ones left out) but those
// k6 writes as fields (tagsAsFields: vu, iter and url by default), then the fields sorted by name
// (`value` among them) and the time. The sink of a SampleStream (src/outputs/sample-queue.js),
// told each metric and tag set once by its number, in the thread of src/outputs/out-thread.js.

import { fieldKinds } from './config.js';

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
  if (kind === 'bool' && ['1', 't', 'T', 'TRUE', 'true', 'True', '0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return String(/^(1|t|T|TRUE|true|True)$/.test(text));
  return stringField(text);
}

// Nanoseconds in a unit of each precision k6 takes (InfluxDB's GetPrecisionMultiplier).
const UNIT_MS = { ms: 1, s: 1000, m: 60000, h: 3600000 };

export class InfluxLines {
  /**
   * `config`: the output's settings (config.js); `instance`, `instances`: this process's number
   * among those writing the run (--cores), which spreads their points' nanoseconds apart.
   * `put(line)`: takes each line, its newline included.
   */
  constructor(config, put, instance = 0, instances = 1) {
    this.fields = fieldKinds(config.tagsAsFields);
    this.precision = config.precision;
    this.put = put;
    this.instance = instance;
    this.instances = instances;
    this.names = []; // by metric number: its measurement
    this.heads = []; // by tag set slot: ',tags ' and the fields before `value=`
    this.tails = []; // by tag set slot: the fields after the value, and a space
    this.lastNow = -1;
    this.seq = 0;
  }

  metric(id, metric) {
    this.names[id] = measurement(metric.name);
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
    this.heads[slot] = `${head} ${before}value=`;
    this.tails[slot] = `${after} `;
  }

  /**
   * The time of a point. At nanoseconds (the default) the samples of one millisecond take its
   * nanoseconds in turn: a point's time and tags are its identity in InfluxDB, and two of the
   * same series at the same time would be one.
   */
  time(now) {
    const unit = UNIT_MS[this.precision];
    if (unit !== undefined) return String(Math.floor(now / unit));
    if (now !== this.lastNow) {
      this.lastNow = now;
      this.seq = this.instance;
    }
    const ns = this.seq;
    this.seq += this.instances;
    return `${Math.floor(now)}${String(ns % 1000000).padStart(6, '0')}`;
  }

  sample(id, value, slot, now) {
    // InfluxDB takes no NaN or infinity: k6's client fails such a point.
    if (!Number.isFinite(value)) return;
    this.put(`${this.names[id]}${this.heads[slot]}${goFloat(value)}${this.tails[slot]}${this.time(now)}\n`);
  }

  handOff() {}

  flush() {}
}
