// A CSV feed file (RFC 4180) read in one pass: its header's names, where each row starts and
// where each of its cells starts, for src/requests/feed.js to make the feed of. Pure functions of
// the file's UTF-8 bytes (a Uint8Array): offsets are byte offsets, and only the header's names
// and the values of records with quotes are decoded to strings.

export const LF = 10;
export const CR = 13;
const QUOTE = 34;
export const COMMA = 44;

const utf8 = new TextDecoder();
/** bytes[start, end) as a string. */
export const decode = (bytes, start, end) => utf8.decode(bytes.subarray(start, end));

export const QUOTED = 0x80000000;
export const INDEX = 0x7fffffff;

// The records of a CSV: returns { columns: the header's names, starts: where each row starts
// (offset and line), cells: where each of its cells starts }.
//
// Most records have no quote and no stray CR: such a line is cut at its commas with indexOf,
// and only a record with a quote (or a CR) in it goes character by character. The next quote,
// CR and comma are looked up once and remembered until the scan passes them, so a file without
// quotes costs one indexOf('"') in all and a one-column file does not search for a comma on
// every line. The index is sized from a count of the line breaks, not grown by doubling: its
// arrays are made once, at about their final size.
export function readCsv(text, name, bomless) {
  const n = text.length;
  const lines = countOf(text, LF, bomless, n) + 1;
  const starts = new Starts(lines);
  let cells = null;
  let nextQuote = -1;
  let nextCR = -1;
  let nextComma = -1;
  const tail = tailOf(text, bomless);
  const state = { pos: 0, line: 0, lineStart: 0 };
  let pos = bomless;
  let line = 1;
  let columns = null;
  let width = 0;
  while (pos < n) {
    let end = text.indexOf(LF, pos);
    if (end < 0) end = n;
    const stop = end > pos && text[end - 1] === CR ? end - 1 : end;
    if (nextQuote < pos && nextQuote !== n) nextQuote = indexOr(text, QUOTE, pos, n);
    if (nextCR < pos && nextCR !== n) nextCR = indexOr(text, CR, pos, n);
    const recordStart = pos;
    const recordLine = line;
    const mark = cells === null ? 0 : cells.length;
    let fields = null; // the header's names, or a slow record's values
    let k = 0;
    if (nextQuote >= stop && nextCR >= stop) {
      if (stop === pos) {
        // RFC 4180 allows one final line break; more than one, or blank lines an editor left at
        // the end, are not rows. A blank line between rows is one empty field, which only a
        // one-column file can hold.
        if (pos >= tail) break;
        if (columns !== null && width !== 1) throw new Error(`${name}: row ${line}: an empty line where the header has ${width} columns`);
        if (columns === null) fields = [''];
        else cells.push(pos);
        k = 1;
      } else {
        let from = pos;
        for (;;) {
          if (nextComma < from) nextComma = indexOr(text, COMMA, from, n);
          if (nextComma >= stop) break;
          if (columns === null) (fields = fields || []).push(decode(text, from, nextComma));
          else cells.push(from);
          k++;
          from = nextComma + 1;
        }
        if (columns === null) (fields = fields || []).push(decode(text, from, stop));
        else cells.push(from);
        k++;
      }
      pos = end + 1;
      line++;
    } else {
      state.pos = pos;
      state.line = line;
      state.lineStart = pos;
      fields = slowRecord(text, name, state, width);
      pos = state.pos;
      line = state.line;
      k = fields.length;
      if (columns !== null) cells.pushValues(fields);
    }
    if (columns === null) {
      columns = header(fields, name);
      width = columns.length;
      cells = new Cells(Math.max(1, (lines - 1) * width));
      continue;
    }
    if (k !== width) {
      cells.length = mark;
      throw new Error(`${name}: row ${recordLine}, column 1: ${k} field${k === 1 ? '' : 's'} where the header has ${width}`);
    }
    starts.push(recordStart, recordLine);
  }
  if (columns === null) throw new Error(`${name}: the file is empty`);
  if (starts.length === 0) throw new Error(`${name}: no rows after the header`);
  return { columns, starts, cells };
}

/**
 * Where each cell starts, growable; a cell whose value is not a plain slice of the text (one of a
 * record with quotes or a stray CR in it) is QUOTED | its index in `values` instead.
 */
class Cells {
  constructor(capacity) {
    this.starts = new Uint32Array(capacity);
    this.length = 0;
    this.values = [];
  }
  push(start) {
    if (this.length === this.starts.length) {
      const grown = new Uint32Array(this.starts.length * 2);
      grown.set(this.starts);
      this.starts = grown;
    }
    this.starts[this.length++] = start;
  }
  pushValues(fields) {
    for (const v of fields) {
      this.push(QUOTED | this.values.length);
      this.values.push(v);
    }
  }
  trimmed() {
    return this.starts.length > this.length * 1.25 ? this.starts.slice(0, this.length) : this.starts;
  }
}

/** A growable pair of Int32Arrays: a record's start offset and its physical line. */
class Starts {
  constructor(capacity) {
    this.offsets = new Int32Array(capacity);
    this.lines = new Int32Array(capacity);
    this.length = 0;
  }
  push(offset, line) {
    if (this.length === this.offsets.length) {
      const offsets = new Int32Array(this.length * 2);
      const lines = new Int32Array(this.length * 2);
      offsets.set(this.offsets);
      lines.set(this.lines);
      this.offsets = offsets;
      this.lines = lines;
    }
    this.offsets[this.length] = offset;
    this.lines[this.length] = line;
    this.length++;
  }
}

