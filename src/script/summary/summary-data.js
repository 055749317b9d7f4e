// The data k6 hands handleSummary(data) and prints its summary from: every metric with its
// type, what it holds and its values, sub-metrics as 'name{tag:value}', thresholds with ok,
// and the tree of groups and checks.

import { DEFAULT_TREND_STATS, TREND } from '../metrics/metrics.js';

const DATA = new Set(['data_sent', 'data_received', 'browser_data_sent', 'browser_data_received']);

/** What a metric's values are: k6's 'time', 'data' (bytes) or 'default'. */
export const containsOf = (name, isTime) => (isTime ? 'time' : DATA.has(name) ? 'data' : 'default');

export function summaryData({ registry, state, thresholds, options, elapsedMs, md5 }) {
  const trendStats = options.summaryTrendStats || DEFAULT_TREND_STATS;
  const seconds = elapsedMs / 1000;
  const metrics = {};
  const byKey = new Map();
  for (const t of thresholds) {
    if (!byKey.has(t.key)) byKey.set(t.key, {});
    byKey.get(t.key)[t.source] = { ok: t.ok };
  }
  const put = (name, metric, sink) => {
    if (sink.count === 0 && !byKey.has(name) && metric.type !== 'counter') return;
    if (sink.count === 0 && metric.type === 'counter' && !byKey.has(name) && !isBuiltinAlways(name)) return;
    const entry = {
      type: metric.type,
      contains: containsOf(metric.name, metric.isTime),
      values: sink.values(seconds, metric.type === TREND ? withThresholdStats(trendStats, name, thresholds) : undefined),
    };
    if (byKey.has(name)) entry.thresholds = byKey.get(name);
    metrics[name] = entry;
  };
  for (const metric of registry.metrics.values()) {
    put(metric.name, metric, metric.sink);
    for (const sub of metric.subs) put(sub.name, metric, sub.sink);
  }
  return {
    root_group: rootGroup(state, md5),
    options: { summaryTrendStats: trendStats, summaryTimeUnit: options.summaryTimeUnit || '', noColor: false },
    state: { isStdOutTTY: false, isStdErrTTY: false, testRunDurationMs: elapsedMs },
    metrics,
  };
}

const isBuiltinAlways = (name) => name === 'iterations' || name === 'data_sent' || name === 'data_received';

// A threshold on a trend statistic the summary does not show still shows in its values.
function withThresholdStats(stats, name, thresholds) {
  const extra = thresholds.filter((t) => t.key === name && t.metricType === TREND && !stats.includes(t.agg)).map((t) => t.agg);
  return extra.length ? [...stats, ...new Set(extra)] : stats;
}


// k6 v2 builds the tree from the samples of group_duration and checks by their group and check
// tags: without group as a system tag of the run it has neither groups nor checks, without
// check its groups have no checks.
function rootGroup(state, md5) {
  const { group, check } = state.systemTags;
  return groupData(group ? state.root : { ...state.root, groups: new Map(), checks: new Map() }, md5, check);
}

// A group's and a check's id is the MD5 of its path, in hex, as k6 makes it.
function groupData(g, md5, withChecks) {
  return {
    name: g.name,
    path: g.path,
    id: md5(g.path),
    groups: [...g.groups.values()].filter((x) => !x.implicit || x.checks.size > 0 || x.groups.size > 0).map((x) => groupData(x, md5, withChecks)),
    checks: withChecks ? [...g.checks.values()].map((c) => ({ name: c.name, path: c.path, id: md5(c.path), passes: c.passes, fails: c.fails })) : [],
  };
}
