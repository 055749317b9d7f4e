// WebSocket bytes (RFC 6455): the upgrade handshake, frames, and the messages of a run. The
// incremental reader is src/websocket/frame-parser.js; the request loop over a connection is
// src/websocket/connection.js. Nothing here needs a runtime's WebSocket object, so every socket
// adapter (TLS included) carries WebSocket at the same cost as HTTP.

const encoder = new TextEncoder();

export const OP_CONTINUATION = 0;
export const OP_TEXT = 1;
export const OP_BINARY = 2;
export const OP_CLOSE = 8;
export const OP_PING = 9;
export const OP_PONG = 10;

// RFC 6455 section 1.3: the server proves it read the key by hashing it with this GUID.
const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

// loadtest 8 sends this when no body is given.
const DEFAULT_MESSAGE = '{"some":"message"}';

/**
 * SHA-1 of `bytes`, synchronous. WebCrypto's digest is async and the handshake needs one hash of
 * some 60 bytes per connection, so a small implementation (FIPS 180-4) is simpler than awaiting.
 */
export function sha1(bytes) {
  const total = ((bytes.length + 8) >> 6) * 64 + 64;
  const block = new Uint8Array(total);
  block.set(bytes);
  block[bytes.length] = 0x80;
  const view = new DataView(block.buffer);
  const bits = bytes.length * 8;
  view.setUint32(total - 8, Math.floor(bits / 0x100000000));
  view.setUint32(total - 4, bits >>> 0);
  let h0 = 0x67452301, h1 = 0xefcdab89, h2 = 0x98badcfe, h3 = 0x10325476, h4 = 0xc3d2e1f0;
  const w = new Int32Array(80);
  for (let off = 0; off < total; off += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getInt32(off + i * 4);
    for (let i = 16; i < 80; i++) {
      const x = w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16];
      w[i] = (x << 1) | (x >>> 31);
    }
    let a = h0, b = h1, c = h2, d = h3, e = h4;
    for (let i = 0; i < 80; i++) {
      let f, k;
      if (i < 20) (f = (b & c) | (~b & d)), (k = 0x5a827999);
      else if (i < 40) (f = b ^ c ^ d), (k = 0x6ed9eba1);
      else if (i < 60) (f = (b & c) | (b & d) | (c & d)), (k = 0x8f1bbcdc);
      else (f = b ^ c ^ d), (k = 0xca62c1d6);
      const t = (((a << 5) | (a >>> 27)) + f + e + k + w[i]) | 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = t;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
  }
  const out = new Uint8Array(20);
  const o = new DataView(out.buffer);
  [h0, h1, h2, h3, h4].forEach((h, i) => o.setInt32(i * 4, h));
  return out;
}

function base64(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]);
  return btoa(s);
}

/** A fresh Sec-WebSocket-Key: 16 random bytes in base64. */
export function newKey() {
  return base64(crypto.getRandomValues(new Uint8Array(16)));
}

/** A fresh 4-byte masking key. */
export function newMask() {
  return crypto.getRandomValues(new Uint8Array(4));
}

/** The Sec-WebSocket-Accept a server must answer to `key`. */
export function acceptFor(key) {
  return base64(sha1(encoder.encode(key + GUID)));
}

/**
 * The upgrade request's head as a template: handshakeRequest(template, key) gives the bytes.
 * Custom headers and cookies go along (authorization, origin, a subprotocol); the ones the
 * handshake itself needs cannot be overridden.
 */
export function handshakeTemplate(o) {
  const headers = { host: o.hostHeader, 'user-agent': `loadtest/${o.version}` };
  if (o.cookies && o.cookies.length) headers.cookie = o.cookies.join('; ');
  for (const name in o.headers) headers[name] = o.headers[name];
  for (const name of ['upgrade', 'connection', 'sec-websocket-key', 'sec-websocket-version', 'content-length', 'transfer-encoding']) delete headers[name];
  let head = `GET ${o.path} HTTP/1.1\r\n`;
  for (const name in headers) head += `${name}: ${headers[name]}\r\n`;
  return head + 'upgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-version: 13\r\nsec-websocket-key: ';
}

export function handshakeRequest(template, key) {
  return encoder.encode(`${template}${key}\r\n\r\n`);
}

