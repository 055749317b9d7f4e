// What a scripted run shows while it runs: the progress line's and --metrics' view of it
// (hooks.onStart), and --dashboard's seconds (hooks.onSecond).

import { Histogram, percentilesOfPairs } from '../../run/histogram.js';
import { scenarioMs } from '../scenarios/scenarios.js';

/** Hands hooks.onStart the run's counters and snapshots; `finished()` says when it ended. */
export function announce(run, scenarios, remote, finished) {
  const { hooks, shared, state } = run;
  if (!hooks.onStart) return;
  const maxSeconds = Math.max(...scenarios.map((s) => s.startMs + scenarioMs(s))) / 1000;
  hooks.onStart({
    abort: shared.abort,
    counters: () => ({ begun: state.begun, ended: state.ended, errors: state.errors, vus: shared.vusActive, vusMax: shared.vusInitialized }),
    config: { maxSeconds, maxRequests: 0 },
    snapshot: () => {
      // --cores: the children's counters, as their last progress lines gave them.
      const c = remote !== null ? remote.counters() : state;
      return { sent: c.begun, completed: c.ended - c.errors, failed: c.errors, elapsedMs: performance.now() - shared.startedAt, p99Ms: null, connections: null };
    },
    // --metrics (src/results/metrics-text.js): the requests' counters and http_req_duration's
    // histogram (its values in µs, the layout of a load run's).
    metricsSnapshot: () => ({
      sent: state.begun,
      completed: state.ended - state.errors,
      failed: state.errors,
      bytes: state.bytesIn,
      errors: state.reasons,
      statusCounts: state.statusCounts,
      connections: 0,
      inFlight: state.begun - state.ended,
      targetRps: null,
      achievedRps: null,
      histogram: state.duration.sink.histogram,
      elapsedSeconds: (performance.now() - shared.startedAt) / 1000,
      done: finished(),
    }),
  });
}

// --dashboard and --html: the run a second at a time, in the shape of a load run's series
// (src/run/series.js): the requests begun, ended and failed in it (errors: without a response;
// failed: k6's http_req_failed, error statuses too) and its http_req_duration percentiles, exact
// from a histogram of its own that is emptied as each second closes, kept as its latency buckets
// so that a --cores run's children's seconds merge exactly (series.js mergeSeries). The last
// second is closed at the end of the scenarios, however short.
export function secondsOf(state, shared, onSecond) {
  const h = new Histogram();
  state.secondHistogram = h;
  let second = 0;
  let closedAt = shared.startedAt;
  const last = { begun: 0, ended: 0, errors: 0, failed: 0, bytes: 0 };
  const failed = state.failed.sink;
  return {
    close() {
      const now = performance.now();
      const ended = state.ended - last.ended;
      const errors = state.errors - last.errors;
      const buckets = h.pairs();
      const [p50, p99] = h.count ? percentilesOfPairs(buckets, [50, 99]) : [null, null];
      onSecond({
        second: ++second,
        durationMs: Math.round((now - closedAt) * 1000) / 1000,
        sent: state.begun - last.begun,
        completed: ended - errors,
        errors,
        failed: failed.passes - last.failed,
        bytes: state.bytesIn - last.bytes,
        p50Ms: p50 === null ? null : p50 / 1000,
        p99Ms: p99 === null ? null : p99 / 1000,
        maxMs: h.count ? h.max / 1000 : 0,
        connections: 0,
        vus: shared.vusActive,
        buckets,
      });
      closedAt = now;
      last.begun = state.begun;
      last.ended = state.ended;
      last.errors = state.errors;
      last.failed = failed.passes;
      last.bytes = state.bytesIn;
      h.clear();
    },
  };
}
