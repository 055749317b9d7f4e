// k6/experimental/csv: parse(file, options) reads a File (k6/experimental/fs) into records once
// for every VU, as a SharedArray; new Parser(file, options).next() gives them one at a time.
// Options as k6's: delimiter (','), skipFirstLine, fromLine, toLine (0-based lines), asObjects
// (records as objects keyed by the header line).

// A byte-order mark stays in the first field, as k6 (Go) reads the bytes.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** RFC 4180 records of `text`: quoted fields, doubled quotes, CRLF or LF line ends. */
export function csvRecords(text, delimiter = ',') {
  const rows = [];
  let row = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === delimiter) {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

// The records of what is left of `file` (read to its end, as k6 reads it: a file parsed once is
// at its end for the next parse).
function recordsOf(file, options = {}) {
  if (!file || typeof file.take !== 'function') throw new TypeError('csv: the first argument is a file of k6/experimental/fs');
  const delimiter = options.delimiter ?? ',';
  if (typeof delimiter !== 'string' || delimiter.length !== 1) throw new Error('csv: delimiter must be one character');
  const bytes = file.take();
  if (bytes.length === 0) throw new Error('failed to create a new parser; reason: failed to read the first line; reason: EOF');
  let rows = csvRecords(decoder.decode(bytes), delimiter);
  const header = rows[0];
  const from = options.skipFirstLine ? Math.max(1, options.fromLine ?? 0) : options.fromLine ?? 0;
  const to = options.toLine ?? rows.length - 1;
  rows = rows.slice(from, to + 1);
  if (options.asObjects) {
    if (!options.skipFirstLine && from === 0) rows = rows.slice(1);
    // Keys in order of their names, as k6 hands over a Go map.
    const keys = header.map((h, i) => [h, i]).sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
    rows = rows.map((r) => Object.fromEntries(keys.map(([h, i]) => [h, r[i] ?? ''])));
  }
  return rows;
}

export function csvModule(vu) {
  const api = {
    async parse(file, options = {}) {
      if (vu.initDone) throw new Error('csv.parse() is only allowed in the init context');
      // Parsed once for every VU; each VU's file is read to its end all the same.
      const key = `csv:${file && file.path}:${JSON.stringify(options)}`;
      let rows = vu.shared.arrays.get(key);
      if (rows === undefined) {
        rows = Object.freeze(recordsOf(file, options).map((r) => Object.freeze(r)));
        vu.shared.arrays.set(key, rows);
      } else if (file && typeof file.take === 'function' && file.take().length === 0) {
        throw new Error('failed to create a new parser; reason: failed to read the first line; reason: EOF');
      }
      return rows;
    },
    Parser: class Parser {
      #rows;
      #at = 0;
      constructor(file, options = {}) {
        this.#rows = recordsOf(file, options);
      }
      async next() {
        if (this.#at >= this.#rows.length) return { done: true, value: undefined };
        return { done: false, value: this.#rows[this.#at++] };
      }
    },
  };
  return { default: api, ...api };
}
