// A VU's HTTP/2 requests to one origin, through the same driver as a load run's
// (src/http2/connection.js): the run-side of that driver for one origin of one VU, as
// OriginClient (client.js) is for HTTP/1.1. Its requests share one connection as streams, as
// Go's transport shares it for k6: a VU's requests one after the other, http.batch()'s at once.

import { Http2Connection } from '../../http2/connection.js';
import { decodeChunks } from '../../http1/captured.js';
import { goStatus } from './status-text.js';
import { DriverSide, answerOf, fillBody } from './driver-side.js';
import { Slots } from './slots.js';
import { timingsOf } from './timings.js';
import { NO_PEER, peerOf } from './peer.js';

// Streams one connection has out at once; more wait their turn (a batch is 20 at most at once
// by default, 6 to a host).
const STREAMS = 32;

export class H2Client extends DriverSide {
  /** `origin`: the OriginClient that found, by ALPN, that this origin speaks h2. */
  constructor(origin) {
    super();
    this.origin = origin;
    this.network = origin.network;
    this.streams = STREAMS;
    this.config = origin.config;
    this.stats = origin.stats;
    this.timeout = 60000;
    this.queue = []; // jobs not yet claimed by the connection
    this.jobs = new Slots(); // index → job, from its send to its answer
    this.conn = null;
  }

  /** As OriginClient.send, for a request with `frames()`: its HTTP/2 frames. */
  send(request) {
    return new Promise((resolve) => {
      const job = { index: 0, request, resolve, fresh: false, shape: null, result: null };
      job.index = this.jobs.add(job);
      this.queue.push(job);
      this.timeout = request.timeout;
      if (this.conn === null) this.conn = new Http2Connection(this, 0);
      this.network.watch(this.conn);
      this.conn.next();
    });
  }

  // The driver's questions (src/driver.js)
  claim(conn) {
    const job = this.queue.shift();
    if (job === undefined) return -2; // nothing asked: the connection waits, open
    // A request that goes on a connection being opened has its connect and TLS times.
    job.fresh = conn.socket === null || conn.readyAt === 0;
    return job.index;
  }

  shapeOf(index) {
    const job = this.jobs.get(index);
    const r = job.request;
    job.shape = { bytes: r.frames(), method: r.method, path: r.path };
    return job.shape;
  }

  connect(conn, now = performance.now()) {
    conn.number = ++this.stats.connections;
    conn.connectAt = now;
    conn.readyAt = 0;
    conn.connectMs = 0;
    conn.tlsMs = 0;
    conn.peer = null;
    const spare = this.origin.takeSpare('h2', conn);
    if (spare !== null) {
      // The socket that found h2: its times are the first request's.
      conn.connectMs = spare.connectMs;
      conn.tlsMs = spare.tlsMs;
      conn.readyAt = now;
      conn.peer = peerOf(this.origin.host, this.origin.port, true, spare.session);
      return spare.socket;
    }
    return this.origin.h2Adapter.connect(this.origin.host, this.origin.port, conn);
  }

  connected(conn) {
    const now = performance.now();
    conn.connectMs = now - conn.connectAt;
    conn.readyAt = now;
  }

  secured(conn, _protocol, session) {
    const now = performance.now();
    conn.tlsMs = now - conn.readyAt;
    conn.readyAt = now;
    conn.peer = peerOf(this.origin.host, this.origin.port, true, session || null);
  }

  responded(conn, status, start, sent, first, end) {
    const job = this.take(conn);
    if (job === null) return;
    const r = job.request;
    // Go names the status as HTTP/1.1 does ('200 OK'); the driver's head says 'HTTP/2 200'.
    const head = `HTTP/2.0 ${goStatus(status)}${decodeChunks(conn.headChunks).slice(`HTTP/2 ${status}`.length)}`;
    const ready = conn.readyAt;
    const result = {
      status,
      head,
      body: null,
      encoding: null,
      error: null,
      bytesIn: conn.responseBytes,
      peer: conn.peer || NO_PEER,
      proto: 'HTTP/2.0',
      start: ready > start ? ready : start, // blocked's end: when it had its connection (client.js)
      timings: timingsOf(job.fresh ? conn.connectMs : 0, job.fresh ? conn.tlsMs : 0, first - (sent > ready ? sent : ready), end - first),
    };
    this.finish(job, fillBody(result, r, conn.bodyChunks, true));
  }

  failed(conn, reason) {
    const job = this.take(conn);
    if (job === null) return;
    this.finish(job, { status: 0, head: '', body: null, encoding: null, error: reason, bytesIn: conn.responseBytes, peer: conn.peer || NO_PEER, proto: '', start: conn.startTime, timings: timingsOf(job.fresh ? conn.connectMs : 0, job.fresh ? conn.tlsMs : 0, 0, 0) });
  }

  // The job the driver reports (it set conn.index to it), no longer the connection's.
  take(conn) {
    const job = this.jobs.get(conn.index);
    if (job === undefined) return null;
    this.jobs.delete(conn.index);
    this.inFlight--;
    return job;
  }

  finish(job, result) {
    result.request = job.request; // the script's side of it (src/script/k6/http/http.js)
    job.result = result;
    this.network.answered++;
    // Answered once the frames read are handled: what follows a redirect may send on this session.
    queueMicrotask(() => job.resolve(answerOf(job.request, result)));
  }

  proceed(conn) {
    if (this.queue.length > 0) conn.next();
    else if (this.jobs.size === 0) this.network.unwatch(conn);
  }

  check() {}

  close() {
    if (this.conn !== null && this.conn.socket !== null) this.conn.drop();
  }
}
