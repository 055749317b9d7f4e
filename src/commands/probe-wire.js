// What went over the wire in a probe (--probe), in words: bytes as text with whatever is not
// printable escaped, HTTP/1.1 heads, WebSocket frames, and HTTP/2 frames with their header
// blocks decoded. Nothing here checks the protocol: the run's drivers have done that; this only
// shows the bytes they sent and read.

import { HpackDecoder } from '../http2/hpack.js';
import { PREFACE, ERROR_NAMES, HEADERS, CONTINUATION, SETTINGS, PING, WINDOW_UPDATE, RST_STREAM, GOAWAY, DATA, PUSH_PROMISE, END_STREAM, END_HEADERS, PADDED, PRIORITY_FLAG, ACK, readU32 } from '../http2/frames.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });
const hex = (b) => '\\x' + b.toString(16).padStart(2, '0');
const ESCAPES = { 9: '\t', 10: '\\n', 13: '\\r' };

// The character of the valid UTF-8 sequence at `i`, or null.
function charAt(bytes, i, end) {
  const b = bytes[i];
  const n = b >= 0xc2 && b < 0xe0 ? 2 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
  if (n === 0 || i + n > end) return null;
  try {
    return utf8.decode(bytes.subarray(i, i + n)); // overlong forms and surrogates throw
  } catch {
    return null;
  }
}

/**
 * Bytes as one line of text: printable ASCII, tabs and valid UTF-8 as they are, every other byte
 * as \xNN (CR and LF as \r and \n, so that the line stays one line).
 */
export function escapeBytes(bytes, start = 0, end = bytes.length) {
  let out = '';
  for (let i = start; i < end; ) {
    const b = bytes[i];
    if (b >= 0x20 && b < 0x7f) {
      out += String.fromCharCode(b);
      i++;
      continue;
    }
    const char = b >= 0x80 ? charAt(bytes, i, end) : null;
    // C1 controls are valid UTF-8 but print as nothing.
    const code = char === null ? 0 : char.codePointAt(0);
    if (code >= 0xa0) {
      out += char;
      i += code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    } else {
      out += ESCAPES[b] || hex(b);
      i++;
    }
  }
  return out;
}

/**
 * Bytes as lines, one for each LF. `wire`: a protocol's text (a head, a request), whose lines
 * end in CRLF: a line that ends in a bare LF shows it (\n), so the bytes can be told apart.
 * A body's lines are shown without their endings.
 */
export function textLines(bytes, { wire = false } = {}) {
  const lines = [];
  let from = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] !== 10) continue;
    const crlf = i > from && bytes[i - 1] === 13;
    lines.push(escapeBytes(bytes, from, crlf ? i - 1 : i) + (wire && !crlf ? '\\n' : ''));
    from = i + 1;
  }
  if (from < bytes.length) lines.push(escapeBytes(bytes, from, bytes.length));
  return lines;
}

/** Where the head that starts at `from` ends (after its blank line), or -1 if it does not. */
export function headEnd(bytes, from = 0) {
  for (let i = from; i < bytes.length; i++) {
    if (bytes[i] !== 10) continue;
    if (bytes[i + 1] === 10) return i + 2;
    if (bytes[i + 1] === 13 && bytes[i + 2] === 10) return i + 3;
  }
  return -1;
}

/**
 * The end of an HTTP/1.1 response's heads: interim 1xx heads (RFC 9110 15.2) come before the
 * final one, and all of them were received; 101 is final (the protocol changes after it).
 */
export function responseHeadEnd(bytes) {
  let at = 0;
  for (;;) {
    const end = headEnd(bytes, at);
    if (end < 0) return -1;
    const status = /^HTTP\/\d(?:\.\d)? (\d{3})/.exec(new TextDecoder('latin1').decode(bytes.subarray(at, Math.min(end, at + 16))));
    if (!status || !status[1].startsWith('1') || status[1] === '101' || end >= bytes.length) return end;
    at = end;
  }
}

/** A payload in a line: its first `max` bytes as text, and how many more there were. */
export function preview(bytes, max) {
  if (bytes.length <= max) return escapeBytes(bytes);
  return `${escapeBytes(bytes, 0, max)} … (${bytes.length - max} more bytes)`;
}