/**
 * Checks the server's answer to the upgrade (its head, up to the blank line, as text).
 * Returns null when the connection is a WebSocket now, else the reason it is not.
 */
export function checkHandshake(headText, key) {
  const lines = headText.split('\r\n');
  const status = /^HTTP\/1\.\d (\d{3})/.exec(lines[0]);
  if (!status) return 'websocket upgrade: malformed response';
  if (status[1] !== '101') return `websocket upgrade refused: ${status[1]}`;
  const headers = {};
  for (let k = 1; k < lines.length; k++) {
    const colon = lines[k].indexOf(':');
    if (colon > 0) headers[lines[k].slice(0, colon).trim().toLowerCase()] = lines[k].slice(colon + 1).trim();
  }
  if ((headers.upgrade || '').toLowerCase() !== 'websocket' || !/(^|,)\s*upgrade\s*(,|$)/i.test(headers.connection || '')) {
    return 'websocket upgrade: 101 without upgrade: websocket';
  }
  if (headers['sec-websocket-accept'] !== acceptFor(key)) return 'websocket bad accept key';
  // We offered no extension: a server that uses one (compression) sends frames we cannot read.
  if (headers['sec-websocket-extensions']) return `websocket upgrade: unrequested extension ${headers['sec-websocket-extensions']}`;
  return null;
}

/**
 * One frame. `mask` (4 bytes) for a client's frames, null for a server's (RFC 6455 5.1).
 * Lengths use the shortest form: 7 bits, 16 bits after 126, 64 bits after 127.
 */
export function encodeFrame(opcode, payload, mask, fin = true) {
  const n = payload.length;
  const ext = n < 126 ? 0 : n < 65536 ? 2 : 8;
  const head = 2 + ext + (mask ? 4 : 0);
  const out = new Uint8Array(head + n);
  out[0] = (fin ? 0x80 : 0) | opcode;
  out[1] = (mask ? 0x80 : 0) | (ext === 0 ? n : ext === 2 ? 126 : 127);
  if (ext === 2) {
    out[2] = n >>> 8;
    out[3] = n & 255;
  } else if (ext === 8) {
    const view = new DataView(out.buffer);
    view.setUint32(2, Math.floor(n / 0x100000000));
    view.setUint32(6, n >>> 0);
  }
  if (mask) {
    out.set(mask, head - 4);
    for (let i = 0; i < n; i++) out[head + i] = payload[i] ^ mask[i & 3];
  } else {
    out.set(payload, head);
  }
  return out;
}

/** A close frame's payload: the status code, big-endian, then the reason in UTF-8. */
export function closePayload(code, reason = '') {
  const text = encoder.encode(reason);
  const out = new Uint8Array(2 + text.length);
  out[0] = code >>> 8;
  out[1] = code & 255;
  out.set(text, 2);
  return out;
}

/**
 * The messages of a run, in the shape src/http1/request.js gives requests: `fixed` is the payload of
 * every message (a connection frames it once, with its own mask), or null when messages differ
 * (a body function, --index), and build(index) gives { bytes (payload), binary, method, path }.
 * A string or object body goes as a text message (objects as JSON), bytes as a binary one.
 */
export function createMessages(o) {
  const binary = o.body instanceof Uint8Array;
  const payloadOf = (body) => (body === undefined || body === null || body === '' ? encoder.encode(DEFAULT_MESSAGE) : body instanceof Uint8Array ? body : typeof body === 'object' ? encoder.encode(JSON.stringify(body)) : encoder.encode(String(body)));
  const bodyFn = typeof o.body === 'function' ? o.body : null;
  const param = o.indexParam;
  if (!bodyFn && !(param && o.bodyText)) {
    const payload = o.bodyBytes || payloadOf(null);
    return { fixed: payload, binary, isHead: false, build: () => ({ bytes: payload, binary, method: 'GET', path: o.path }) };
  }
  return {
    fixed: null,
    binary,
    isHead: false,
    build(index) {
      let body;
      if (bodyFn) body = bodyFn(index);
      else body = o.bodyText.split(param).join(String(o.indexParamCallback ? o.indexParamCallback(index) : index));
      return { bytes: payloadOf(body), binary: body instanceof Uint8Array, method: 'GET', path: o.path };
    },
  };
}
