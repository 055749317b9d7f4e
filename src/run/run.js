// The client loop: `concurrency` connections that each send a request, wait for its response,
// and send the next, until maxRequests or maxSeconds, or at the times of the open model's
// schedule. Every request sent ends in exactly one of: completed (a status code), failed (a
// reason), or in flight at the stop. The connections are drivers of one protocol
// (src/driver.js); the run hands out work, opens sockets, counts, and stops.

import { IDEMPOTENT } from '../driver.js';
import { Stats } from './stats.js';
import { reportResponse, reportFailure } from './callbacks.js';
import { statsSnapshot } from '../results/metrics-text.js';
import { closeSecond } from './series.js';
import { StageSchedule, targetAt } from './stages.js';
import { openSome, warmUp, followStages } from './opening.js';
import { tick, due, intendedAt } from './schedule.js';
import { Connection } from '../http1/connection.js';
import { PipelinedConnection } from '../http1/pipelined.js';
import { WebSocketConnection } from '../websocket/connection.js';
import { Http2Connection } from '../http2/connection.js';

/**
 * One load test. `config` is what options.js produces; `adapter` implements src/socket.js.
 * start() resolves to the Stats when the run is over; stop() ends it early.
 */
export class Run {
  constructor(config, adapter) {
    this.config = config;
    this.adapter = adapter;
    this.resolve = null;
    this.host = config.host;
    this.port = config.port;
    this.keepAlive = config.keepAlive;
    this.maxRequests = config.maxRequests || Infinity;
    this.timeout = config.timeout || 0;
    // Open model (a rate): this process sends its share of one schedule: request k of all
    // processes is due at origin + k / rate; this one takes k = offset, offset + stride, ...
    this.open = (config.requestsPerSecond || 0) > 0 || config.stages !== null;
    // Rate stages: the schedule's times come from the ramp (src/run/stages.js) instead of a period.
    this.stages = config.stages ? new StageSchedule(config.stages, config.indexStride || 1, config.indexOffset || 0) : null;
    this.connectionStages = config.connectionStages || null;
    const steady = (config.requestsPerSecond || 0) > 0;
    this.period = steady ? 1000 / config.requestsPerSecond : 0; // ms between this process's requests
    this.phase = steady ? (this.period * (config.indexOffset || 0)) / (config.indexStride || 1) : 0;
    this.origin = 0;
    this.scheduleEnd = Infinity; // requests due after the deadline are not part of the run
    this.intendedTime = 0; // of the request being claimed
    this.sendAt = 0; // the drivers read the clock themselves (src/driver.js)
    this.idle = [];
    this.maxConnections = Math.max(config.concurrency, config.maxConnections || 0);
    this.indexStride = config.indexStride || 1;
    this.indexOffset = config.indexOffset || 0;
    this.fixed = config.requests.fixed;
    this.fixedShape = config.requests.shape || null;
    this.fixedIsHead = config.requests.isHead;
    this.fixedIdempotent = IDEMPOTENT.has(config.method);
    this.build = config.requests.build;
    this.statusCallback = config.statusCallback || null;
    this.contentInspector = config.contentInspector || null;
    // Checks and captures (src/requests/checks.js): inspect(conn, status, entry) → null or a reason.
    this.inspect = config.requests.inspect || null;
    // Responses' bytes are kept for the callbacks, a run-wide check, and drivers with several
    // requests out when a sequence checks or captures; one at a time, a connection keeps only
    // the bytes of the entries that check or capture (src/http1/connection.js).
    const several = (config.pipelining || 1) > 1 || Boolean(config.http2);
    this.capture = this.statusCallback !== null || this.contentInspector !== null || Boolean(config.check) || (this.inspect !== null && several);
    this.stats = new Stats(config.sequence);
    // The request phases (src/run/stats.js): where each latency went.
    this.connectPhase = this.stats.phases.connect;
    this.tlsPhase = this.stats.phases.tls;
    this.waitPhase = this.stats.phases.wait;
    this.receivePhase = this.stats.phases.receive;
    // --log-file: a line per request that ends (src/outputs/request-log.js), or null; set with useLog().
    this.log = null;
    this.heldBack = []; // connections that found the log's buffer full, waiting for its drain
    // --out: each request as a k6 script's samples (src/outputs/load-samples.js), or null.
    this.samples = null;
    // ws:// and wss:// URLs: a request is a message and its reply (src/websocket/connection.js).
    // --pipeline N above 1: a connection of its own (src/http1/pipelined.js), so that
    // one request at a time keeps Connection's path as it is.
    this.pipelining = config.pipelining || 1;
    // --http2: streams of one connection (src/http2/connection.js).
    this.streams = config.streams || 1;
    // The lowest status that is an error: HTTP's 400, or for gRPC any code but OK (0).
    this.errorStatus = config.grpc ? 1 : 400;
    this.Connection = config.websocket ? WebSocketConnection : config.http2 ? Http2Connection : this.pipelining > 1 ? PipelinedConnection : Connection;
    this.connections = [];
    this.openSockets = 0;
    this.peakSockets = 0; // most open at once in the current second
    this.inFlight = 0;
    this.stopping = false;
    this.done = false;
    this.timers = [];
    this.startTime = 0;
    this.began = false;
    this.waiting = null; // the timer until startAt
    this.secondClosedAt = 0; // when the series' last second was closed
    this.connectFailures = 0;
    this.abortReason = null;
    this.opening = 0; // connections the run starts with
    this.started = 0; // of those, sending
    this.warmed = 0; // of those, whose first request has ended
    this.warming = false;
    this.opener = null;
    this.openFrom = 0;
  }

