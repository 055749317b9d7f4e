// One HTTP/2 connection of a run (--http2): the connection driver (src/driver.js) with up to
// `streams` requests in flight, each its own stream, never more than the server's
// SETTINGS_MAX_CONCURRENT_STREAMS. inFlight is a count, as for --pipeline.
//
// Every request ends once: completed (its final HEADERS and END_STREAM), failed (RST_STREAM's
// error code, a timeout, the connection's error or close), or in flight at the stop. A stream
// the server did not process is sent again, not counted as an error (RFC 9113 8.7): one it
// refused (REFUSED_STREAM) or one above a GOAWAY's last stream id. After GOAWAY no new stream
// goes on that connection; the streams below the id finish, then a new connection replaces it.
//
// Flow control (RFC 9113 5.2, 6.9). What we receive: each stream's window is 16 MiB and the
// connection's 2^30 − 1 (h2load's default for both): we read every byte at once, so a window
// only has to cover what is on its way (the bandwidth-delay product: loopback has almost none,
// 10 Gb/s over 10 ms is 12.5 MB); 16 MiB a stream bounds what a server may push at us to
// 16 MiB × streams. A window is topped up (WINDOW_UPDATE) once half of it is used: a response
// under 8 MiB costs no WINDOW_UPDATE of its stream, and the connection's comes every 512 MiB.
// What we send: a body goes out as the server's windows allow, the rest when WINDOW_UPDATE
// opens them.

import { Driver, isConnectFailure } from '../driver.js';
import { errorName as socketErrorName } from '../socket.js';
import { HpackDecoder } from './hpack.js';
import { controlFrames } from './control.js';
import { slab, slabWithRoom, newSlab } from './write-slab.js';
import {
  PREFACE, concat, FrameParser, HeaderBlocks, frameError, readU32, settingsFrame, windowUpdateFrame, rstStreamFrame, goawayFrame, pingAckFrame, setStream,
  dataFrames, errorName,
  DATA, HEADERS, RST_STREAM, SETTINGS, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION,
  END_STREAM, ACK, PADDED,
  SETTINGS_ENABLE_PUSH, SETTINGS_MAX_CONCURRENT_STREAMS, SETTINGS_INITIAL_WINDOW_SIZE,
  SETTINGS_MAX_FRAME_SIZE, SETTINGS_MAX_HEADER_LIST_SIZE,
  PROTOCOL_ERROR, FLOW_CONTROL_ERROR, FRAME_SIZE_ERROR, REFUSED_STREAM, CANCEL, COMPRESSION_ERROR,
  MAX_WINDOW, DEFAULT_MAX_FRAME,
} from './frames.js';

const STREAM_WINDOW = 16 * 1024 * 1024;
const CONNECTION_WINDOW = 2 ** 30 - 1;
const MAX_HEADER_LIST = 256 * 1024;
// The largest frame we accept; SETTINGS_MAX_FRAME_SIZE's floor, which servers send by default.
const MAX_FRAME = DEFAULT_MAX_FRAME;

// What a connection says first: the preface, our SETTINGS, and the connection window opened.
const SETTINGS_OURS = [[SETTINGS_ENABLE_PUSH, 0], [SETTINGS_INITIAL_WINDOW_SIZE, STREAM_WINDOW], [SETTINGS_MAX_HEADER_LIST_SIZE, MAX_HEADER_LIST]];
const OPENING = concat([PREFACE, settingsFrame(SETTINGS_OURS), windowUpdateFrame(0, CONNECTION_WINDOW - 65535)]);

const encoder = new TextEncoder();

// How many times one request is sent again after REFUSED_STREAM or GOAWAY before it fails.
const MAX_RETRIES = 10;

const NOT_H2 = 'not HTTP/2: the server did not answer with SETTINGS (RFC 9113 3.4; no h2 by ALPN, or an HTTP/1.1 server)';

