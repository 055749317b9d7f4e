// src/script/net/: a VU's HTTP/1.1, HTTP/2 and gRPC clients, on the run's drivers.
// A VU's HTTP/1.1 requests through the same connection driver as every other request
// (src/http1/connection.js): an OriginClient is the run-side of that driver (src/driver.js) for
// one origin of one VU, with a request handed to a connection when the script makes it, and the
// connection kept open between requests (keep-alive, as k6's VUs keep theirs).

import { Connection } from '../../http1/connection.js';
import { decodeChunks, settleSpan } from '../../http1/captured.js';
import { H2Client } from './client-h2.js';
import { DriverSide, answerOf, fillBody } from './driver-side.js';
import { Negotiation } from './negotiation.js';
import { timingsOf } from './timings.js';
import { SpanText, copiedSpan, spanInto } from './span-text.js';
import { NO_PEER, peerOf } from './peer.js';

// Read once: on node 20 the global `performance` is an accessor, a getter's call at each read.
const { performance } = globalThis;

// What a VU offers an https origin by ALPN, as k6's Go transport: h2 first.
const ALPN = ['h2', 'http/1.1'];

const decoder = new TextDecoder();

/**
 * What every VU's clients share: `adapterFor(origin)` (a socket adapter for a { hostname, tls }
 * origin), `stats` (the driver's counters), the sweep that times requests out, and the requests
 * due to go out once this turn's reads are handled (`afterReads(fn)`: the runtime's way to run
 * fn then; none: each goes out at once).
 */
export class Network {
  constructor(adapterFor, afterReads = null) {
    this.adapterFor = adapterFor;
    this.afterReads = afterReads || null;
    this.due = [];
    this.flush = () => this.sendDue();
    this.stats = { bytes: 0, unexpectedData: 0, retries: 0, connections: 0 };
    // What has a request out: a list, each in it knowing its place (watchSlot), as the running
    // iterations (src/script/vu/iteration.js): a Set's add and delete a request cost more.
    this.active = [];
    this.sweeper = null;
    this.answered = 0; // responses read, in the turns they came in (src/script/vu/iteration.js)
  }
  // A VU's request goes out with the others made in the same turn, after its reads: the server
  // (asleep once it has answered everything) is woken by the first write of them rather than by
  // each, and a wake-up is paid by the writer's CPU — on a virtual machine, where the wake is an
  // interrupt sent between cores, several µs of system time a request (doc/scripts.md). A load
  // run's drivers, which write as soon as a response is read, keep a server busy enough without.
  later(conn) {
    if (this.afterReads === null) return conn.next();
    this.due.push(conn);
    if (this.due.length === 1) this.afterReads(this.flush);
  }
  sendDue() {
    const due = this.due;
    this.due = [];
    // Each reads the clock as it goes out: a write takes µs, which the next one's time must not
    // count; the wait before it counts in its `blocked`.
    for (let i = 0; i < due.length; i++) if (!due[i].run.closed) due[i].next();
  }
  watch(conn) {
    if (conn.watchSlot >= 0) return;
    conn.watchSlot = this.active.length;
    this.active.push(conn);
    if (this.sweeper === null) {
      // One sweep for every VU's requests, not a timer per request.
      this.sweeper = setInterval(() => this.sweep(), 50);
    }
  }
  unwatch(conn) {
    const slot = conn.watchSlot;
    if (!(slot >= 0)) return;
    const last = this.active.pop();
    if (last !== conn) {
      this.active[slot] = last;
      last.watchSlot = slot;
    }
    conn.watchSlot = -1;
  }
  // From the end: what times out leaves at once (unwatch), and only the last moves, already seen.
  sweep() {
    const now = performance.now();
    for (let i = this.active.length - 1; i >= 0; i--) if (i < this.active.length) this.active[i].timedOut(now);
    if (this.active.length === 0) this.close();
  }
  close() {
    if (this.sweeper !== null) clearInterval(this.sweeper);
    this.sweeper = null;
  }
}

/**
 * One origin of one VU: its free connections and the request each has out. An https origin is
 * asked by ALPN whether it speaks h2 on the first connection, which then carries the requests
 * of the protocol it chose: HTTP/2 through H2Client (client-h2.js), HTTP/1.1 here.
 */