  start() {
    return new Promise((resolve) => {
      this.resolve = resolve;
      // startAt (wall-clock ms): the children of --cores and the shards of --shard begin together.
      const wait = this.config.startAt ? this.config.startAt - Date.now() : 0;
      if (wait > 0 && !this.stopping) this.waiting = setTimeout(() => this.begin(), wait);
      else this.begin();
    });
  }

  begin() {
    this.began = true;
    this.waiting = null;
    this.startTime = performance.now();
    const c = this.config;
    // One clock for the schedule and the series of every process: startAt is wall-clock time.
    this.origin = c.startAt ? this.startTime + (c.startAt - Date.now()) : this.startTime;
    this.stats.startTime = c.startAt || Date.now();
    this.secondClosedAt = this.origin;
    // stopAt (a wall-clock time) lets the children of a multi-core run stop together.
    let runMs = c.maxSeconds ? c.maxSeconds * 1000 : 0;
    const stopAt = c.stopAt || (c.startAt && c.maxSeconds ? c.startAt + c.maxSeconds * 1000 : 0);
    if (stopAt) {
      runMs = stopAt - Date.now();
      // A child whose `go` came after the shared deadline has nothing left to do; a runMs of 0
      // would read as "no time limit" below and the run would never stop.
      if (runMs <= 0) {
        runMs = 0;
        this.stopping = true;
        this.deadlineReached = true;
      }
    }
    if (runMs) this.timers.push(setTimeout(() => this.deadline(), runMs));
    // The schedule's length, from its origin to the stop: with both ends given as wall-clock
    // times, their difference, never two readings of the clock (a process descheduled between
    // them lost the requests due in the gap: a child under load once sent 199 of its 200).
    const scheduleMs = stopAt && c.startAt ? stopAt - c.startAt : runMs;
    if (this.timeout) {
      // One sweep for all connections instead of a timer per request.
      const every = Math.max(5, Math.min(250, Math.floor(this.timeout / 10)));
      this.timers.push(setInterval(() => this.sweep(), every));
    }
    this.nextSecond();
    if (this.open) {
      // Requests due strictly before the deadline (the epsilon keeps 1500 ms / 5 ms at 300
      // when floating point makes it 300.0000000001).
      if ((stopAt || runMs) && this.stages !== null) this.scheduleEnd = this.stages.countBefore(scheduleMs);
      else if (stopAt || runMs) this.scheduleEnd = Math.max(0, Math.ceil((scheduleMs - this.phase) / this.period - 1e-9));
      // Timers are coarse (1 ms at best on all three runtimes): each tick sends every request
      // whose time has come, never one timer per request.
      this.timers.push(setInterval(() => tick(this), 1));
    }
    if (c.signal) {
      if (c.signal.aborted) return this.stop();
      c.signal.addEventListener('abort', () => this.interrupt(), { once: true });
    }
    if (this.connectionStages !== null) {
      // Connections follow the stages: checked every 10 ms, opened or retired one by one.
      this.timers.push(setInterval(() => followStages(this), 10));
      followStages(this);
      this.check();
      return;
    }
    const n = Math.min(c.concurrency, this.maxRequests);
    for (let i = 0; i < n; i++) this.connections.push(new this.Connection(this, i));
    this.opening = n;
    this.warming = n > 0;
    this.openFrom = performance.now(); // the pace counts from here, not from the setup above
    openSome(this);
    if (this.started < n && !this.stopping) this.timers.push((this.opener = setInterval(() => openSome(this), 1)));
    this.check();
  }

