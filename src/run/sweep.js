// --sweep 8,32,128,...: the same test once at each concurrency level, one table row per level
// (requests/s, mean, p50, p99, errors, error rate), as people sweep ab by hand to find the level
// where a server stops scaling or starts failing. The JSON document holds every level's result.

/** "8,32,128" -> [8, 32, 128]: positive whole numbers, in the order given. */
export function parseLevels(text) {
  const words = String(text).split(',').map((w) => w.trim());
  const levels = words.map(Number);
  const bad = words.find((w, i) => !/^\d+$/.test(w) || levels[i] < 1);
  if (bad !== undefined) throw new Error(`--sweep must be a list of connection counts (whole numbers from 1), e.g. 8,32,128; got '${bad || text}'`);
  return levels;
}

/** Options that contradict a sweep, as one-line errors. */
export function checkSweepOptions(o) {
  if (o.requestsPerSecond) throw new Error('--sweep varies the connections of the closed model; with --rps the rate is the knob (run one --rps per level instead)');
  if (o.stages !== undefined && o.stages !== null) throw new Error('--sweep varies the connections of the closed model; --stages ramps the rate (use one or the other)');
  if (o.connectionStages !== undefined && o.connectionStages !== null) throw new Error('--sweep and --connection-stages both set the connections: use one or the other');
  if (o.shard) throw new Error('--sweep does not go with --shard (run the sweep on each machine instead)');
  if (o.thresholds && o.thresholds.length > 0) throw new Error('--sweep does not go with --threshold (levels are meant to fail somewhere)');
  if (o.output && o.output.hdrLog) throw new Error('--sweep does not go with --hdr-log (one log per run: use one run per level)');
}

/**
 * Runs `runLevel(options)` (runLoadTest) at each level in turn; `onLevel(result, level)` hears of
 * each result, and returning false from it ends the sweep there. Resolves to the results.
 */
export async function runSweep(options, levels, runLevel, onLevel = () => true) {
  const results = [];
  for (const level of levels) {
    const result = await runLevel({ ...options, concurrency: level, sweep: undefined });
    results.push(result);
    if (onLevel(result, level) === false) break;
  }
  return results;
}

/** The --json document: the levels asked for and the full result of each level run. */
export function sweepDocument(levels, results) {
  return { sweep: levels, url: results.length ? results[0].url : undefined, results: results.map((r) => JSON.parse(JSON.stringify(r))) };
}

const COLUMNS = [
  ['Concurrency', (r) => r.concurrency],
  ['Requests', (r) => r.totalRequests],
  ['Requests/s', (r) => r.effectiveRps],
  ['Mean (ms)', (r) => r.meanLatencyMs],
  ['p50 (ms)', (r) => r.percentiles['50']],
  ['p99 (ms)', (r) => r.percentiles['99']],
  ['Errors', (r) => r.totalErrors],
  ['Error rate', (r) => rate(r)],
];

function rate(r) {
  const share = r.totalRequests > 0 ? (r.totalErrors / r.totalRequests) * 100 : 0;
  return `${Number(share.toFixed(share > 0 && share < 1 ? 3 : 2))} %`;
}

// Wide enough for the headers and for 10-digit figures, so that rows printed one at a time as
// the levels end still line up.
const width = (title) => Math.max(title.length, 10) + 2;

/** The table's header line. */
export function sweepHeader() {
  return COLUMNS.map(([title]) => title.padStart(width(title))).join('');
}

/** One level's row. */
export function sweepRow(result) {
  return COLUMNS.map(([title, value]) => String(value(result)).padStart(width(title))).join('');
}

/** A line naming the first level with errors, or null when none had any. */
export function firstFailing(results) {
  const r = results.find((x) => x.totalErrors > 0);
  return r ? `First errors at ${r.concurrency} connections: ${r.totalErrors} of ${r.totalRequests} requests (${rate(r)})` : null;
}
