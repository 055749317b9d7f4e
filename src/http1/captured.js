// A response's captured bytes: how the parser (src/http1/parser.js, `p` below) keeps them, as
// chunks (views or copies) or as a span of the read, and what is done with them: the text of
// the chunks, the chunks as one array, a head's headers as an object.

// A copy of bytes to keep (adapters reuse their read buffers): a plain Uint8Array filled from
// a view made by the constructor. A node Buffer's own slice() is a view, and Uint8Array's slice
// or subarray on a Buffer makes a Buffer through its species: ten times the cost.
function copy(buf, from, to) {
  const out = new Uint8Array(to - from);
  out.set(view(buf, from, to));
  return out;
}

/** A view of bytes `from` to `to` of `buf`, a plain Uint8Array whatever `buf` is. */
export const view = (buf, from, to) => new Uint8Array(buf.buffer, buf.byteOffset + from, to - from);

// Bytes of the response to keep: a view while borrowing (p.borrow), else a copy.
const keep = (p, buf, from, to) => (p.borrow ? view(buf, from, to) : copy(buf, from, to));

// Borrowing, a response's first bytes are not even a view: where they are in the read, its head
// and the body that follows it at once (a span: p.spanBuf, spanFrom to spanHead, spanHead to
// spanTo), which a reader may decode in one go (src/script/net/client.js), a whole read without a
// view at all. Any other piece makes the span views first (settleSpan).

/** Head bytes `from` to `to` of `buf`. */
export function keepHead(p, buf, from, to) {
  if (p.borrow && p.spanBuf === null && p.headChunks.length === 0) {
    p.spanBuf = buf;
    p.spanFrom = from;
    p.spanHead = to;
    p.spanTo = to;
    return;
  }
  settleSpan(p, false);
  p.headChunks.push(keep(p, buf, from, to));
}

/** Body bytes `from` to `to` of `buf`. */
export function keepBody(p, buf, from, to) {
  if (p.spanBuf === buf && p.spanTo === from && p.bodyChunks.length === 0) {
    p.spanTo = to;
    return;
  }
  settleSpan(p, false);
  p.bodyChunks.push(keep(p, buf, from, to));
}

/** The span, if any, made the chunks' first views (or copies); the chunks are empty until then. */
export function settleSpan(p, copies) {
  const buf = p.spanBuf;
  if (buf === null) return;
  p.spanBuf = null;
  const make = copies ? copy : view;
  p.headChunks.push(make(buf, p.spanFrom, p.spanHead));
  if (p.spanTo > p.spanHead) p.bodyChunks.push(make(buf, p.spanHead, p.spanTo));
}

/** The views of `buf` an unfinished response holds, made copies (the adapter reuses `buf`). */
export function keepBorrowed(p, buf) {
  if (p.spanBuf !== null) settleSpan(p, true);
  for (const chunks of [p.headChunks, p.bodyChunks]) {
    if (chunks === null) continue;
    for (let k = 0; k < chunks.length; k++) if (chunks[k].buffer === buf.buffer) chunks[k] = copy(chunks[k], 0, chunks[k].length);
  }
}

const decoder = new TextDecoder();

/**
 * A decoder that keeps a leading byte-order mark, as Go keeps every byte of a body (k6's
 * res.body starts with U+FEFF when the body does); the default one drops it.
 */
export const keepingBOM = new TextDecoder('utf-8', { ignoreBOM: true });

export function decodeChunks(chunks, textDecoder = decoder) {
  if (!chunks || chunks.length === 0) return '';
  if (chunks.length === 1) return textDecoder.decode(chunks[0]);
  return textDecoder.decode(joinChunks(chunks));
}

/** Byte chunks copied into one Uint8Array. */
export function joinChunks(chunks) {
  let total = 0;
  for (const c of chunks) total += c.length;
  const all = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  return all;
}

/** Parses a captured head into a lower-cased header object (loadtest 8 gives node's headers). */
export function parseHeaders(headText) {
  const headers = {};
  const lines = headText.split(/\r?\n/);
  // The captured head may include interim responses; the final one is the last status line.
  let startLine = 0;
  for (let k = 0; k < lines.length; k++) if (lines[k].startsWith('HTTP/')) startLine = k;
  for (let k = startLine + 1; k < lines.length; k++) {
    const line = lines[k];
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = name in headers ? headers[name] + ', ' + value : value;
  }
  return headers;
}
