// What a k6/http call's body and params become: the body's bytes (a string, bytes, a form, a
// multipart form with files), and the params k6 parses and may refuse (timeout, responseType).

import { joinChunks } from '../../http1/captured.js';
import { parseDuration } from '../duration.js';

const encoder = new TextEncoder();

/** The bytes of a call's body, or null; `headers` (the call's own) gets the Content-Type a form needs. */
export function bodyOf(body, headers) {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string') return encoder.encode(body);
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (typeof body === 'object') {
    if (Object.values(body).some((v) => v && v.__file)) return multipart(body, headers);
    // k6 sends an object as a form.
    if (!hasHeader(headers, 'content-type')) headers['Content-Type'] = 'application/x-www-form-urlencoded';
    const form = new URLSearchParams();
    // A list is the key repeated, as k6 (Go's url.Values) sends it.
    for (const [k, v] of Object.entries(body)) for (const x of Array.isArray(v) ? v : [v]) form.append(k, String(x));
    return encoder.encode(form.toString());
  }
  return encoder.encode(String(body));
}

function multipart(body, headers) {
  const boundary = `loadtest${Math.random().toString(16).slice(2)}${Date.now().toString(16)}`;
  headers['Content-Type'] = `multipart/form-data; boundary=${boundary}`;
  const parts = [];
  for (const [k, v] of Object.entries(body)) {
    if (v && v.__file) {
      parts.push(encoder.encode(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"; filename="${v.filename || k}"\r\nContent-Type: ${v.content_type}\r\n\r\n`));
      parts.push(typeof v.data === 'string' ? encoder.encode(v.data) : v.data instanceof ArrayBuffer ? new Uint8Array(v.data) : v.data);
      parts.push(encoder.encode('\r\n'));
    } else {
      parts.push(encoder.encode(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
    }
  }
  parts.push(encoder.encode(`--${boundary}--\r\n`));
  return joinChunks(parts);
}

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
