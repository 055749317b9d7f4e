// The document of a scripted run's --html page (src/script/summary/script-report.js), from runScript's
// result (runner.js): the figures a load run's page shows, in a load run's fields (requests,
// failed requests as k6 counts them, the rate, http_req_duration's percentiles and histogram,
// k6's request phases, the per-second series), and the script's own: the summary's data (every
// metric, the groups and checks), the thresholds, the scenarios with the iterations each ran,
// which metrics the script made, and its messages.

import { percentilesOf, histogramDocument } from '../../run/result.js';

const micro = (v) => Math.round(v * 1000) / 1000; // ms, to the µs

/** The load run's headline figures of a scripted run (the --html page's and --dashboard's). */
export function requestFigures({ data, state, elapsedMs }) {
  const m = data.metrics;
  const duration = state.duration.sink;
  return {
    totalRequests: m.http_reqs ? m.http_reqs.values.count : 0,
    // As k6 counts them: http_req_failed, error statuses and requests without a response.
    totalErrors: m.http_req_failed ? m.http_req_failed.values.passes : 0,
    effectiveRps: m.http_reqs ? Math.round(m.http_reqs.values.rate) : 0,
    totalTimeSeconds: elapsedMs / 1000,
    meanLatencyMs: duration.count ? micro(duration.sum / duration.count) : 0,
    maxLatencyMs: duration.count ? micro(duration.max) : 0,
    percentiles: percentilesOf(duration.histogram),
  };
}

// k6's timings of a request's phases, under the names of a load run's (src/run/stats.js).
const PHASES = { connect: 'connecting', tls: 'tls', wait: 'waiting', receive: 'receiving' };

/** What the page says the phases are. */
export const PHASES_NOTE = "k6's http_req_connecting, _tls_handshaking (0 on a reused connection), _waiting and _receiving";

// A phase's figures from its Trend: exact min, max and mean, percentiles as the summary's (a
// reused connection's 0 stays 0, where the histogram holds it as its lowest value).
function phaseFigures(sink) {
  const at = (p) => micro(sink.percentile(p));
  return { count: sink.count, min: micro(sink.min), mean: micro(sink.sum / sink.count), p50: at(50), p90: at(90), p99: at(99), max: micro(sink.max) };
}

// The phases that took any time: k6 times a TLS handshake over http as 0, as it does every
// reused connection's; a load run's page leaves out a phase that did not happen.
function phasesOf(state) {
  const phases = {};
  const phaseHistograms = {};
  for (const [name, key] of Object.entries(PHASES)) {
    if (!(state[key].sink.max > 0)) continue;
    phases[name] = phaseFigures(state[key].sink);
    phaseHistograms[name] = histogramDocument(state[key].sink.histogram);
  }
  return { phases, phaseHistograms };
}

// A second in a load run's terms (src/run/series.js): `completed` every request that ended in
// it, `errors` the failed ones as k6 counts them (live.js counts those without a response apart).
const loadSecond = (s) => ({ ...s, completed: s.completed + s.errors, errors: s.failed });

// What each scenario was asked for (scenarios.js), and the iterations it completed.
const SCENARIO_FIELDS = ['name', 'executor', 'exec', 'startMs', 'vus', 'iterations', 'durationMs', 'maxDurationMs', 'startVUs', 'stages', 'rate', 'startRate', 'timeUnitMs', 'preAllocatedVUs', 'maxVUs'];

function scenarioOf(s, state) {
  const out = {};
  for (const k of SCENARIO_FIELDS) if (s[k] !== undefined) out[k] = s[k];
  out.iterationsCompleted = state.iterationsByScenario[s.name] || 0;
  return out;
}

/**
 * The page's document. `seconds`: the run's seconds as live.js closes them (merged, with
 * --cores); `about`: { script, runtime, cores, shard } of the command.
 */
export function reportDoc(result, seconds, about) {
  const { data, state, registry } = result;
  return {
    kind: 'script',
    ...about,
    startTime: result.startTime,
    ...requestFigures(result),
    latencyHistogram: histogramDocument(state.duration.sink.histogram),
    ...phasesOf(state),
    series: seconds.map(loadSecond),
    statusCodes: state.statusCounts,
    errorsByReason: state.reasons,
    thresholds: result.thresholds.map((t) => ({ metric: t.key, source: t.source, stat: t.agg, actual: t.actual, ok: t.ok })),
    scenarios: result.scenarios.map((s) => scenarioOf(s, state)),
    customMetrics: [...registry.metrics.values()].filter((m) => m.custom).map((m) => m.name),
    messages: [...state.messages],
    aborted: result.aborted,
    summary: data,
  };
}