const WS_OPCODES = { 0: 'continuation', 1: 'text', 2: 'binary', 8: 'close', 9: 'ping', 10: 'pong' };

/**
 * The WebSocket frames in `bytes` (RFC 6455 5.2), unmasked, each in words: "text frame, 5
 * bytes, masked: hello". A frame cut short by the end of the bytes is said to be.
 */
export function webSocketFrames(bytes, max = 64) {
  const lines = [];
  let at = 0;
  while (at < bytes.length) {
    if (at + 2 > bytes.length) break;
    const fin = (bytes[at] & 0x80) !== 0;
    const opcode = bytes[at] & 0x0f;
    const masked = (bytes[at + 1] & 0x80) !== 0;
    let length = bytes[at + 1] & 0x7f;
    let p = at + 2;
    if (length === 126) {
      if (p + 2 > bytes.length) break;
      length = (bytes[p] << 8) | bytes[p + 1];
      p += 2;
    } else if (length === 127) {
      if (p + 8 > bytes.length) break;
      length = readU32(bytes, p) * 2 ** 32 + readU32(bytes, p + 4);
      p += 8;
    }
    const mask = masked ? bytes.subarray(p, p + 4) : null;
    if (masked) p += 4;
    const payload = bytes.slice(p, Math.min(p + length, bytes.length));
    if (mask !== null) for (let i = 0; i < payload.length; i++) payload[i] ^= mask[i & 3];
    const name = WS_OPCODES[opcode] ? `${WS_OPCODES[opcode]} frame` : `frame of opcode ${opcode}`;
    const words = [name + (fin ? '' : ' (not the last of its message)'), `${length} bytes`];
    if (masked) words.push('masked');
    let text = opcode === 8 && payload.length >= 2 ? `${(payload[0] << 8) | payload[1]} ${preview(payload.subarray(2), max)}`.trim() : preview(payload, max);
    if (payload.length < length) text += ` (cut short: ${payload.length} of ${length} bytes came)`;
    lines.push(words.join(', ') + (text ? `: ${text}` : ''));
    at = p + length;
  }
  if (at < bytes.length) lines.push(`${bytes.length - at} bytes of a frame cut short`);
  return lines;
}

/**
 * Whether a server's bytes start as HTTP/2 does: with its SETTINGS frame (RFC 9113 3.4). An
 * HTTP/1.1 server's answer to the preface is text, better shown as such than as frames.
 */
export function startsLikeHttp2(bytes) {
  return bytes.length < 4 || bytes[3] === SETTINGS;
}

const H2_TYPES = ['DATA', 'HEADERS', 'PRIORITY', 'RST_STREAM', 'SETTINGS', 'PUSH_PROMISE', 'PING', 'GOAWAY', 'WINDOW_UPDATE', 'CONTINUATION'];
const H2_SETTINGS = [null, 'HEADER_TABLE_SIZE', 'ENABLE_PUSH', 'MAX_CONCURRENT_STREAMS', 'INITIAL_WINDOW_SIZE', 'MAX_FRAME_SIZE', 'MAX_HEADER_LIST_SIZE', null, 'ENABLE_CONNECT_PROTOCOL'];

// The flags a frame type defines (RFC 9113 6), by name.
function flagNames(type, flags) {
  const names = [];
  if ((type === DATA || type === HEADERS) && flags & END_STREAM) names.push('END_STREAM');
  if ((type === SETTINGS || type === PING) && flags & ACK) names.push('ACK');
  if ((type === HEADERS || type === CONTINUATION || type === PUSH_PROMISE) && flags & END_HEADERS) names.push('END_HEADERS');
  if ((type === DATA || type === HEADERS || type === PUSH_PROMISE) && flags & PADDED) names.push('PADDED');
  if (type === HEADERS && flags & PRIORITY_FLAG) names.push('PRIORITY');
  return names;
}

