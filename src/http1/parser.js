// Incremental HTTP/1.1 response parser: a byte-level state machine over Uint8Array chunks.
//
// Framing follows RFC 9112 section 6.3, never the size of a packet:
// - no body after 1xx, 204, 304 or a reply to HEAD, whatever the headers say;
// - Transfer-Encoding overrides Content-Length; chunked only when it is the final coding,
//   otherwise the body runs to the close; a message with both must not reuse the connection;
// - Content-Length, else the body is delimited by the server closing the connection.
// Interim 1xx responses are skipped (101 Switching Protocols ends HTTP on the connection, so it
// is reported as final and the connection must close).
//
// The parser keeps its state between chunks, so any split of the bytes gives the same result.
// The common case (no capture) allocates nothing: it only keeps integers. When `capture` is on
// (a statusCallback or contentInspector wants them) the head and body bytes are copied out,
// because adapters may reuse their read buffers.

import { keepHead, keepBody, keepBorrowed } from './captured.js';

export const MAX_HEAD_BYTES = 64 * 1024;

// The callbacks of ResponseParser.of(): the parser calls them as its methods.
function ownerResponded() {
  this.owner.onResponse();
}

function ownerFailed(reason) {
  this.owner.onParseError(reason);
}

// States
const S_IDLE = 0; // no request outstanding
const S_STATUS = 1;
const S_HEADER_START = 2; // first byte of a header line (or the blank line)
const S_HEADER_NAME = 3;
const S_HEADER_VALUE = 4;
const S_HEAD_END_LF = 5; // saw CR of the blank line
const S_BODY_LENGTH = 6;
const S_BODY_CLOSE = 7; // until the server closes
const S_CHUNK_SIZE = 8;
const S_CHUNK_EXT = 9;
const S_CHUNK_DATA = 10;
const S_CHUNK_DATA_CR = 11;
const S_CHUNK_DATA_LF = 12;
const S_TRAILER_START = 13;
const S_TRAILER_LINE = 14;
const S_TRAILER_END_LF = 15;
const S_DEAD = 16; // after an error or a 101: nothing more is HTTP on this connection

// Header names we act on, matched case-insensitively byte by byte. Content-Encoding and
// Set-Cookie are only noted (`encoded`, `cookied`), for a reader that decodes bodies and keeps
// cookies (k6/http), which then need not search every head for them.
const NAMES = ['content-length', 'transfer-encoding', 'connection', 'content-encoding', 'set-cookie'].map((s) => new TextEncoder().encode(s));
const H_CONTENT_LENGTH = 1;
const H_TRANSFER_ENCODING = 2;
const H_CONNECTION = 4;
const H_CONTENT_ENCODING = 8;
const H_SET_COOKIE = 16;
const H_ANY = 31;

// Where a header name that goes on at i ends: at its ':', at a LF (malformed), or at end.
function nameEnd(buf, i, end) {
  while (i < end) {
    const c = buf[i];
    if (c === 58 || c === LF) return i;
    i++;
  }
  return end;
}

// Which of the names above (its H_ bit) the len bytes at from are, ignoring case; 0 if none.
function matchName(buf, from, len) {
  // Two names are 10 bytes long: their first bytes tell them apart.
  const k = len === 14 ? 0 : len === 17 ? 1 : len === 10 ? (lower(buf[from]) === 115 ? 4 : 2) : len === 16 ? 3 : -1;
  if (k < 0) return 0;
  const name = NAMES[k];
  for (let x = 0; x < len; x++) if (lower(buf[from + x]) !== name[x]) return 0;
  return 1 << k;
}

// Status line prefix "HTTP/1." then one digit, SP, three digits.
const HTTP_PREFIX = new TextEncoder().encode('HTTP/1.');

const CR = 13;
const LF = 10;
const SP = 32;
const HT = 9;
const COMMA = 44;
const SEMI = 59;

