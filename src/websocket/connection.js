// One WebSocket connection of a run: the connection driver (src/driver.js) for ws:// and
// wss:// URLs. As in loadtest 8, a request is one message sent and the
// next message received; its latency counts from the message's send (the handshake is not a
// request, though in the open model the time waiting for it counts, as any wait does). The
// connection stays open for the next message; one that fails is opened again for the next.
//
// Masking: the run's message (when every message is the same) is framed once per connection
// with a random mask of that connection and the same bytes are written for every message, as
// HTTP requests are; messages that differ get a fresh mask each. The mask's purpose (RFC 6455
// 10.3) is to stop a browser page's script from steering the bytes an intermediary sees; a load
// tester sends its own user's data, so a key per connection keeps the protocol without a pass
// over every payload per message.

import { FrameParser } from './frame-parser.js';
import { OP_BINARY, OP_CLOSE, OP_PING, OP_PONG, OP_TEXT, checkHandshake, closePayload, encodeFrame, handshakeRequest, newKey, newMask } from './protocol.js';
import { errorName } from '../socket.js';
import { Driver } from '../driver.js';

const CLOSED = 0;
const HANDSHAKE = 1;
const OPEN = 2;
const CLOSING = 3; // the server sent a close frame; waiting for it to close the connection

// The handshake answer is a small head; more than this is not a WebSocket server.
const MAX_HEAD = 64 * 1024;
const decoder = new TextDecoder('latin1');

export class WebSocketConnection extends Driver {
  constructor(run, id) {
    super(run, id);
    this.state = CLOSED;
    this.parser = new FrameParser(this, { masked: false, capture: run.capture, maxMessage: run.config.maxBodySize || 0 });
    this.mask = newMask();
    this.frame = null; // the run's fixed message, framed with this connection's mask
    this.key = '';
    this.head = null; // bytes of the handshake answer so far
    this.headChunks = null; // the handshake answer, for statusCallback's headers
    this.bodyChunks = null; // the last message received, with capture
    this.inFlight = false;
    this.pending = false; // a message waits for the handshake
    this.index = -1;
    this.bytes = null; // the frame of the message in flight
    this.startTime = 0;
    this.sentAt = 0;
    this.writtenAt = 0; // after the upgrade: the wait phase counts from here
    this.messagesOnSocket = 0;
    this.answered = false; // a message arrived during this data()
    this.failure = null; // a reason found during this data(): the connection is done
    this.method = 'GET';
    this.path = run.config.path;
  }

  open() {
    const run = this.run;
    this.state = HANDSHAKE;
    this.socketError = null;
    this.messagesOnSocket = 0;
    this.head = null;
    this.parser.restart();
    this.key = newKey();
    this.socket = run.connect(this, this.sentAt);
    this.socket.write(handshakeRequest(run.config.wsHandshake, this.key));
  }

  drop() {
    this.state = CLOSED;
    super.drop();
  }

  next() {
    const run = this.run;
    const index = run.claim(this);
    if (index < 0) {
      if (index === -1) this.drop();
      return;
    }
    let frame;
    if (run.fixed !== null) {
      if (this.frame === null) this.frame = encodeFrame(run.config.requests.binary ? OP_BINARY : OP_TEXT, run.fixed, this.mask);
      frame = this.frame;
    } else {
      const shape = run.shapeOf(index, this);
      if (shape === null) return;
      frame = encodeFrame(shape.binary ? OP_BINARY : OP_TEXT, shape.bytes, newMask());
    }
    this.index = index;
    this.bytes = frame;
    this.startTime = run.open ? run.intendedTime : 0;
    this.send();
  }

  send() {
    const run = this.run;
    this.inFlight = true;
    run.inFlight++;
    this.sentAt = performance.now();
    if (this.state === OPEN) return this.write(this.sentAt);
    this.pending = true;
    if (this.socket === null) this.open();
  }

  write(now) {
    this.pending = false;
    if (!this.run.open) this.startTime = now;
    this.writtenAt = now;
    this.firstByteAt = 0;
    this.responseBytes = 0;
    this.socket.write(this.bytes);
  }

  // handlers for the socket
  data(chunk) {
    this.run.stats.bytes += chunk.length;
    this.timed = false;
    let from = 0;
    if (this.state === HANDSHAKE) {
      from = this.readHead(chunk);
      if (from < 0 && this.failure === null) return; // more of the head to come
    }
    if (this.inFlight && from < chunk.length) {
      if (this.firstByteAt === 0) this.firstByteAt = this.clock();
      this.responseBytes += chunk.length - from;
    }
    if (this.state === OPEN && from < chunk.length) this.parser.execute(chunk, from, chunk.length);
    this.settle();
  }

