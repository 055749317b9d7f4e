// Requests whose path, header values or body take values: a --feed row's ({{column}}) or a
// value captured earlier in the connection's walk of a sequence ({{variable}}). Each shape is
// compiled once (src/http1/template.js) and its values are checked before the run: a value that
// would break the request line or a header is refused with its file, row and column.

import { compileTemplate, fillText, placeNames, unescapePlaces } from '../http1/template.js';
import { bodyBytes } from '../http1/request.js';

const BREAKS_HEAD = /[\r\n\0]/;
const BREAKS_PATH = /[\x00-\x20\x7f]/;

/**
 * A shape ({ method, path, headers, bodyText }) made a function of its values: returns
 * { names, heads, build(r, vars) → { bytes, path } } (heads: compileTemplate's), or null when it has no {{name}} place.
 * `feed`: src/requests/feed.js's, with `name`, or null; `captured`: the variables a sequence
 * captures; `where`: the shape's name in errors; `encode`: HTTP/2's encoder, or null for
 * HTTP/1.1's compiled bytes.
 */
export function templateOf(shape, { feed, captured = [], where, encode = null, origin = '', keepPath = false }) {
  const path = unescapePlaces(shape.path);
  const texts = [path, ...Object.values(shape.headers), shape.bodyText || ''];
  if (!texts.some((t) => placeNames(t).length > 0)) return null;
  const t = compileTemplate({ method: shape.method, path, headers: shape.headers, bodyText: shape.bodyText, origin });
  const names = t.names;
  const columns = names.map((n) => (feed ? feed.columns.indexOf(n) : -1));
  names.forEach((n, k) => {
    if (columns[k] >= 0 || captured.includes(n)) return;
    throw new Error(`${where} uses {{${n}}}: ${feed ? `${feed.name} has no column '${n}'` : 'no --feed column'}${captured.length ? ' and no capture' : ''} gives it`);
  });
  if (feed) checkValues(feed, names, columns, t.heads, placeNames(path));
  const values = new Array(names.length).fill('');
  // A feed's cell is a span of the feed's text (spans[2k], spans[2k + 1]) when it can be: its
  // characters go straight into the request, with no string made per request.
  const spans = new Int32Array(names.length * 2).fill(-1);
  const fillSpans = (r, vars) => {
    for (let k = 0; k < names.length; k++) {
      if (columns[k] >= 0) values[k] = feed.sourceInto(r, columns[k], spans, 2 * k);
      else values[k] = vars[names[k]];
    }
  };
  const fillStrings = (r, vars) => {
    for (let k = 0; k < names.length; k++) values[k] = columns[k] >= 0 ? feed.cell(r, columns[k]) : vars[names[k]];
  };
  if (encode === null) {
    const out = { bytes: null, path };
    return {
      names,
      heads: t.heads,
      // `r`: the feed's row for this request (-1: none, the values are all captured).
      build(r, vars) {
        if (keepPath) {
          fillStrings(r, vars);
          out.bytes = t.render(values, null);
          out.path = fillText(path, names, values);
        } else {
          fillSpans(r, vars);
          out.bytes = t.render(values, spans);
        }
        return out;
      },
    };
  }
  // HTTP/2: the strings filled and encoded per request (HPACK and frames: its encoder's work).
  return {
    names,
    heads: t.heads,
    build(r, vars) {
      fillStrings(r, vars);
      const headers = {};
      for (const name in shape.headers) headers[name] = fillText(shape.headers[name], names, values);
      const filled = fillText(path, names, values);
      const body = shape.bodyText ? bodyBytes(fillText(shape.bodyText, names, values)) : null;
      return { bytes: encode({ method: shape.method, path: filled, headers, body }), path: filled };
    },
  };
}

// Every row's values for the places in the request line and headers: no CR, LF or NUL (they
// would end the line), and in the path no space or control character (they would end the
// request-target: percent-encode them). A missing value (a JSON row without the key) is refused too.
// A cell held as the feed's bytes is checked in them: a string a cell, for a file's millions of
// cells, was garbage that bun's collector let grow to three times the file before the run began.
const HEAD_MESSAGE = 'a value with CR, LF or NUL cannot go into the request line or a header';
const PATH_MESSAGE = 'a value with a space or a control character cannot go into the path (percent-encode it)';
function checkValues(feed, names, columns, heads, pathNames) {
  const spans = new Int32Array(2);
  for (let k = 0; k < names.length; k++) {
    const c = columns[k];
    if (c < 0) continue;
    const inPath = pathNames.includes(names[k]);
    for (let r = 0; r < feed.count; r++) {
      const source = feed.sourceInto(r, c, spans, 0);
      let problem = null;
      if (spans[0] >= 0) {
        if (heads[k]) problem = bytesProblem(source, spans[0], spans[1], inPath);
      } else if (source === undefined) {
        throw new Error(`${feed.name}: ${feed.where(r, c)}: no value, and {{${names[k]}}} needs one`);
      } else if (heads[k]) {
        problem = BREAKS_HEAD.test(source) ? HEAD_MESSAGE : inPath && BREAKS_PATH.test(source) ? PATH_MESSAGE : null;
      }
      if (problem) throw new Error(`${feed.name}: ${feed.where(r, c)}: ${problem}`);
    }
  }
}

// BREAKS_HEAD and BREAKS_PATH over UTF-8 bytes (a byte of a longer character is 0x80 or more).
function bytesProblem(bytes, start, end, inPath) {
  let path = false;
  for (let i = start; i < end; i++) {
    const b = bytes[i];
    if (b === 0x0d || b === 0x0a || b === 0) return HEAD_MESSAGE;
    if (b <= 0x20 || b === 0x7f) path = true;
  }
  return inPath && path ? PATH_MESSAGE : null;
}

/** Whether a captured value may go where its variable is used (`head`: a header; `path`: the path). */
export function capturedValueProblem(value, { head, path }) {
  if (head && BREAKS_HEAD.test(value)) return 'CR, LF or NUL in the value';
  if (path && BREAKS_PATH.test(value)) return 'a space or a control character in the value (for the path)';
  return null;
}
