// A real gRPC server for the tests and the bench: @grpc/grpc-js serving test/grpc/echo.proto
// (unary Say, and Count, Collect and Chat streaming), grpc.health.v1 and server reflection (v1
// and v1alpha; none with --no-reflection). Run by node whatever runtime the test is on (grpc-js's server needs node:http2's
// server side): `node test/grpc-server.js [--tls [--self-signed]] [--max-age MS] [--no-reflection] [--quiet]`. It listens on
// 127.0.0.1, port 0, and prints {"port":N} when ready; then each line "counts" on stdin is
// answered with a line of JSON: the calls it took and how it answered them. It exits when its
// stdin closes, so a test that dies leaves no server behind.
//
// --max-age MS: grpc.max_connection_age_ms, each connection ends with GOAWAY after MS ms (and
// its streams get 1 s to finish): a server that sends GOAWAY mid-run.

import grpc from '@grpc/grpc-js';
import protoLoader from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import http2 from 'node:http2';

const here = (name) => new URL(name, import.meta.url).pathname;
const args = process.argv.slice(2);
const tls = args.includes('--tls');
const maxAge = args.includes('--max-age') ? Number(args[args.indexOf('--max-age') + 1]) : 0;

const definition = protoLoader.loadSync([here('grpc/echo.proto'), here('grpc/health.proto')], {
  includeDirs: [here('grpc/include')],
  keepCase: true,
  longs: String,
  defaults: true,
});
const loaded = grpc.loadPackageDefinition(definition);

const counts = { say: 0, codes: {}, resets: 0, cancelled: 0, deadlines: 0, count: 0, collect: 0, chat: 0, health: 0, metadata: {}, names: {}, connections: 0 };
// Connections that made a Say call, told apart by the client's address and port.
const peers = new Set();
const answered = (code) => (counts.codes[code] = (counts.codes[code] || 0) + 1);

function say(call, callback) {
  counts.say++;
  const peer = call.getPeer();
  if (!peers.has(peer)) {
    peers.add(peer);
    counts.connections++;
  }
  const r = call.request;
  const tag = call.metadata.get('x-tag')[0];
  if (tag !== undefined) counts.metadata[tag] = (counts.metadata[tag] || 0) + 1;
  counts.names[r.name] = (counts.names[r.name] || 0) + 1;
  // A call that came with grpc-timeout has a finite deadline.
  if (Number.isFinite(Number(call.getDeadline()))) counts.deadlines++;
  const answer = () => {
    // Past its deadline (grpc-js answered DEADLINE_EXCEEDED), or cancelled by the client.
    if (call.cancelled) return counts.cancelled++;
    if (r.reset) {
      counts.resets++;
      // grpc-js has no API to reset a stream: its HTTP/2 stream is on the call's internals
      // (grpc-js 1.14: call.call.stream), closed with INTERNAL_ERROR as a crashed proxy would.
      return call.call.stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
    }
    answered(r.code);
    if (r.code !== 0) return callback({ code: r.code, details: `asked for ${r.code}` });
    callback(null, { message: `hello ${r.name}`, count: counts.say, meta: r.meta, kind: 'GREETING' });
  };
  if (r.delay_ms > 0) setTimeout(answer, r.delay_ms);
  else answer();
}

const echo = {
  Say: say,
  Count(call) {
    counts.count++;
    for (let i = 0; i < call.request.times; i++) call.write({ message: `${call.request.name} ${i + 1}`, count: i + 1 });
    call.end();
  },
  Collect(call, callback) {
    counts.collect++;
    let n = 0;
    call.on('data', () => n++);
    call.on('end', () => callback(null, { message: 'collected', count: n }));
  },
  Chat(call) {
    counts.chat++;
    let n = 0;
    call.on('data', (m) => call.write({ message: `re: ${m.name}`, count: ++n }));
    call.on('end', () => call.end());
  },
};

const health = {
  Check(call, callback) {
    counts.health++;
    const known = call.request.service === '' || call.request.service === 'loadtest.test.Echo';
    if (!known) return callback({ code: grpc.status.NOT_FOUND, details: 'unknown service' });
    callback(null, { status: 'SERVING' });
  },
  Watch(call) {
    call.write({ status: 'SERVING' });
  },
};

const options = maxAge > 0 ? { 'grpc.max_connection_age_ms': maxAge, 'grpc.max_connection_age_grace_ms': 1000 } : {};
const server = new grpc.Server(options);
server.addService(loaded.loadtest.test.Echo.service, echo);
server.addService(loaded.grpc.health.v1.Health.service, health);
if (!args.includes('--no-reflection')) new ReflectionService(definition).addToServer(server);

// --self-signed: test/tls/self-signed.pem, a certificate that is its own CA (CA:TRUE), as
// `openssl req -x509` makes one.
const cert = args.includes('--self-signed') ? 'self-signed' : 'server';
const credentials = tls
  ? grpc.ServerCredentials.createSsl(null, [{ private_key: readFileSync(here(`tls/${cert}-key.pem`)), cert_chain: readFileSync(here(`tls/${cert}.pem`)) }])
  : grpc.ServerCredentials.createInsecure();

server.bindAsync('127.0.0.1:0', credentials, (err, port) => {
  if (err) {
    console.error(err.message);
    process.exit(1);
  }
  process.stdout.write(`${JSON.stringify({ port })}\n`);
});

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (line.trim() === 'counts') process.stdout.write(`${JSON.stringify(counts)}\n`);
});
lines.on('close', () => server.forceShutdown() || process.exit(0));
