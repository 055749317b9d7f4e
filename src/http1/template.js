// Templated requests ({{name}} in the path, a header value or the body): the request is compiled
// once into its fixed bytes and the places where values go, and each request is those bytes and
// its values written into a shared slab, with Content-Length counted from the body's bytes. As
// with --index (request.js), a slab is never written twice: a full one is left to the requests
// that point into it and a new one is started, so a connection may hold its bytes until sent.

import { endHead } from './request.js';

const encoder = new TextEncoder();
const CONTENT_LENGTH_LINE = 'content-length: '.length + 20; // the longest: 2^53 has 16 digits, and CRLF
const SLAB = 64 * 1024;

// {{name}}, spaces inside allowed; a URL's parser turns the braces of a path into %7B and %7D.
const PLACE = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;
const ENCODED_PLACE = /%7B%7B\s*([A-Za-z_][A-Za-z0-9_]*)\s*%7D%7D/gi;

/** A path with its {{name}} places as typed (new URL() percent-encodes their braces). */
export const unescapePlaces = (path) => path.replace(ENCODED_PLACE, '{{$1}}');

/** The names a text's {{name}} places use, in order of first use ([] when none). */
export function placeNames(text) {
  if (typeof text !== 'string' || !text.includes('{{')) return [];
  const names = [];
  for (const m of text.matchAll(PLACE)) if (!names.includes(m[1])) names.push(m[1]);
  return names;
}

// A text as [literal, slot, literal, slot, ..., literal]: literals as bytes, slots as indexes
// into `names` (which grows with new names).
function split(text, names) {
  const parts = [];
  let last = 0;
  for (const m of text.matchAll(PLACE)) {
    parts.push(encoder.encode(text.slice(last, m.index)));
    let k = names.indexOf(m[1]);
    if (k < 0) k = names.push(m[1]) - 1;
    parts.push(k);
    last = m.index + m[0].length;
  }
  parts.push(encoder.encode(text.slice(last)));
  return parts;
}

/**
 * Compiles a request whose path, header values or body (text) have {{name}} places. Returns
 * { names, heads, render(values) }: `names` the distinct names (values[k] is names[k]'s value,
 * a string), `heads[k]` whether names[k] goes into the request line or a header (where CR, LF
 * and, in the path, spaces cannot go: the caller checks values before the run), and render()
 * the request's bytes.
 */
export function compileTemplate({ method, path, headers, bodyText, origin = '' }) {
  const names = [];
  let head = `${method} ${origin}${path} HTTP/1.1\r\n`;
  for (const name in headers) head += `${name}: ${headers[name]}\r\n`;
  const headParts = split(head, names);
  const inHead = names.length;
  const bodyParts = bodyText ? split(bodyText, names) : [];
  const heads = names.map((_, k) => k < inHead);
  // As encodeRequest: a length for any body, and a zero length for an empty POST, PUT, PATCH.
  const withLength = bodyParts.length > 0 || method === 'POST' || method === 'PUT' || method === 'PATCH';
  let slab = new Uint8Array(SLAB);
  let at = 0;
  let body = new Uint8Array(256); // the body of the request being rendered, before its head

  // Writes parts into buf at `from` (values encoded in place); returns the end. The caller has
  // made room for each value's worst case, 3 bytes per UTF-16 unit. A value with a span
  // (spans[2p] >= 0) is that part of its string: a feed's cell in the feed's text.
  const put = (buf, from, parts, values, spans) => {
    let i = from;
    for (let k = 0; k < parts.length; k++) {
      const p = parts[k];
      if (typeof p === 'number') {
        i = spans !== null && spans[2 * p] >= 0 ? putSpan(buf, i, values[p], spans[2 * p], spans[2 * p + 1]) : putText(buf, i, values[p]);
      } else {
        buf.set(p, i);
        i += p.length;
      }
    }
    return i;
  };
  const bound = (parts, values, spans) => {
    let n = 0;
    for (let k = 0; k < parts.length; k++) {
      const p = parts[k];
      if (typeof p !== 'number') n += p.length;
      else n += (spans !== null && spans[2 * p] >= 0 ? spans[2 * p + 1] - spans[2 * p] : values[p].length) * 3;
    }
    return n;
  };

  return {
    names,
    heads,
    render(values, spans = null) {
      let bodyLength = 0;
      if (bodyParts.length > 0) {
        const most = bound(bodyParts, values, spans);
        if (most > body.length) body = new Uint8Array(Math.max(most, body.length * 2));
        bodyLength = put(body, 0, bodyParts, values, spans);
      }
      const size = bound(headParts, values, spans) + (withLength ? CONTENT_LENGTH_LINE : 0) + 2 + bodyLength;
      if (at + size > slab.length) {
        slab = new Uint8Array(Math.max(SLAB, size));
        at = 0;
      }
      const start = at;
      at = endHead(slab, put(slab, at, headParts, values, spans), withLength, bodyLength);
      if (bodyLength > 0) {
        slab.set(bodyLength === body.length ? body : body.subarray(0, bodyLength), at);
        at += bodyLength;
      }
      return slab.subarray(start, at);
    },
  };
}

// A value's UTF-8 bytes at `at`; returns the end. Values are mostly ASCII (ids, names, tokens):
// copied a unit at a time, without the view encodeInto() needs (a request's values cost a
// view each, and allocation was most of a templated request's cost on node).
function putText(buf, at, text) {
  const n = text.length;
  for (let k = 0; k < n; k++) {
    const c = text.charCodeAt(k);
    if (c >= 0x80) return at + encoder.encodeInto(text.slice(k), buf.subarray(at)).written;
    buf[at++] = c;
  }
  return at;
}

// The characters of text[start, end) as UTF-8 at `at`, as putText.
function putSpan(buf, at, text, start, end) {
  // A feed's bytes (src/requests/feed.js's sourceInto): already UTF-8.
  if (typeof text !== 'string') {
    for (let k = start; k < end; k++) buf[at++] = text[k];
    return at;
  }
  for (let k = start; k < end; k++) {
    const c = text.charCodeAt(k);
    if (c >= 0x80) return at + encoder.encodeInto(text.slice(k, end), buf.subarray(at)).written;
    buf[at++] = c;
  }
  return at;
}

/** A text's {{name}} places filled with values[names.indexOf(name)] (the slow paths: HTTP/2, a reported path). */
export function fillText(text, names, values) {
  return text.replace(PLACE, (_, name) => values[names.indexOf(name)]);
}
