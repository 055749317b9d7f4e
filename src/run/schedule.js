// The open model's schedule: this process's n-th request is due at origin + phase + n × period
// (or at its time on the stages' ramp), and a tick every millisecond sends all that have come due
// on free connections, opening more up to maxConnections.

// A request that leaves more than this after its time, on a free connection, shows the tool
// itself falling behind (CPU-bound), not the server.
const LATE_MS = 10;

// Requests of the schedule due by `now` (capped by the run's limits).
export function due(run, now) {
  const n = run.stages !== null ? run.stages.countBy(now - run.origin) : Math.floor((now - run.origin - run.phase) / run.period) + 1;
  return Math.max(0, Math.min(n, run.maxRequests, run.scheduleEnd));
}

// When this process's n-th request is due (open model).
export function intendedAt(run, n) {
  return run.stages !== null ? run.origin + run.stages.timeOf(n) : run.origin + run.phase + n * run.period;
}

// Sends every request that has come due (a timer each millisecond, and at the deadline).
export function tick(run) {
  if (run.stopping || (run.log !== null && run.log.blocked)) return;
  const now = performance.now();
  const stats = run.stats;
  const dueNow = due(run, now);
  const idle = run.idle;
  while (stats.sent < dueNow && !run.stopping) {
    let conn = idle.pop();
    if (conn === undefined) {
      if (run.connections.length >= run.maxConnections) break;
      // Allowed to grow: a new connection rather than a wait in the queue.
      conn = new run.Connection(run, run.connections.length);
      run.connections.push(conn);
    }
    conn.idle = false;
    // The tool's own lateness: a free connection, yet the request leaves after its time.
    const lag = now - intendedAt(run, stats.sent);
    if (lag > LATE_MS) stats.lateSends++;
    if (lag > stats.maxLagMs) stats.maxLagMs = lag;
    conn.next();
  }
  // What is due but has no free connection waits in the schedule: only its count is kept.
  const queued = dueNow - stats.sent;
  if (queued > stats.maxQueue) stats.maxQueue = queued;
}