  // A connection's new socket, counted for the report and the series. `now`: the caller's clock
  // read of this moment, if it has one (the connect phase counts from here).
  connect(conn, now = performance.now()) {
    conn.number = ++this.stats.connections;
    conn.connectAt = now;
    conn.readyAt = 0;
    if (++this.openSockets > this.peakSockets) this.peakSockets = this.openSockets;
    return this.adapter.connect(this.host, this.port, conn);
  }

  // The adapter says the socket is up (through a proxy: the tunnel too), then its TLS is done.
  connected(conn) {
    const now = performance.now();
    this.connectPhase.record((now - conn.connectAt) * 1000);
    // --out: the connection's setup goes with its first request's samples.
    if (this.samples !== null) conn.setup = { connecting: now - conn.connectAt, tls: 0 };
    conn.readyAt = now;
  }

  secured(conn) {
    const now = performance.now();
    this.tlsPhase.record((now - conn.readyAt) * 1000);
    if (this.samples !== null && conn.setup) conn.setup.tls = now - conn.readyAt;
    conn.readyAt = now;
  }

  // The adapter closed a connection's socket (the server, a reset): it is no longer open.
  socketClosed(conn) {
    if (conn.socket !== null) this.openSockets--;
    conn.socket = null;
  }

  disconnect(socket) {
    if (socket) {
      this.openSockets--;
      socket.destroy();
    }
  }

  // After a connection's request ends: its next one, or the end of the run. One retired by
  // connection stages closes and waits to be asked back.
  proceed(conn) {
    if (this.warming) warmUp(this, conn);
    if (this.stopping || conn.retired) {
      // A driver with several requests out (pipelined, HTTP/2) closes once they are answered.
      if (!this.stopping && conn.inFlight > 0) return;
      conn.drop();
      conn.parked = conn.retired;
      this.check();
      return;
    }
    conn.next();
    this.check();
  }

  /** Writes each request that ends as a k6 script's samples to `samples` (a LoadSamples). */
  useSamples(samples) {
    this.samples = samples;
  }

  /** Logs each request that ends to `log` (a RequestLog), which may hold the run back. */
  useLog(log) {
    this.log = log;
    log.onDrain(() => this.resume());
  }

  // The log caught up: the connections it held back go on (the open model's due requests go out
  // from the next tick, their latency counted from their time in the schedule).
  resume() {
    const held = this.heldBack;
    if (held.length === 0) return;
    this.heldBack = [];
    for (const conn of held) {
      conn.heldBack = false;
      if (!this.stopping) conn.next();
    }
    this.check();
  }

  // Hands out the next request index: -1 no more, -2 none due yet (open model) or held back.
  claim(conn) {
    const stats = this.stats;
    if (this.stopping || stats.sent >= this.maxRequests || stats.sent >= this.scheduleEnd) return -1;
    if (this.log !== null && this.log.blocked) {
      // The log's writes are behind (a slow disk): no new request until they catch up.
      if (!conn.heldBack) {
        conn.heldBack = true;
        this.heldBack.push(conn);
      }
      return -2;
    }
    if (this.open) {
      const intended = intendedAt(this, stats.sent);
      if (intended > performance.now()) {
        if (!conn.idle) {
          conn.idle = true;
          this.idle.push(conn);
        }
        return -2;
      }
      if (conn.idle) {
        // Woken by its own socket (the server closed it, or sent stray bytes) after its next
        // request came due but before tick() ran: it takes that request, so it must leave the
        // idle list, or tick() would later hand it a second request while this one is out (two
        // requests on one connection, one of them never accounted for: the run never ends).
        conn.idle = false;
        const at = this.idle.indexOf(conn);
        if (at >= 0) this.idle.splice(at, 1);
      }
      this.intendedTime = intended;
    }
    // Children of a multi-core run interleave their indexes so that they stay unique.
    return stats.sent++ * this.indexStride + this.indexOffset;
  }

