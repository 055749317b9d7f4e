// The live dashboard's events (runtimes/run-servers/dashboard.js), made from a run's series.

// A run's seconds for the dashboard: each closed second of its series once, with the totals so
// far. `seriesOf()`: the run's series (one process), or the children's merged second by second
// (--cores: each second's latency buckets add up, so its p50 and p99 are the whole run's).
export function runSeconds(seriesOf) {
  let shown = 0;
  const totals = { sent: 0, completed: 0, failed: 0 };
  return () => {
    const series = seriesOf();
    if (series === null || shown >= series.length) return null;
    const e = series[shown++];
    totals.sent += e.sent;
    totals.completed += e.completed;
    totals.failed += e.errors;
    return {
      second: e.second,
      elapsedSeconds: e.second - 1 + e.durationMs / 1000,
      ...totals,
      rps: e.durationMs > 0 ? Math.round((e.completed * 1000) / e.durationMs) : 0,
      p50Ms: e.p50Ms,
      p99Ms: e.p99Ms,
      errors: e.errors,
      // A scripted run's load is its VUs, a load run's its connections.
      ...(e.vus !== undefined ? { vus: e.vus } : { connections: e.connections }),
      done: false,
    };
  };
}