// Token matcher for comma-separated header values ("chunked", "close", "keep-alive").
const TOKEN_CHUNKED = new TextEncoder().encode('chunked');
const TOKEN_CLOSE = new TextEncoder().encode('close');
const TOKEN_KEEP_ALIVE = new TextEncoder().encode('keep-alive');

function lower(b) {
  return b >= 65 && b <= 90 ? b | 0x20 : b;
}

function hexValue(b) {
  if (b >= 48 && b <= 57) return b - 48;
  b |= 0x20;
  if (b >= 97 && b <= 102) return b - 87;
  return -1;
}

export class ResponseParser {
  /**
   * @param {(parser: ResponseParser) => void} onResponse called when a final response is complete;
   *   read statusCode, shouldClose (and head/body with capture) from the parser.
   * @param {(reason: string) => void} onError called once when the bytes are not HTTP/1.x;
   *   the connection cannot be used any more.
   * @param {number} maxBody a body longer than this many bytes is an error (0: no limit);
   *   `bodyTooLarge` then tells it from bytes that are not HTTP.
   */
  constructor(onResponse, onError, capture = false, maxBody = 0) {
    this.onResponse = onResponse;
    this.onError = onError;
    this.owner = null; // of a parser made by ResponseParser.of()
    this.capture = capture;
    this.maxBody = maxBody;
    this.bodyTooLarge = false;
    this.state = S_IDLE;
    this.noBody = false; // the request was HEAD
    // reset()'s fields, set here too: V8 sizes the object by the constructor's own assignments,
    // and those set only in reset() went to a property array of their own, one more object (and
    // cache line) that each response touches (at 10 000 connections, a miss each).
    this.statusCode = 0;
    this.httpMinor = 1;
    this.pos = 0; // position inside the status line or the current name
    this.headBytes = 0;
    this.nameMask = 0;
    this.nameLen = 0;
    this.current = 0; // header being parsed
    this.contentLength = -1;
    this.valueNumber = -1; // content-length being parsed
    this.clEnded = false;
    this.tokenMask = 0; // which tokens still match in the current value item
    this.tokenLen = 0;
    this.tokenStarted = false;
    this.teSeen = false;
    this.teChunked = false; // the last coding so far is chunked
    this.connClose = false;
    this.connKeepAlive = false;
    this.encoded = false; // a Content-Encoding header came
    this.cookied = false; // a Set-Cookie header came
    this.remaining = 0;
    this.chunkDigits = 0;
    this.bodyBytes = 0; // declared so far (chunked) or read so far (to the close)
    this.shouldClose = false;
    this.bytesSeen = 0; // bytes of the current response so far (0: nothing arrived yet)
    this.headChunks = null;
    this.bodyChunks = null;
    // With capture: keep views of the adapter's buffer, not copies, as long as a response is
    // read whole within one execute(), and its first bytes as a span of it (captured.js). For
    // a reader that is done with the chunks when onResponse returns.
    this.borrow = false;
    this.spanBuf = null;
    this.spanFrom = 0;
    this.spanHead = 0;
    this.spanTo = 0;
  }

  /**
   * A parser that calls its owner's onResponse() and onParseError(reason), through callbacks
   * shared by every such parser: a connection's parser then costs no closures and no context of
   * its own (two closures and a context were ~0.15 KB of a connection at 10 000 connections).
   */
  static of(owner, capture = false, maxBody = 0) {
    const parser = new ResponseParser(ownerResponded, ownerFailed, capture, maxBody);
    parser.owner = owner;
    return parser;
  }