  // The series closes a second on each whole second from the origin; a late timer makes that
  // second longer (its durationMs says so) rather than moving counts into the wrong one.
  nextSecond() {
    const due = this.origin + (this.stats.series.length + 1) * 1000;
    this.secondTimer = setTimeout(() => {
      // Timers may fire up to a millisecond early (node rounds to its loop's cached clock).
      if (performance.now() < due - 0.5) return this.nextSecond();
      this.closeSecond();
      if (!this.done) this.nextSecond();
    }, Math.max(0, Math.ceil(due - performance.now())));
  }

  closeSecond() {
    const now = performance.now();
    closeSecond(this.stats, now - this.secondClosedAt, this.peakSockets);
    if (this.samples !== null) this.samples.second(this.openSockets, this.maxConnections);
    if (this.stages !== null || this.connectionStages !== null) this.stageTarget(now);
    this.peakSockets = this.openSockets;
    this.secondClosedAt = now;
  }

  // The whole run's target in the second just closed: requests the ramp asked for in it, or the
  // connections asked for at its end (the same in every process: merging keeps one).
  stageTarget(now) {
    const entry = this.stats.series[this.stats.series.length - 1];
    // The series' seconds are whole seconds from the origin; only the last may be cut short.
    const t0 = entry.second - 1;
    // (A run that reached its deadline ran the stages to their end, even if the timer was early.)
    const cut = this.done && !this.deadlineReached;
    const t1 = cut ? Math.min(entry.second, Math.max(t0, (now - this.origin) / 1000)) : entry.second;
    if (this.stages !== null) {
      const all = new StageSchedule(this.config.stages);
      entry.targetRequests = Math.round((all.requestsBy(t1) - all.requestsBy(t0)) * 1000) / 1000;
    } else {
      entry.targetConnections = Math.round(targetAt(this.connectionStages, t1));
    }
  }

  sweep() {
    const now = performance.now();
    for (const conn of this.connections) conn.timedOut(now);
  }

  connectFailed(reason) {
    this.connectFailures++;
    // Fail fast (the CLI asks for it): when the first connections all fail before any response,
    // the target is down and the rest of the run would only repeat the failure.
    if (this.config.failFast && this.stats.completed === 0 && this.connectFailures >= this.connections.length) {
      this.abortReason = reason;
      this.stop();
    }
  }

  // Request `index` when requests differ ({ bytes, isHead, method, path, entry }), or null when a
  // user's generator or body function threw: that request fails with the reason and the run
  // ends, rather than an exception escaping a socket handler.
  shapeOf(index, conn) {
    try {
      return this.build(index, conn);
    } catch (err) {
      this.buildFailed(conn, index, err);
      return null;
    }
  }

  buildFailed(conn, index, err) {
    const reason = `request generator threw: ${(err && err.message) || err}`;
    conn.index = index;
    conn.startTime = performance.now();
    this.stats.fail(reason);
    if (this.statusCallback !== null) reportFailure(this, conn, reason);
    this.abortReason = reason;
    this.stop();
  }

  deadline() {
    this.deadlineReached = true;
    // A late timer must not drop requests that were due before the deadline.
    if (this.open) tick(this);
    this.stop();
  }

  /** Stopped from outside (a signal, Ctrl-C): as stop(), and the result says so. */
  interrupt() {
    if (!this.stopping) this.stats.interrupted = true;
    this.stop();
  }

  /** Ends the run now: requests still out are reported as in flight. */
  stop() {
    if (this.stopping) return;
    this.stopping = true;
    if (!this.began) {
      // Stopped while waiting for startAt: an empty run.
      clearTimeout(this.waiting);
      this.begin();
      return;
    }
    for (const conn of this.connections) {
      // true or false, or a pipelined connection's count.
      const n = +conn.inFlight;
      if (n > 0) {
        conn.inFlight = conn.inFlight === true ? false : 0;
        this.inFlight -= n;
        this.stats.inFlightAtStop += n;
      }
      conn.drop();
    }
    this.check();
  }