export class Http2Connection extends Driver {
  constructor(run, id) {
    super(run, id);
    const depth = run.streams;
    this.depth = depth;
    this.parser = new FrameParser(this, MAX_FRAME);
    this.hpack = null; // a new table for each connection (open)
    // One slot per stream in flight; `ids[k]` 0 marks a free slot.
    this.ids = new Float64Array(depth);
    this.indexes = new Float64Array(depth);
    this.starts = new Float64Array(depth); // latency counts from here
    this.sents = new Float64Array(depth); // the timeout counts from here
    this.statuses = new Int32Array(depth); // the final status once its HEADERS came, else 0
    // gRPC: a call's grpc-status (-1: none yet), or config.grpc.codeOf's for the HTTP status.
    this.grpc = run.config.grpc || null;
    this.codes = new Int16Array(depth);
    this.received = new Float64Array(depth); // body bytes, for --max-body and the window
    this.headBytes = new Float64Array(depth); // header block bytes, for the log
    this.firstBytes = new Float64Array(depth); // when the response's first HEADERS came (0: not yet)
    this.unacked = new Float64Array(depth); // body bytes not yet given back by WINDOW_UPDATE
    this.retried = new Uint8Array(depth); // times sent again
    this.shapes = new Array(depth).fill(null); // the request (to send again, or its body)
    this.bodyAt = new Float64Array(depth); // body bytes sent; -1 when all of it has gone
    this.sendWindows = new Float64Array(depth);
    this.entries = new Int32Array(depth);
    this.methods = new Array(depth).fill('');
    this.paths = new Array(depth).fill('');
    this.heads = new Array(depth).fill(null); // with capture: the response's header list
    this.bodies = new Array(depth).fill(null); // with capture: its body chunks
    this.count = 0;
    this.inFlight = 0;
    this.retries = []; // requests to send again first: [index, start, shape, entry, method, path]
    this.index = -1;
    this.method = '';
    this.path = '';
    this.startTime = 0;
    this.headChunks = null;
    this.bodyChunks = null;
    this.batch = null; // the frames next() is putting together for one write: batch[batchStart, batchAt)
    this.batchStart = 0;
    this.batchAt = 0;
    this.held = null; // a PING's ACK while a chunk is read: it goes with the next batch
    this.reading = false;
    // What a read lets go is one write already (the batch above): src/socket.js.
    this.batchesWrites = true;
    this.closing = false; // our GOAWAY is out, waiting for the close
    this.live = run.live === true; // the run-side reads each block and DATA as it comes (src/http2/live.js)
    this.reset();
  }

  // The state of one socket's session.
  reset() {
    this.nextStream = 1;
    this.peerMaxStreams = Infinity; // until its SETTINGS say otherwise (RFC 9113 5.1.2)
    this.peerWindow = 65535; // SETTINGS_INITIAL_WINDOW_SIZE for our streams' send windows
    this.connectionWindow = 65535; // ours to send in
    this.recvUnacked = 0; // connection-level bytes received and not given back
    this.goaway = -1; // the last stream id of a GOAWAY, or -1
    this.settled = false; // the server's first SETTINGS came
    this.blocks = new HeaderBlocks(2 * MAX_HEADER_LIST);
    this.responsesOnSocket = 0;
    this.answered = false;
    this.waitingBody = 0; // streams with body bytes waiting for a window
  }

  open(now) {
    this.reset();
    this.held = null; // the last connection's
    this.socketError = null;
    this.parser.restart();
    this.hpack = new HpackDecoder({ maxTableSize: 4096, maxHeaderListSize: MAX_HEADER_LIST });
    this.socket = this.run.connect(this, now);
    this.socket.write(OPENING);
  }

  // How many more streams this connection may open now.
  room() {
    if (this.socket === null) return this.depth - this.count; // a new connection opens
    if (this.goaway >= 0) return 0;
    return Math.min(this.depth, this.peerMaxStreams) - this.count;
  }

