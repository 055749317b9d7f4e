// What a k6/http call's body and params become: the body's bytes (a string, bytes, a form, a
// multipart form with files), and the params k6 parses and may refuse (timeout, responseType).

import { joinChunks } from '../../../http1/captured.js';
import { parseDuration } from '../../scenarios/duration.js';
import { goForm, goType, goValue } from './go-value.js';

const encoder = new TextEncoder();

/** The bytes of a call's body, or null; `headers` (the call's own) gets the Content-Type a form needs. */
export function bodyOf(body, headers) {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string') return encoder.encode(body);
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (typeof body === 'object') {
    if (Object.values(body).some((v) => v instanceof FileData)) return multipart(body, headers);
    // k6 sends an object as a form.
    if (!hasHeader(headers, 'content-type')) headers['Content-Type'] = 'application/x-www-form-urlencoded';
    return encoder.encode(goForm(body));
  }
  return encoder.encode(String(body));
}

function multipart(body, headers) {
  const boundary = randomBoundary();
  headers['Content-Type'] = `multipart/form-data; boundary=${boundary}`;
  const parts = [];
  for (const [k, v] of Object.entries(body)) {
    if (v instanceof FileData) {
      parts.push(encoder.encode(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"; filename="${escapeQuotes(v.filename)}"\r\nContent-Type: ${v.content_type}\r\n\r\n`));
      parts.push(typeof v.data === 'string' ? encoder.encode(v.data) : v.data instanceof ArrayBuffer ? new Uint8Array(v.data) : v.data);
      parts.push(encoder.encode('\r\n'));
    } else {
      parts.push(encoder.encode(`--${boundary}\r\nContent-Disposition: form-data; name="${escapeQuotes(k)}"\r\n\r\n${goValue(v)}\r\n`));
    }
  }
  parts.push(encoder.encode(`--${boundary}--\r\n`));
  return joinChunks(parts);
}

/**
 * http.file(): a part of a multipart form. As k6: its data a string or an ArrayBuffer (anything
 * else refused, named by its Go type), its name the time in ns when none is given.
 */
export function fileOf(data, filename, contentType = 'application/octet-stream') {
  if (typeof data !== 'string' && !(data instanceof ArrayBuffer)) throw new Error(`invalid type ${goType(data)}, expected string or ArrayBuffer`);
  if (filename === undefined) filename = String(BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e3)) * 1000n);
  return new FileData(data, String(filename), String(contentType));
}

// Its own type, so that a form tells a file from a field (its keys are k6's three).
class FileData {
  constructor(data, filename, contentType) {
    this.data = data;
    this.filename = filename;
    this.content_type = contentType;
  }
}

// As Go's multipart writer's: 30 random bytes in hex.
function randomBoundary() {
  const bytes = crypto.getRandomValues(new Uint8Array(30));
  let hex = '';
  for (const b of bytes) hex += b.toString(16).padStart(2, '0');
  return hex;
}

// A field's name and a file's name in their quotes, as Go's multipart writer (a file part's
// field name is k6's own line, and is not).
const escapeQuotes = (text) => String(text).replace(/[\\"]/g, (c) => `\\${c}`);

export const hasHeader = (headers, name) => Object.keys(headers).some((k) => k.toLowerCase() === name);

// k6's timeout param: ms as a number or a numeric string, or a duration ('10s', '1m30s').
export function timeoutMs(value, fallback) {
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'number') return value;
  const text = String(value);
  if (text.trim() !== '' && Number.isFinite(Number(text))) return Number(text);
  try {
    return parseDuration(text, 'timeout');
  } catch {
    throw new Error(`invalid timeout value: time: invalid duration ${JSON.stringify(text)}`);
  }
}

export const RESPONSE_TYPES = ['text', 'binary', 'none'];
