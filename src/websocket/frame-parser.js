// Incremental WebSocket frame reader (RFC 6455 section 5): a byte-level state machine over
// Uint8Array chunks, so any split of the bytes gives the same messages.
//
// It calls, on its `handler` object (as methods, so a connection costs no closures):
//   onMessage(opcode)        a whole text (1) or binary (2) message; its size is messageLength
//                            and, with `capture`, its payload is `chunks` (copies, unmasked;
//                            the parser starts a new array for the next message)
//   onControl(opcode, bytes) a ping (9), pong (10) or close (8) frame and its payload; control
//                            frames may come between the fragments of a message (5.4)
//   onFrameError(reason)     once, for bytes that break the protocol; nothing more is read
// After a close frame nothing more is read either (5.5.1: it is the last frame).
//
// `masked`: whether frames must be masked (a server reads a client's) or must not be (a client
// reads a server's); either mistake is a protocol error (5.1). Without capture, data payloads
// are only counted: nothing is allocated per message. `maxMessage` (bytes, 0: none) fails a
// message that would grow past it as soon as a frame's length says so, with
// `messageTooLarge` set: a server streaming an endless message is stopped, not read forever.

const S_HEAD = 0;
const S_LENGTH = 1;
const S_EXTENDED = 2;
const S_MASK = 3;
const S_PAYLOAD = 4;
const S_DEAD = 5;

// Uint8Array's slice, because a node Buffer's slice() is a view and adapters reuse read buffers.
const sliceCopy = Uint8Array.prototype.slice;

export class FrameParser {
  constructor(handler, { masked = false, capture = false, maxMessage = 0 } = {}) {
    this.handler = handler;
    this.maxMessage = maxMessage;
    this.expectMasked = masked;
    this.capture = capture;
    this.maskKey = new Uint8Array(4);
    this.chunks = null;
    this.restart();
  }

  /** A new connection. */
  restart() {
    this.state = S_HEAD;
    this.messageTooLarge = false;
    this.fin = false;
    this.opcode = 0;
    this.masked = false;
    this.length = 0;
    this.extendedLeft = 0;
    this.maskLeft = 0;
    this.maskAt = 0; // position in the mask of the next payload byte
    this.remaining = 0;
    this.control = null; // a control frame's payload
    this.controlAt = 0;
    this.messageOpcode = 0; // of the message being assembled; 0: none
    this.messageLength = 0;
    if (this.capture) this.chunks = [];
  }

  execute(buf, start = 0, end = buf.length) {
    let i = start;
    while (i < end) {
      switch (this.state) {
        case S_PAYLOAD: {
          const n = Math.min(this.remaining, end - i);
          this.payload(buf, i, n);
          i += n;
          this.remaining -= n;
          if (this.remaining === 0) this.frameEnd();
          break;
        }
        case S_HEAD: {
          const b = buf[i++];
          // No extension was negotiated, so the reserved bits must be clear (5.2).
          if (b & 0x70) return this.fail('reserved bits set');
          const op = b & 0x0f;
          const fin = (b & 0x80) !== 0;
          if (op >= 8) {
            if (op > 10) return this.fail(`bad opcode ${op}`);
            if (!fin) return this.fail('fragmented control frame');
          } else if (op === 0) {
            if (this.messageOpcode === 0) return this.fail('continuation frame without a message');
          } else if (op > 2) {
            return this.fail(`bad opcode ${op}`);
          } else if (this.messageOpcode !== 0) {
            return this.fail('new message inside a fragmented one');
          } else {
            this.messageOpcode = op;
            this.messageLength = 0;
          }
          this.fin = fin;
          this.opcode = op;
          this.state = S_LENGTH;
          break;
        }
        case S_LENGTH: {
          const b = buf[i++];
          this.masked = (b & 0x80) !== 0;
          if (this.masked !== this.expectMasked) return this.fail(this.expectMasked ? 'unmasked frame from a client' : 'masked frame from the server');
          const n = b & 0x7f;
          if (this.opcode >= 8 && n > 125) return this.fail('control frame longer than 125 bytes');
          this.length = 0;
          if (n === 126) (this.extendedLeft = 2), (this.state = S_EXTENDED);
          else if (n === 127) (this.extendedLeft = 8), (this.state = S_EXTENDED);
          else {
            this.length = n;
            this.lengthDone();
          }
          break;
        }
        case S_EXTENDED: {
          const b = buf[i++];
          // 64-bit lengths: the most significant bit must be 0 (5.2); past 2^53 a Number loses
          // exactness, and no server sends a frame of petabytes.
          if (this.extendedLeft === 8 && b > 0x1f) return this.fail(b & 0x80 ? 'length with its top bit set' : 'frame too long');
          this.length = this.length * 256 + b;
          if (--this.extendedLeft === 0) this.lengthDone();
          break;
        }
        case S_MASK: {
          this.maskKey[4 - this.maskLeft] = buf[i++];
          if (--this.maskLeft === 0) this.payloadStart();
          break;
        }
        default:
          return end;
      }
    }
    return end;
  }

  lengthDone() {
    if (this.opcode < 8 && this.maxMessage > 0 && this.messageLength + this.length > this.maxMessage) {
      this.messageTooLarge = true;
      return this.fail(`message over ${this.maxMessage} bytes`);
    }
    if (this.masked) {
      this.maskLeft = 4;
      this.state = S_MASK;
    } else {
      this.payloadStart();
    }
  }

  payloadStart() {
    this.remaining = this.length;
    this.maskAt = 0;
    if (this.opcode >= 8) {
      this.control = new Uint8Array(this.length);
      this.controlAt = 0;
    }
    if (this.length === 0) this.frameEnd();
    else this.state = S_PAYLOAD;
  }

  payload(buf, i, n) {
    if (this.opcode >= 8) {
      const control = this.control;
      for (let k = 0; k < n; k++) control[this.controlAt++] = buf[i + k];
      if (this.masked) this.unmask(control, this.controlAt - n, n);
      return;
    }
    this.messageLength += n;
    if (!this.capture) {
      this.maskAt = (this.maskAt + n) & 3;
      return;
    }
    const piece = sliceCopy.call(buf, i, i + n);
    if (this.masked) this.unmask(piece, 0, n);
    this.chunks.push(piece);
  }

  unmask(bytes, from, n) {
    const key = this.maskKey;
    let at = this.maskAt;
    for (let k = from; k < from + n; k++) {
      bytes[k] ^= key[at];
      at = (at + 1) & 3;
    }
    this.maskAt = at;
  }

  frameEnd() {
    this.state = S_HEAD;
    const op = this.opcode;
    if (op >= 8) {
      const payload = this.control;
      this.control = null;
      if (op === 8) this.state = S_DEAD;
      this.handler.onControl(op, payload);
      return;
    }
    if (!this.fin) return;
    const messageOpcode = this.messageOpcode;
    this.messageOpcode = 0;
    this.handler.onMessage(messageOpcode);
    if (this.capture) this.chunks = [];
  }

  fail(reason) {
    this.state = S_DEAD;
    this.handler.onFrameError(reason);
    return -1;
  }
}
