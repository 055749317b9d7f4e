// Data-driven requests: the parsers for a feed file (CSV, JSON, NDJSON) and a URL list, and the
// order in which a run takes a feed's rows. Pure functions of text: the caller reads the file.
//
// A feed may have millions of rows, so it is held compactly: a CSV as its own text and one
// Uint32Array of where each cell starts (a cell ends at the next comma or line break), about
// 1.5 times the file in all, where arrays of strings took five times it; a run copies a cell's
// characters straight into its request (sourceInto), without a string per request. A row keeps
// only where its record starts (offset and line); a cell's line and column are found again, by
// re-scanning that one record, only when an error has to name them.

const LF = 10;
const CR = 13;
const QUOTE = 34;
const COMMA = 44;

/**
 * `text`: the file's contents; `name`: its name, for errors and for its format (.csv, .json,
 * .ndjson or .jsonl; anything else is sniffed: `[` JSON, `{` NDJSON, else CSV).
 * Returns the feed (see compact() below): cell(r, c) is a string, or undefined where a JSON row
 * lacks that key; where(r, c) names a cell for an error ('row 12, column 3 (id)', 'row 3 (id)'
 * for JSON, 'line 5 (id)' for NDJSON).
 */
export function parseFeed(text, name = 'feed') {
  const format = formatOf(text, name);
  if (format === 'json') return parseJson(text, name);
  if (format === 'ndjson') return parseNdjson(text, name);
  return parseCsv(text, name);
}

function formatOf(text, name) {
  name = String(name);
  const base = name.slice(Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\')) + 1);
  const dot = base.lastIndexOf('.');
  const ext = dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
  if (ext === 'csv') return 'csv';
  if (ext === 'json') return 'json';
  if (ext === 'ndjson' || ext === 'jsonl') return 'ndjson';
  const first = /[^\s\ufeff]/.exec(text.length > 4096 ? text.slice(0, 4096) : text);
  if (first && first[0] === '[') return 'json';
  if (first && first[0] === '{') return 'ndjson';
  return 'csv';
}

// Columns count characters as an editor does: code points, so that an emoji is one.
function columnAt(text, lineStart, at) {
  let column = 1;
  for (let i = lineStart; i < at; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff || i + 1 >= at) column++;
    else {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
      column++;
    }
  }
  return column;
}

// ---- CSV (RFC 4180) ----

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

