// An HTTP/2 connection whose run-side reads each stream as it comes and may go on writing a
// stream's body after its HEADERS: gRPC's calls and streams in scripts (k6/net/grpc, through
// src/script/net/grpc-channel.js). The run-side has `live` true (Http2Connection then tells it of
// each header block, headersOf(index, list, endStream, blockLength), and each DATA,
// dataOf(index, buf, from, to)); a request whose body is written later has `out` ({ chunks, at, ended }) on its shape,
// and the run-side calls writeOut(index) when it has added to it or ended it.

import { Http2Connection } from './connection.js';
import { dataFrames, rstStreamFrame, CANCEL, DEFAULT_MAX_FRAME } from './frames.js';

const EMPTY = new Uint8Array(0);

export class LiveHttp2Connection extends Http2Connection {
  next() {
    super.next();
    this.pumpOuts();
  }

  // A VU's calls go one or a few at a time: a write the size of what goes, not room for as
  // many requests as the connection may have out (100 here).
  // The frames the run-side holds for the next write (a PING's ACK) go first in it.
  add(bytes) {
    if (this.batch === null) {
      const held = this.socket.take();
      this.batch = new Uint8Array(held.length + bytes.length);
      this.batch.set(held);
      this.batchAt = held.length;
    }
    return super.add(bytes);
  }

  // grpc-go's server PINGs on each message it reads (its BDP estimator): the ACK waits for
  // the run-side's next write on the connection (the VU's next call, soon), not a write of its
  // own: that was a second write a call (bench/grpc-script.sh). The run-side sends it within
  // its sweep's 50 ms if nothing else goes.
  pingAck(frame) {
    this.socket.hold(frame);
  }

  onSettings(buf, start, end) {
    const err = super.onSettings(buf, start, end);
    if (err === null) this.pumpOuts();
    return err;
  }

  onWindowUpdate(stream, increment) {
    const err = super.onWindowUpdate(stream, increment);
    if (err === null) this.pumpOuts();
    return err;
  }

  // A stream the server did not process goes again on the next connection, but not one whose
  // body has begun to go: what went is not kept. It fails as the connection's draining.
  retry(k) {
    const out = this.shapes[k] && this.shapes[k].out;
    if (out && out.written) return this.failSlot(k, 'GOAWAY');
    super.retry(k);
  }

  pumpOuts() {
    if (this.socket === null) return;
    for (let k = 0; k < this.depth; k++) {
      const shape = this.shapes[k];
      if (this.ids[k] !== 0 && shape !== null && shape.out && !shape.out.sent) this.pumpOut(k, shape.out);
    }
  }

  // What the windows allow of the body written so far; END_STREAM with the last of it once the
  // run-side has ended it.
  pumpOut(k, out) {
    const stream = this.ids[k];
    while (out.chunks.length > 0) {
      const chunk = out.chunks[0];
      const n = Math.min(chunk.length - out.at, this.connectionWindow, this.sendWindows[k]);
      if (n <= 0) return;
      const whole = out.at + n === chunk.length;
      const end = whole && out.ended && out.chunks.length === 1;
      this.socket.write(dataFrames(stream, chunk, out.at, n, DEFAULT_MAX_FRAME, end));
      out.written = true;
      this.connectionWindow -= n;
      this.sendWindows[k] -= n;
      if (!whole) {
        out.at += n;
        return;
      }
      out.chunks.shift();
      out.at = 0;
      if (end) {
        out.sent = true;
        return;
      }
    }
    if (out.ended) {
      this.socket.write(dataFrames(stream, EMPTY, 0, 0, DEFAULT_MAX_FRAME, true));
      out.sent = true;
    }
  }

  /** The run-side added to the body of request `index`, or ended it. */
  writeOut(index) {
    if (this.socket === null) return;
    const k = this.slotOfIndex(index);
    if (k >= 0 && this.shapes[k].out && !this.shapes[k].out.sent) this.pumpOut(k, this.shapes[k].out);
  }

  /** Request `index` ends now (a deadline, the script's close): RST_STREAM CANCEL, and it fails with `reason`. */
  cancel(index, reason) {
    const k = this.slotOfIndex(index);
    if (k < 0) return false;
    if (this.socket !== null) this.socket.write(rstStreamFrame(this.ids[k], CANCEL));
    this.failSlot(k, reason);
    return true;
  }

  slotOfIndex(index) {
    for (let k = 0; k < this.depth; k++) if (this.ids[k] !== 0 && this.indexes[k] === index) return k;
    return -1;
  }
}
