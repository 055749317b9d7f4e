// HTTP/2 frames (RFC 9113 section 4 and 6): what the client writes, and an incremental parser
// for what the server sends. The parser is held to the HTTP/1.1 parser's standard: bytes in any
// split, a size limit, every protocol error a named reason and never a throw.

export const PREFACE = new TextEncoder().encode('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

export const DATA = 0x0;
export const HEADERS = 0x1;
export const PRIORITY = 0x2;
export const RST_STREAM = 0x3;
export const SETTINGS = 0x4;
export const PUSH_PROMISE = 0x5;
export const PING = 0x6;
export const GOAWAY = 0x7;
export const WINDOW_UPDATE = 0x8;
export const CONTINUATION = 0x9;

export const END_STREAM = 0x1;
export const ACK = 0x1;
export const END_HEADERS = 0x4;
export const PADDED = 0x8;
export const PRIORITY_FLAG = 0x20;

export const SETTINGS_HEADER_TABLE_SIZE = 0x1;
export const SETTINGS_ENABLE_PUSH = 0x2;
export const SETTINGS_MAX_CONCURRENT_STREAMS = 0x3;
export const SETTINGS_INITIAL_WINDOW_SIZE = 0x4;
export const SETTINGS_MAX_FRAME_SIZE = 0x5;
export const SETTINGS_MAX_HEADER_LIST_SIZE = 0x6;

// RFC 9113 7: error codes, by value, as reasons name them.
export const ERROR_NAMES = [
  'NO_ERROR', 'PROTOCOL_ERROR', 'INTERNAL_ERROR', 'FLOW_CONTROL_ERROR', 'SETTINGS_TIMEOUT', 'STREAM_CLOSED',
  'FRAME_SIZE_ERROR', 'REFUSED_STREAM', 'CANCEL', 'COMPRESSION_ERROR', 'CONNECT_ERROR', 'ENHANCE_YOUR_CALM',
  'INADEQUATE_SECURITY', 'HTTP_1_1_REQUIRED',
];
export const NO_ERROR = 0;
export const PROTOCOL_ERROR = 1;
export const FLOW_CONTROL_ERROR = 3;
export const FRAME_SIZE_ERROR = 6;
export const REFUSED_STREAM = 7;
export const CANCEL = 8;
export const COMPRESSION_ERROR = 9;

export const errorName = (code) => ERROR_NAMES[code] || `error 0x${code.toString(16)}`;

export const MAX_WINDOW = 2 ** 31 - 1;
export const DEFAULT_MAX_FRAME = 16384;

/** Writes a frame's 9-byte header at `at` of `buf`. */
export function writeHeader(buf, at, length, type, flags, stream) {
  buf[at] = length >>> 16;
  buf[at + 1] = (length >>> 8) & 255;
  buf[at + 2] = length & 255;
  buf[at + 3] = type;
  buf[at + 4] = flags;
  buf[at + 5] = (stream >>> 24) & 127;
  buf[at + 6] = (stream >>> 16) & 255;
  buf[at + 7] = (stream >>> 8) & 255;
  buf[at + 8] = stream & 255;
}

function frame(type, flags, stream, payload) {
  const out = new Uint8Array(9 + payload.length);
  writeHeader(out, 0, payload.length, type, flags, stream);
  out.set(payload, 9);
  return out;
}

const u32 = (buf, at, v) => {
  buf[at] = (v >>> 24) & 255;
  buf[at + 1] = (v >>> 16) & 255;
  buf[at + 2] = (v >>> 8) & 255;
  buf[at + 3] = v & 255;
};

/** The byte arrays one after the other, in a new one. */
export function concat(parts) {
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  return all;
}

/** A SETTINGS frame from [[id, value], ...]. */
export function settingsFrame(list) {
  const payload = new Uint8Array(6 * list.length);
  list.forEach(([id, value], i) => {
    payload[i * 6] = id >>> 8;
    payload[i * 6 + 1] = id & 255;
    u32(payload, i * 6 + 2, value);
  });
  return frame(SETTINGS, 0, 0, payload);
}

export const SETTINGS_ACK = frame(SETTINGS, ACK, 0, new Uint8Array(0));

export function windowUpdateFrame(stream, increment) {
  const payload = new Uint8Array(4);
  u32(payload, 0, increment & MAX_WINDOW);
  return frame(WINDOW_UPDATE, 0, stream, payload);
}

export function rstStreamFrame(stream, code) {
  const payload = new Uint8Array(4);
  u32(payload, 0, code);
  return frame(RST_STREAM, 0, stream, payload);
}

export function goawayFrame(lastStream, code) {
  const payload = new Uint8Array(8);
  u32(payload, 0, lastStream & MAX_WINDOW);
  u32(payload, 4, code);
  return frame(GOAWAY, 0, 0, payload);
}

/** PING with ACK, echoing the 8 bytes at `at` of `buf`. */
export function pingAckFrame(buf, at) {
  // Byte by byte: a node Buffer's subarray() is a Buffer made by its species (grpc-go's server
  // PINGs at every response: a scripted gRPC call's).
  const out = new Uint8Array(17);
  writeHeader(out, 0, 8, PING, ACK, 0);
  for (let k = 0; k < 8; k++) out[9 + k] = buf[at + k];
  return out;
}

/**
 * A request's frames as one Uint8Array, for stream id 1: HEADERS (with CONTINUATION when the
 * block is larger than the peer's frame size) and the body's DATA frames. `streamAt` lists the
 * offsets of each frame's stream id, so the same bytes serve every request: the connection
 * writes the stream id in place before each write (see setStream). A body larger than the
 * flow-control windows allow is not sent here: `bodyInline` false says the caller sends it
 * as the windows open.
 */
export function requestFrames(block, body, maxFrame, inlineLimit) {
  const hasBody = body !== null && body.length > 0;
  const inlineBody = hasBody && body.length <= inlineLimit;
  const headerFrames = Math.max(1, Math.ceil(block.length / maxFrame));
  const dataFrames = inlineBody ? Math.ceil(body.length / maxFrame) : 0;
  const out = new Uint8Array(9 * (headerFrames + dataFrames) + block.length + (inlineBody ? body.length : 0));
  const streamAt = [];
  let at = 0;
  for (let k = 0; k < headerFrames; k++) {
    const part = block.subarray(k * maxFrame, Math.min(block.length, (k + 1) * maxFrame));
    const last = k === headerFrames - 1;
    let flags = last ? END_HEADERS : 0;
    if (k === 0 && !hasBody) flags |= END_STREAM;
    writeHeader(out, at, part.length, k === 0 ? HEADERS : CONTINUATION, flags, 1);
    streamAt.push(at + 5);
    out.set(part, at + 9);
    at += 9 + part.length;
  }
  for (let k = 0; k < dataFrames; k++) {
    const part = body.subarray(k * maxFrame, Math.min(body.length, (k + 1) * maxFrame));
    writeHeader(out, at, part.length, DATA, k === dataFrames - 1 ? END_STREAM : 0, 1);
    streamAt.push(at + 5);
    out.set(part, at + 9);
    at += 9 + part.length;
  }
  return { bytes: out, streamAt: Int32Array.from(streamAt), inlineBody, hasBody };
}

/** Writes `stream` into each frame header of a requestFrames() result copied to `from` in `bytes`. */
export function setStream(bytes, from, streamAt, stream) {
  for (let k = 0; k < streamAt.length; k++) {
    const at = from + streamAt[k];
    bytes[at] = (stream >>> 24) & 127;
    bytes[at + 1] = (stream >>> 16) & 255;
    bytes[at + 2] = (stream >>> 8) & 255;
    bytes[at + 3] = stream & 255;
  }
}

/** DATA frames for `body` from `from`, `length` bytes, the last one ending the stream when `end`. */
export function dataFrames(stream, body, from, length, maxFrame, end) {
  const n = Math.max(1, Math.ceil(length / maxFrame));
  const out = new Uint8Array(9 * n + length);
  let at = 0;
  for (let k = 0; k < n; k++) {
    const size = Math.min(maxFrame, length - k * maxFrame);
    writeHeader(out, at, size, DATA, end && k === n - 1 ? END_STREAM : 0, stream);
    out.set(body.subarray(from + k * maxFrame, from + k * maxFrame + size), at + 9);
    at += 9 + size;
  }
  return out;
}

/** The 32-bit big-endian number at `at`. */
export function readU32(buf, at) {
  return ((buf[at] << 24) >>> 0) + (buf[at + 1] << 16) + (buf[at + 2] << 8) + buf[at + 3];
}

/**
 * What RFC 9113 section 6 says a frame of this type may not be, whatever the connection's
 * state: on stream 0 or not, its length. null, or a connection error's reason.
 */
export function frameError(type, flags, stream, length) {
  switch (type) {
    case DATA:
      return stream === 0 ? 'DATA on stream 0' : null;
    case HEADERS:
    case CONTINUATION:
      return stream === 0 ? 'HEADERS on stream 0' : null;
    case SETTINGS:
      if (stream !== 0) return 'SETTINGS on a stream';
      if ((flags & ACK) !== 0) return length === 0 ? null : 'SETTINGS ACK with a payload (FRAME_SIZE_ERROR)';
      return length % 6 === 0 ? null : 'SETTINGS of a length not a multiple of 6 (FRAME_SIZE_ERROR)';
    case PING:
      if (stream !== 0) return 'PING on a stream';
      return length === 8 ? null : 'PING of a length other than 8 (FRAME_SIZE_ERROR)';
    case RST_STREAM:
      if (stream === 0) return 'RST_STREAM on stream 0';
      return length === 4 ? null : 'RST_STREAM of a length other than 4 (FRAME_SIZE_ERROR)';
    case GOAWAY:
      if (stream !== 0) return 'GOAWAY on a stream';
      return length >= 8 ? null : 'GOAWAY shorter than 8 bytes (FRAME_SIZE_ERROR)';
    case WINDOW_UPDATE:
      return length === 4 ? null : 'WINDOW_UPDATE of a length other than 4 (FRAME_SIZE_ERROR)';
    case PUSH_PROMISE:
      return 'PUSH_PROMISE though we disabled push';
    default:
      return null; // PRIORITY is ignored, unknown types too (RFC 9113 5.5)
  }
}

/**
 * A header block from HEADERS and the CONTINUATION frames after it (RFC 9113 4.3, 6.2, 6.10):
 * padding and priority taken off, fragments gathered. push() returns null or a connection
 * error's reason; `ready` then says a whole block is in buf[start, end) (a view of the frame
 * when it came whole, else of this object's buffer), `endStream` whether it ends its stream.
 */
export class HeaderBlocks {
  constructor(limit) {
    this.limit = limit;
    this.block = null;
    this.length = 0;
    this.continuing = 0; // the stream whose block continues, or 0
    this.ready = false;
    this.endStream = false;
    this.buf = null;
    this.start = 0;
    this.end = 0;
  }

  push(type, flags, stream, buf, start, end) {
    this.ready = false;
    let from = start;
    let to = end;
    if (type === HEADERS) {
      if ((flags & PADDED) !== 0) {
        if (end - start < 1) return 'HEADERS padding longer than the frame';
        from++;
        to -= buf[start];
      }
      if ((flags & PRIORITY_FLAG) !== 0) from += 5;
      if (to < from) return 'HEADERS padding longer than the frame';
      this.endStream = (flags & END_STREAM) !== 0;
    }
    if ((flags & END_HEADERS) !== 0 && this.continuing === 0) {
      this.set(buf, from, to);
      return null;
    }
    const n = to - from;
    if (this.length + n > this.limit) return 'a header block over its limit';
    if (this.block === null || this.block.length < this.length + n) {
      const bigger = new Uint8Array(Math.max(1024, (this.length + n) * 2));
      if (this.block !== null) bigger.set(this.block.subarray(0, this.length));
      this.block = bigger;
    }
    this.block.set(buf.subarray(from, to), this.length);
    this.length += n;
    if ((flags & END_HEADERS) === 0) {
      this.continuing = stream;
      return null;
    }
    this.continuing = 0;
    this.set(this.block, 0, this.length);
    this.length = 0;
    return null;
  }

  set(buf, start, end) {
    this.ready = true;
    this.buf = buf;
    this.start = start;
    this.end = end;
  }
}

const S_HEAD = 0;
const S_PAYLOAD = 1;
const S_DEAD = 2;

/**
 * Reads frames from chunks as they come. For each whole frame it calls
 * handler.frame(type, flags, stream, buf, start, end): the payload is buf[start, end), valid
 * until frame() returns (a view of the chunk when the frame is whole in it, else of the parser's
 * own buffer). Padding is the frame handler's (it knows which types carry it). A frame longer
 * than maxFrame is a FRAME_SIZE_ERROR: execute() returns the reason, and the parser reads
 * nothing more.
 */
export class FrameParser {
  constructor(handler, maxFrame = DEFAULT_MAX_FRAME) {
    this.handler = handler;
    this.maxFrame = maxFrame;
    this.head = new Uint8Array(9);
    this.buf = new Uint8Array(1024);
    this.restart();
  }

  restart() {
    this.state = S_HEAD;
    this.have = 0; // bytes of the current header or payload gathered in head or buf
    this.length = 0;
    this.type = 0;
    this.flags = 0;
    this.stream = 0;
    this.error = null;
  }

  /** Feeds a chunk; returns null, or the reason of a connection error (then nothing more is read). */
  execute(chunk) {
    let i = 0;
    const n = chunk.length;
    while (i < n) {
      if (this.state === S_HEAD) {
        // A whole header in the chunk: read it in place.
        if (this.have === 0 && n - i >= 9) {
          this.readHead(chunk, i);
          i += 9;
        } else {
          const take = Math.min(9 - this.have, n - i);
          this.head.set(chunk.subarray(i, i + take), this.have);
          this.have += take;
          i += take;
          if (this.have < 9) return null;
          this.readHead(this.head, 0);
        }
        if (this.length > this.maxFrame) return this.fail(`frame of ${this.length} bytes over the ${this.maxFrame} allowed (FRAME_SIZE_ERROR)`);
        this.have = 0;
        this.state = S_PAYLOAD;
        if (this.length === 0) {
          this.state = S_HEAD;
          const err = this.handler.frame(this.type, this.flags, this.stream, chunk, i, i);
          if (err) return this.fail(err);
        }
        continue;
      }
      if (this.state === S_DEAD) return this.error;
      // The payload: in place when it is whole in this chunk and nothing was gathered yet.
      if (this.have === 0 && n - i >= this.length) {
        const start = i;
        i += this.length;
        this.state = S_HEAD;
        const err = this.handler.frame(this.type, this.flags, this.stream, chunk, start, i);
        if (err) return this.fail(err);
        continue;
      }
      if (this.buf.length < this.length) this.buf = new Uint8Array(Math.max(this.length, this.buf.length * 2));
      const take = Math.min(this.length - this.have, n - i);
      this.buf.set(chunk.subarray(i, i + take), this.have);
      this.have += take;
      i += take;
      if (this.have < this.length) return null;
      this.have = 0;
      this.state = S_HEAD;
      const err = this.handler.frame(this.type, this.flags, this.stream, this.buf, 0, this.length);
      if (err) return this.fail(err);
    }
    return this.state === S_DEAD ? this.error : null;
  }

  readHead(b, at) {
    this.length = (b[at] << 16) | (b[at + 1] << 8) | b[at + 2];
    this.type = b[at + 3];
    this.flags = b[at + 4];
    this.stream = ((b[at + 5] & 127) * 16777216) + (b[at + 6] << 16) + (b[at + 7] << 8) + b[at + 8];
  }

  fail(reason) {
    this.state = S_DEAD;
    this.error = reason;
    return reason;
  }
}