  reset() {
    this.statusCode = 0;
    this.httpMinor = 1;
    this.pos = 0; // position inside the status line or the current name
    this.headBytes = 0;
    this.nameMask = 0;
    this.nameLen = 0;
    this.current = 0; // header being parsed
    this.contentLength = -1;
    this.valueNumber = -1; // content-length being parsed
    this.clEnded = false;
    this.tokenMask = 0; // which tokens still match in the current value item
    this.tokenLen = 0;
    this.tokenStarted = false;
    this.teSeen = false;
    this.teChunked = false; // the last coding so far is chunked
    this.connClose = false;
    this.connKeepAlive = false;
    this.encoded = false; // a Content-Encoding header came
    this.cookied = false; // a Set-Cookie header came
    this.remaining = 0;
    this.chunkDigits = 0;
    this.bodyBytes = 0; // declared so far (chunked) or read so far (to the close)
  }

  /** A new connection: forget a failure or a 101 of the previous one. */
  restart() {
    this.state = S_IDLE;
    this.bodyTooLarge = false;
  }

  /** Called when a request has been written; isHead: the request method was HEAD. */
  expect(isHead) {
    if (this.state === S_DEAD) return;
    this.noBody = isHead;
    this.state = S_STATUS;
    this.reset();
    this.bytesSeen = 0;
    if (this.capture) {
      // A borrowing reader is done with the chunks when onResponse returns: its arrays are reused.
      if (this.borrow && this.headChunks !== null) {
        // Mostly empty already (a span made no chunk): setting an array's length is a call.
        if (this.headChunks.length !== 0) this.headChunks.length = 0;
        if (this.bodyChunks.length !== 0) this.bodyChunks.length = 0;
        this.spanBuf = null;
      } else {
        this.headChunks = [];
        this.bodyChunks = [];
      }
    }
  }

  /** Whether a response is expected or in progress. */
  get busy() {
    return this.state !== S_IDLE && this.state !== S_DEAD;
  }

  /**
   * Feeds bytes; may call onResponse several times (pipelined responses) or onError once.
   * Returns where it stopped: before `end` when a response completed and no other was expected.
   */
  execute(buf, start = 0, end = buf.length) {
    if (!this.borrow || !this.capture) return this.consume(buf, start, end);
    const at = this.consume(buf, start, end);
    if (this.busy) keepBorrowed(this, buf);
    return at;
  }

  consume(buf, start, end) {
    let i = start;
    while (i < end) {
      const state = this.state;
      if (state === S_BODY_LENGTH) {
        const n = Math.min(this.remaining, end - i);
        if (this.capture) keepBody(this, buf, i, i + n);
        this.remaining -= n;
        this.bytesSeen += n;
        i += n;
        if (this.remaining === 0) this.complete();
        continue;
      }
      if (state === S_CHUNK_DATA) {
        const n = Math.min(this.remaining, end - i);
        if (this.capture) keepBody(this, buf, i, i + n);
        this.remaining -= n;
        this.bytesSeen += n;
        i += n;
        if (this.remaining === 0) this.state = S_CHUNK_DATA_CR;
        continue;
      }
      if (state === S_BODY_CLOSE) {
        if (this.maxBody > 0 && (this.bodyBytes += end - i) > this.maxBody) return this.tooLarge(end);
        if (this.capture) keepBody(this, buf, i, end);
        this.bytesSeen += end - i;
        return end;
      }
      if (state === S_IDLE || state === S_DEAD) return i;
      if (state <= S_HEAD_END_LF) {
        i = this.parseHead(buf, i, end);
        continue;
      }
      i = this.parseChunkedFraming(buf, i, end);
    }
    return end;
  }

  /** The connection closed; completes a close-delimited body, else reports what was cut. */
  finish() {
    const state = this.state;
    if (state === S_BODY_CLOSE) {
      this.complete();
      return true;
    }
    return state === S_IDLE || state === S_DEAD;
  }

  // An endless or huge body: counted as its own failure, not as bytes that are not HTTP.
  tooLarge(end) {
    this.bodyTooLarge = true;
    this.fail(`response body over ${this.maxBody} bytes`);
    return end;
  }

  fail(reason) {
    this.state = S_DEAD;
    this.onError(reason);
  }

