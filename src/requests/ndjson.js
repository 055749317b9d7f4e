// An NDJSON feed file held as its own bytes: a line is read in its bytes where it can be
// (src/requests/ndjson-line.js), else parsed (JSON.parse, for its errors and its values) and then
// scanned for where each member's value lies. Either way a string without escapes, or a number or
// boolean written as String() writes it, is kept as where it starts in the bytes; only other
// values (escapes, objects, arrays, numbers written otherwise) are kept as strings. A row's cells
// are as many as the columns were when it came (undefined beyond).

import { decode, QUOTED, INDEX, LF } from './csv.js';
import { compact, cell, jsonMessage, isObject } from './feed-shape.js';
import { readLine, ROW, BLANK, EMPTY } from './ndjson-line.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MISSING = 0xffffffff; // the row has no such key
const LONG = 255;

/** A typed array that grows; `ensure` sizes it once where the size is known. */
class Grow {
  constructor(capacity, Type = Uint32Array) {
    this.a = new Type(capacity);
    this.length = 0;
  }
  ensure(capacity) {
    if (capacity <= this.a.length) return;
    const a = new this.a.constructor(capacity);
    a.set(this.a.subarray(0, this.length));
    this.a = a;
  }
  push(v) {
    if (this.length === this.a.length) this.ensure(this.length * 2);
    this.a[this.length++] = v;
  }
}

/** `bytes`: the file's (a Uint8Array), `from`: past its BOM. Returns the feed (feed-shape.js's compact()). */
export function parseNdjson(bytes, name, from) {
  const read = readRows(bytes, name, from);
  if (read.rows.length === 0) throw new Error(`${name}: no rows`);
  return ndjsonFeed(bytes, read);
}

// Every line's row: its first cell's place (rows), its line number (lines), each cell's start in
// the bytes or its kept string's index (cells), a kept cell's size (sizes), the strings (values).
function readRows(bytes, name, from) {
  const n = bytes.length;
  let lineCount = 1;
  for (let i = bytes.indexOf(LF, from); i >= 0; i = bytes.indexOf(LF, i + 1)) lineCount++;
  const columns = [];
  const index = new Map();
  const rows = new Grow(lineCount);
  const lines = new Grow(lineCount);
  const cells = new Grow(1024);
  // A kept cell's size in bytes, up to LONG (longer: found again by endOf): a request finds its
  // cell's end without a scan (bun: a scan of a few bytes a cell took a templated request from
  // 415 to 522 ns).
  const sizes = new Grow(1024, Uint8Array);
  const values = [];
  const keys = new Keys(bytes, columns, index);
  const members = [];
  // A row's first cell, its columns filled as missing.
  const open = () => {
    if (rows.length === 0) {
      cells.ensure(lineCount * Math.max(1, columns.length));
      sizes.ensure(cells.a.length);
    }
    const first = cells.length;
    for (let c = 0; c < columns.length; c++) {
      cells.push(MISSING);
      sizes.push(0);
    }
    return first;
  };
  for (let pos = from, line = 1; pos < n; line++) {
    let end = bytes.indexOf(LF, pos);
    if (end < 0) end = n;
    const start = pos;
    pos = end + 1;
    const mark = values.length;
    const read = readLine(bytes, start, end, members, values);
    if (read === BLANK) continue;
    let first;
    if (read === ROW) {
      for (let m = 0; m < members.length; m += 4) members[m] = keys.columnOf(members[m], members[m + 1], m / 4);
      first = open();
      for (let m = 0; m < members.length; m += 4) {
        cells.a[first + members[m]] = members[m + 2];
        sizes.a[first + members[m]] = Math.min(members[m + 3], LONG);
      }
    } else {
      values.length = mark;
      first = parsedLine(bytes, start, end, { name, line, columns, index, values, open, cells, sizes });
      if (first < 0) continue;
    }
    rows.push(first);
    lines.push(line);
  }
  return { columns, rows, lines, cells, sizes, values };
}

// The feed over readRows()'s rows: a cell is read from the bytes where it starts, or its string.
function ndjsonFeed(bytes, { columns, rows, lines, cells, sizes, values }) {
  const count = rows.length;
  const cellStarts = cells.a;
  const rowStarts = rows.a;
  const total = cells.length;
  const lineOf = lines.a;
  const sizeOf = sizes.a;
  const endAt = (i, s) => (sizeOf[i] < LONG ? s + sizeOf[i] : endOf(bytes, s));
  // The cell's place in `cellStarts`, or -1 where its row is narrower.
  const at = (r, c) => {
    const i = rowStarts[r] + c;
    return i < (r + 1 < count ? rowStarts[r + 1] : total) ? i : -1;
  };
  const stringOf = (s) => (s === MISSING ? undefined : s === EMPTY ? '' : values[s & INDEX]);
  return compact({
    format: 'ndjson',
    columns,
    count,
    cell(r, c) {
      const i = at(r, c);
      if (i < 0) return undefined;
      const s = cellStarts[i];
      return s >= QUOTED ? stringOf(s) : decode(bytes, s, endAt(i, s));
    },
    sourceInto(r, c, spanned, k) {
      const i = at(r, c);
      const s = i < 0 ? MISSING : cellStarts[i];
      if (s >= QUOTED) {
        spanned[k] = -1;
        return stringOf(s);
      }
      spanned[k] = s;
      spanned[k + 1] = endAt(i, s);
      return bytes;
    },
    where: (r, c) => `line ${lineOf[r]} (${columns[c]})`,
    position: (r) => ({ line: lineOf[r] }),
  });
}