// A HEADERS frame's header block fragment, without its padding and priority fields (6.2).
function fragmentOf(type, flags, payload) {
  if (type !== HEADERS) return payload;
  let from = 0;
  let to = payload.length;
  if (flags & PADDED) {
    from = 1;
    to -= payload[0];
  }
  if (flags & PRIORITY_FLAG) from += 5;
  return payload.subarray(from, Math.max(from, to));
}

// What a frame's payload says, when it is not a header block.
function payloadWords(type, payload, max) {
  if (type === SETTINGS) {
    const list = [];
    for (let at = 0; at + 6 <= payload.length; at += 6) {
      const id = (payload[at] << 8) | payload[at + 1];
      list.push(`${H2_SETTINGS[id] || `0x${id.toString(16)}`}=${readU32(payload, at + 2)}`);
    }
    return list.join(' ');
  }
  if (type === WINDOW_UPDATE && payload.length >= 4) return `increment ${readU32(payload, 0) & 0x7fffffff}`;
  if (type === RST_STREAM && payload.length >= 4) return ERROR_NAMES[readU32(payload, 0)] || `error 0x${readU32(payload, 0).toString(16)}`;
  if (type === GOAWAY && payload.length >= 8) {
    const code = readU32(payload, 4);
    const debug = payload.length > 8 ? ` ${preview(payload.subarray(8), max)}` : '';
    return `last stream ${readU32(payload, 0) & 0x7fffffff}, ${ERROR_NAMES[code] || `error 0x${code.toString(16)}`}${debug}`;
  }
  if (type === DATA && max > 0) return preview(payload, max);
  return '';
}

/**
 * The HTTP/2 frames of one direction of a connection (RFC 9113 4.1), the client's connection
 * preface first when it is there, each as a line ("HEADERS stream 1, 40 bytes, END_STREAM
 * END_HEADERS") and a complete header block as its fields under it, decoded with one HPACK
 * table for the direction, as the peer decodes it. `max`: DATA bytes shown per frame (0: none);
 * `limit`: frames listed at most.
 */
export function http2Frames(bytes, { max = 0, limit = 40 } = {}) {
  const lines = [];
  let at = 0;
  if (bytes.length >= PREFACE.length && PREFACE.every((b, i) => bytes[i] === b)) {
    lines.push('connection preface: PRI * HTTP/2.0');
    at = PREFACE.length;
  }
  const hpack = new HpackDecoder({ maxTableSize: 65536, maxHeaderListSize: 1 << 20 });
  let block = null; // the fragments of a header block until END_HEADERS
  let frames = 0;
  while (at + 9 <= bytes.length) {
    const length = (bytes[at] << 16) | (bytes[at + 1] << 8) | bytes[at + 2];
    const type = bytes[at + 3];
    const flags = bytes[at + 4];
    const stream = readU32(bytes, at + 5) & 0x7fffffff;
    const payload = bytes.subarray(at + 9, Math.min(at + 9 + length, bytes.length));
    at += 9 + length;
    if (++frames > limit) continue;
    const name = H2_TYPES[type] || `type 0x${type.toString(16)}`;
    const words = [`${name} stream ${stream}`, `${length} bytes`, ...flagNames(type, flags)];
    if (payload.length < length) words.push(`cut short: ${payload.length} of ${length} bytes came`);
    const said = payloadWords(type, payload, max);
    lines.push(words.join(', ') + (said ? `: ${said}` : ''));
    if (type === HEADERS || (type === CONTINUATION && block !== null)) {
      block = block === null ? [fragmentOf(type, flags, payload)] : [...block, payload];
      if (flags & END_HEADERS) {
        lines.push(...headerBlock(hpack, block));
        block = null;
      }
    }
  }
  if (frames > limit) lines.push(`… and ${frames - limit} more frames`);
  if (at < bytes.length) lines.push(`${bytes.length - at} bytes of a frame cut short`);
  return lines;
}

function headerBlock(hpack, fragments) {
  const all = new Uint8Array(fragments.reduce((n, f) => n + f.length, 0));
  let at = 0;
  for (const f of fragments) all.set(f, at), (at += f.length);
  const err = hpack.decode(all, true);
  if (err !== null) return [`  (header block not decoded: ${err})`];
  return hpack.headers.map(([name, value]) => `  ${name}: ${value}`);
}