  complete() {
    this.state = S_IDLE;
    this.onResponse(this);
  }

  // Status line and headers. Returns the index after the bytes consumed.
  // One piece on purpose: it runs for every response, as one loop over the bytes with its state
  // in locals and fields (bench/hotpaths.bench.js measures it), not a call per state.
  parseHead(buf, i, end) {
    const head0 = i;
    // Fast path: a status line's "HTTP/1.x NNN" whole in this chunk, read at once.
    if (this.state === S_STATUS && this.pos === 0 && end - i > 12 && this.statusAt(buf, i)) {
      this.pos = 12;
      this.headBytes += 12;
      i += 12;
    }
    while (i < end) {
      // Fast path: bytes whose meaning we ignore (the reason phrase, names of headers we do
      // not act on, their values) are skipped in a tight loop to the byte that matters.
      const state = this.state;
      if ((state === S_HEADER_VALUE && this.current === 0) || (state === S_STATUS && this.pos > 12)) {
        let j = i;
        while (j < end && buf[j] !== LF) j++;
        this.headBytes += j - i;
        i = j;
      } else if (state === S_HEADER_NAME && this.nameMask === 0) {
        const j = nameEnd(buf, i, end);
        this.headBytes += j - i;
        this.nameLen += j - i;
        i = j;
      }
      if (i === end) {
        if (this.headBytes > MAX_HEAD_BYTES) {
          this.fail('response head over 64 KiB');
          return end;
        }
        break;
      }
      const b = buf[i++];
      if (++this.headBytes > MAX_HEAD_BYTES) {
        this.fail('response head over 64 KiB');
        return end;
      }
      switch (this.state) {
        case S_STATUS:
          if (!this.statusByte(b)) {
            this.fail('malformed status line');
            return end;
          }
          break;
        case S_HEADER_START:
          if (b === SP || b === HT) {
            // obs-fold: the previous value goes on (RFC 9112 5.2 lets us treat it as SP)
            this.state = S_HEADER_VALUE;
            this.valueByte(SP);
            break;
          }
          // Not a continuation line: the previous header's value is complete.
          if (!this.endValue()) return end;
          if (b === CR) {
            this.state = S_HEAD_END_LF;
          } else if (b === LF) {
            this.captureHead(buf, head0, i);
            return this.headComplete(i);
          } else {
            this.state = S_HEADER_NAME;
            // Fast path: the whole name is in this chunk. Only a name of 10, 14, 16 or 17 bytes can
            // be one we act on; it is compared once, and every other name skipped in a tight loop.
            const j = nameEnd(buf, i, end);
            if (j < end && buf[j] === 58) {
              this.nameLen = j - i + 1;
              this.nameMask = matchName(buf, i - 1, this.nameLen);
              if (this.nameMask === 0) {
                // A header we do not act on, its line whole in this chunk: to the next line at
                // once (its value ignored, as the S_HEADER_VALUE skip does it).
                let k = j + 1;
                while (k < end && buf[k] !== LF) k++;
                if (k < end) {
                  this.state = S_HEADER_START;
                  this.headBytes += k + 1 - i;
                  i = k + 1;
                  break;
                }
              }
              this.headBytes += j - i;
              i = j; // at the ':', which the S_HEADER_NAME case takes next
            } else {
              this.nameMask = H_ANY;
              this.nameLen = 0;
              this.nameByte(b);
            }
          }
          break;
        case S_HEADER_NAME:
          if (b === 58 /* : */) {
            this.startValue();
          } else if (b === LF) {
            this.fail('malformed header line');
            return end;
          } else {
            this.nameByte(b);
          }
          break;
        case S_HEADER_VALUE:
          if (b === LF) {
            this.state = S_HEADER_START; // endValue() waits: an obs-fold line may continue it
          } else if (b !== CR) {
            this.valueByte(b);
          }
          break;
        case S_HEAD_END_LF:
          if (b !== LF) {
            this.fail('malformed header block');
            return end;
          }
          this.captureHead(buf, head0, i);
          return this.headComplete(i);
      }
    }
    this.captureHead(buf, head0, i);
    return i;
  }

