// Data-driven requests: the parsers for a feed file (CSV, JSON, NDJSON) and a URL list, and the
// order in which a run takes a feed's rows. Pure functions of the file's contents: the caller
// reads the file.
//
// A feed may have millions of rows, so it is held compactly: a CSV or NDJSON as the file's own
// bytes (read once, never decoded to one string: that string and the bytes it came from would be
// twice the file at once, four times for text beyond Latin-1) and one Uint32Array of where each
// cell starts (a cell ends at the next comma or line break, or its closing quote), about 1.5
// times the file in all, where arrays of strings took five times it; a run copies a cell's bytes
// straight into its request (sourceInto), without a string per request. A row keeps only where
// its record starts (offset and line); a cell's line and column are found again, by re-scanning
// that one record, only when an error has to name them.

import { readCsv, cellPosition, decode, QUOTED, INDEX, LF, CR, COMMA } from './csv.js';
import { parseNdjson } from './ndjson.js';
import { compact, cell, jsonMessage, isObject } from './feed-shape.js';

const BOM = [0xef, 0xbb, 0xbf];
const bomOf = (bytes) => (bytes[0] === BOM[0] && bytes[1] === BOM[1] && bytes[2] === BOM[2] ? 3 : 0);

/**
 * `text`: the file's contents, its bytes (a Uint8Array, UTF-8) or a string; `name`: its name, for
 * errors and for its format (.csv, .json, .ndjson or .jsonl; anything else is sniffed: `[` JSON,
 * `{` NDJSON, else CSV).
 * Returns the feed (see feed-shape.js's compact()): cell(r, c) is a string, or undefined where a JSON row
 * lacks that key; where(r, c) names a cell for an error ('row 12, column 3 (id)', 'row 3 (id)'
 * for JSON, 'line 5 (id)' for NDJSON).
 */
export function parseFeed(text, name = 'feed') {
  const bytes = typeof text === 'string' ? new TextEncoder().encode(text) : text;
  text = null;
  const format = formatOf(bytes, name);
  if (format === 'json') return parseJson(decode(bytes, 0, bytes.length), name);
  if (format === 'ndjson') return parseNdjson(bytes, name, bomOf(bytes));
  return parseCsv(bytes, name);
}

const SPACE = new Set([0x20, 0x09, 0x0a, 0x0d, 0x0b, 0x0c]);