  // The requests this connection sends now, in one write. One piece on purpose: it runs for
  // every batch of requests of an HTTP/2 run, and its frames are written into one buffer with
  // their offsets in locals.
  next() {
    const run = this.run;
    if (this.closing) return; // a new connection once this one has closed
    if (this.socket !== null && this.goaway >= 0) {
      // Draining after GOAWAY: a new connection once its last streams are done.
      if (this.count > 0) return;
      this.drop();
    }
    // The requests of this call go out in one write: their frames, one after the other, cut
    // from the slab.
    this.batch = null;
    this.batchStart = 0;
    this.batchAt = 0;
    let pump = false;
    while (this.room() > 0) {
      let index;
      let start;
      let shape;
      let entry = 0;
      let method;
      let path;
      let retried = 0;
      // One clock read a request (on Deno performance.now() is an op): its send time, and its
      // latency's start in the closed model.
      const now = run.sendAt > 0 ? run.sendAt : performance.now();
      if (this.retries.length > 0) {
        [index, start, shape, entry, method, path, retried] = this.retries.shift();
      } else {
        index = run.claim(this);
        if (index < 0) {
          if (index === -1 && this.count === 0) this.drop();
          break;
        }
        shape = run.fixed !== null ? run.fixedShape : run.shapeOf(index, this);
        if (shape === null) break; // the user's generator threw: the run is ending
        start = run.open ? run.intendedTime : now;
        method = shape.method;
        path = shape.path;
        entry = shape.entry === undefined ? 0 : shape.entry;
      }
      if (this.socket === null) this.open(now);
      const slot = this.freeSlot();
      const stream = this.nextStream;
      this.nextStream += 2;
      const frames = shape.bytes;
      this.ids[slot] = stream;
      this.indexes[slot] = index;
      this.starts[slot] = start;
      this.sents[slot] = now;
      this.statuses[slot] = 0;
      this.codes[slot] = -1;
      this.received[slot] = 0;
      this.headBytes[slot] = 0;
      this.firstBytes[slot] = 0;
      this.unacked[slot] = 0;
      this.retried[slot] = retried;
      this.shapes[slot] = shape;
      this.entries[slot] = entry;
      this.methods[slot] = method;
      this.paths[slot] = path;
      this.heads[slot] = null;
      this.bodies[slot] = null;
      this.sendWindows[slot] = this.peerWindow;
      const body = frames.body;
      let f = frames.head;
      this.bodyAt[slot] = -1;
      if (body !== null) {
        if (frames.full !== null && body.length <= this.connectionWindow && body.length <= this.peerWindow) {
          f = frames.full;
          this.connectionWindow -= body.length;
          this.sendWindows[slot] -= body.length;
        } else {
          this.bodyAt[slot] = 0;
          this.waitingBody++;
          pump = true;
        }
      }
      const at = this.add(f.bytes);
      setStream(this.batch, at, f.streamAt, stream);
      this.count++;
      this.inFlight++;
      run.inFlight++;
      if (this.nextStream > MAX_WINDOW) {
        // Stream ids are spent (RFC 9113 5.1.1): this connection takes no more.
        this.goaway = MAX_WINDOW;
      }
    }
    const batch = this.batch;
    if (batch !== null) {
      this.batch = null;
      // What went is the slab's no more (set first: the write may call back into next()).
      if (batch === slab.bytes) slab.at = this.batchAt;
      const whole = this.batchStart === 0 && this.batchAt === batch.length;
      this.socket.write(whole ? batch : batch.subarray(this.batchStart, this.batchAt));
    }
    if (pump) this.pumpBodies();
  }

  // Appends a request's frames to the batch; returns where they start.
  add(bytes) {
    let batch = this.batch;
    let at = this.batchAt;
    if (batch === null) {
      // Room for as many such requests as may go now: usually the slab has it.
      const held = this.held;
      const room = (held === null ? 0 : held.length) + bytes.length * Math.max(1, this.room());
      batch = this.batch = slabWithRoom(room);
      at = this.batchStart = slab.at;
      if (held !== null) {
        batch.set(held, at);
        at += held.length;
        this.held = null;
      }
    } else if (at + bytes.length > batch.length) {
      // Requests larger than the first (a templated URL): the batch moves to a new slab.
      const used = at - this.batchStart;
      const from = batch;
      batch = this.batch = newSlab(2 * (used + bytes.length));
      batch.set(from.subarray(this.batchStart, at));
      this.batchStart = 0;
      at = used;
    }
    batch.set(bytes, at);
    this.batchAt = at + bytes.length;
    return at;
  }

  freeSlot() {
    for (let k = 0; k < this.depth; k++) if (this.ids[k] === 0) return k;
    return -1;
  }

  slotOf(stream) {
    for (let k = 0; k < this.depth; k++) if (this.ids[k] === stream) return k;
    return -1;
  }