// A line left to JSON.parse: its row's first cell, or -1 for a blank line.
function parsedLine(bytes, start, end, { name, line, columns, index, values, open, cells, sizes }) {
  const source = decode(bytes, start, end).trim();
  if (source === '') return -1;
  let value;
  try {
    value = JSON.parse(source);
  } catch (e) {
    throw new Error(`${name}: line ${line}: not JSON (${jsonMessage(e)})`);
  }
  if (!isObject(value)) throw new Error(`${name}: line ${line}: not an object`);
  for (const key of Object.keys(value)) {
    if (!index.has(key)) {
      index.set(key, columns.length);
      columns.push(key);
    }
  }
  const first = open();
  // The object is the line's first '{': what trim() took before it is white space.
  const spans = [];
  scanMembers(bytes, bytes.indexOf(0x7b, start), spans);
  // A key given twice: the last is JSON.parse's, and the last written here.
  for (let m = 0; m < spans.length; m += 5) {
    const key = spans[m + 2] ? JSON.parse(decode(bytes, spans[m] - 1, spans[m + 1] + 1)) : decode(bytes, spans[m], spans[m + 1]);
    const c = first + index.get(key);
    cells.a[c] = cellOf(value[key], bytes, spans[m + 3], spans[m + 4], values);
    sizes.a[c] = cells.a[c] < QUOTED ? Math.min(endOf(bytes, cells.a[c]) - cells.a[c], LONG) : 0;
  }
  return first;
}

// A key's column, found by its bytes: a line's keys are mostly the last line's, in its order
// (`m`: the key's place in its line), and are compared in the bytes before one is decoded.
class Keys {
  constructor(bytes, columns, index) {
    this.bytes = bytes;
    this.columns = columns;
    this.index = index;
    this.starts = []; // where a column's key was last read in the bytes
    this.ends = [];
    this.last = []; // the columns of the last line read in its bytes
  }
  columnOf(start, end, m) {
    const guess = this.last[m];
    if (guess !== undefined && this.is(guess, start, end)) return guess;
    let c = 0;
    while (c < this.columns.length && !this.is(c, start, end)) c++;
    if (c === this.columns.length) {
      const key = decode(this.bytes, start, end);
      c = this.index.get(key);
      if (c === undefined) {
        c = this.columns.length;
        this.index.set(key, c);
        this.columns.push(key);
      }
      this.starts[c] = start;
      this.ends[c] = end;
    }
    this.last[m] = c;
    return c;
  }
  is(c, start, end) {
    const from = this.starts[c];
    if (from === undefined || this.ends[c] - from !== end - start) return false;
    const bytes = this.bytes;
    for (let k = 0; k < end - start; k++) if (bytes[from + k] !== bytes[start + k]) return false;
    return true;
  }
}

// A value's cell: where it starts in the bytes (a string's first byte, past its quote), or a
// string kept aside.
function cellOf(v, bytes, start, end, values) {
  if (v === null) return EMPTY;
  if (typeof v === 'string') {
    if (bytes[start] === QUOTE && !has(bytes, BACKSLASH, start, end)) return start + 1;
  } else if (typeof v !== 'object' && decode(bytes, start, end) === String(v)) return start;
  values.push(cell(v));
  return QUOTED | (values.length - 1);
}

// A kept cell ends at its closing quote (a string: the byte before its start is its opening
// quote), else (a number, true or false) at the first byte that cannot be in it. A loop, not
// indexOf: a cell is a few bytes, and the call cost more than the search (a request with two
// cells, 462 → 574 ns on node).
function endOf(bytes, s) {
  let i = s;
  if (bytes[s - 1] === QUOTE) {
    while (bytes[i] !== QUOTE) i++;
    return i;
  }
  for (;;) {
    const b = bytes[i];
    if (b === 0x2c || b === 0x7d || b === 0x20 || b === 0x09 || b === 0x0d || b === 0x0a || i >= bytes.length) return i;
    i++;
  }
}

// The members of the (valid) JSON object at `i`: pushes key start, key end, whether the key has
// escapes, value start, value end, for each.
function scanMembers(bytes, i, out) {
  i = skip(bytes, i + 1);
  while (bytes[i] !== 0x7d) {
    const keyStart = i + 1;
    const keyEnd = stringEnd(bytes, keyStart);
    const escaped = has(bytes, BACKSLASH, keyStart, keyEnd) ? 1 : 0;
    i = skip(bytes, skip(bytes, keyEnd + 1) + 1);
    const valueEnd = valueEndOf(bytes, i);
    out.push(keyStart, keyEnd, escaped, i, valueEnd);
    i = skip(bytes, valueEnd);
    if (bytes[i] === 0x2c) i = skip(bytes, i + 1);
  }
}

// Whether bytes[from, to) holds `code` (indexOf would search on to the end of the file).
function has(bytes, code, from, to) {
  for (let i = from; i < to; i++) if (bytes[i] === code) return true;
  return false;
}

function skip(bytes, i) {
  for (;;) {
    const b = bytes[i];
    if (b !== 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d) return i;
    i++;
  }
}

// The closing quote of a string whose characters start at i.
function stringEnd(bytes, i) {
  for (;; i++) {
    const b = bytes[i];
    if (b === BACKSLASH) i++;
    else if (b === QUOTE) return i;
  }
}

function valueEndOf(bytes, i) {
  const b = bytes[i];
  if (b === QUOTE) return stringEnd(bytes, i + 1) + 1;
  if (b === 0x7b || b === 0x5b) {
    let depth = 0;
    for (;; i++) {
      const c = bytes[i];
      if (c === QUOTE) i = stringEnd(bytes, i + 1);
      else if (c === 0x7b || c === 0x5b) depth++;
      else if (c === 0x7d || c === 0x5d) {
        if (--depth === 0) return i + 1;
      }
    }
  }
  return endOf(bytes, i);
}
