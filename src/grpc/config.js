// A gRPC run's configuration (grpc:// and grpcs:// URLs): an HTTP/2 run of one unary call, its
// request built once as HTTP/2 frames (src/http2/request.js) whose body is the framed request
// message. What an HTTP run's options would change and a call cannot is refused, by name.

import { callCode } from './status.js';

const TEXT = new TextDecoder();
const UTF8 = new TextEncoder();

// gRPC's Custom-Metadata names (grpc/doc/PROTOCOL-HTTP2.md): lower-case, digits, _ - . only;
// grpc-* is reserved to gRPC itself, and these are the call's own.
const KEY = /^[0-9a-z_.-]+$/;
const OWN = new Set(['content-type', 'te', 'host', 'connection', 'content-length']);
const ASCII_VALUE = /^[\x20-\x7e]*$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

// The options of an HTTP run that a call has no place for (its method, path, headers and
// body are gRPC's), each with what to use instead.
const REFUSED = [
  ['method', 'a call is a POST'],
  ['contentType', 'a call is application/grpc'],
  ['requestGenerator', 'a call is the one --call'],
  ['requests', 'a call is the one --call'],
  ['urls', 'a call is the one --call'],
  ['check', 'calls are counted by grpc-status'],
  ['proxy', 'HTTP/2 does not go through a proxy here'],
];

/**
 * Makes `config` (src/run/options.js's, for a grpc:// or grpcs:// URL) the run of the call
 * `call` ({ call, path, encode }, resolved from options.grpc in src/index.js).
 */
export function grpcConfig(config, options, call) {
  for (const [name, why] of REFUSED) {
    const v = options[name];
    if (v !== undefined && v !== null && v !== false) throw new Error(`${name} does not apply to gRPC (${why})`);
  }
  if (Object.keys(config.headers).length > 0) throw new Error('headers do not apply to gRPC: give metadata (--metadata key=value)');
  if (config.cookies.length > 0) throw new Error('cookies do not apply to gRPC: give metadata (--metadata key=value)');
  if (config.pipelining > 1) throw new Error('pipelining does not apply to gRPC (use streams: several calls in flight on a connection)');
  if (typeof config.body === 'function') throw new Error('a body function does not apply to gRPC: give the message as JSON (--data, --data-file), with {{column}} places for --feed');
  const headers = { 'content-type': 'application/grpc', te: 'trailers', ...metadataOf(options.grpc && options.grpc.metadata) };
  // The deadline goes to the server too (grpc-timeout, in ms), as a gRPC client's would: it may
  // answer DEADLINE_EXCEEDED before our own --timeout cancels the stream.
  if (config.timeout > 0) headers['grpc-timeout'] = `${Math.ceil(config.timeout)}m`;
  config.grpc = { call: call.call, encode: call.encode, codeOf: callCode };
  config.http2 = true;
  config.keepAlive = true;
  config.method = 'POST';
  config.path = call.path;
  config.headers = headers;
  // The message as JSON text (an object is made JSON); none is the default message, {}.
  config.bodyBytes = jsonBytes(config.body);
  // Checked now, so that a body that does not fit is one line before the run; a templated body
  // is checked with each of its values (src/requests/requests.js).
  // (--index: with the index 0 in its place.)
  const text = TEXT.decode(config.bodyBytes);
  if (!/\{\{/.test(text)) call.encode(config.indexParam ? text.split(config.indexParam).join('0') : text, 'the message');
}

function jsonBytes(body) {
  if (body === undefined || body === null || body === '') return UTF8.encode('{}');
  if (body instanceof Uint8Array) return body;
  return UTF8.encode(typeof body === 'string' ? body : JSON.stringify(body));
}

/** options.grpc.metadata ({ key: value } or ['key=value', ...]) as checked header fields. */
export function metadataOf(raw) {
  const out = {};
  if (raw === undefined || raw === null) return out;
  const pairs = Array.isArray(raw) ? raw.map(splitPair) : Object.entries(raw).map(([k, v]) => [k, String(v)]);
  for (const [key, value] of pairs) {
    const k = key.toLowerCase();
    if (!KEY.test(k)) throw new Error(`metadata key '${key}': only a-z, 0-9, '_', '-' and '.' (gRPC's Custom-Metadata)`);
    if (k.startsWith('grpc-') || OWN.has(k)) throw new Error(`metadata key '${key}' is the call's own (reserved by gRPC)`);
    if (k.endsWith('-bin') ? !BASE64.test(value) : !ASCII_VALUE.test(value)) {
      throw new Error(`metadata '${key}': ${k.endsWith('-bin') ? 'a -bin value is base64' : 'a value is printable ASCII (binary values go in a key ending in -bin, as base64)'}`);
    }
    out[k] = k in out ? `${out[k]},${value}` : value;
  }
  return out;
}

function splitPair(text) {
  const at = String(text).indexOf('=');
  if (at <= 0) throw new Error(`metadata '${text}': use key=value`);
  return [text.slice(0, at).trim(), text.slice(at + 1).trim()];
}
