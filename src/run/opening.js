// Opening and retiring a run's connections: the first ones at a pace a server's accept queue
// takes, and, with connection stages, as many working as the ramp asks for now.

import { connectionsAt } from './stages.js';

// Thousands of connections opened at once overflow the server's accept queue (SYNs dropped and
// sent again a second or more later): the first connections open at most OPEN_PER_MS per
// millisecond and OPEN_PER_TICK at a time, from a timer and from responses (a busy node loop runs
// timers only after up to 48 × 1024 socket events). 10 000 take 310 ms at best; node opens them
// in 2.5-3.5 s on a shared 2-core machine, bun in 1.3 s, with no listen-queue overflow against
// one nginx worker (a window of 500 or 2000 waiting for a first response was slower still).
const OPEN_PER_MS = 32;
const OPEN_PER_TICK = 512;

// Connection stages: as many working connections as this process's share of the target now.
// A retired connection finishes the request it has out (none is cut short), then closes.
// The ramp goes no further than the end of the series' open second: when the timer that closes
// that second is late, the connections opened meanwhile would be counted in it against the
// target at its end (5 connections asked for, 6 seen).
export function followStages(run) {
  if (run.stopping) return;
  const c = run.config;
  const ms = Math.min(performance.now() - run.origin, (run.stats.series.length + 1) * 1000);
  const want = connectionsAt(run.connectionStages, ms / 1000, run.indexStride, run.indexOffset);
  let working = 0;
  for (const conn of run.connections) if (!conn.retired) working++;
  for (let i = 0; working < want && i < run.connections.length; i++) {
    const conn = run.connections[i];
    if (!conn.retired) continue;
    conn.retired = false;
    working++;
    if (conn.parked) {
      conn.parked = false;
      conn.next();
    }
  }
  while (working < want && !run.stopping) {
    const conn = new run.Connection(run, run.connections.length);
    run.connections.push(conn);
    working++;
    conn.next();
  }
  for (let i = run.connections.length - 1; working > want && i >= 0; i--) {
    const conn = run.connections[i];
    if (conn.retired) continue;
    conn.retired = true;
    working--;
    if (!conn.inFlight) {
      conn.drop();
      conn.parked = true;
    }
  }
  if (c.maxRequests && run.stats.sent >= run.maxRequests) run.check();
}

// Starts the first connections that the pace allows by now.
export function openSome(run) {
  const due = Math.ceil((performance.now() - run.openFrom + 1) * OPEN_PER_MS);
  const until = Math.min(run.opening, due, run.started + OPEN_PER_TICK);
  while (run.started < until && !run.stopping) run.connections[run.started++].next();
  if (run.started === run.opening && run.opener !== null) {
    clearInterval(run.opener);
    run.opener = null;
  }
}

// A first connection's request ended: once every first connection has had one, the run knows
// how long connecting took (the report's connect time); meanwhile each may let the pace open more.
export function warmUp(run, conn) {
  if (!conn.warm && conn.id < run.opening) {
    conn.warm = true;
    if (++run.warmed === run.opening) {
      run.warming = false;
      run.stats.connectMs = performance.now() - run.startTime;
    }
  }
  if (run.started < run.opening && !run.stopping) openSome(run);
}