function parseCsv(text, name) {
  const n = text.length;
  const bomless = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const fail = (line, lineStart, at, message) => new Error(`${name}: row ${line}, column ${columnAt(text, lineStart, at)}: ${message}`);
  // Most records have no quote and no stray CR: such a line is cut at its commas with indexOf,
  // and only a record with a quote (or a CR) in it goes character by character. The next quote,
  // CR and comma are looked up once and remembered until the scan passes them, so a file without
  // quotes costs one indexOf('"') in all and a one-column file does not search for a comma on
  // every line. On node 20, 1 000 000 rows of 4 columns: 0.45 s this way, 0.6-0.75 s with
  // line.split(',') and about the same as this with a loop over every character; the rest is
  // the garbage collector copying 5 000 000 new objects, whatever cuts the text.
  let nextQuote = -1;
  let nextCR = -1;
  let nextComma = -1;
  // Where the line breaks at the end of the file begin: an empty line from there on is not a row.
  let tail = n;
  while (tail > bomless && (text.charCodeAt(tail - 1) === LF || text.charCodeAt(tail - 1) === CR)) tail--;
  const state = { pos: 0, line: 0, lineStart: 0 };
  let pos = bomless;
  let line = 1;
  let columns = null;
  let width = 0;
  let count = 0;
  const starts = new Starts(1024);
  // Where each cell starts; a cell whose value is not a plain slice of the text (one of a record
  // with quotes or a stray CR in it) is QUOTED | its index in `values` instead.
  let cells = new Uint32Array(4096);
  let cellCount = 0;
  const values = [];
  const addCell = (start) => {
    if (cellCount === cells.length) {
      const grown = new Uint32Array(cells.length * 2);
      grown.set(cells);
      cells = grown;
    }
    cells[cellCount++] = start;
  };
  while (pos < n) {
    let end = text.indexOf('\n', pos);
    if (end < 0) end = n;
    const stop = end > pos && text.charCodeAt(end - 1) === CR ? end - 1 : end;
    if (nextQuote < pos && nextQuote !== n) nextQuote = indexOr(text, '"', pos, n);
    if (nextCR < pos && nextCR !== n) nextCR = indexOr(text, '\r', pos, n);
    const recordStart = pos;
    const recordLine = line;
    const mark = cellCount;
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
        else addCell(pos);
        k = 1;
      } else {
        let from = pos;
        for (;;) {
          if (nextComma < from) nextComma = indexOr(text, ',', from, n);
          if (nextComma >= stop) break;
          if (columns === null) (fields = fields || []).push(text.slice(from, nextComma));
          else addCell(from);
          k++;
          from = nextComma + 1;
        }
        if (columns === null) (fields = fields || []).push(text.slice(from, stop));
        else addCell(from);
        k++;
      }
      pos = end + 1;
      line++;
    } else {
      state.pos = pos;
      state.line = line;
      state.lineStart = pos;
      fields = slowRecord(text, state, width, fail);
      pos = state.pos;
      line = state.line;
      k = fields.length;
      if (columns !== null) {
        for (const v of fields) {
          addCell(QUOTED | values.length);
          values.push(v);
        }
      }
    }
    if (columns === null) {
      columns = header(fields, name);
      width = columns.length;
      continue;
    }
    if (k !== width) {
      cellCount = mark;
      throw new Error(`${name}: row ${recordLine}, column 1: ${k} field${k === 1 ? '' : 's'} where the header has ${width}`);
    }
    count++;
    starts.push(recordStart, recordLine);
  }
  if (columns === null) throw new Error(`${name}: the file is empty`);
  if (count === 0) throw new Error(`${name}: no rows after the header`);
  if (text.length >= QUOTED) throw new Error(`${name}: over 2 GiB; split it`);
  if (cells.length > cellCount * 1.25) cells = cells.slice(0, cellCount);

  // A cell's place: re-scan its record (valid, since it parsed) up to the cell.
  const position = (r, c) => {
    let i = starts.offsets[r];
    let cellLine = starts.lines[r];
    let lineStart = i;
    for (let f = 0; f < c; f++) {
      if (text.charCodeAt(i) === QUOTE) {
        for (i++; ; i++) {
          const ch = text.charCodeAt(i);
          if (ch === LF) {
            cellLine++;
            lineStart = i + 1;
          } else if (ch === QUOTE) {
            if (text.charCodeAt(i + 1) !== QUOTE) break;
            i++;
          }
        }
        i++;
      } else {
        while (text.charCodeAt(i) !== COMMA) i++;
      }
      i++; // the comma
    }
    return { row: cellLine, column: columnAt(text, lineStart, i) };
  };
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
      const ch = text.charCodeAt(i);
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
      return s & QUOTED ? values[s & INDEX] : text.slice(s, endAt(i, c, s));
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
      return text;
    },
    where,
    position,
    // Every `step`-th row from `first`, as a feed of its own (a --cores child's share).
    subset(step, first) {
      const parts = [text.slice(bomless, starts.offsets[0])];
      for (let r = first; r < count; r += step) {
        const record = text.slice(starts.offsets[r], r + 1 < count ? starts.offsets[r + 1] : n);
        parts.push(record.endsWith('\n') ? record : record + '\n');
      }
      return parseCsv(parts.join(''), name);
    },
  });
}

const QUOTED = 0x80000000;
const INDEX = 0x7fffffff;

/**
 * A feed's shared shape: { format, columns, count, cell(r, c) → string or undefined (a JSON row
 * without that key), sourceInto(r, c, spans, at) → a string that holds the cell (with spans[at],
 * spans[at + 1] its start and end in it, or spans[at] = -1 when the string is the cell), where(r,
 * c), position(r, c) }, and `rows` (every row as an array of strings, made when read: for tests
 * and small feeds, never a run's path).
 */