  // Sends what the windows allow of the bodies still waiting.
  pumpBodies() {
    for (let k = 0; k < this.depth && this.waitingBody > 0; k++) {
      if (this.ids[k] === 0 || this.bodyAt[k] < 0) continue;
      const body = this.shapes[k].bytes.body;
      const from = this.bodyAt[k];
      const n = Math.min(body.length - from, this.connectionWindow, this.sendWindows[k]);
      if (n <= 0) continue;
      const end = from + n === body.length;
      this.socket.write(dataFrames(this.ids[k], body, from, n, DEFAULT_MAX_FRAME, end));
      this.connectionWindow -= n;
      this.sendWindows[k] -= n;
      this.bodyAt[k] = end ? -1 : from + n;
      if (end) this.waitingBody--;
    }
  }

  // handlers for the socket
  data(chunk) {
    const run = this.run;
    run.stats.bytes += chunk.length;
    this.timed = false;
    if (this.closing) return; // after our GOAWAY, nothing more is read
    this.reading = true;
    const err = this.parser.execute(chunk);
    this.reading = false;
    if (run.stopping) {
      this.proceed();
      return;
    }
    // An HTTP/1.1 server's answer to our preface reads as a frame too large, or of another type.
    const failure = err !== null && !this.settled ? NOT_H2 : err;
    if (failure !== null) return this.connectionError(failure);
    if (this.answered) {
      this.answered = false;
      if (this.goaway >= 0 && this.count === 0) this.drop();
      this.proceed();
    }
    if (this.held !== null) {
      // No batch went: the ACK alone.
      if (this.socket !== null) this.socket.write(this.held);
      this.held = null;
    }
  }

  // RFC 9113 5.4.1: a connection error ends with GOAWAY and its code, then the close. The
  // socket is ended, not destroyed, so that the GOAWAY goes out first (Deno writes
  // asynchronously); a new connection opens once it has closed, or after a while (Driver.awaitClose).
  connectionError(failure) {
    const socket = this.socket;
    const code = failure.startsWith('hpack') ? COMPRESSION_ERROR : /FLOW_CONTROL/.test(failure) ? FLOW_CONTROL_ERROR : /FRAME_SIZE/.test(failure) ? FRAME_SIZE_ERROR : PROTOCOL_ERROR;
    const reason = failure === NOT_H2 ? NOT_H2 : `http2 protocol error: ${failure}`;
    this.failAll(reason, this.responsesOnSocket === 0 && failure === NOT_H2);
    if (this.run.stopping) {
      // Failing them ended the run (fail fast): the stop has dropped the socket.
      this.run.check();
      return;
    }
    this.closing = true;
    this.awaitClose();
    // Bun 1.4.5 may call close() from inside end(): everything above is done by then.
    socket.write(goawayFrame(0, code));
    socket.end();
    this.run.check();
  }

  drop() {
    this.closing = false;
    super.drop();
  }

  // Everything out on a connection that is gone fails with `reason`, but for the streams the
  // server said it did not process, which are sent again.
  failAll(reason, unreachable) {
    for (let k = 0; k < this.depth; k++) {
      if (this.ids[k] === 0) continue;
      if (this.goaway >= 0 && this.ids[k] > this.goaway) this.retry(k);
      else this.failSlot(k, reason);
    }
    if (unreachable) this.run.connectFailed(reason);
  }

  close() {
    const run = this.run;
    run.socketClosed(this);
    if (this.closing) {
      // The close that follows our GOAWAY: its streams have failed already.
      this.stopCloseWait();
      this.closing = false;
      this.proceed();
      return;
    }
    if (this.count === 0) {
      this.proceed();
      return;
    }
    const err = this.socketError;
    // A clean close before any SETTINGS: the server did not speak HTTP/2 on it (an HTTP/1.1
    // server hanging up on our preface).
    const reason = err !== null ? socketErrorName(err) : this.settled ? 'closed before response' : NOT_H2;
    const connectFailure = isConnectFailure(err, reason, this.responsesOnSocket) || reason === NOT_H2;
    this.failAll(reason, false);
    if (connectFailure) {
      run.connectFailed(reason);
      if (!run.stopping && !run.open && !run.failsAtOnce) return this.waitAndProceed();
    }
    this.proceed();
  }