  captureHead(buf, from, to) {
    this.bytesSeen += to - from;
    if (this.capture && to > from) keepHead(this, buf, from, to);
  }

  // Whether the 12 bytes at i are "HTTP/1.x NNN", then taken as statusByte() takes them one by one.
  statusAt(buf, i) {
    for (let k = 0; k < 7; k++) if (buf[i + k] !== HTTP_PREFIX[k]) return false;
    const minor = buf[i + 7] - 48;
    const d0 = buf[i + 9] - 48;
    const d1 = buf[i + 10] - 48;
    const d2 = buf[i + 11] - 48;
    if (minor < 0 || minor > 9 || buf[i + 8] !== SP || d0 < 0 || d0 > 9 || d1 < 0 || d1 > 9 || d2 < 0 || d2 > 9) return false;
    this.httpMinor = minor;
    this.statusCode = d0 * 100 + d1 * 10 + d2;
    return true;
  }

  // "HTTP/1.x NNN reason CRLF"; pos counts bytes of the line.
  statusByte(b) {
    const pos = this.pos++;
    if (pos < 7) return b === HTTP_PREFIX[pos];
    if (pos === 7) {
      if (b < 48 || b > 57) return false;
      this.httpMinor = b - 48;
      return true;
    }
    if (pos === 8) return b === SP;
    if (pos <= 11) {
      if (b < 48 || b > 57) return false;
      this.statusCode = this.statusCode * 10 + (b - 48);
      return true;
    }
    if (pos === 12) {
      // A reason phrase may be empty; some servers even omit the SP before CRLF.
      if (b === LF) this.state = S_HEADER_START;
      else if (b === CR) this.pos = 13; // wait for LF
      else if (b !== SP) return false;
      if (this.statusCode < 100) return false;
      return true;
    }
    if (b === LF) this.state = S_HEADER_START;
    return true;
  }

  nameByte(b) {
    const mask = this.nameMask;
    if (mask !== 0) {
      const n = this.nameLen;
      const lb = lower(b);
      if (mask & H_CONTENT_LENGTH && NAMES[0][n] !== lb) this.nameMask &= ~H_CONTENT_LENGTH;
      if (mask & H_TRANSFER_ENCODING && NAMES[1][n] !== lb) this.nameMask &= ~H_TRANSFER_ENCODING;
      if (mask & H_CONNECTION && NAMES[2][n] !== lb) this.nameMask &= ~H_CONNECTION;
      if (mask & H_CONTENT_ENCODING && NAMES[3][n] !== lb) this.nameMask &= ~H_CONTENT_ENCODING;
      if (mask & H_SET_COOKIE && NAMES[4][n] !== lb) this.nameMask &= ~H_SET_COOKIE;
    }
    this.nameLen++;
  }

  startValue() {
    const n = this.nameLen;
    let h = 0;
    if (this.nameMask & H_CONTENT_LENGTH && n === 14) h = H_CONTENT_LENGTH;
    else if (this.nameMask & H_TRANSFER_ENCODING && n === 17) h = H_TRANSFER_ENCODING;
    else if (this.nameMask & H_CONNECTION && n === 10) h = H_CONNECTION;
    else if (this.nameMask & H_CONTENT_ENCODING && n === 16) this.encoded = true;
    else if (this.nameMask & H_SET_COOKIE && n === 10) this.cookied = true;
    this.current = h;
    this.state = S_HEADER_VALUE;
    if (h === H_CONTENT_LENGTH) {
      this.valueNumber = -1;
      this.clEnded = false;
    }
    else if (h === H_TRANSFER_ENCODING) this.teSeen = true;
    this.startToken();
  }

