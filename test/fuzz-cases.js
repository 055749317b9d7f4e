// Cases for fuzzing the parsers, shared by test/parser-fuzz.test.js (a few seconds in the
// suite) and test/fuzz.js (`npm run fuzz`, as long as asked). Everything is drawn from a seeded
// generator (test/random.js), so a failure reproduces from its seed.

import { ResponseParser } from '../src/http1/parser.js';
import { decodeChunks } from '../src/http1/captured.js';
import { FrameParser } from '../src/websocket/frame-parser.js';
import { FrameParser as H2FrameParser, writeHeader } from '../src/http2/frames.js';
import { HpackDecoder } from '../src/http2/hpack.js';
import { encodeRequestHeaders } from '../src/http2/hpack-encode.js';

const enc = new TextEncoder();

function concat(arrays) {
  const out = new Uint8Array(arrays.reduce((n, a) => n + a.length, 0));
  let at = 0;
  for (const a of arrays) {
    out.set(a, at);
    at += a.length;
  }
  return out;
}

const int = (rng, n) => Math.floor(rng() * n);
const pick = (rng, list) => list[int(rng, list.length)];

// A header name in a random case: parsers must match names case-insensitively.
function randomCase(rng, text) {
  let out = '';
  for (const ch of text) out += rng() < 0.5 ? ch.toUpperCase() : ch.toLowerCase();
  return out;
}

function randomText(rng, n, alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789 -_.,;=/') {
  let s = '';
  for (let k = 0; k < n; k++) s += alphabet[int(rng, alphabet.length)];
  return s;
}

function randomBytes(rng, n) {
  const b = new Uint8Array(n);
  for (let k = 0; k < n; k++) b[k] = int(rng, 256);
  return b;
}

function otherHeaders(rng) {
  let s = '';
  for (let k = int(rng, 4); k > 0; k--) s += `X-${randomText(rng, 1 + int(rng, 8), 'abcdefgh')}:${rng() < 0.8 ? ' ' : ''}${randomText(rng, int(rng, 30))}\r\n`;
  if (rng() < 0.1) s += `X-Folded: a\r\n ${randomText(rng, 5, 'xyz')}\r\n`; // obs-fold
  return s;
}

function chunkedBody(rng, body) {
  const parts = [];
  let at = 0;
  while (at < body.length) {
    const n = Math.min(body.length - at, 1 + int(rng, 64));
    let size = n.toString(16);
    if (rng() < 0.3) size = size.toUpperCase();
    if (rng() < 0.1) size = '00' + size;
    const ext = rng() < 0.3 ? pick(rng, [';a=b', '; name="x y"', ';ext', ' ;q=1']) : '';
    parts.push(enc.encode(`${size}${ext}\r\n`), body.subarray(at, at + n), enc.encode('\r\n'));
    at += n;
  }
  const trailers = rng() < 0.3 ? `X-Trailer: ${randomText(rng, 5)}\r\n` : '';
  parts.push(enc.encode(`0${rng() < 0.2 ? ';last' : ''}\r\n${trailers}\r\n`));
  return concat(parts);
}

const FRAMINGS = ['length', 'chunked', 'close', 'nobody'];

/**
 * One exchange on one connection: 1 to 3 responses (keep-alive ones, then maybe one ended by
 * the close), each maybe after 1xx interim responses. Returns { bytes, expects, want }:
 * expects has one isHead flag per request; want is what the parser must report.
 */
export function validExchange(rng) {
  const parts = [];
  const expects = [];
  const want = [];
  const count = 1 + int(rng, 3);
  for (let r = 0; r < count; r++) {
    let framing = pick(rng, FRAMINGS);
    // Only the last response of a connection may run to the close.
    if (framing === 'close' && r < count - 1) framing = 'length';
    for (let k = rng() < 0.3 ? 1 + int(rng, 2) : 0; k > 0; k--) {
      parts.push(enc.encode(pick(rng, ['HTTP/1.1 100 Continue\r\n\r\n', 'HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n', 'HTTP/1.1 102 Processing\r\n\r\n'])));
    }
    const body = framing === 'nobody' ? new Uint8Array(0) : randomBytes(rng, int(rng, 300));
    let status = 200 + int(rng, 400);
    if (status === 204 || status === 304) status = 200;
    let isHead = false;
    let head;
    const extra = otherHeaders(rng);
    const cl = randomCase(rng, 'content-length');
    if (framing === 'length') {
      head = `${cl}: ${body.length}\r\n${extra}`;
    } else if (framing === 'chunked') {
      head = `${extra}${randomCase(rng, 'transfer-encoding')}: ${pick(rng, ['chunked', 'gzip, chunked', 'Chunked'])}\r\n`;
    } else if (framing === 'close') {
      head = extra + (rng() < 0.5 ? 'Connection: close\r\n' : '');
    } else {
      // No body whatever the headers say: 204, 304, or the answer to HEAD.
      const kind = int(rng, 3);
      if (kind === 0) status = 204;
      else if (kind === 1) status = 304;
      else isHead = true;
      head = `${cl}: ${1 + int(rng, 5000)}\r\n${extra}`;
    }
    const reason = rng() < 0.1 ? '' : ' ' + randomText(rng, 1 + int(rng, 10), 'ABCDEFGH Ok');
    parts.push(enc.encode(`HTTP/1.1 ${status}${reason}\r\n${head}\r\n`));
    if (framing === 'chunked') parts.push(chunkedBody(rng, body));
    else parts.push(body);
    expects.push(isHead);
    want.push({ status, body: Array.from(body), close: framing === 'close' });
  }
  return { bytes: concat(parts), expects, want };
}

