// src/outputs/prometheus/: --out experimental-prometheus-rw, Prometheus remote write (protobuf,
// snappy) as k6 v2.2 writes it (its internal/output/prometheusrw). This file: the output's
// settings, as k6 makes them: its defaults, then the K6_PROMETHEUS_RW_* variables, each one
// honored or refused.

import { durationOf, boolOf } from '../settings.js';

const TREND_STATS = new Set(['avg', 'min', 'med', 'max', 'count', 'sum']);

/**
 * A Trend's stats as k6 names its series: p(95) → p95, p(99.9) → p999; each checked as k6's
 * GetResolversForTrendColumns checks them. Returns [{ suffix, stat, p }].
 */
export function trendStats(list) {
  return list.map((stat) => {
    if (TREND_STATS.has(stat)) return { suffix: stat, stat, p: stat === 'med' ? 0.5 : undefined };
    if (!stat.startsWith('p(') || !stat.endsWith(')')) throw new Error(`invalid trend stat '${stat}', unknown format`);
    const text = stat.slice(2, -1);
    const p = Number(text);
    if (text.trim() === '' || !Number.isFinite(p) || p < 0 || p > 100) throw new Error(`invalid percentile trend stat value '${stat}', provide a number between 0 and 100`);
    return { suffix: `p${text.replaceAll('.', '')}`, stat: 'p', p: p / 100 };
  });
}

/** The headers K6_PROMETHEUS_RW_HEADERS_<NAME> and K6_PROMETHEUS_RW_HTTP_HEADERS (k:v,k:v) give. */
function headersOf(env, names) {
  const headers = {};
  for (const name of names) {
    if (name.startsWith('K6_PROMETHEUS_RW_HEADERS_')) headers[name.slice('K6_PROMETHEUS_RW_HEADERS_'.length)] = env(name);
  }
  const list = env('K6_PROMETHEUS_RW_HTTP_HEADERS');
  if (list !== undefined) {
    for (const pair of list.split(',')) {
      const kv = pair.split(':');
      if (kv.length !== 2) throw new Error(`the provided header (${pair}) does not respect the expected format <header key>:<value>`);
      headers[kv[0]] = kv[1];
    }
  }
  return headers;
}

/** What k6 honors that cannot be honored here is refused, in one line each. */
function refuseUnsupported(env) {
  const given = (name) => env(`K6_PROMETHEUS_RW_${name}`) !== undefined && env(`K6_PROMETHEUS_RW_${name}`) !== '';
  for (const name of ['SIGV4_REGION', 'SIGV4_ACCESS_KEY', 'SIGV4_SECRET_KEY']) {
    if (given(name)) throw new Error(`K6_PROMETHEUS_RW_${name}: AWS SigV4 signing is not supported here: leave it out`);
  }
  for (const name of ['CLIENT_CERTIFICATE', 'CLIENT_CERTIFICATE_KEY']) {
    if (given(name)) throw new Error(`K6_PROMETHEUS_RW_${name}: a client certificate is not supported here: leave it out`);
  }
  const insecure = env('K6_PROMETHEUS_RW_INSECURE_SKIP_TLS_VERIFY');
  if (insecure !== undefined && boolOf(insecure, 'K6_PROMETHEUS_RW_INSECURE_SKIP_TLS_VERIFY')) throw new Error("K6_PROMETHEUS_RW_INSECURE_SKIP_TLS_VERIFY=true is not supported here: give the server's certificate a CA the runtime trusts");
  const tls = env('K6_PROMETHEUS_RW_TLS_MINIMUM_VERSION');
  // k6 takes '1.2' (else its TLS 1.3); the runtime's fetch offers 1.2 and 1.3 and takes what the server chooses.
  if (tls !== undefined && tls !== '1.2') throw new Error(`K6_PROMETHEUS_RW_TLS_MINIMUM_VERSION '${tls}' is not supported here: the connection takes TLS 1.2 or 1.3 (set 1.2, or leave it out)`);
}

/**
 * The settings of `--out experimental-prometheus-rw`: k6's defaults, then the environment's
 * (`env(name)`: a variable's value or undefined; `names`: every variable's name), as a plain
 * object for the output's thread. Throws an Error whose message is one line.
 */
export function prometheusConfig(env, names) {
  const c = { url: 'http://localhost:9090/api/v1/write', username: undefined, password: '', bearerToken: '', pushInterval: 5000, trendStats: ['p(99)'], nativeHistograms: false, staleMarkers: false, headers: {} };
  const text = (name) => env(`K6_PROMETHEUS_RW_${name}`);
  if (text('SERVER_URL') !== undefined) c.url = text('SERVER_URL');
  if (text('USERNAME') !== undefined) c.username = text('USERNAME');
  if (text('PASSWORD') !== undefined) c.password = text('PASSWORD');
  if (text('BEARER_TOKEN') !== undefined) c.bearerToken = text('BEARER_TOKEN');
  if (text('PUSH_INTERVAL') !== undefined) c.pushInterval = durationOf(text('PUSH_INTERVAL'), 'K6_PROMETHEUS_RW_PUSH_INTERVAL');
  if (text('TREND_STATS') !== undefined && text('TREND_STATS') !== '') c.trendStats = text('TREND_STATS').split(',');
  if (text('STALE_MARKERS') !== undefined) c.staleMarkers = boolOf(text('STALE_MARKERS'), 'K6_PROMETHEUS_RW_STALE_MARKERS');
  // k6 v2.2: the variable stands for its feature flag native-histograms, as does K6_FEATURES.
  if (text('TREND_AS_NATIVE_HISTOGRAM') !== undefined) c.nativeHistograms = boolOf(text('TREND_AS_NATIVE_HISTOGRAM'), 'K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM');
  if ((env('K6_FEATURES') || '').split(',').map((s) => s.trim()).includes('native-histograms')) c.nativeHistograms = true;
  c.headers = headersOf(env, names);
  refuseUnsupported(env);
  let u;
  try {
    u = new URL(c.url);
  } catch {
    throw new Error(`K6_PROMETHEUS_RW_SERVER_URL '${c.url}' is not a URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`K6_PROMETHEUS_RW_SERVER_URL '${c.url}' is not http:// or https://`);
  if (!(c.pushInterval > 0)) throw new Error(`the push interval must be above 0, not ${c.pushInterval} ms`);
  trendStats(c.trendStats);
  return c;
}

/** The address as a log line may show it: without credentials or query. */
export function shownURL(config) {
  const u = new URL(config.url);
  return `${u.protocol}//${u.host}${u.pathname}`;
}
