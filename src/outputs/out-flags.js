// What --out gives (loadtest run and load runs alike): each output's kind and settings, checked
// before the run. A file's (json=F, csv=F) or a database's, whose settings come from the URL and
// k6's variables; a bad one is said in one line, without the URL, which may hold a password.

import { influxConfig } from './influxdb/config.js';
import { prometheusConfig } from './prometheus/config.js';
import { otelConfig } from './opentelemetry/config.js';
import { VERSION } from '../version.js';

const KINDS = 'json=FILE, csv=FILE, influxdb[=URL], experimental-prometheus-rw or opentelemetry';

/**
 * The outputs of `given` (each --out's text): [{ kind, file } or { kind, config }]. `env(name)`:
 * a variable's value or undefined; `names`: every variable's name. Throws an Error of one line.
 */
export function parseOuts(given, env, names) {
  return given.map((o) => {
    const text = String(o);
    const influx = /^influxdb(?:=(.*))?$/.exec(text);
    if (influx) return settled('influxdb', () => influxConfig(influx[1] || '', env));
    if (/^experimental-prometheus-rw(=|$)/.test(text)) {
      // k6 takes this output's settings from K6_PROMETHEUS_RW_* only (what follows '=' it ignores).
      if (text !== 'experimental-prometheus-rw') throw new Error(`--out '${text}': experimental-prometheus-rw takes its settings from K6_PROMETHEUS_RW_* (K6_PROMETHEUS_RW_SERVER_URL...), not after '='`);
      return settled('prometheus-rw', () => prometheusConfig(env, names), 'experimental-prometheus-rw');
    }
    if (/^(experimental-)?opentelemetry(=|$)/.test(text)) {
      if (text.includes('=')) throw new Error(`--out '${text}': opentelemetry takes its settings from K6_OTEL_* (K6_OTEL_EXPORTER_PROTOCOL, K6_OTEL_GRPC_EXPORTER_ENDPOINT...), not after '='`);
      return settled('opentelemetry', () => otelConfig(env, VERSION));
    }
    const m = /^(json|csv)=(.+)$/.exec(text);
    if (!m) throw new Error(`--out '${text}': ${KINDS}`);
    return { kind: m[1], file: m[2] };
  });
}

function settled(kind, make, shown = kind) {
  try {
    return { kind, config: make() };
  } catch (err) {
    throw new Error(`--out ${shown}: ${err.message}`);
  }
}
