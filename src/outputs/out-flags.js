// What --out gives (loadtest run and load runs alike): each output's kind and settings, checked
// before the run. A file's (json=F, csv=F) or a database's, whose settings come from the URL and
// k6's variables; a bad one is said in one line, without the URL, which may hold a password.

import { influxConfig } from './influxdb/config.js';
import { prometheusConfig } from './prometheus/config.js';
import { otelConfig } from './opentelemetry/config.js';
import { webDashboardConfig } from './web-dashboard.js';
import { VERSION } from '../version.js';

const KINDS = 'json=FILE, csv=FILE, influxdb[=URL], experimental-prometheus-rw';

/**
 * The outputs of `given` (each --out's text): [{ kind, file } or { kind, config }]. `env(name)`:
 * a variable's value or undefined; `names`: every variable's name; `webDashboard`: whether k6's
 * web dashboard may be asked for (loadtest run's); `warn(line)`: what k6 warns of. Throws an
 * Error of one line.
 */
export function parseOuts(given, env, names, { webDashboard = false, warn = () => {} } = {}) {
  return given.map((o) => {
    const text = String(o);
    if (/^web-dashboard(=|$)/.test(text)) {
      if (!webDashboard) throw new Error(`--out '${text}': k6's web dashboard is loadtest run's; a load run's page is --dashboard [PORT], its report --html F`);
      return settled('web-dashboard', () => webDashboardConfig(text.slice('web-dashboard='.length), env));
    }
    const influx = /^influxdb(?:=(.*))?$/.exec(text);
    if (influx) return settled('influxdb', () => influxConfig(influx[1] || '', env));
    if (/^experimental-prometheus-rw(=|$)/.test(text)) {
      // k6 takes this output's settings from K6_PROMETHEUS_RW_* only (what follows '=' it ignores).
      if (text !== 'experimental-prometheus-rw') throw new Error(`--out '${text}': experimental-prometheus-rw takes its settings from K6_PROMETHEUS_RW_* (K6_PROMETHEUS_RW_SERVER_URL...), not after '='`);
      return settled('prometheus-rw', () => prometheusConfig(env, names), 'experimental-prometheus-rw');
    }
    if (/^(experimental-)?opentelemetry(=|$)/.test(text)) {
      if (text.includes('=')) throw new Error(`--out '${text}': opentelemetry takes its settings from K6_OTEL_* (K6_OTEL_EXPORTER_PROTOCOL, K6_OTEL_GRPC_EXPORTER_ENDPOINT...), not after '='`);
      // k6 v1.4's words (it is stable since), said as k6 says them.
      if (text.startsWith('experimental-')) warn('OpenTelemetry output has been graduated as a stable output.You can now use just "opentelemetry" instead of "experimental-opentelemetry". The experimental version will be removed in future versions.');
      return settled('opentelemetry', () => otelConfig(env, VERSION));
    }
    const m = /^(json|csv)=(.+)$/.exec(text);
    if (!m) throw new Error(`--out '${text}': ${KINDS}${webDashboard ? ', opentelemetry or web-dashboard' : ' or opentelemetry'}`);
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