// Where the line breaks at the end of the file begin: an empty line from there on is not a row.
function tailOf(text, bomless) {
  let tail = text.length;
  while (tail > bomless && (text[tail - 1] === LF || text[tail - 1] === CR)) tail--;
  return tail;
}

// One record with a quote or a stray CR in it, character by character. `state` holds pos, line
// and lineStart, advanced past the record's line break.
function slowRecord(text, name, state, width) {
  const n = text.length;
  const fields = new Array(width || 1);
  let k = 0;
  let i = state.pos;
  for (;;) {
    let c = text[i];
    if (c === QUOTE) {
      fields[k++] = quotedField(text, name, state, i);
      i = state.pos;
      c = text[i];
      if (c === COMMA) {
        i++;
        continue;
      }
      if (i >= n || (c === CR && i + 1 >= n)) {
        i = n;
        break;
      }
      if (c === LF || (c === CR && text[i + 1] === LF)) {
        i += c === CR ? 2 : 1;
        state.line++;
        break;
      }
      throw csvError(text, name, state.line, state.lineStart, i, c === CR ? 'a CR without LF outside quotes' : 'text after the closing quote');
    }
    let j = i;
    for (; j < n; j++) {
      c = text[j];
      if (c === COMMA || c === LF || c === CR || c === QUOTE) break;
    }
    // RFC 4180: a field with a quote in it must be quoted as a whole.
    if (j < n && c === QUOTE) throw csvError(text, name, state.line, state.lineStart, j, 'a quote inside an unquoted field');
    fields[k++] = decode(text, i, j);
    if (j >= n) {
      i = n;
      break;
    }
    if (c === COMMA) {
      i = j + 1;
      continue;
    }
    if (c === CR && text[j + 1] !== LF) {
      // A CR just before the end of the file ends the last record as a CRLF would.
      if (j + 1 >= n) {
        i = n;
        break;
      }
      throw csvError(text, name, state.line, state.lineStart, j, 'a CR without LF outside quotes');
    }
    i = j + (c === CR ? 2 : 1);
    state.line++;
    break;
  }
  state.pos = i;
  state.lineStart = i;
  if (k < fields.length) fields.length = k;
  return fields;
}

// A quoted field from its opening quote at `open`: its value, with state.pos just past its closing
// quote and state.line and lineStart moved past the line breaks in it.
function quotedField(text, name, state, open) {
  let line = state.line;
  let lineStart = state.lineStart;
  let value = '';
  let from = open + 1;
  for (;;) {
    const q = text.indexOf(QUOTE, from);
    if (q < 0) throw csvError(text, name, state.line, state.lineStart, open, 'the quoted field is never closed');
    for (let k = from; k < q; k++) {
      if (text[k] === LF) {
        line++;
        lineStart = k + 1;
      }
    }
    // RFC 4180: a quote inside a quoted field is written twice.
    if (text[q + 1] === QUOTE) {
      value += decode(text, from, q + 1);
      from = q + 2;
      continue;
    }
    value += decode(text, from, q);
    state.pos = q + 1;
    state.line = line;
    state.lineStart = lineStart;
    return value;
  }
}

function header(fields, name) {
  const seen = new Set();
  for (const f of fields) {
    if (f === '') throw new Error(`${name}: row 1: a column name is empty`);
    if (seen.has(f)) throw new Error(`${name}: row 1: column '${f}' is named twice`);
    seen.add(f);
  }
  return fields;
}

function csvError(text, name, line, lineStart, at, message) {
  return new Error(`${name}: row ${line}, column ${columnAt(text, lineStart, at)}: ${message}`);
}

// Columns count characters as an editor does: code points (the bytes that start one), so that
// an emoji is one.
function columnAt(text, lineStart, at) {
  let column = 1;
  for (let i = lineStart; i < at; i++) if ((text[i] & 0xc0) !== 0x80) column++;
  return column;
}

// A cell's place: re-scan its record (valid, since it parsed) up to the cell.
export function cellPosition(text, starts, r, c) {
  let i = starts.offsets[r];
  let cellLine = starts.lines[r];
  let lineStart = i;
  for (let f = 0; f < c; f++) {
    if (text[i] === QUOTE) {
      for (i++; ; i++) {
        const ch = text[i];
        if (ch === LF) {
          cellLine++;
          lineStart = i + 1;
        } else if (ch === QUOTE) {
          if (text[i + 1] !== QUOTE) break;
          i++;
        }
      }
      i++;
    } else {
      while (text[i] !== COMMA) i++;
    }
    i++; // the comma
  }
  return { row: cellLine, column: columnAt(text, lineStart, i) };
}

function indexOr(text, code, from, n) {
  const i = text.indexOf(code, from);
  return i < 0 ? n : i;
}

// How many times the byte `code` is in text[from, n).
function countOf(text, code, from, n) {
  let count = 0;
  for (let i = text.indexOf(code, from); i >= 0 && i < n; i = text.indexOf(code, i + 1)) count++;
  return count;
}
