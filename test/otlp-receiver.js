// An OTLP metrics receiver for the tests of --out opentelemetry: HTTP/protobuf (POST /v1/metrics)
// and gRPC (MetricsService/Export, @grpc/grpc-js), each request decoded with the OpenTelemetry
// protobuf definitions as the OpenTelemetry JavaScript project generated them
// (@opentelemetry/otlp-transformer's protobufjs module of opentelemetry-proto). Run by node whatever
// runtime the test is on: `node test/otlp-receiver.js [--fail-grpc CODE]`. It listens on
// 127.0.0.1, ports 0, prints {"http":N,"grpc":M} when ready, then a line of JSON a request:
// { transport, headers, request } (64-bit numbers as strings). It exits when its stdin closes.

import { createRequire } from 'node:module';
import http from 'node:http';
import grpc from '@grpc/grpc-js';

const require = createRequire(import.meta.url);
const root = require('@opentelemetry/otlp-transformer/build/src/generated/root.js');
const v1 = root.opentelemetry.proto.collector.metrics.v1;
const args = process.argv.slice(2);
const failGrpc = args.includes('--fail-grpc') ? Number(args[args.indexOf('--fail-grpc') + 1]) : 0;

const said = (transport, headers, bytes) => {
  const request = v1.ExportMetricsServiceRequest.toObject(v1.ExportMetricsServiceRequest.decode(bytes), { longs: String, enums: String, defaults: false, arrays: true });
  process.stdout.write(`${JSON.stringify({ transport, headers, request })}\n`);
};

const web = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    if (req.method !== 'POST' || req.url !== '/v1/metrics' || req.headers['content-type'] !== 'application/x-protobuf') {
      res.writeHead(400).end(`unexpected ${req.method} ${req.url} ${req.headers['content-type']}`);
      return;
    }
    said('http', req.headers, Buffer.concat(chunks));
    res.writeHead(200, { 'Content-Type': 'application/x-protobuf' }).end(v1.ExportMetricsServiceResponse.encode({}).finish());
  });
});

const server = new grpc.Server();
server.addService(
  {
    Export: {
      path: '/opentelemetry.proto.collector.metrics.v1.MetricsService/Export',
      requestStream: false,
      responseStream: false,
      requestSerialize: (m) => Buffer.from(m),
      requestDeserialize: (b) => b,
      responseSerialize: (m) => Buffer.from(v1.ExportMetricsServiceResponse.encode(m).finish()),
      responseDeserialize: (b) => b,
    },
  },
  {
    Export: (call, callback) => {
      if (failGrpc) return callback({ code: failGrpc, details: 'the collector says no' });
      said('grpc', call.metadata.getMap(), call.request);
      callback(null, {});
    },
  },
);

const grpcPort = await new Promise((resolve, reject) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => (err ? reject(err) : resolve(port))));
await new Promise((resolve) => web.listen(0, '127.0.0.1', resolve));
process.stdout.write(`${JSON.stringify({ http: web.address().port, grpc: grpcPort })}\n`);
process.stdin.on('data', () => {});
process.stdin.on('end', () => {
  web.close();
  server.forceShutdown();
  process.exit(0);
});
