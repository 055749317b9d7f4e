// The metrics of --out opentelemetry on their way to the collector: each export interval (k6's
// 10 s) every series, cumulative, as one ExportMetricsServiceRequest, over HTTP/protobuf (POST
// /v1/metrics) or gRPC (MetricsService/Export, on our own HTTP/2 and gRPC drivers: the same a
// script's k6/net/grpc calls take). An export that fails is not sent again: the next one holds
// every series' value since the start.

import { PushWriter } from '../push-writer.js';
import { OtelMetrics } from './metrics.js';
import { shownEndpoint } from './config.js';
import { GrpcChannel } from '../../script/net/grpc-channel.js';
import { Call } from '../../script/net/grpc-call.js';
import { Network } from '../../script/net/client.js';
import { frameMessage } from '../../grpc/frame.js';
import { VERSION } from '../../version.js';

const EXPORT = '/opentelemetry.proto.collector.metrics.v1.MetricsService/Export';
// gRPC's codes a collector answers when it may take the next export (grpc-go's retryable ones).
const RETRYABLE = new Set([1, 4, 8, 10, 11, 14, 15]);

/**
 * The output: `sink` for the thread's SampleStream, `writer` to close at the end.
 * `socketAdapter(tls)`: the runtime's socket adapter (a promise), for gRPC.
 */
export function otelOutput(config, instance, instances, socketAdapter) {
  const grpc = config.protocol === 'grpc';
  const shown = shownEndpoint(config);
  const send = grpc ? grpcSender(config, socketAdapter) : undefined;
  const headers = grpc ? config.headers : { 'Content-Type': 'application/x-protobuf', 'User-Agent': `loadtest/${VERSION} OTLP over HTTP/protobuf metrics exporter`, ...config.headers };
  const url = grpc ? EXPORT : `http${config.insecure ? '' : 's'}://${config.endpoint}${config.urlPath}`;
  const writer = new PushWriter({ name: 'opentelemetry', shown, url, headers, pushInterval: config.exportInterval, retry: false, unit: 'data points', ...(send ? { send: send.call } : {}) });
  const sink = new OtelMetrics(config, (body, n) => {
    writer.put(body, n, false);
    writer.push();
  }, instance, instances);
  const timer = setInterval(() => sink.push(), config.exportInterval);
  const close = writer.close.bind(writer);
  writer.close = async (ms) => {
    clearInterval(timer);
    const line = await close(ms);
    if (send) send.close();
    return line;
  };
  return { sink, writer };
}

/** Unary calls of MetricsService/Export on one channel, opened at the first. */
function grpcSender(config, socketAdapter) {
  const at = config.endpoint.lastIndexOf(':');
  const host = config.endpoint.slice(0, at).replace(/^\[|\]$/g, '');
  const port = Number(config.endpoint.slice(at + 1));
  let channel = null;
  const metadata = Object.entries(config.headers).map(([k, v]) => [k.toLowerCase(), v]);
  const list = [['content-type', 'application/grpc'], ['user-agent', `loadtest/${VERSION} OTLP over gRPC metrics exporter`], ['te', 'trailers'], ...metadata];
  const open = async () => {
    const tls = config.insecure ? null : { servername: /^[0-9.]+$|:/.test(host) ? null : host, rejectUnauthorized: !config.tls.skipVerify, alpn: ['h2'] };
    const adapter = await socketAdapter(tls);
    return new GrpcChannel(new Network(() => adapter), { address: host, port, authority: config.endpoint, tls: tls !== null }, adapter);
  };
  return {
    call: async (path, { body, signal }) => {
      if (channel === null) channel = open();
      const ch = await channel;
      return new Promise((resolve) => {
        const call = new Call({
          path,
          headers: list,
          message: frameMessage(body),
          onMessage: () => {},
          onEnd: (code, message) => {
            signal.removeEventListener('abort', abort);
            if (code === 0) resolve({ status: 200, text: '' });
            else resolve({ status: RETRYABLE.has(code) ? 503 : 400, why: `rpc error: code = ${CODE_NAMES[code] || code} desc = ${message}` });
          },
        });
        const abort = () => ch.cancel(call, 4, 'context deadline exceeded');
        signal.addEventListener('abort', abort);
        ch.start(call);
      });
    },
    close: () => {
      if (channel !== null) channel.then((ch) => ch.close(), () => {});
    },
  };
}

// grpc-go's names of the codes, as its errors say them.
const CODE_NAMES = ['OK', 'Canceled', 'Unknown', 'InvalidArgument', 'DeadlineExceeded', 'NotFound', 'AlreadyExists', 'PermissionDenied', 'ResourceExhausted', 'FailedPrecondition', 'Aborted', 'OutOfRange', 'Unimplemented', 'Internal', 'Unavailable', 'DataLoss', 'Unauthenticated'];
