// Request bytes. A request shape is encoded once into a Uint8Array and written as is for every
// request; only requests that differ (an index parameter, a body function, a request generator)
// are encoded again.

import { recordingGenerator } from './http-generator.js';
import { entryPicker } from './sequence.js';

const encoder = new TextEncoder();
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Encodes one request.
 * @param {{method: string, path: string, headers: Record<string, string>, body: Uint8Array|null, origin?: string}} r
 *   headers are lower-cased names in sending order; content-length is added for a body. origin
 *   ('http://host:port') makes the request line absolute-form, as a proxy wants it.
 */
export function encodeRequest({ method, path, headers, body, origin = '' }) {
  let head = `${method} ${origin}${path} HTTP/1.1\r\n`;
  for (const name in headers) head += `${name}: ${headers[name]}\r\n`;
  if (body && body.length > 0) head += `content-length: ${body.length}\r\n`;
  else if (method === 'POST' || method === 'PUT' || method === 'PATCH') head += 'content-length: 0\r\n';
  head += '\r\n';
  const headBytes = encoder.encode(head);
  if (!body || body.length === 0) return headBytes;
  const all = new Uint8Array(headBytes.length + body.length);
  all.set(headBytes, 0);
  all.set(body, headBytes.length);
  return all;
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

/**
 * Builds the requests of a run.
 * Returns { fixed, isHead, build(index) }: `fixed` is the one Uint8Array every request uses, or
 * null when requests differ, in which case build(index) returns { bytes, isHead, method, path }.
 */
export function createRequests(o) {
  const baseHeaders = defaultHeaders(o);
  const replace = o.indexParam ? indexReplacer(o.indexParam, o.indexParamCallback) : null;
  const bodyFn = typeof o.body === 'function' ? o.body : null;
  const origin = o.requestOrigin || '';
  if (o.sequence) return sequenceRequests(o, baseHeaders, origin);

  if (o.requestGenerator) {
    // loadtest 8's (params, options, client, callback) form, recorded into the same shape.
    const generate = o.requestGenerator.length >= 3 ? recordingGenerator(o.requestGenerator, o, baseHeaders) : o.requestGenerator;
    return {
      fixed: null,
      isHead: false,
      build(index) {
        const g = generate(index, o) || {};
        const method = String(g.method || o.method).toUpperCase();
        const path = g.path || o.path;
        const headers = g.allHeaders ? {} : { ...baseHeaders };
        if (g.headers) for (const k in g.headers) headers[k.toLowerCase()] = String(g.headers[k]);
        const body = g.body !== undefined ? bodyBytes(g.body, headers['content-type']) : o.bodyBytes;
        if (body && !headers['content-type']) headers['content-type'] = 'text/plain';
        checkRequestParts(method, headers);
        return { bytes: encodeRequest({ method, path, headers, body, origin }), isHead: method === 'HEAD', method, path };
      },
    };
  }

  const isHead = o.method === 'HEAD';
  if (!replace && !bodyFn) {
    const bytes = encodeRequest({ method: o.method, path: o.path, headers: baseHeaders, body: o.bodyBytes, origin });
    const shape = { bytes, isHead, method: o.method, path: o.path };
    return { fixed: bytes, isHead, build: () => shape };
  }
  if (replace && !bodyFn) return indexTemplate(o, baseHeaders, isHead);
  return {
    fixed: null,
    isHead,
    build(index) {
      const value = replace ? replace.value(index) : '';
      const path = replace ? replace.in(o.path, value) : o.path;
      let body = o.bodyBytes;
      if (bodyFn) body = bodyBytes(bodyFn(index), o.contentType);
      else if (replace && o.bodyText) body = encoder.encode(replace.in(o.bodyText, value));
      return { bytes: encodeRequest({ method: o.method, path, headers: baseHeaders, body, origin }), isHead, method: o.method, path };
    },
  };
}

// A sequence's entries, each encoded once; the picker walks them per connection or by weight.
function sequenceRequests(o, baseHeaders, origin) {
  const shapes = o.sequence.map((e, entry) => {
    const headers = { ...baseHeaders };
    delete headers['content-type']; // the run's body is not the entries'
    for (const name in e.headers) headers[name] = e.headers[name];
    const body = e.body === undefined || e.body === null ? null : bodyBytes(e.body, headers['content-type']);
    if (body && !headers['content-type']) headers['content-type'] = typeof e.body === 'string' || e.body instanceof Uint8Array ? 'text/plain' : 'application/json';
    checkRequestParts(e.method, headers);
    return { bytes: encodeRequest({ method: e.method, path: e.path, headers, body, origin }), isHead: e.method === 'HEAD', method: e.method, path: e.path, entry };
  });
  const pick = entryPicker(o.sequence);
  return { fixed: null, isHead: false, build: (index, conn) => shapes[pick(conn)] };
}

function defaultHeaders(o) {
  // loadtest 8 sends host, user-agent and accept unless given; custom headers override them.
  const headers = {
    host: o.hostHeader,
    'user-agent': `loadtest/${o.version}`,
    accept: '*/*',
    connection: o.keepAlive ? 'keep-alive' : 'close',
  };
  if (o.cookies && o.cookies.length) headers.cookie = o.cookies.join('; ');
  if (o.proxyAuthorization) headers['proxy-authorization'] = o.proxyAuthorization;
  if (o.body !== undefined && o.body !== null && o.body !== '') headers['content-type'] = o.contentType || 'text/plain';
  for (const name in o.headers) headers[name] = o.headers[name];
  return headers;
}

function indexReplacer(param, callback) {
  return {
    value: (index) => String(callback ? callback(index) : index),
    in: (text, value) => text.split(param).join(value),
  };
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
function indexTemplate(o, headers, isHead) {
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
      if (withLength) {
        slab.set(CONTENT_LENGTH, at);
        at = writeDigits(slab, at + CONTENT_LENGTH.length, bodyLength);
        slab.set(CRLF, at);
        at += 2;
      }
      slab.set(CRLF, at);
      at += 2;
      if (bodyParts.length > 0) put(bodyParts, n);
      shape.bytes = slab.subarray(start, at);
      if (keepPath) shape.path = o.path.split(o.indexParam).join(new TextDecoder().decode(value.subarray(0, n)));
      return shape;
    },
  };
}

// Writes a non-negative integer's decimal digits at `at`; returns the index after them.
function writeDigits(buf, at, n) {
  let digits = 1;
  for (let x = n; x >= 10; x = Math.floor(x / 10)) digits++;
  const end = at + digits;
  for (let i = end - 1; i >= at; i--) {
    buf[i] = 48 + (n % 10);
    n = Math.floor(n / 10);
  }
  return end;
}
