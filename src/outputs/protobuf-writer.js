// Protocol Buffers' wire format, written straight into bytes for the push outputs' messages
// (Prometheus remote write, OTLP): varints, doubles and length-delimited fields, a nested message's
// length written once it is known. A double is written from its bytes when a value must keep its
// exact bits (Prometheus' stale marker is a NaN of its own, which bun's engine would not keep).

const encoder = new TextEncoder();

export class ProtoWriter {
  constructor(size = 1 << 16) {
    this.buf = new Uint8Array(size);
    this.view = new DataView(this.buf.buffer);
    this.pos = 0;
    this.starts = [];
  }

  ensure(n) {
    if (this.pos + n <= this.buf.length) return;
    const buf = new Uint8Array(Math.max(this.buf.length * 2, this.pos + n));
    buf.set(this.buf.subarray(0, this.pos));
    this.buf = buf;
    this.view = new DataView(buf.buffer);
  }

  /** A non-negative integer below 2^53, or a negative one as protobuf's int64 (ten bytes). */
  varint(n) {
    this.ensure(10);
    const b = this.buf;
    if (n < 0) {
      let v = BigInt.asUintN(64, BigInt(n));
      while (v >= 0x80n) {
        b[this.pos++] = Number(v & 0x7fn) | 0x80;
        v >>= 7n;
      }
      b[this.pos++] = Number(v);
      return;
    }
    while (n >= 0x80) {
      b[this.pos++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    b[this.pos++] = n;
  }

  tag(field, wire) {
    this.varint(field * 8 + wire);
  }

  uint(field, n) {
    this.tag(field, 0);
    this.varint(n);
  }

  /** sint32 and sint64: zigzag. */
  sint(field, n) {
    this.uint(field, n >= 0 ? 2 * n : -2 * n - 1);
  }

  double(field, v) {
    this.tag(field, 1);
    this.ensure(8);
    this.view.setFloat64(this.pos, v, true);
    this.pos += 8;
  }

  /** A double given as its eight little-endian bytes. */
  doubleBytes(field, bytes) {
    this.tag(field, 1);
    this.ensure(8);
    this.buf.set(bytes, this.pos);
    this.pos += 8;
  }

  fixed64(field, n) {
    this.tag(field, 1);
    this.ensure(8);
    this.view.setBigUint64(this.pos, BigInt(n), true);
    this.pos += 8;
  }

  /** Repeated fixed64 (counts below 2^53), packed. */
  packedFixed64(field, values) {
    this.fork(field);
    this.ensure(values.length * 8);
    for (const n of values) {
      this.view.setBigUint64(this.pos, BigInt(n), true);
      this.pos += 8;
    }
    this.join();
  }

  packedDoubles(field, values) {
    this.fork(field);
    this.ensure(values.length * 8);
    for (const v of values) {
      this.view.setFloat64(this.pos, v, true);
      this.pos += 8;
    }
    this.join();
  }

  string(field, s) {
    this.fork(field);
    this.ensure(s.length * 3);
    this.pos += encoder.encodeInto(s, this.buf.subarray(this.pos)).written;
    this.join();
  }

  /** Bytes already encoded: a field's, or a message's whole fields. */
  raw(bytes) {
    this.ensure(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  packedSints(field, values) {
    this.fork(field);
    for (const n of values) this.varint(n >= 0 ? 2 * n : -2 * n - 1);
    this.join();
  }

  /** A nested message (or a packed field) begins: its length is written by join(). */
  fork(field) {
    this.tag(field, 2);
    this.ensure(1);
    this.starts.push(this.pos);
    this.pos++;
  }

  join() {
    const start = this.starts.pop();
    const len = this.pos - start - 1;
    let size = 1;
    for (let v = len; v >= 0x80; v = Math.floor(v / 0x80)) size++;
    if (size > 1) {
      this.ensure(size - 1);
      this.buf.copyWithin(start + size, start + 1, this.pos);
      this.pos += size - 1;
    }
    const end = this.pos;
    this.pos = start;
    this.varint(len);
    this.pos = end;
  }

  /** The bytes written, copied; the writer is empty again. */
  finish() {
    const out = this.buf.slice(0, this.pos);
    this.pos = 0;
    return out;
  }
}
