// The parts of a k6/net/grpc call that a Client's invoke() and a Stream share: the call's params
// and tags as k6 reads them, its header fields, its request message encoded, its bytes counted
// for the VU, whether it ended at its deadline, and Go's names of the status codes.

import { protojson } from '../../../grpc/protobuf.js';
import { frameMessage } from '../../../grpc/frame.js';
import { parseDuration } from '../../scenarios/duration.js';

// Go's codes.Code names, as an rpc error's text says them.
export const CODE_WORDS = ['OK', 'Canceled', 'Unknown', 'InvalidArgument', 'DeadlineExceeded', 'NotFound', 'AlreadyExists', 'PermissionDenied', 'ResourceExhausted', 'FailedPrecondition', 'Aborted', 'OutOfRange', 'Unimplemented', 'Internal', 'Unavailable', 'DataLoss', 'Unauthenticated'];

/** The request message of `type` from the script's object, framed; throws `what: reason`. */
export function encodeRequest(type, value, what) {
  // As k6: the object as JSON (NaN and the infinities as their ProtoJSON strings), then ProtoJSON.
  // Without a replacer first (V8's fast path): a text without null had no number to replace.
  let text = JSON.stringify(value) ?? 'null';
  if (text.includes('null')) text = JSON.stringify(value, finite) ?? 'null';
  // A script sends the same message again and again: the same text is the same bytes, not
  // encoded again (ProtoJSON and protobufjs were a fifth of a call's CPU on node).
  const last = encoded.get(type);
  if (last !== undefined && last.text === text) return last.framed;
  const json = JSON.parse(text);
  let message;
  try {
    message = protojson.fromJson(type, json);
  } catch (err) {
    // protobufjs names the field as .pkg.Type.field: the message's own type goes without saying.
    const own = type.fullName;
    const m = err.message;
    const reason = m.startsWith(`${own}.`) ? m.slice(own.length + 1) : m.startsWith(`${own}:`) ? m.slice(own.length + 2) : m.replace(/^\./, '');
    throw new Error(`${what}: proto: ${reason}`);
  }
  const framed = frameMessage(type.encode(message).finish());
  // Only a short text is kept: a large one would cost its keeping and its comparing.
  if (text.length <= 4096) encoded.set(type, { text, framed });
  return framed;
}

const encoded = new WeakMap(); // a message type → the text of its last message, and its bytes framed (read, never changed)
const finite = (k, v) => (typeof v === 'number' && !Number.isFinite(v) ? (Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity') : v);

// Whether a call that took `took` ms ended at its deadline (`timeout` ms, 0: none): k6 pushes
// no sample then. The server's DEADLINE_EXCEEDED comes at the deadline it was sent
// (grpc-timeout) as its own clock reads it, which may be a millisecond or two ahead of ours.
const CLOCK_SLACK = 5;
export const pastDeadline = (took, timeout) => timeout > 0 && took >= timeout - CLOCK_SLACK;

/** What the connection wrote and read since it was last asked, the VU's: its data_sent and data_received at the iteration's end. */
export function countBytes(vu, channel) {
  const sent = channel.sent;
  const received = channel.stats.bytes;
  channel.sent = 0;
  channel.stats.bytes = 0;
  vu.bytesSent += sent;
  vu.bytesReceived += received;
}

/**
 * The tags of a call's samples: the VU's, the script's, then k6's system tags, those of the run
 * (src/script/scenarios/system-tags.js); `ip`: the address connected to. Its status comes with its
 * end (withStatus()).
 */
export function callTags(vu, userTags, addr, path, ip) {
  const st = vu.shared.systemTags;
  const tags = vu.tags();
  if (userTags) for (const k in userTags) tags[k] = String(userTags[k]);
  const [service, method] = path.slice(1).split('/');
  if (st.url) tags.url = `${addr}${path}`;
  if (st.service) tags.service = service;
  if (st.method) tags.method = method;
  // As k6 (grpc/params.go): a name among the VU's tags or the call's stays.
  if (tags.name === undefined && st.name) tags.name = path;
  if (st.ip && ip) tags.ip = ip;
  return tags;
}

/** `tags` with a call's gRPC status code, where status is a system tag of the run. */
export function withStatus(vu, tags, code) {
  if (vu.shared.systemTags.status) tags.status = String(code);
  return tags;
}

/** A call's header fields after the pseudo-headers, in grpc-go's order. */
export function callHeaders(vu, timeoutMs, metadata) {
  if (metadata.length === 0) {
    // The common call (no metadata): the same list each time, so that the channel finds its
    // HPACK block by the list (GrpcChannel.headerBlock). Read, never changed.
    let lists = plainHeaders.get(vu);
    if (lists === undefined) plainHeaders.set(vu, (lists = new Map()));
    let list = lists.get(timeoutMs);
    if (list === undefined) {
      if (lists.size >= 64) lists.clear();
      lists.set(timeoutMs, (list = headerList(vu, timeoutMs, metadata)));
    }
    return list;
  }
  return headerList(vu, timeoutMs, metadata);
}

const plainHeaders = new WeakMap(); // a VU → its header lists without metadata, by timeout

function headerList(vu, timeoutMs, metadata) {
  const list = [['content-type', 'application/grpc'], ['user-agent', vu.options.userAgent || `loadtest/${vu.shared.version} (k6 script)`], ['te', 'trailers']];
  if (timeoutMs > 0) list.push(['grpc-timeout', `${Math.ceil(timeoutMs)}m`]);
  for (const [k, v] of metadata) list.push([k, v]);
  return list;
}

// The params of a call that gave none: read, never changed.
const NO_PARAMS = Object.freeze({ metadata: Object.freeze([]), tags: null, timeout: 0, discardResponseMessage: false });

/** A call's params ({ metadata, tags, timeout, discardResponseMessage }) as k6 reads them. */
export function callParams(input, what) {
  if (input === undefined || input === null) return NO_PARAMS;
  const out = { metadata: [], tags: null, timeout: 0, discardResponseMessage: false };
  for (const k of Object.keys(input)) {
    const v = input[k];
    if (k === 'metadata') out.metadata = metadataOf(v, `${what}: invalid metadata param`);
    else if (k === 'tags') out.tags = v && typeof v === 'object' ? v : null;
    else if (k === 'timeout') out.timeout = durationOf(v, `${what}: invalid timeout value`);
    else if (k === 'discardResponseMessage') out.discardResponseMessage = Boolean(v);
    else throw new Error(`${what}: unknown param: "${k}"`);
  }
  return out;
}

export function metadataOf(v, what) {
  const out = [];
  if (v === undefined || v === null) return out;
  if (typeof v !== 'object' || Array.isArray(v)) throw new Error(`${what}: must be an object with key-value pairs`);
  for (const [key, value] of Object.entries(v)) {
    const k = key.toLowerCase();
    if (k.endsWith('-bin')) {
      const bytes = value instanceof ArrayBuffer ? new Uint8Array(value) : value instanceof Uint8Array ? value : null;
      if (bytes === null) throw new Error(`${what}: "${key}" value must be binary`);
      out.push([k, btoa(String.fromCharCode(...bytes)).replace(/=+$/, '')]);
    } else if (typeof value !== 'string') throw new Error(`${what}: "${key}" value must be a string`);
    else out.push([k, value]);
  }
  return out;
}

export function durationOf(v, what) {
  try {
    return parseDuration(v, what);
  } catch {
    throw new Error(`${what}: time: invalid duration "${v}"`); // Go's time.ParseDuration's words
  }
}