export class OriginClient extends DriverSide {
  constructor(network, { address, port, hostname, tls }, maxBodySize = 0) {
    super();
    this.network = network;
    this.adapter = network.adapterFor({ hostname, tls, http1: true });
    // Its reads are never written again: a response's text may wait for the script (SpanText).
    this.freshReads = this.adapter.freshReads === true;
    this.h2Adapter = tls ? network.adapterFor({ hostname, tls, alpn: ALPN }) : null;
    this.protocol = tls ? null : 'http/1.1'; // null: not known until a connection says
    this.negotiating = null; // the promise of the connection that asks
    this.spare = null; // that connection, until a driver takes it
    this.h2 = null;
    this.host = address;
    this.port = port;
    this.tls = Boolean(tls);
    this.config = { maxBodySize };
    this.borrow = true; // and decodes it in responded(), before the adapter reuses its buffer
    this.keepAlive = true;
    this.stats = network.stats;
    this.timeout = 60000;
    this.free = [];
    this.all = [];
    this.closed = false; // its requests not yet out stay so (Network.sendDue)
  }

  /**
   * Sends `request` ({ bytes, isHead, method, path, timeout, binary, answer(result) }) on a free
   * connection and resolves, once it ends, to its answer to the result { request, status, head,
   * body, error, start, timings, bytesIn } (answerOf).
   */
  send(request) {
    if (this.protocol === 'h2') return this.h2.send(request);
    if (this.protocol === null && this.spare === null) {
      // A connection that fails before it chose is the HTTP/1.1 path's to report, as any other.
      return this.negotiate().then((chose) => (chose && this.protocol === 'h2' ? this.h2.send(request) : this.sendH1(request)));
    }
    return this.sendH1(request);
  }

  // One connection asks the origin which protocol it speaks; the requests waiting meanwhile
  // go by its answer.
  negotiate() {
    if (this.negotiating === null) {
      this.negotiating = new Promise((resolve) => {
        const n = new Negotiation(this, resolve);
        n.socket = this.h2Adapter.connect(this.host, this.port, n);
      }).then((n) => {
        this.negotiating = null;
        if (n.failed) return false;
        this.protocol = n.protocol === 'h2' ? 'h2' : 'http/1.1';
        if (this.protocol === 'h2' && this.h2 === null) this.h2 = new H2Client(this);
        this.spare = n;
        return true;
      });
    }
    return this.negotiating;
  }

  /** The connection that asked, for a driver of `protocol` to go on with; null if none is open. */
  takeSpare(protocol, driver) {
    const n = this.spare;
    if (n === null || n.closed || (n.protocol === 'h2') !== (protocol === 'h2')) return null;
    this.spare = null;
    n.handOver(driver);
    return n;
  }

  sendH1(request) {
    // A request of a series that keeps its connection (Pin) goes on it; the others (no pin, or
    // none said) on a free one.
    const pin = request.pin;
    let conn = pin && pin.conn !== null ? pin.conn : this.free.pop();
    if (conn === undefined) {
      conn = new Connection(this, this.all.length);
      this.all.push(conn);
    }
    // The connection's job object is its own, made once and filled for each request (it is the
    // connection's only until proceed() hands the result on).
    const job = conn.jobSlot || (conn.jobSlot = { request: null, resolve: null, executor: null, claimed: false, connectMs: 0, tlsMs: 0, result: null, answer: null });
    job.request = request;
    job.claimed = false;
    job.connectMs = 0;
    job.tlsMs = 0;
    job.result = null;
    const promise = new Promise(job.executor || (job.executor = (resolve) => (job.resolve = resolve)));
    conn.job = job;
    this.timeout = request.timeout;
    this.network.watch(conn);
    this.network.later(conn);
    return promise;
  }

  // The driver's questions (src/driver.js)
  claim(conn) {
    const job = conn.job;
    if (!job || job.claimed) return -2; // nothing asked: the connection waits, open
    job.claimed = true;
    return 0;
  }

  shapeOf(_index, conn) {
    return conn.job.request;
  }

  connect(conn, now = performance.now()) {
    conn.number = ++this.stats.connections;
    conn.connectAt = now;
    conn.readyAt = 0;
    conn.peer = null;
    const spare = this.takeSpare('http/1.1', conn);
    if (spare !== null) {
      // The connection that asked: its times are this request's, which began when it did.
      const job = conn.job;
      if (job) {
        job.connectMs = spare.connectMs;
        job.tlsMs = spare.tlsMs;
      }
      conn.readyAt = now;
      conn.peer = peerOf(this.host, this.port, true, spare.session);
      return spare.socket;
    }
    return this.adapter.connect(this.host, this.port, conn);
  }

  connected(conn) {
    const now = performance.now();
    if (conn.job) conn.job.connectMs = now - conn.connectAt;
    conn.readyAt = now;
    if (!this.tls) conn.peer = peerOf(this.host, this.port, false, null);
  }

  secured(conn, _protocol, session) {
    const now = performance.now();
    if (conn.job) conn.job.tlsMs = now - conn.readyAt;
    conn.readyAt = now;
    conn.peer = peerOf(this.host, this.port, true, session || null);
  }