  // Finishes once nothing is left to send or wait for.
  check() {
    if (this.done) return;
    if (this.inFlight > 0) return;
    if (!this.stopping && this.stats.sent < this.maxRequests) return;
    this.done = true;
    this.stopping = true;
    for (const t of this.timers) clearTimeout(t), clearInterval(t);
    clearTimeout(this.secondTimer);
    for (const conn of this.connections) {
      conn.drop();
      // One waiting out a failed connect must not keep the process alive after the run.
      if (conn.backoffTimer) clearTimeout(conn.backoffTimer);
    }
    const now = performance.now();
    // The last, partial second (a run that ended on a whole second has nothing more to close).
    const stats = this.stats;
    if (stats.series.length === 0 || now - this.secondClosedAt >= 1 || stats.completed + stats.failed > stats.seriesTotals.ended) this.closeSecond();
    // The open model's clock starts at the schedule's origin (a child may wait a moment for it).
    this.stats.elapsedMs = now - (this.open ? Math.max(this.origin, this.startTime) : this.startTime);
    this.stats.abortReason = this.abortReason;
    this.stats.clients = this.connections.length;
    // Due in the schedule but never sent (every connection was busy until the stop).
    // At the deadline that is the whole schedule's rest, even if the timer fired a little early.
    if (this.open) this.stats.notSent = Math.max(0, (this.deadlineReached ? Math.min(this.scheduleEnd, this.maxRequests) : due(this, now)) - this.stats.sent);
    this.resolve(this.stats);
  }

  // A driver's request answered (src/driver.js): counted, and shown to the user's callbacks.
  // Its wait counts from its write, or from when its connection was ready if that was later (a
  // request written as its connection opened: connect and TLS are phases of their own).
  responded(conn, status, start, sent, first, end, entry) {
    if (this.inspect !== null) {
      const reason = this.inspect(conn, status, entry);
      if (reason !== null) {
        // A failed check or capture: an error with its reason, the response not in the latency.
        conn.startTime = start;
        return this.failed(conn, reason, entry);
      }
    }
    this.inFlight--;
    const stats = this.stats;
    stats.completed++;
    const elapsedMs = end - start;
    stats.recent.record(elapsedMs * 1000);
    const ready = conn.readyAt;
    const waitMs = first - (sent > ready ? sent : ready);
    this.waitPhase.record(waitMs * 1000);
    this.receivePhase.record((end - first) * 1000);
    if (this.log !== null) this.log.completed(conn, status, start, elapsedMs, waitMs, entry);
    if (this.samples !== null) {
      this.samples.completed(entry > 0 ? entry : 0, status, start, conn.setup || null, ready, sent, first, end);
      conn.setup = null;
    }
    if (stats.entries !== null) stats.recordEntry(entry, elapsedMs, status >= 400);
    if (this.statusCallback === null && this.contentInspector === null) {
      stats.statusCounts[status]++;
      if (status >= this.errorStatus) stats.httpErrors++;
      return;
    }
    reportResponse(this, conn, status, elapsedMs);
  }

  // A driver's request failed with `reason`.
  failed(conn, reason, entry) {
    this.inFlight--;
    this.stats.fail(reason);
    if (this.stats.entries !== null) this.stats.entries.errors[entry]++;
    if (this.log !== null) this.log.failed(conn, reason, conn.startTime, performance.now() - conn.startTime, entry);
    if (this.samples !== null) {
      this.samples.failed(entry > 0 ? entry : 0, reason, performance.now() - conn.startTime);
      conn.setup = null;
    }
    if (this.statusCallback !== null) reportFailure(this, conn, reason);
  }

  /** What --metrics serves (src/results/metrics-text.js): counters the run keeps anyway. */
  metricsSnapshot() {
    return {
      ...statsSnapshot(this.stats),
      connections: this.openSockets,
      inFlight: this.inFlight,
      targetRps: this.period > 0 ? 1000 / this.period : null,
      elapsedSeconds: this.began ? (performance.now() - this.startTime) / 1000 : 0,
      done: this.done,
    };
  }

  /** Counters for progress lines while the run goes on. */
  snapshot() {
    const stats = this.stats;
    const last = stats.series[stats.series.length - 1];
    return {
      sent: stats.sent,
      completed: stats.completed,
      failed: stats.failed,
      elapsedMs: this.began ? performance.now() - this.startTime : 0,
      p99Ms: last === undefined ? null : last.p99Ms, // of the last whole second
      connections: this.openSockets,
    };
  }
}