function compact(feed) {
  Object.defineProperty(feed, 'rows', {
    enumerable: false,
    get() {
      return Array.from({ length: feed.count }, (_, r) => feed.columns.map((_, c) => feed.cell(r, c)));
    },
  });
  return feed;
}

function indexOr(text, char, from, n) {
  const i = text.indexOf(char, from);
  return i < 0 ? n : i;
}

// One record with a quote or a stray CR in it, character by character. `state` holds pos, line
// and lineStart, advanced past the record's line break.
function slowRecord(text, state, width, fail) {
  const n = text.length;
  const fields = new Array(width || 1);
  let k = 0;
  let i = state.pos;
  let line = state.line;
  let lineStart = state.lineStart;
  for (;;) {
    let c = text.charCodeAt(i);
    if (c === QUOTE) {
      const openLine = line;
      const openLineStart = lineStart;
      const open = i;
      let value = '';
      let from = i + 1;
      for (;;) {
        const q = text.indexOf('"', from);
        if (q < 0) throw fail(openLine, openLineStart, open, 'the quoted field is never closed');
        for (let k = from; k < q; k++) {
          if (text.charCodeAt(k) === LF) {
            line++;
            lineStart = k + 1;
          }
        }
        // RFC 4180: a quote inside a quoted field is written twice.
        if (text.charCodeAt(q + 1) === QUOTE) {
          value += text.slice(from, q + 1);
          from = q + 2;
          continue;
        }
        value += text.slice(from, q);
        i = q + 1;
        break;
      }
      fields[k++] = value;
      c = text.charCodeAt(i);
      if (c === COMMA) {
        i++;
        continue;
      }
      if (i >= n || (c === CR && i + 1 >= n)) {
        i = n;
        break;
      }
      if (c === LF || (c === CR && text.charCodeAt(i + 1) === LF)) {
        i += c === CR ? 2 : 1;
        line++;
        break;
      }
      throw fail(line, lineStart, i, c === CR ? 'a CR without LF outside quotes' : 'text after the closing quote');
    }
    let j = i;
    for (; j < n; j++) {
      c = text.charCodeAt(j);
      if (c === COMMA || c === LF || c === CR || c === QUOTE) break;
    }
    // RFC 4180: a field with a quote in it must be quoted as a whole.
    if (j < n && c === QUOTE) throw fail(line, lineStart, j, 'a quote inside an unquoted field');
    fields[k++] = text.slice(i, j);
    if (j >= n) {
      i = n;
      break;
    }
    if (c === COMMA) {
      i = j + 1;
      continue;
    }
    if (c === CR && text.charCodeAt(j + 1) !== LF) {
      // A CR just before the end of the file ends the last record as a CRLF would.
      if (j + 1 >= n) {
        i = n;
        break;
      }
      throw fail(line, lineStart, j, 'a CR without LF outside quotes');
    }
    i = j + (c === CR ? 2 : 1);
    line++;
    break;
  }
  state.pos = i;
  state.line = line;
  state.lineStart = i;
  if (k < fields.length) fields.length = k;
  return fields;
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

// ---- JSON and NDJSON ----

const jsonMessage = (e) => String(e && e.message).replace(/\s*[\r\n]+\s*/g, ' ');
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const cell = (v) => (typeof v === 'string' ? v : v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));

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

function parseNdjson(text, name) {
  text = stripBom(text);
  const table = new Table();
  const lines = [];
  const n = text.length;
  for (let pos = 0, line = 1; pos < n; line++) {
    let end = text.indexOf('\n', pos);
    if (end < 0) end = n;
    const source = text.slice(pos, end).trim();
    pos = end + 1;
    if (source === '') continue;
    let value;
    try {
      value = JSON.parse(source);
    } catch (e) {
      throw new Error(`${name}: line ${line}: not JSON (${jsonMessage(e)})`);
    }
    if (!isObject(value)) throw new Error(`${name}: line ${line}: not an object`);
    table.add(value);
    lines.push(line);
  }
  if (table.rowStart.length === 0) throw new Error(`${name}: no rows`);
  const { columns } = table;
  return table.feed('ndjson', (r, c) => `line ${lines[r]} (${columns[c]})`, (r) => ({ line: lines[r] }));
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