  startToken() {
    this.tokenLen = 0;
    this.tokenStarted = false;
    this.tokenMask = 7; // chunked | close | keep-alive
  }

  valueByte(b) {
    const h = this.current;
    if (h === 0) return;
    if (h === H_CONTENT_LENGTH) {
      // valueNumber: -1 no digit yet, -2 invalid (sticky), else the digits so far
      const v = this.valueNumber;
      if (b === SP || b === HT) {
        if (v >= 0) this.clEnded = true;
      } else if (b === COMMA) {
        // "Content-Length: 5, 5": a list of identical values is allowed (RFC 9110 8.6)
        if (this.commitLength()) {
          this.valueNumber = -1;
          this.clEnded = false;
        } else {
          this.valueNumber = -2;
        }
      } else if (b >= 48 && b <= 57 && v !== -2 && !this.clEnded) {
        const next = (v < 0 ? 0 : v) * 10 + (b - 48);
        this.valueNumber = next > Number.MAX_SAFE_INTEGER ? -2 : next;
      } else {
        this.valueNumber = -2;
      }
      return;
    }
    // Token lists: Transfer-Encoding and Connection.
    if (b === COMMA) {
      this.endToken();
      this.startToken();
      return;
    }
    if (b === SP || b === HT) {
      if (this.tokenStarted) this.tokenMask |= 16; // the token ended, unless more of it follows
      return;
    }
    // ";" starts transfer-coding parameters; the coding name has ended.
    if (b === SEMI) {
      this.tokenStarted = true;
      this.tokenMask |= 8; // frozen
      return;
    }
    if (this.tokenMask & 8) return;
    if (this.tokenMask & 16) this.tokenMask = 0; // inner whitespace: not one of our tokens
    this.tokenStarted = true;
    const n = this.tokenLen++;
    const lb = lower(b);
    if (this.tokenMask & 1 && TOKEN_CHUNKED[n] !== lb) this.tokenMask &= ~1;
    if (this.tokenMask & 2 && TOKEN_CLOSE[n] !== lb) this.tokenMask &= ~2;
    if (this.tokenMask & 4 && TOKEN_KEEP_ALIVE[n] !== lb) this.tokenMask &= ~4;
  }

  endToken() {
    if (!this.tokenStarted) return;
    const n = this.tokenLen;
    const m = this.tokenMask;
    if (this.current === H_TRANSFER_ENCODING) {
      // Only the last coding matters: chunked must be final.
      this.teChunked = (m & 1) !== 0 && n === 7;
    } else if (this.current === H_CONNECTION) {
      if (m & 2 && n === 5) this.connClose = true;
      if (m & 4 && n === 10) this.connKeepAlive = true;
    }
  }

  commitLength() {
    const v = this.valueNumber;
    if (v < 0) return false;
    if (this.contentLength >= 0 && this.contentLength !== v) return false;
    this.contentLength = v;
    return true;
  }

  // End of a header line. Returns false after failing.
  endValue() {
    const h = this.current;
    if (h === H_CONTENT_LENGTH) {
      if (!this.commitLength()) {
        this.fail('invalid content-length');
        return false;
      }
    } else if (h !== 0) {
      this.endToken();
    }
    this.current = 0;
    return true;
  }

