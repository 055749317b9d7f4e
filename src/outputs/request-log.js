// --log-file: one line per request as it ends, tab-separated (doc/results.md, "The request
// log"). Lines are written as bytes into a chunk of a buffer, digit by digit (no string per
// request but a failure's reason), and a full chunk goes to the sink (a file, runtimes/run-servers/log-file.js)
// while the next one fills. The chunks out at once are bounded: past LIMIT bytes the run sends
// no new request (Run.claim) until the sink has caught up, so a slow disk slows the run down
// rather than filling the memory or losing lines. Requests already out still end and log.

export const LOG_COLUMNS = ['start_us', 'latency_us', 'wait_us', 'status', 'bytes', 'connection', 'entry', 'core', 'shard'];
export const LOG_HEADER = LOG_COLUMNS.join('\t') + '\n';

// 256 KiB writes: few system calls; 16 of them (4 MiB) out at once before the run holds back.
const CHUNK = 256 * 1024;
const LIMIT = 4 * 1024 * 1024;
// The longest line but for its reason: 9 numbers of at most 16 digits, tabs, and a shard.
const MAX_NUMBERS = 9 * 17 + 32;
// A reason is the run's own text ('timeout', 'malformed response: ...'), cut to this.
const MAX_REASON = 512;

const TAB = 9;
const NEWLINE = 10;
const DASH = 45;
const encoder = new TextEncoder();

export class RequestLog {
  /**
   * sink: { write(Uint8Array) → Promise, close() → Promise } (bytes it may keep until the
   * promise settles). core: this process's core in a --cores run (0 otherwise); shard: 'i/n' or
   * null. chunk and limit: the write size and the most bytes out at once (smaller in tests).
   */
  constructor(sink, { core = 0, shard = null, chunk = CHUNK, limit = LIMIT } = {}) {
    this.sink = sink;
    this.chunk = chunk;
    this.limit = limit;
    this.tail = encoder.encode(`\t${core}\t${shard || '-'}\n`); // the same on every line
    this.buf = new Uint8Array(chunk);
    this.at = 0;
    this.spare = []; // chunks written and free again
    this.out = 0; // bytes handed to the sink and not yet written
    this.holding = false; // from `limit` bytes out until half of them are written
    this.writes = Promise.resolve(); // in order: the lines stay in the order the requests ended
    this.error = null; // the sink's first failure: lines after it are dropped, close() throws it
    this.waiting = null; // called once the run may send again
    this.lines = 0;
    // performance.now() is ms since timeOrigin, the same epoch on every core.
    this.origin = performance.timeOrigin;
  }

  /** Whether the run must hold back new requests until drained() is called. */
  get blocked() {
    return this.holding;
  }

  /** fn() once the sink has caught up (the run resumes sending). */
  onDrain(fn) {
    this.waiting = fn;
  }

  completed(conn, status, start, elapsedMs, waitMs, entry) {
    if (this.at + MAX_NUMBERS > this.chunk) this.flush();
    this.numbers(start, elapsedMs);
    this.int(Math.round(waitMs * 1000));
    this.buf[this.at++] = TAB;
    this.int(status);
    this.rest(conn, entry);
  }

  failed(conn, reason, start, elapsedMs, entry) {
    const text = encoder.encode(reason.length > MAX_REASON ? reason.slice(0, MAX_REASON) : reason);
    if (this.at + MAX_NUMBERS + text.length > this.chunk) this.flush();
    this.numbers(start, elapsedMs);
    this.buf[this.at++] = DASH; // no wait: no byte of a response came, or not all of it
    this.buf[this.at++] = TAB;
    // A reason is one field: a tab or a line break in it (a server's words) becomes a space.
    for (let i = 0; i < text.length; i++) this.buf[this.at++] = text[i] === TAB || text[i] === NEWLINE || text[i] === 13 ? 32 : text[i];
    this.rest(conn, entry);
  }

  numbers(start, elapsedMs) {
    this.int(Math.round((this.origin + start) * 1000));
    this.buf[this.at++] = TAB;
    this.int(Math.round(elapsedMs * 1000));
    this.buf[this.at++] = TAB;
  }

  rest(conn, entry) {
    this.buf[this.at++] = TAB;
    this.int(conn.responseBytes);
    this.buf[this.at++] = TAB;
    this.int(conn.number);
    this.buf[this.at++] = TAB;
    if (entry >= 0) this.int(entry);
    else this.buf[this.at++] = DASH;
    this.buf.set(this.tail, this.at);
    this.at += this.tail.length;
    this.lines++;
  }

  // A non-negative integer below 2^53 in decimal (a negative one, a clock step back, is 0).
  int(n) {
    const buf = this.buf;
    if (!(n > 0)) {
      buf[this.at++] = 48;
      return;
    }
    let digits = 1;
    for (let p = 10; p <= n; p *= 10) digits++;
    let at = (this.at += digits);
    while (n > 0) {
      const q = Math.floor(n / 10);
      buf[--at] = 48 + (n - q * 10);
      n = q;
    }
  }

  // The chunk so far to the sink, and a free one to fill.
  flush() {
    if (this.at === 0) return;
    const chunk = this.buf;
    const n = this.at;
    this.buf = this.spare.pop() || new Uint8Array(this.chunk);
    this.at = 0;
    if (this.error !== null) return;
    this.out += n;
    if (this.out >= this.limit) this.holding = true;
    this.writes = this.writes
      .then(() => (this.error === null ? this.sink.write(chunk.subarray(0, n)) : null))
      .catch((err) => {
        if (this.error === null) this.error = err;
      })
      .then(() => {
        this.out -= n;
        this.spare.push(chunk);
        // Half of it written: the run goes on (resuming at each write would stutter).
        if (this.holding && (this.out <= this.limit / 2 || this.error !== null)) {
          this.holding = false;
          if (this.waiting !== null) this.waiting();
        }
      });
  }

  /** Writes what is left and closes the sink; rejects with the sink's failure, if any. */
  async close() {
    this.flush();
    await this.writes;
    try {
      await this.sink.close();
    } catch (err) {
      if (this.error === null) this.error = err;
    }
    if (this.error !== null) throw this.error;
  }
}
