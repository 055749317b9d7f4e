// A response read whole in one go, its head and text body side by side in the read (the HTTP/1.1
// parser's span, src/http1/captured.js): decoded in one call, of the read itself when it is all
// of it, and cut where the head ends — the same strings as each decoded apart when the head is
// ASCII (a decoder starts afresh after an ASCII byte), as heads are, a body's byte-order mark
// kept.

import { keepingBOM, view } from '../../http1/captured.js';

const decoder = new TextDecoder();

/**
 * Sets out.head and out.body to the text of `buf` from `from` (the head to `headAt`, the body to
 * `to`); false, with nothing set, when the head is not ASCII.
 */
export function spanInto(out, buf, from, headAt, to) {
  const text = decoder.decode(from === 0 && to === buf.length ? buf : view(buf, from, to));
  if (text.length !== to - from) {
    // Some byte is not ASCII: where the head ends in the text is known if the head is ASCII.
    for (let i = from; i < headAt; i++) if (buf[i] > 127) return false;
  }
  out.head = text.slice(0, headAt - from);
  out.body = text.slice(headAt - from);
  return true;
}

/**
 * A span in a read the runtime never writes again (an adapter's `freshReads`, src/socket.js), or
 * in a copy of it (copiedSpan), decoded when the script first reads the response's head or body
 * (k6/http's Response): most scripts read neither of most responses, only the status.
 */
export class SpanText {
  constructor(buf, from, headAt, to) {
    this.buf = buf;
    this.from = from;
    this.headAt = headAt;
    this.to = to;
    this.head = null;
    this.body = null;
  }

  decode() {
    if (this.head !== null) return this;
    const { buf, from, headAt, to } = this;
    if (!spanInto(this, buf, from, headAt, to)) {
      this.head = decoder.decode(view(buf, from, headAt));
      this.body = keepingBOM.decode(view(buf, headAt, to));
    }
    this.buf = null;
    return this;
  }
}

// A read that the adapter writes again (node's and Deno's shared read buffer) is copied rather
// than decoded at once, so that its text too waits for the script: into a slab that responses
// share, each copy cut from it and never written again, a full slab replaced and not reused (as
// HTTP/2's writes: src/http2/write-slab.js). A decode is a native call on every runtime (about
// 0.3 µs a response on Deno and node), a copy a few bytes' memcpy. A span a quarter of the slab
// or more is copied apart. A Response the script keeps keeps its slab: 64 KiB at most (a new
// slab is an allocation of its own, which at 16 KiB, one every ~120 responses, cost as much as
// the copies themselves on Deno).
const SLAB = 64 * 1024;
let slab = new Uint8Array(SLAB);
let used = 0;

/** A SpanText of a copy of the span, for a read that is not the response's own. */
export function copiedSpan(buf, from, headAt, to) {
  const n = to - from;
  if (n >= SLAB / 4) return new SpanText(buf.slice(from, to), 0, headAt - from, n);
  if (used + n > SLAB) {
    slab = new Uint8Array(SLAB);
    used = 0;
  }
  const at = used;
  slab.set(from === 0 && to === buf.length ? buf : buf.subarray(from, to), at);
  used += n;
  return new SpanText(slab, at, at + headAt - from, at + n);
}