  /** The frame parser's callback: null, or a connection error's reason. */
  frame(type, flags, stream, buf, start, end) {
    if (!this.settled) {
      // RFC 9113 3.4: the server's preface is a SETTINGS frame.
      if (type !== SETTINGS || (flags & ACK) !== 0) return NOT_H2;
      this.settled = true;
      this.backoff = 0;
    }
    const blocks = this.blocks;
    if (blocks.continuing !== 0 && (type !== CONTINUATION || stream !== blocks.continuing)) return 'a header block interrupted (CONTINUATION expected)';
    const err = frameError(type, flags, stream, end - start);
    if (err !== null) return err;
    switch (type) {
      case DATA:
        return this.onData(flags, stream, buf, start, end);
      case HEADERS:
      case CONTINUATION: {
        const e = blocks.push(type, flags, stream, buf, start, end);
        if (e !== null || !blocks.ready) return e;
        return this.headerBlock(stream, blocks.buf, blocks.start, blocks.end, blocks.endStream);
      }
      case SETTINGS:
        return (flags & ACK) !== 0 ? null : this.onSettings(buf, start, end);
      case PING:
        if ((flags & ACK) === 0) this.pingAck(pingAckFrame(buf, start));
        return null;
      case WINDOW_UPDATE:
        return this.onWindowUpdate(stream, readU32(buf, start) & MAX_WINDOW);
      case RST_STREAM:
        return this.onReset(stream, readU32(buf, start));
      case GOAWAY:
        return this.onGoaway(readU32(buf, start) & MAX_WINDOW);
      default:
        return null;
    }
  }

  // grpc-go's server PINGs on each read that brought DATA (its BDP estimator): the ACK goes
  // first in the batch that the responses of the chunk being read let go, not a write of its
  // own (bench/grpc.sh against the Go server: two writes a batch, then one).
  pingAck(frame) {
    if (!this.reading) this.socket.write(frame);
    else this.held = this.held === null ? frame : concat([this.held, frame]);
  }

  onData(flags, stream, buf, start, end) {
    const length = end - start;
    // Flow control counts the whole payload, padding included (RFC 9113 6.9.1).
    this.recvUnacked += length;
    if (this.recvUnacked >= CONNECTION_WINDOW / 2) {
      this.socket.write(windowUpdateFrame(0, this.recvUnacked));
      this.recvUnacked = 0;
    }
    let from = start;
    let to = end;
    if ((flags & PADDED) !== 0) {
      if (length < 1 || buf[start] >= length) return 'DATA padding longer than the frame';
      from = start + 1;
      to = end - buf[start];
    }
    const k = this.slotOf(stream);
    if (k < 0) return stream >= this.nextStream ? 'DATA on a stream never opened' : null; // a stream we reset: ignored
    if (this.statuses[k] === 0) return this.streamError(k, 'malformed response: DATA before HEADERS');
    const run = this.run;
    this.received[k] += to - from;
    if (run.config.maxBodySize > 0 && this.received[k] > run.config.maxBodySize) {
      return this.streamError(k, `response body over ${run.config.maxBodySize} bytes`, CANCEL);
    }
    if (this.live) run.dataOf(this.indexes[k], buf, from, to);
    else if (run.capture && to > from) {
      if (this.bodies[k] === null) this.bodies[k] = [];
      // A copy: the chunk is the adapter's (and a node Buffer's slice() would be a view).
      this.bodies[k].push(Uint8Array.prototype.slice.call(buf, from, to));
    }
    this.unacked[k] += length;
    if ((flags & END_STREAM) !== 0) return this.complete(k);
    if (this.unacked[k] >= STREAM_WINDOW / 2) {
      this.socket.write(windowUpdateFrame(stream, this.unacked[k]));
      this.unacked[k] = 0;
    }
    return null;
  }

