// A scripted run over several machines (loadtest run --shard I/N --start-at T --result F on each):
// each shard runs its segment of every scenario and writes what it measured; `loadtest merge`
// adds the shards up into one run's figures, thresholds and k6 summary.

import { Registry } from './metrics/metrics.js';
import { RunState } from './metrics/run-state.js';
import { parseThresholds, evaluateThresholds } from './metrics/thresholds.js';
import { summaryData } from './summary/summary-data.js';
import { Breakdown } from './summary/breakdown.js';
import { systemTagsOf } from './scenarios/system-tags.js';

const KIND = 'loadtest-script-shard';

/** What --result F holds: the shard's every metric and sub-metric, checks, groups and messages. */
export function shardResult(result, { shard, startAt, version }) {
  const o = result.options;
  return {
    kind: KIND,
    version,
    shard,
    startAt,
    elapsedMs: result.elapsedMs,
    options: { thresholds: o.thresholds || {}, summaryTrendStats: o.summaryTrendStats, summaryTimeUnit: o.summaryTimeUnit, noThresholds: Boolean(o.noThresholds), systemTags: o.systemTags ?? null },
    metrics: result.registry.toJSON(),
    state: result.state.toJSON(),
  };
}

export const isShardResult = (doc) => Boolean(doc) && doc.kind === KIND;

/**
 * The whole run from its shards' results: { data (k6's summary data), thresholds, shards }.
 * Throws one line when they are not the shards of one run (the same N, each once).
 */
export function mergeShards(docs, names, md5) {
  const counts = new Set(docs.map((d) => String(d.shard).split('/')[1]));
  if (counts.size !== 1) throw new Error(`the results are shards of runs of different sizes: ${docs.map((d, i) => `${names[i]} ${d.shard}`).join(', ')}`);
  const seen = new Map();
  docs.forEach((d, i) => {
    if (seen.has(d.shard)) throw new Error(`shard ${d.shard} twice: ${seen.get(d.shard)} and ${names[i]}`);
    seen.set(d.shard, names[i]);
  });
  const registry = new Registry();
  // Shards run with --summary-mode full kept each group and scenario apart: so does the whole.
  if (docs.some((d) => d.state.breakdown)) registry.breakdown = new Breakdown();
  const state = new RunState(registry);
  // The shards' system tags (their summary's checks and groups, k6's own sub-metric); a result
  // written before they were kept had k6's default set.
  state.useSystemTags(systemTagsOf(docs[0].options.systemTags, () => {}));
  // vus and vus_max are gauges of each shard; the run's are their sums (the shards start
  // together at --start-at): kept apart from the other metrics, which add up.
  const gauges = { vus: { value: 0, min: 0, max: 0, any: false }, vus_max: { value: 0, min: 0, max: 0, any: false } };
  for (const d of docs) {
    for (const m of d.metrics) {
      if (m.name in gauges) {
        const g = gauges[m.name];
        if (m.sink.count === 0) continue;
        g.any = true;
        g.value += m.sink.last;
        g.min += m.sink.min;
        g.max += m.sink.max;
      }
    }
    registry.merge(d.metrics.filter((m) => !(m.name in gauges)));
    state.merge(d.state);
  }
  for (const [name, g] of Object.entries(gauges)) {
    if (!g.any) continue;
    const sink = registry.metrics.get(name).sink;
    Object.assign(sink, { count: 1, sum: g.value, min: g.min, max: g.max, last: g.value });
  }
  const options = docs[0].options;
  const elapsedMs = Math.max(...docs.map((d) => d.elapsedMs));
  const thresholds = options.noThresholds ? [] : evaluateThresholds(parseThresholds(options.thresholds, registry), elapsedMs / 1000);
  const data = summaryData({ registry, state, thresholds, options, elapsedMs, md5 });
  const missing = [];
  for (let i = 1; i <= Number([...counts][0]); i++) if (!seen.has(`${i}/${[...counts][0]}`)) missing.push(`${i}/${[...counts][0]}`);
  return { data, state, thresholds, missing, messages: state.messages };
}