function formatOf(bytes, name) {
  name = String(name);
  const base = name.slice(Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\')) + 1);
  const dot = base.lastIndexOf('.');
  const ext = dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
  if (ext === 'csv') return 'csv';
  if (ext === 'json') return 'json';
  if (ext === 'ndjson' || ext === 'jsonl') return 'ndjson';
  let i = bomOf(bytes);
  while (i < bytes.length && SPACE.has(bytes[i])) i++;
  if (bytes[i] === 0x5b) return 'json'; // [
  if (bytes[i] === 0x7b) return 'ndjson'; // {
  return 'csv';
}

// ---- CSV (RFC 4180; its records read by src/requests/csv.js) ----

function parseCsv(text, name) {
  const bomless = bomOf(text);
  const { columns, starts, cells } = readCsv(text, name, bomless);
  if (text.length >= QUOTED) throw new Error(`${name}: over 2 GiB; split it`);
  return csvFeed(text, name, bomless, columns, starts, cells.trimmed(), cells.values);
}

/** The feed of a parsed CSV (see compact()): `cells` and `values` as src/requests/csv.js's Cells holds them. */
function csvFeed(text, name, bomless, columns, starts, cells, values) {
  const n = text.length;
  const width = columns.length;
  const count = starts.length;
  const position = (r, c) => cellPosition(text, starts, r, c);
  const where = (r, c) => {
    const p = position(r, c);
    return `row ${p.row}, column ${p.column} (${columns[c]})`;
  };
  // A plain cell ends where the next cell of its row starts, less the comma; the last at its
  // line break (or the end of the text).
  const last = width - 1;
  const endAt = (i, c, start) => {
    if (c < last) {
      const next = cells[i + 1];
      if ((next & QUOTED) === 0) return next - 1;
    }
    return endOf(start);
  };
  const endOf = (start) => {
    let i = start;
    for (; i < n; i++) {
      const ch = text[i];
      if (ch === COMMA || ch === LF || ch === CR) break;
    }
    return i;
  };
  return compact({
    format: 'csv',
    columns,
    count,
    cell(r, c) {
      const i = r * width + c;
      const s = cells[i];
      return s & QUOTED ? values[s & INDEX] : decode(text, s, endAt(i, c, s));
    },
    sourceInto(r, c, spans, at) {
      const i = r * width + c;
      const s = cells[i];
      if (s & QUOTED) {
        spans[at] = -1;
        return values[s & INDEX];
      }
      spans[at] = s;
      spans[at + 1] = endAt(i, c, s);
      return text; // the bytes
    },
    where,
    position,
    // Every `step`-th row from `first`, as a feed of its own (a --cores child's share).
    subset(step, first) {
      const parts = [text.subarray(bomless, starts.offsets[0])];
      let size = parts[0].length;
      for (let r = first; r < count; r += step) {
        const record = text.subarray(starts.offsets[r], r + 1 < count ? starts.offsets[r + 1] : n);
        parts.push(record);
        size += record.length + (record[record.length - 1] === LF ? 0 : 1);
      }
      const share = new Uint8Array(size);
      let at = 0;
      for (const part of parts) {
        share.set(part, at);
        at += part.length;
        if (part[part.length - 1] !== LF) share[at++] = LF;
      }
      return parseCsv(share, name);
    },
  });
}

// Rows of objects: the columns are every key met, in the order first met; a row without a key
// holds undefined there, which the caller reports only if a template uses that column. The
// cells are one flat list, row after row, each row as wide as the columns were when it came.
class Table {
  constructor() {
    this.columns = [];
    this.index = new Map();
    this.cells = [];
    this.rowStart = [];
    this.rowWidth = [];
  }
  add(object) {
    const from = this.cells.length;
    const known = this.columns.length;
    for (let c = 0; c < known; c++) this.cells.push(undefined);
    for (const key of Object.keys(object)) {
      let c = this.index.get(key);
      if (c === undefined) {
        c = this.columns.length;
        this.columns.push(key);
        this.index.set(key, c);
      }
      while (this.cells.length - from <= c) this.cells.push(undefined);
      this.cells[from + c] = cell(object[key]);
    }
    this.rowStart.push(from);
    this.rowWidth.push(this.cells.length - from);
  }
  feed(format, where, position) {
    const { columns, cells, rowStart, rowWidth } = this;
    const cellAt = (r, c) => (c < rowWidth[r] ? cells[rowStart[r] + c] : undefined);
    return compact({
      format,
      columns,
      count: rowStart.length,
      cell: cellAt,
      sourceInto(r, c, spans, at) {
        spans[at] = -1;
        return cellAt(r, c);
      },
      where,
      position,
    });
  }
}

const stripBom = (text) => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

function parseJson(text, name) {
  let data;
  try {
    data = JSON.parse(stripBom(text));
  } catch (e) {
    throw new Error(`${name}: not JSON (${jsonMessage(e)})`);
  }
  if (!Array.isArray(data)) throw new Error(`${name}: not a JSON array of objects`);
  if (data.length === 0) throw new Error(`${name}: no rows`);
  const table = new Table();
  for (let r = 0; r < data.length; r++) {
    if (!isObject(data[r])) throw new Error(`${name}: row ${r + 1} is not an object`);
    table.add(data[r]);
  }
  const { columns } = table;
  return table.feed('json', (r, c) => `row ${r + 1} (${columns[c]})`, (r) => ({ row: r + 1 }));
}

// ---- --urls FILE ----

const METHOD = /^[A-Za-z]+$/;
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/**
 * `--urls FILE`: one URL a line, or `METHOD URL`; blank lines and `#` comments skipped. A URL is a
 * path starting with '/' or an absolute URL on `origin` (the run's, e.g. 'http://127.0.0.1:8080').
 * Returns [{ method, path, line }]: method upper-cased, or null where the line gives none (the
 * run's method); path is pathname + search; line is 1-based.
 */
export function parseUrlList(text, name, origin) {
  const base = new URL(origin);
  const urls = [];
  const lines = stripBom(text).split('\n');
  for (let l = 0; l < lines.length; l++) {
    const source = lines[l].trim();
    if (source === '' || source.startsWith('#')) continue;
    const at = `${name}: line ${l + 1}`;
    const parts = source.split(/\s+/);
    if (parts.length > 2) throw new Error(`${at}: expected a URL or METHOD URL, not ${parts.length} words`);
    let method = null;
    if (parts.length === 2) {
      if (!METHOD.test(parts[0])) throw new Error(`${at}: ${parts[0]} is not a method (letters only)`);
      method = parts[0].toUpperCase();
    }
    const written = parts[parts.length - 1];
    let url;
    if (written.startsWith('/') || SCHEME.test(written)) {
      try {
        url = new URL(written, base);
      } catch {
        url = null;
      }
    }
    if (!url) throw new Error(`${at}: ${written} is not a URL (an absolute URL or a path starting with /)`);
    // '//host/x' is a URL without its scheme: it names a host, so it is held to the origin too.
    if (url.origin !== base.origin) throw new Error(`${at}: ${written} is not on the run's origin ${base.origin}`);
    urls.push({ method, path: url.pathname + url.search, line: l + 1 });
  }
  if (urls.length === 0) throw new Error(`${name}: no URLs`);
  return urls;
}

// ---- the order of a feed's rows ----

// murmur3's finalizer: seeds that differ in one bit give unrelated PRNG states.
function mix32(x) {
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/**
 * Returns rowOf(index): the row (0..count-1) for the run's request `index` (an integer ≥ 0). In
 * order it is index % count; with `random`, each cycle of `count` indexes is a permutation
 * (Fisher-Yates, mulberry32 seeded from `seed` and the cycle), so every row is used once a
 * cycle and every process that shares the seed computes the same global sequence.
 */
export function feedOrder(count, { random = false, seed = 0 } = {}) {
  if (!Number.isInteger(count) || count < 1) throw new Error(`a feed needs at least one row (got ${count})`);
  if (!random) return (index) => index % count;
  // One permutation, shuffled again in place when the cycle changes: a process's indexes grow,
  // so that happens once per `count` requests and rowOf allocates nothing.
  const order = new Uint32Array(count);
  const seed32 = mix32((Number(seed) >>> 0) ^ 0x9e3779b9) ^ mix32(Math.floor(Number(seed) / 4294967296) >>> 0);
  let cycle = -1;
  const shuffle = (c) => {
    for (let i = 0; i < count; i++) order[i] = i;
    let a = mix32(seed32 ^ mix32((c >>> 0) + 0x7f4a7c15) ^ mix32((Math.floor(c / 4294967296) >>> 0) + 0x2545f491));
    for (let i = count - 1; i > 0; i--) {
      a = (a + 0x6d2b79f5) | 0;
      let t = Math.imul(a ^ (a >>> 15), 1 | a);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      const j = Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * (i + 1));
      const v = order[i];
      order[i] = order[j];
      order[j] = v;
    }
    cycle = c;
  };
  return (index) => {
    const c = Math.floor(index / count);
    if (c !== cycle) shuffle(c);
    return order[index - c * count];
  };
}