  headerBlock(stream, buf, start, end, endStream) {
    const k = this.slotOf(stream);
    const run = this.run;
    // Decoded even for a stream we reset: the HPACK table is the connection's (RFC 9113 4.3).
    const err = this.hpack.decode(buf, run.capture && k >= 0, start, end);
    if (err !== null) return err;
    if (k < 0) return stream >= this.nextStream ? 'HEADERS on a stream never opened' : null;
    if (this.firstBytes[k] === 0) this.firstBytes[k] = this.clock();
    this.headBytes[k] += end - start;
    if (this.grpc !== null && this.hpack.grpcStatus >= 0) this.codes[k] = this.hpack.grpcStatus;
    const status = this.hpack.status;
    if (this.live && (this.statuses[k] !== 0 || status >= 200)) run.headersOf(this.indexes[k], this.hpack.headers, endStream, end - start);
    if (this.statuses[k] !== 0) {
      // Trailers (RFC 9113 8.1): they end the stream.
      if (!endStream) return this.streamError(k, 'malformed response: trailers without END_STREAM');
      return this.complete(k);
    }
    if (status < 100 || status > 999) return this.streamError(k, 'malformed response: no :status');
    if (status < 200) {
      // 1xx: interim, the final HEADERS follows (RFC 9113 8.1).
      if (endStream) return this.streamError(k, 'malformed response: 1xx with END_STREAM');
      return null;
    }
    this.statuses[k] = status;
    if (run.capture && !this.live) this.heads[k] = this.hpack.headers.slice();
    if (endStream) return this.complete(k);
    return null;
  }

  // A stream error (RFC 9113 5.4.2): that stream is reset and fails; the connection goes on.
  streamError(k, reason, code = PROTOCOL_ERROR) {
    if (this.socket !== null) this.socket.write(rstStreamFrame(this.ids[k], code));
    this.failSlot(k, reason);
    this.answered = true;
    return null;
  }

  complete(k) {
    const run = this.run;
    const end = this.clock();
    const first = this.firstBytes[k];
    const status = this.grpc !== null ? this.grpc.codeOf(this.codes[k], this.statuses[k]) : this.statuses[k];
    this.responseBytes = this.headBytes[k] + this.received[k];
    this.responsesOnSocket++;
    this.answered = true;
    this.report(k);
    if (run.capture && !this.live) {
      this.headChunks = [headText(status, this.heads[k])];
      this.bodyChunks = this.bodies[k] || [];
    }
    this.release(k);
    this.inFlight--;
    run.responded(this, status, this.starts[k], this.sents[k], first, end, this.entries[k]);
    return null;
  }

  failSlot(k, reason) {
    this.report(k);
    this.responseBytes = this.headBytes[k] + this.received[k];
    this.startTime = this.starts[k];
    this.release(k);
    this.inFlight--;
    this.run.failed(this, reason, this.entries[k]);
  }

  // Sent again first, on this connection or the next; latency still counts from the first send.
  retry(k) {
    // A server that refuses a request again and again: it fails rather than looping forever.
    if (this.retried[k] >= MAX_RETRIES) return this.failSlot(k, 'RST_STREAM REFUSED_STREAM');
    this.retries.push([this.indexes[k], this.starts[k], this.shapes[k], this.entries[k], this.methods[k], this.paths[k], this.retried[k] + 1]);
    this.run.stats.retries++;
    this.release(k);
    this.inFlight--;
    this.run.inFlight--;
  }

  // The request a statusCallback sees.
  report(k) {
    this.index = this.indexes[k];
    this.method = this.methods[k];
    this.path = this.paths[k];
  }

  release(k) {
    if (this.bodyAt[k] >= 0) this.waitingBody--;
    this.ids[k] = 0;
    this.shapes[k] = null;
    this.heads[k] = null;
    this.bodies[k] = null;
    this.count--;
  }

  timedOut(now) {
    const timeout = this.run.timeout;
    let any = false;
    for (let k = 0; k < this.depth; k++) {
      if (this.ids[k] !== 0 && now - this.sents[k] >= timeout) {
        // The connection stays: only that stream is cancelled (RFC 9113 8.7 CANCEL).
        if (this.socket !== null) this.socket.write(rstStreamFrame(this.ids[k], CANCEL));
        this.failSlot(k, 'timeout');
        any = true;
      }
    }
    if (any) this.proceed();
  }
}

// The server's control frames, kept in their own file (src/http2/control.js), are methods
// of the connection all the same (live.js overrides two of them).
for (const [name, method] of Object.entries(controlFrames)) {
  Object.defineProperty(Http2Connection.prototype, name, { value: method, writable: true, configurable: true });
}

// A response's header list as HTTP/1.1-style text, for the result's lazy `headers`
// (src/http1/parser.js parseHeaders reads that form).
function headText(status, list) {
  let text = `HTTP/2 ${status}\r\n`;
  if (list) for (const [name, value] of list) if (name[0] !== ':') text += `${name}: ${value}\r\n`;
  return encoder.encode(text);
}

