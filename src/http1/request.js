// Request bytes. A request shape is encoded once into a Uint8Array and written as is for every
// request; only requests that differ (an index parameter, a body function, a request generator)
// are encoded again.

const encoder = new TextEncoder();
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Encodes one request.
 * @param {{method: string, path: string, headers: Record<string, string>, body: Uint8Array|null, origin?: string}} r
 *   headers are lower-cased names in sending order; content-length is added for a body. origin
 *   ('http://host:port') makes the request line absolute-form, as a proxy wants it.
 */
export function encodeRequest({ method, path, headers, body, origin = '' }) {
  if (body && body.length > 0) return withBody(encodeHead({ method, path, headers, origin }), body);
  const length = method === 'POST' || method === 'PUT' || method === 'PATCH' ? 'content-length: 0\r\n' : '';
  return encoder.encode(`${headText(method, path, headers, origin)}${length}\r\n`);
}

// The request line and the header lines.
function headText(method, path, headers, origin) {
  let head = `${method} ${origin}${path} HTTP/1.1\r\n`;
  for (const name in headers) head += `${name}: ${headers[name]}\r\n`;
  return head;
}

/**
 * The request line and header lines of encodeRequest(), without its Content-Length and blank
 * line: the part of a request with a body that stays the same when only the body changes.
 */
export function encodeHead({ method, path, headers, origin = '' }) {
  return encoder.encode(headText(method, path, headers, origin));
}

/** encodeRequest()'s bytes from a head of encodeHead() and a body of at least one byte. */
export function withBody(head, body) {
  const length = `content-length: ${body.length}\r\n\r\n`;
  const bytes = new Uint8Array(head.length + length.length + body.length);
  bytes.set(head, 0);
  let p = head.length;
  for (let i = 0; i < length.length; i++) bytes[p++] = length.charCodeAt(i);
  bytes.set(body, p);
  return bytes;
}

/** A body option (string, object, bytes) as bytes; objects go as JSON, or as a form when asked. */
export function bodyBytes(body, contentType) {
  if (body === undefined || body === null || body === '') return null;
  if (body instanceof Uint8Array) return body;
  if (typeof body === 'string') return encoder.encode(body);
  if (typeof body === 'object') {
    if (contentType === 'application/x-www-form-urlencoded') {
      return encoder.encode(new URLSearchParams(body).toString());
    }
    return encoder.encode(JSON.stringify(body));
  }
  return encoder.encode(String(body));
}

/** Checks a method and header names/values so that a bad one is an error before any byte is sent. */
export function checkRequestParts(method, headers) {
  if (!TOKEN.test(method)) throw new Error(`invalid method '${method}'`);
  for (const name in headers) {
    if (!TOKEN.test(name)) throw new Error(`invalid header name '${name}'`);
    if (/[\r\n\0]/.test(String(headers[name]))) throw new Error(`invalid value for header '${name}'`);
  }
}

const CRLF = encoder.encode('\r\n');
const CONTENT_LENGTH = encoder.encode('content-length: ');
const SLAB = 64 * 1024;

/**
 * Requests that differ only by --index: the request is encoded once as the parts around each
 * place the index goes, and each request is those parts and the index's bytes written into a
 * shared slab, with no string building or encoding. A new Uint8Array per request costs more
 * than the rest of the request on V8 (bench/README.md); a slab is never written twice (a full
 * one is left to the requests that point into it and a new one is started), so earlier
 * requests' bytes stay valid for as long as a connection holds them.
 */
export function indexTemplate(o, headers, isHead) {
  let head = `${o.method} ${o.requestOrigin || ''}${o.path} HTTP/1.1\r\n`;
  for (const name in headers) head += `${name}: ${headers[name]}\r\n`;
  const headParts = head.split(o.indexParam).map((t) => encoder.encode(t));
  const bodyParts = o.bodyText ? o.bodyText.split(o.indexParam).map((t) => encoder.encode(t)) : [];
  const sum = (parts) => parts.reduce((n, p) => n + p.length, 0);
  const headFixed = sum(headParts);
  const bodyFixed = sum(bodyParts);
  // As encodeRequest: a length for any body, and a zero length for an empty POST, PUT, PATCH.
  const withLength = bodyParts.length > 0 || o.method === 'POST' || o.method === 'PUT' || o.method === 'PATCH';
  const callback = o.indexParamCallback;
  const keepPath = o.statusCallback || o.contentInspector;
  let value = new Uint8Array(64); // the index's bytes for the current request
  let slab = new Uint8Array(SLAB);
  let at = 0;
  const shape = { bytes: null, isHead, method: o.method, path: o.path };

  const put = (parts, valueLength) => {
    for (let k = 0; k < parts.length; k++) {
      if (k > 0) {
        slab.set(valueLength === value.length ? value : value.subarray(0, valueLength), at);
        at += valueLength;
      }
      slab.set(parts[k], at);
      at += parts[k].length;
    }
  };

  return {
    fixed: null,
    isHead,
    build(index) {
      let n;
      if (callback) {
        const text = String(callback(index));
        if (text.length * 3 > value.length) value = new Uint8Array(text.length * 3);
        n = encoder.encodeInto(text, value).written;
      } else {
        n = writeDigits(value, 0, index);
      }
      const bodyLength = bodyParts.length > 0 ? bodyFixed + (bodyParts.length - 1) * n : 0;
      const size = headFixed + (headParts.length - 1) * n + (withLength ? CONTENT_LENGTH.length + 20 : 0) + 2 + bodyLength;
      if (at + size > slab.length) {
        slab = new Uint8Array(Math.max(SLAB, size));
        at = 0;
      }
      const start = at;
      put(headParts, n);
      at = endHead(slab, at, withLength, bodyLength);
      if (bodyParts.length > 0) put(bodyParts, n);
      shape.bytes = slab.subarray(start, at);
      if (keepPath) shape.path = o.path.split(o.indexParam).join(new TextDecoder().decode(value.subarray(0, n)));
      return shape;
    },
  };
}

/**
 * The end of a head written into `buf` at `at`: `content-length: N` when `withLength`, then the
 * blank line. Returns the index after it.
 */
export function endHead(buf, at, withLength, bodyLength) {
  if (withLength) {
    buf.set(CONTENT_LENGTH, at);
    at = writeDigits(buf, at + CONTENT_LENGTH.length, bodyLength);
    buf.set(CRLF, at);
    at += 2;
  }
  buf.set(CRLF, at);
  return at + 2;
}

/** Writes a non-negative integer's decimal digits at `at`; returns the index after them. */
export function writeDigits(buf, at, n) {
  let digits = 1;
  for (let x = n; x >= 10; x = Math.floor(x / 10)) digits++;
  const end = at + digits;
  for (let i = end - 1; i >= at; i--) {
    buf[i] = 48 + (n % 10);
    n = Math.floor(n / 10);
  }
  return end;
}