/** Up to 12 pieces [start, end) with random cut points; sometimes one byte each. */
export function randomPieces(len, rng) {
  if (len > 1 && rng() < 0.05) return Array.from({ length: len }, (_, i) => [i, i + 1]);
  const count = 1 + int(rng, Math.max(1, Math.min(len, 12)));
  const cuts = new Set();
  while (cuts.size < count - 1) cuts.add(1 + int(rng, len - 1));
  const points = [0, ...[...cuts].sort((a, b) => a - b), len];
  return points.slice(1).map((end, k) => [points[k], end]);
}

/**
 * Feeds `bytes` piece by piece to a fresh parser the way a connection does (the next request's
 * expect() after each response; nothing more after an error or a stop), then the close.
 * Returns everything observable, for comparing splits.
 */
export function parseResponses(bytes, pieces, expects, capture = true) {
  const responses = [];
  const errors = [];
  let made = 1;
  const parser = new ResponseParser(
    (p) => {
      responses.push({ status: p.statusCode, close: p.shouldClose, body: capture ? Array.from(concat(p.bodyChunks)) : null, head: capture ? decodeChunks(p.headChunks) : null });
      if (made < expects.length) p.expect(expects[made++]);
    },
    (reason) => errors.push(reason),
    capture,
  );
  parser.expect(expects[0]);
  let stopped = bytes.length;
  for (const [start, end] of pieces) {
    const at = parser.execute(bytes, start, end);
    if (!(at >= start && at <= end)) throw new Error(`execute() returned ${at} outside [${start}, ${end}]`);
    if (errors.length > 0) break;
    if (at < end) {
      stopped = at;
      break;
    }
  }
  const finished = errors.length === 0 && stopped === bytes.length ? parser.finish() : null;
  return { responses, errors, stopped, finished };
}

const SPECIAL = ['\r\n', '\r\n\r\n', ':', ' ', '\n', '0\r\n\r\n', 'Content-Length: 3\r\n', 'Transfer-Encoding: chunked\r\n', 'HTTP/1.1 100 Continue\r\n\r\n', 'ffffffffffffff', ';', '\t', '\x00', '\xff'];

/** A valid exchange with 1 to 4 random edits: bytes changed, inserted, deleted, repeated. */
export function mutatedExchange(rng) {
  const { bytes, expects } = validExchange(rng);
  let b = Array.from(bytes);
  for (let k = 1 + int(rng, 4); k > 0; k--) {
    const at = int(rng, b.length + 1);
    const op = int(rng, 5);
    if (op === 0 && b.length > 0) b[Math.min(at, b.length - 1)] = int(rng, 256);
    else if (op === 1) b.splice(at, 0, ...randomBytes(rng, 1 + int(rng, 4)));
    else if (op === 2) b.splice(at, 1 + int(rng, 8));
    else if (op === 3) b.splice(at, 0, ...b.slice(at, at + 1 + int(rng, 40)));
    else b.splice(at, 0, ...enc.encode(pick(rng, SPECIAL)));
  }
  return { bytes: Uint8Array.from(b), expects };
}