  // Collects the handshake answer up to its blank line; returns where frames start in `chunk`.
  readHead(chunk) {
    const before = this.head === null ? 0 : this.head.length;
    const all = new Uint8Array(before + chunk.length);
    if (this.head !== null) all.set(this.head);
    all.set(chunk, before);
    let end = -1;
    for (let i = Math.max(3, before - 3); i < all.length; i++) {
      if (all[i] === 10 && all[i - 1] === 13 && all[i - 2] === 10 && all[i - 3] === 13) {
        end = i + 1;
        break;
      }
    }
    if (end < 0) {
      if (all.length > MAX_HEAD) this.failure = 'websocket upgrade: response head too large';
      else this.head = all;
      return -1;
    }
    this.head = null;
    const problem = checkHandshake(decoder.decode(all.subarray(0, end - 4)), this.key);
    if (problem !== null) {
      this.failure = problem;
      return chunk.length;
    }
    this.state = OPEN;
    if (this.run.capture) this.headChunks = [all.slice(0, end)];
    if (this.pending) this.write(this.clock());
    return end - before;
  }

  // After the bytes of one data(): the outcome of what they held.
  settle() {
    const run = this.run;
    const answered = this.answered;
    this.answered = false;
    if (this.failure !== null) {
      const reason = this.failure;
      const handshake = this.state === HANDSHAKE;
      this.failure = null;
      this.drop();
      if (this.inFlight) this.finishFailed(reason);
      if (handshake) run.connectFailed(reason);
      this.proceed();
    } else if (this.state === CLOSING && this.closeTimer === null) {
      // The server's close frame: the message out (if any) failed; the connection is done.
      this.socket.end();
      this.awaitClose();
    } else if (answered && this.state === OPEN) {
      this.proceed();
    }
  }

  close() {
    const run = this.run;
    run.socketClosed(this);
    const wasHandshake = this.state === HANDSHAKE;
    const wasClosing = this.state === CLOSING;
    this.state = CLOSED;
    this.stopCloseWait();
    if (wasClosing || !this.inFlight) {
      this.proceed();
      return;
    }
    const err = this.socketError;
    const reason = err !== null ? errorName(err) : wasHandshake ? 'websocket upgrade: closed before response' : 'closed before response';
    this.finishFailed(reason);
    if (wasHandshake) run.connectFailed(reason);
    this.proceed();
  }

  // frame parser callbacks
  onMessage() {
    const run = this.run;
    if (!this.inFlight) {
      // A message nobody asked for (a greeting, a push, a second reply): counted, not matched.
      run.stats.unexpectedData++;
      return;
    }
    const end = this.clock();
    this.inFlight = false;
    this.answered = true;
    this.messagesOnSocket++;
    if (run.capture) this.bodyChunks = this.parser.chunks;
    // A WebSocket run has no request sequence (options.js refuses one): no entry.
    run.responded(this, 101, this.startTime, this.writtenAt, this.firstByteAt || end, end, -1);
  }

  onControl(opcode, payload) {
    if (opcode === OP_PING) {
      this.socket.write(encodeFrame(OP_PONG, payload, this.mask));
    } else if (opcode === OP_CLOSE) {
      const code = payload.length >= 2 ? (payload[0] << 8) | payload[1] : 1005;
      // Echo the code back (RFC 6455 5.5.1); 1005 means "none" and is never sent.
      this.socket.write(encodeFrame(OP_CLOSE, code === 1005 ? new Uint8Array(0) : closePayload(code), this.mask));
      this.state = CLOSING;
      if (this.inFlight) this.finishFailed(`websocket closed by server: ${code}`);
    }
  }

  onFrameError(reason) {
    this.failure = this.parser.messageTooLarge ? `websocket ${reason}` : `websocket protocol error: ${reason}`;
  }

  finishFailed(reason) {
    this.inFlight = false;
    this.pending = false;
    this.run.failed(this, reason, -1);
  }

  timedOut(now) {
    if (this.inFlight && now - this.sentAt >= this.run.timeout) {
      this.drop();
      this.finishFailed('timeout');
      this.proceed();
    }
  }
}
