// src/outputs/opentelemetry/: --out opentelemetry (and k6's older name experimental-opentelemetry),
// OTLP metrics over gRPC or HTTP/protobuf as k6 v2.2 exports them (its internal/output/
// opentelemetry, on the OpenTelemetry Go SDK). This file: the output's settings, as k6 makes
// them: its defaults, then OTEL_SERVICE_NAME and the K6_OTEL_* variables, each one honored or
// refused.

import { base64 } from '../push-writer.js';
import { durationOf, boolOf } from '../settings.js';

const GRPC = 'grpc';
const HTTP = 'http/protobuf';

/** K6_OTEL_HEADERS: key=value pairs, comma-separated, each part URL-unescaped (k6's parseHeaders). */
function headersOf(raw) {
  const headers = {};
  for (const pair of raw.split(',')) {
    const at = pair.indexOf('=');
    if (at < 0) throw new Error(`invalid header "${pair}", expected format key=value`);
    try {
      headers[decodeURIComponent(pair.slice(0, at))] = decodeURIComponent(pair.slice(at + 1));
    } catch {
      throw new Error(`failed to unescape header "${pair}"`);
    }
  }
  return headers;
}

/**
 * The settings of `--out opentelemetry`: k6's defaults, then the environment's (`env(name)`: a
 * variable's value or undefined), as a plain object for the output's thread; `version`: this
 * loadtest's, the service's version by default. Throws an Error whose message is one line.
 */
export function otelConfig(env, version) {
  const c = { serviceName: 'k6', serviceVersion: version, metricPrefix: '', protocol: GRPC, exportInterval: 10000, headers: {}, insecure: false, endpoint: 'localhost:4317', urlPath: '/v1/metrics', tls: { skipVerify: false } };
  const text = (name) => env(`K6_OTEL_${name}`);
  if (env('OTEL_SERVICE_NAME') !== undefined) c.serviceName = env('OTEL_SERVICE_NAME');
  if (text('SERVICE_NAME') !== undefined) c.serviceName = text('SERVICE_NAME');
  if (text('SERVICE_VERSION') !== undefined) c.serviceVersion = text('SERVICE_VERSION');
  if (text('METRIC_PREFIX') !== undefined) c.metricPrefix = text('METRIC_PREFIX');
  if (text('EXPORTER_PROTOCOL') !== undefined) c.protocol = text('EXPORTER_PROTOCOL');
  if (text('EXPORT_INTERVAL') !== undefined) c.exportInterval = durationOf(text('EXPORT_INTERVAL'), 'K6_OTEL_EXPORT_INTERVAL');
  if (text('HEADERS') !== undefined) c.headers = headersOf(text('HEADERS'));
  // k6 sends basic authentication (its HTTP exporter's user) over either protocol.
  if (text('HTTP_EXPORTER_USERNAME') !== undefined) c.headers.Authorization = `Basic ${base64(`${text('HTTP_EXPORTER_USERNAME')}:${text('HTTP_EXPORTER_PASSWORD') || ''}`)}`;
  const http = c.protocol === HTTP;
  const insecure = text(http ? 'HTTP_EXPORTER_INSECURE' : 'GRPC_EXPORTER_INSECURE');
  if (insecure !== undefined) c.insecure = boolOf(insecure, `K6_OTEL_${http ? 'HTTP' : 'GRPC'}_EXPORTER_INSECURE`);
  if (http) c.endpoint = text('HTTP_EXPORTER_ENDPOINT') ?? 'localhost:4318';
  else if (text('GRPC_EXPORTER_ENDPOINT') !== undefined) c.endpoint = text('GRPC_EXPORTER_ENDPOINT');
  if (text('HTTP_EXPORTER_URL_PATH') !== undefined) c.urlPath = text('HTTP_EXPORTER_URL_PATH');
  if (text('TLS_INSECURE_SKIP_VERIFY') !== undefined) c.tls.skipVerify = boolOf(text('TLS_INSECURE_SKIP_VERIFY'), 'K6_OTEL_TLS_INSECURE_SKIP_VERIFY');
  validate(c, text);
  return c;
}

// k6's Validate, then what cannot be honored here.
function validate(c, text) {
  if (c.serviceName === '') throw new Error('providing service name is required');
  if (c.serviceVersion === '') throw new Error('providing service version is required');
  if (c.protocol !== GRPC && c.protocol !== HTTP) throw new Error(`unsupported exporter protocol "${c.protocol}", only "${GRPC}" and "${HTTP}" are supported`);
  if (c.endpoint === '') throw new Error(`${c.protocol === GRPC ? 'gRPC' : 'HTTP'} exporter endpoint is required`);
  if (/^https?:\/\//.test(c.endpoint) && c.protocol === HTTP) throw new Error('HTTP exporter endpoint must only be host and port, no scheme');
  if (!/^(\[[0-9a-fA-F:.]+\]|[^:/\s]+):\d+$/.test(c.endpoint)) throw new Error(`the exporter endpoint '${c.endpoint}' is not HOST:PORT`);
  if (!(c.exportInterval > 0)) throw new Error(`the export interval must be above 0, not ${c.exportInterval} ms`);
  if (text('FLUSH_INTERVAL') !== undefined) throw new Error('K6_OTEL_FLUSH_INTERVAL is not supported here: the samples reach the exporter as the run makes them (leave it out)');
  for (const name of ['TLS_CERTIFICATE', 'TLS_CLIENT_CERTIFICATE', 'TLS_CLIENT_KEY']) {
    if (text(name) !== undefined) throw new Error(`K6_OTEL_${name} is not supported here: give the server's certificate a CA the runtime trusts, or leave it out`);
  }
  if (c.protocol === HTTP && c.tls.skipVerify) throw new Error("K6_OTEL_TLS_INSECURE_SKIP_VERIFY is supported here over grpc only: over http/protobuf, give the server's certificate a CA the runtime trusts");
}

/** Where the metrics go, as k6's Description says it (no credentials: they are in headers). */
export function shownEndpoint(c) {
  if (c.protocol === HTTP) return `http${c.insecure ? '' : 's'}://${c.endpoint}${c.urlPath}`;
  return `grpc${c.insecure ? '' : 's'}://${c.endpoint}`;
}