  headComplete(i) {
    const status = this.statusCode;
    if (status < 200 && status !== 101) {
      // Interim response: the final one follows for the same request.
      this.state = S_STATUS;
      const noBody = this.noBody;
      this.reset();
      this.noBody = noBody;
      if (this.capture) this.headChunks = [];
      this.spanBuf = null;
      return i;
    }
    const keepAliveDefault = this.httpMinor >= 1 ? !this.connClose : this.connKeepAlive && !this.connClose;
    this.shouldClose = !keepAliveDefault;
    if (status === 101) {
      this.shouldClose = true;
      this.complete();
      this.state = S_DEAD;
      return i;
    }
    if (this.noBody || status === 204 || status === 304) {
      this.complete();
      return i;
    }
    if (this.teSeen) {
      // Both headers: a sign of smuggling; finish this response but do not reuse the connection.
      if (this.contentLength >= 0) this.shouldClose = true;
      if (this.teChunked) {
        this.nextChunk();
      } else {
        this.state = S_BODY_CLOSE;
        this.shouldClose = true;
      }
      return i;
    }
    if (this.contentLength >= 0) {
      if (this.maxBody > 0 && this.contentLength > this.maxBody) return this.tooLarge(i);
      if (this.contentLength === 0) {
        this.complete();
        return i;
      }
      this.remaining = this.contentLength;
      this.state = S_BODY_LENGTH;
      return i;
    }
    this.state = S_BODY_CLOSE;
    this.shouldClose = true;
    return i;
  }

  // Chunk sizes, extensions, CRLFs and trailers (chunk data is handled in execute()).
  parseChunkedFraming(buf, i, end) {
    const from = i;
    while (i < end) {
      const b = buf[i++];
      switch (this.state) {
        case S_CHUNK_SIZE: {
          const v = hexValue(b);
          if (v >= 0) {
            if (++this.chunkDigits > 13) return this.failAt('chunk size too large', from, end);
            this.remaining = this.remaining * 16 + v;
          } else if (this.chunkDigits === 0) {
            return this.failAt('invalid chunk size', from, end);
          } else if (b === LF) {
            this.afterChunkSize();
            this.bytesSeen += i - from;
            return i;
          } else if (b === SEMI || b === SP || b === HT || b === CR) {
            this.state = S_CHUNK_EXT;
          } else {
            return this.failAt('invalid chunk size', from, end);
          }
          break;
        }
        case S_CHUNK_EXT:
          // Extensions are skipped, not kept, but a line that never ends must not hold the
          // connection forever (node's llhttp limits them too, since CVE-2024-22019).
          if (++this.headBytes > MAX_HEAD_BYTES) return this.failAt('chunk extensions over 64 KiB', from, end);
          if (b === LF) {
            this.afterChunkSize();
            this.bytesSeen += i - from;
            return i;
          }
          break;
        case S_CHUNK_DATA_CR:
          if (b === CR) this.state = S_CHUNK_DATA_LF;
          else if (b === LF) this.nextChunk();
          else return this.failAt('missing CRLF after chunk data', from, end);
          break;
        case S_CHUNK_DATA_LF:
          if (b !== LF) return this.failAt('missing CRLF after chunk data', from, end);
          this.nextChunk();
          break;
        case S_TRAILER_START:
          if (b === CR) this.state = S_TRAILER_END_LF;
          else if (b === LF) return this.trailersDone(from, i);
          else this.state = S_TRAILER_LINE;
          break;
        case S_TRAILER_LINE:
          if (++this.headBytes > MAX_HEAD_BYTES) return this.failAt('trailers over 64 KiB', from, end);
          if (b === LF) this.state = S_TRAILER_START;
          break;
        case S_TRAILER_END_LF:
          if (b !== LF) return this.failAt('malformed trailers', from, end);
          return this.trailersDone(from, i);
      }
    }
    this.bytesSeen += i - from;
    return i;
  }

  nextChunk() {
    this.headBytes = 0;
    this.state = S_CHUNK_SIZE;
    this.chunkDigits = 0;
    this.remaining = 0;
  }

  afterChunkSize() {
    if (this.maxBody > 0 && (this.bodyBytes += this.remaining) > this.maxBody) return this.tooLarge(0);
    if (this.remaining === 0) {
      this.headBytes = 0;
      this.state = S_TRAILER_START;
    } else {
      this.state = S_CHUNK_DATA;
    }
  }

  trailersDone(from, i) {
    this.bytesSeen += i - from;
    this.complete();
    return i;
  }

  failAt(reason, from, end) {
    this.fail(reason);
    return end;
  }
}
