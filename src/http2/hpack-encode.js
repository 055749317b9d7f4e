// The HPACK encoder (RFC 7541) for our requests: static-table indexes and literals without
// indexing, never the dynamic table, so one block serves every request on every connection
// (the decoder is hpack.js).

import { huffmanEncode, huffmanLength } from './huffman.js';
import { STATIC_TABLE } from './hpack.js';

const utf8 = new TextEncoder();
const STATIC_COUNT = 61;

/** Encodes `value` as a 5.1 integer with a `prefixBits`-bit prefix under `flags` (setup time). */
export function encodeInteger(value, prefixBits, flags = 0) {
  return Uint8Array.from(pushInteger([], value, prefixBits, flags));
}

function pushInteger(out, value, prefixBits, flags) {
  const mask = (1 << prefixBits) - 1;
  if (value < mask) {
    out.push(flags | value);
    return out;
  }
  out.push(flags | mask);
  value -= mask;
  while (value >= 128) {
    out.push((value % 128) | 0x80);
    value = Math.floor(value / 128);
  }
  out.push(value);
  return out;
}

// 5.2: Huffman when it is shorter; building a request's block is a one-time cost.
function pushString(out, str) {
  const bytes = utf8.encode(str);
  const huffman = huffmanLength(bytes);
  if (huffman < bytes.length) {
    pushInteger(out, huffman, 7, 0x80);
    huffmanEncode(bytes, out);
  } else {
    pushInteger(out, bytes.length, 7, 0);
    for (let k = 0; k < bytes.length; k++) out.push(bytes[k]);
  }
}

const STATIC_FIELD = new Map(); // 'name\0value' -> index, for an exact match
const STATIC_NAME = new Map(); // name -> its first index
for (let k = STATIC_COUNT; k >= 1; k--) {
  STATIC_FIELD.set(STATIC_TABLE[k][0] + '\0' + STATIC_TABLE[k][1], k);
  STATIC_NAME.set(STATIC_TABLE[k][0], k);
}

// Indexed when name and value are a static entry, e.g. :method GET; otherwise a literal without
// indexing (6.2.2), naming a static entry when one has the name. Never the dynamic table: each
// block then means the same whatever was sent before it, so one block serves every request on
// every connection.
function pushField(out, name, value) {
  const full = STATIC_FIELD.get(name + '\0' + value);
  if (full !== undefined) {
    pushInteger(out, full, 7, 0x80);
    return;
  }
  const index = STATIC_NAME.get(name) ?? 0;
  pushInteger(out, index, 4, 0x00);
  if (index === 0) pushString(out, name);
  pushString(out, value);
}

// RFC 9113 8.2.2: meaningless in HTTP/2, and a request carrying one is malformed.
const CONNECTION_SPECIFIC = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade']);
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/;
const BAD_VALUE = /[\0\r\n]/;

function checkValue(name, value) {
  if (BAD_VALUE.test(value)) throw new Error(`HTTP/2 header ${name}: a value may not contain NUL, CR or LF (RFC 9113 8.2.1)`);
}

/**
 * A request's header block, built once and sent as is for every request. Pseudo-headers that
 * are undefined are left out (CONNECT has no :scheme or :path). `headers`: [[name, value], ...]
 * with lowercase names. `sizeUpdate`: start the block with a dynamic table size update to 0,
 * which a peer whose SETTINGS_HEADER_TABLE_SIZE is under 4096 expects in the first block after
 * its settings (RFC 7541 4.2); it is valid at the start of any block. Throws for a header
 * HTTP/2 forbids: this runs at setup, never per request.
 */
export function encodeRequestHeaders({ method, scheme, authority, path, headers = [], sizeUpdate = false }) {
  const out = [];
  if (sizeUpdate) out.push(0x20);
  const pseudo = [
    [':method', method],
    [':scheme', scheme],
    [':authority', authority],
    [':path', path],
  ];
  for (const [name, value] of pseudo) {
    if (value === undefined || value === null) continue;
    checkValue(name, String(value));
    pushField(out, name, String(value));
  }
  for (const [name, raw] of Array.isArray(headers) ? headers : Object.entries(headers)) {
    const value = String(raw);
    if (typeof name !== 'string' || !TOKEN.test(name)) {
      if (typeof name === 'string' && TOKEN.test(name.toLowerCase())) {
        throw new Error(`HTTP/2 header names must be lowercase (RFC 9113 8.2.1): '${name}'`);
      }
      throw new Error(`Invalid HTTP/2 header name: '${name}'`);
    }
    if (CONNECTION_SPECIFIC.has(name)) {
      throw new Error(`Connection-specific header '${name}' is not allowed in HTTP/2 (RFC 9113 8.2.2)`);
    }
    if (name === 'te' && value !== 'trailers') {
      throw new Error(`HTTP/2 allows the te header only as 'trailers' (RFC 9113 8.2.2), not '${value}'`);
    }
    checkValue(name, value);
    pushField(out, name, value);
  }
  return Uint8Array.from(out);
}