/** Random bytes, bare or after a plausible status line. */
export function randomExchange(rng) {
  const noise = randomBytes(rng, int(rng, 400));
  const prefix = rng() < 0.5 ? enc.encode(pick(rng, ['HTTP/1.1 200 OK\r\n', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n', 'HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n'])) : new Uint8Array(0);
  return { bytes: concat([prefix, noise]), expects: [rng() < 0.1] };
}

// ---- WebSocket frames (a server's, unmasked) ----

function frame(fin, opcode, payload) {
  const n = payload.length;
  const head = n < 126 ? [n] : n < 65536 ? [126, n >> 8, n & 255] : [127, 0, 0, 0, 0, (n >>> 24) & 255, (n >> 16) & 255, (n >> 8) & 255, n & 255];
  return concat([Uint8Array.from([(fin ? 0x80 : 0) | opcode, ...head]), payload]);
}

/** Messages, some fragmented, with pings between fragments, maybe a close at the end. */
export function validFrames(rng) {
  const parts = [];
  for (let m = 1 + int(rng, 4); m > 0; m--) {
    const payload = randomBytes(rng, rng() < 0.1 ? 126 + int(rng, 300) : int(rng, 126));
    const opcode = 1 + int(rng, 2);
    const pieces = 1 + int(rng, 3);
    const step = Math.ceil(payload.length / pieces) || 1;
    for (let at = 0, k = 0; k === 0 || at < payload.length; at += step, k++) {
      const last = at + step >= payload.length;
      parts.push(frame(last, k === 0 ? opcode : 0, payload.subarray(at, at + step)));
      if (!last && rng() < 0.3) parts.push(frame(true, 9, randomBytes(rng, int(rng, 10))));
    }
  }
  if (rng() < 0.3) parts.push(frame(true, 8, Uint8Array.from([3, 232])));
  return concat(parts);
}

/** Valid frames with random edits. */
export function mutatedFrames(rng) {
  const b = Array.from(validFrames(rng));
  for (let k = 1 + int(rng, 3); k > 0; k--) {
    const at = int(rng, b.length + 1);
    const op = int(rng, 3);
    if (op === 0 && b.length > 0) b[Math.min(at, b.length - 1)] = int(rng, 256);
    else if (op === 1) b.splice(at, 0, ...randomBytes(rng, 1 + int(rng, 9)));
    else b.splice(at, 1 + int(rng, 8));
  }
  return Uint8Array.from(b);
}

/** Feeds frames piece by piece; returns everything the parser reported. */
export function parseFrames(bytes, pieces) {
  const events = [];
  const handler = {
    onMessage(opcode) {
      events.push(['message', opcode, parser.messageLength, Array.from(concat(parser.chunks))]);
    },
    onControl(opcode, payload) {
      events.push(['control', opcode, Array.from(payload)]);
    },
    onFrameError(reason) {
      events.push(['error', reason]);
    },
  };
  const parser = new FrameParser(handler, { masked: false, capture: true });
  for (const [start, end] of pieces) {
    parser.execute(bytes, start, end);
    if (events.length > 0 && events[events.length - 1][0] === 'error') break;
  }
  return events;
}

// HTTP/2 frames of every type (unknown ones too), lengths up to the 16 KiB limit, any stream.
function validH2Frames(rng) {
  const frames = [];
  const n = 1 + int(rng, 6);
  for (let k = 0; k < n; k++) {
    const length = rng() < 0.1 ? 16384 - int(rng, 3) : int(rng, rng() < 0.5 ? 20 : 3000);
    const f = new Uint8Array(9 + length);
    writeHeader(f, 0, length, int(rng, 12), int(rng, 256), int(rng, 2 ** 31));
    f.set(randomBytes(rng, length), 9);
    frames.push(f);
  }
  return concat(frames);
}

function parseH2Frames(bytes, pieces) {
  const events = [];
  const parser = new H2FrameParser({
    frame(type, flags, stream, buf, start, end) {
      if (end < start || start < 0 || end > buf.length) events.push(['bad bounds']);
      events.push([type, flags, stream, Array.from(buf.subarray(start, end)).join(',')]);
      return null;
    },
  });
  for (const [a, b] of pieces) {
    const err = parser.execute(bytes.subarray(a, b));
    if (err !== null) {
      events.push(['error', err]);
      break;
    }
  }
  return events;
}

const H2_FORBIDDEN = new Set(['te', 'connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade']);

// A header block: a request's, as our encoder builds it, often with bytes changed.
function hpackBlock(rng) {
  const headers = [];
  for (let k = int(rng, 6); k > 0; k--) {
    const name = randomText(rng, 1 + int(rng, 12), 'abcdefghijklmnopqrstuvwxyz-');
    // Names HTTP/2 forbids (RFC 9113 8.2.2): the encoder refuses them, as it should.
    if (!H2_FORBIDDEN.has(name)) headers.push([name, randomText(rng, int(rng, 200))]);
  }
  const block = encodeRequestHeaders({ method: rng() < 0.5 ? 'GET' : 'POST', scheme: 'http', authority: randomText(rng, 1 + int(rng, 30)), path: '/' + randomText(rng, int(rng, 80)), headers });
  if (rng() < 0.2) return { block, valid: true };
  const bytes = block.slice();
  for (let k = 1 + int(rng, 4); k > 0; k--) bytes[int(rng, bytes.length)] = int(rng, 256);
  return { block: rng() < 0.3 ? randomBytes(rng, int(rng, 200)) : bytes, valid: false };
}

function h2Case(kind, rng) {
  if (kind === 'hpack') {
    const { block, valid } = hpackBlock(rng);
    const a = new HpackDecoder();
    const b = new HpackDecoder();
    const withCapture = a.decode(block, true);
    const without = b.decode(block, false);
    if (valid && withCapture !== null) throw new Error(`an encoded block failed: ${withCapture}`);
    if (withCapture !== without) throw new Error(`capture changed the outcome: ${withCapture} / ${without}`);
    if (withCapture === null && a.status !== b.status) throw new Error('capture changed :status');
    for (const d of [a, b]) if (d.tableSize > d.tableMaxSize || d.tableMaxSize > 4096) throw new Error(`table ${d.tableSize} over ${d.tableMaxSize}`);
    return;
  }
  let bytes = validH2Frames(rng);
  if (kind === 'h2-mutated') {
    bytes = bytes.slice();
    for (let k = 1 + int(rng, 6); k > 0; k--) bytes[int(rng, bytes.length)] = int(rng, 256);
  }
  const whole = parseH2Frames(bytes, [[0, bytes.length]]);
  if (whole.some((e) => e[0] === 'bad bounds')) throw new Error('a payload out of its buffer');
  if (kind === 'h2-frames' && whole.some((e) => e[0] === 'error')) throw new Error(`valid frames failed: ${whole.find((e) => e[0] === 'error')[1]}`);
  for (let t = 0; t < 3; t++) {
    const pieces = randomPieces(bytes.length, rng);
    if (JSON.stringify(parseH2Frames(bytes, pieces)) !== JSON.stringify(whole)) throw new Error(`HTTP/2 frames split ${JSON.stringify(pieces)} differ from one read`);
  }
}

/**
 * One fuzz case of `kind` from `rng`: throws (with what differed) when a property fails.
 * Kinds: 'valid' (matches the model and every split agrees), 'mutated' and 'random' (any
 * outcome, but no exception and every split agrees), 'frames' and 'frames-mutated'.
 */
export function fuzzCase(kind, rng) {
  if (kind === 'h2-frames' || kind === 'h2-mutated' || kind === 'hpack') return h2Case(kind, rng);
  if (kind === 'frames' || kind === 'frames-mutated') {
    const bytes = kind === 'frames' ? validFrames(rng) : mutatedFrames(rng);
    const whole = parseFrames(bytes, [[0, bytes.length]]);
    if (kind === 'frames' && whole.some((e) => e[0] === 'error')) throw new Error(`valid frames failed: ${JSON.stringify(whole.find((e) => e[0] === 'error'))}`);
    for (let t = 0; t < 3; t++) {
      const pieces = randomPieces(bytes.length, rng);
      const split = parseFrames(bytes, pieces);
      if (JSON.stringify(split) !== JSON.stringify(whole)) throw new Error(`frames split ${JSON.stringify(pieces)} differs from one read`);
    }
    return;
  }
  const { bytes, expects, want } = kind === 'valid' ? validExchange(rng) : kind === 'mutated' ? mutatedExchange(rng) : randomExchange(rng);
  const capture = kind !== 'valid' || rng() < 0.8;
  const whole = parseResponses(bytes, [[0, bytes.length]], expects, capture);
  if (whole.errors.length > 1) throw new Error(`onError called ${whole.errors.length} times`);
  if (want) {
    if (whole.errors.length > 0) throw new Error(`valid response failed: ${whole.errors[0]}`);
    const got = whole.responses.map((r) => r.status);
    if (JSON.stringify(got) !== JSON.stringify(want.map((w) => w.status))) throw new Error(`statuses ${got} instead of ${want.map((w) => w.status)}`);
    want.forEach((w, k) => {
      if (capture && JSON.stringify(whole.responses[k].body) !== JSON.stringify(w.body)) throw new Error(`body of response ${k + 1} differs`);
      if (w.close && !whole.responses[k].close) throw new Error(`response ${k + 1} ran to the close but may be reused`);
    });
    if (whole.finished !== true) throw new Error('the close left a valid exchange incomplete');
  }
  for (let t = 0; t < 3; t++) {
    const pieces = randomPieces(bytes.length, rng);
    const split = parseResponses(bytes, pieces, expects, capture);
    if (JSON.stringify(split) !== JSON.stringify(whole)) throw new Error(`split ${JSON.stringify(pieces)} differs from one read`);
  }
}

export const KINDS = ['valid', 'mutated', 'random', 'frames', 'frames-mutated', 'h2-frames', 'h2-mutated', 'hpack'];