  responded(conn, status, start, sent, first, end) {
    this.inFlight--;
    const job = conn.job;
    const parser = conn.parser;
    const ready = conn.readyAt;
    // The connection's own result object, filled anew: k6/http reads it within proceed()'s
    // answerOf() and keeps none of it but its parts (the Request's answer()).
    const result = job.answer || (job.answer = newResult());
    result.request = job.request;
    result.status = status;
    result.head = '';
    result.body = null;
    result.encoding = null;
    result.error = null;
    result.proto = null;
    result.cookied = parser.cookied; // whether the head has a Set-Cookie to look for
    result.bytesIn = conn.responseBytes;
    result.peer = conn.peer || NO_PEER;
    // When the request had its connection, where its `blocked` ends: as k6's (Go's GotConn),
    // after a new connection's connecting and TLS.
    result.start = ready > start ? ready : start;
    // A k6/http request sent as soon as it was made: blocked from its send (http.js dispatch()).
    if (job.request.blockedStart === 0) job.request.blockedStart = start;
    result.timings = timingsOf(job.connectMs, job.tlsMs, first - (sent > ready ? sent : ready), end - first);
    // What the parser kept may be in the adapter's read buffer: decoded (or copied) now, unless
    // the read is the response's own for good and its text waits until the script reads it.
    if (parser.spanBuf === null || !textOfSpan(result, parser, job.request, this.freshReads)) {
      settleSpan(parser, false);
      result.head = decodeChunks(conn.headChunks);
      fillBody(result, job.request, conn.bodyChunks, parser.encoded);
    }
    job.result = result;
  }

  failed(conn, reason) {
    this.inFlight--;
    const job = conn.job;
    if (job.request.blockedStart === 0) job.request.blockedStart = conn.startTime;
    job.result = { request: job.request, status: 0, head: '', body: null, encoding: null, error: reason, bytesIn: conn.responseBytes, peer: conn.peer || NO_PEER, start: conn.startTime, timings: timingsOf(job.connectMs, job.tlsMs, 0, 0) };
  }

  proceed(conn) {
    const job = conn.job;
    if (!job || job.result === null) return; // an idle connection closed by the server
    conn.job = null;
    this.network.unwatch(conn);
    this.network.answered++;
    const pin = job.request.pin;
    if (pin && pin.hold) pin.held(this, conn);
    else this.free.push(conn);
    job.resolve(answerOf(job.request, job.result));
  }

  close() {
    this.closed = true;
    for (const conn of this.all) {
      if (conn.socket !== null) conn.drop();
    }
    if (this.h2 !== null) this.h2.close();
    if (this.spare !== null) {
      this.spare.drop();
      this.spare = null;
    }
  }
}

/**
 * The HTTP/1.1 connection of a series of requests, kept from the others of its VU while `hold`
 * (k6/http's NTLM handshake, which authenticates a connection: k6/http/auth/ntlm.js): the first
 * request of it takes a free one, the next go on that one; released, it is free again. Over h2
 * there is one connection anyway, and nothing to keep.
 */
export class Pin {
  constructor() {
    this.hold = true;
    this.conn = null;
    this.client = null;
  }
  held(client, conn) {
    this.client = client;
    this.conn = conn;
  }
  // The next request is its last: its connection is free once it ends.
  last() {
    this.hold = false;
  }
  release() {
    if (this.client !== null && this.hold) this.client.free.push(this.conn);
    this.hold = false;
  }
}

export const decodeText = (bytes) => decoder.decode(bytes);

const newResult = () => ({ request: null, status: 0, head: '', body: null, encoding: null, error: null, proto: null, cookied: false, bytesIn: 0, peer: NO_PEER, start: 0, timings: null });

// A response read whole in one go (the parser's span) whose text the script may read: decoded
// when the script reads the Response's head or body (k6/http's Response takes the SpanText as
// its body), of the read itself when it stays as it is (`later`), else of a copy (span-text.js);
// now when the head has a Set-Cookie for the VU's jar. False when this does not apply, or the
// head is not ASCII.
function textOfSpan(result, parser, request, later) {
  if (request.discard || request.binary || parser.encoded) return false;
  if (parser.cookied === false) {
    const { spanBuf, spanFrom, spanHead, spanTo } = parser;
    result.body = later ? new SpanText(spanBuf, spanFrom, spanHead, spanTo) : copiedSpan(spanBuf, spanFrom, spanHead, spanTo);
    result.head = null;
    return true;
  }
  return spanInto(result, parser.spanBuf, parser.spanFrom, parser.spanHead, parser.spanTo);
}
