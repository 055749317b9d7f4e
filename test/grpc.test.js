// gRPC runs (grpc:// and grpcs://, --grpc): unary calls on our HTTP/2 driver against a real
// server, @grpc/grpc-js (test/grpc-server.js, run by node whatever runtime this is), whose own
// counts are checked against ours: every call it took is one we counted, by its code.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadTest } from '../src/index.js';
import { HpackDecoder } from '../src/http2/hpack.js';
import { encodeRequestHeaders } from '../src/http2/hpack-encode.js';
import { frameMessage, readMessages } from '../src/grpc/frame.js';
import { callCode, codeName } from '../src/grpc/status.js';
import { spawnScript, inTurn } from './servers.js';
import { grpcServer } from './grpc-harness.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const ca = readFileSync(new URL('./tls/ca.pem', import.meta.url), 'utf8');
const SAY = 'loadtest.test.Echo.Say';


function accounted(r) {
  assert.equal(r.totalRequests + r.inFlight, r.requestsSent, JSON.stringify({ total: r.totalRequests, inFlight: r.inFlight, sent: r.requestsSent }));
}

let plain;
let secure;
before(async () => {
  [plain, secure] = await Promise.all([grpcServer(), grpcServer(['--tls'])]);
});
after(async () => {
  await Promise.all([plain.close(), secure.close()]);
});

const url = () => `grpc://127.0.0.1:${plain.port}`;
// Each test asks the server for its counts before and after, and compares what changed.
async function delta(server, run) {
  const before = await server.counts();
  const result = await run();
  const after = await server.counts();
  const diff = (a, b) => Object.fromEntries(Object.keys(a).map((k) => [k, a[k] - (b[k] || 0)]).filter(([, n]) => n !== 0));
  return { result, say: after.say - before.say, deadlines: after.deadlines - before.deadlines, codes: diff(after.codes, before.codes), names: diff(after.names, before.names), metadata: diff(after.metadata, before.metadata), resets: after.resets - before.resets };
}

test('hpack picks out grpc-status as it does :status: a literal, a dynamic entry, absent, twice', () => {
  const d = new HpackDecoder();
  // 0x40: a literal with incremental indexing and a new name (RFC 7541 6.2.1).
  const literal = (name, value) => [0x40, name.length, ...Buffer.from(name), value.length, ...Buffer.from(value)];
  assert.equal(d.decode(Uint8Array.from([0x88, ...literal('grpc-status', '14')])), null);
  assert.equal(d.status, 200);
  assert.equal(d.grpcStatus, 14);
  // 0xbe: index 62, the entry just added.
  assert.equal(d.decode(Uint8Array.from([0xbe])), null);
  assert.equal(d.grpcStatus, 14);
  assert.equal(d.decode(encodeRequestHeaders({ method: 'GET', scheme: 'http', authority: 'a', path: '/' })), null);
  assert.equal(d.grpcStatus, -1);
  assert.equal(d.decode(Uint8Array.from([...literal('grpc-status', '0'), 0xbe])), null);
  assert.equal(d.grpcStatus, -1, 'given twice');
});

test('a gRPC message is framed with its flag and big-endian length; codes map as grpc-js maps them', () => {
  const framed = frameMessage(Uint8Array.from([1, 2, 3]));
  assert.deepEqual([...framed], [0, 0, 0, 0, 3, 1, 2, 3]);
  assert.deepEqual(readMessages([framed.subarray(0, 4), framed.subarray(4), frameMessage(new Uint8Array(0))]).map((m) => [...m]), [[1, 2, 3], []]);
  assert.throws(() => readMessages([framed.subarray(0, 6)]), /cut short/);
  assert.equal(callCode(5, 200), 5);
  assert.equal(callCode(-1, 200), 2);
  assert.equal(callCode(-1, 503), 14);
  assert.equal(callCode(-1, 404), 12);
  assert.equal(codeName(4), 'DEADLINE_EXCEEDED');
});

test('unary calls by reflection, several streams a connection: each one the server took is counted OK', async () => {
  const { result: r, say, codes, metadata } = await delta(plain, () =>
    loadTest({ url: url(), grpc: { call: SAY, metadata: ['x-tag=run1'] }, body: { name: 'joe' }, maxRequests: 3000, concurrency: 4, streams: 8 }));
  accounted(r);
  assert.equal(r.totalRequests, 3000);
  assert.equal(r.totalErrors, 0);
  assert.equal(say, 3000);
  assert.deepEqual(codes, { 0: 3000 });
  assert.deepEqual(metadata, { run1: 3000 });
  assert.deepEqual(r.grpcStatuses, { OK: 3000 });
  assert.equal(r.protocol, 'grpc');
  assert.equal(r.call, SAY);
  assert.equal(r.streams, 8);
});

test('--proto with --import-path and a --feed: each row is a message, the server sees every name', async () => {
  const rows = [{ name: 'ann', tag: 'a' }, { name: 'bob', tag: 'b' }, { name: 'cy', tag: 'c' }];
  const { result: r, names } = await delta(plain, () =>
    loadTest({
      url: url(),
      grpc: { call: SAY, protos: ['test/grpc/echo.proto'], importPaths: ['test/grpc/include'] },
      body: '{"name":"{{name}}","meta":{"tag":"{{tag}}","ids":[1,"2"]}}',
      feed: rows,
      maxRequests: 300,
      concurrency: 3,
    }));
  accounted(r);
  assert.equal(r.totalErrors, 0);
  assert.deepEqual(names, { ann: 100, bob: 100, cy: 100 });
});

test('a code other than OK is an error by its name, as many as the server answered', async () => {
  const { result: r, codes } = await delta(plain, () => loadTest({ url: url(), grpc: { call: SAY }, body: { code: 14 }, maxRequests: 500, concurrency: 5, streams: 4 }));
  accounted(r);
  assert.deepEqual(codes, { 14: 500 });
  assert.deepEqual(r.grpcStatuses, { UNAVAILABLE: 500 });
  assert.deepEqual(r.errorCodes, { UNAVAILABLE: 500 });
  assert.equal(r.totalErrors, 500);
});

test('a deadline (-d) goes to the server as grpc-timeout: each call ends DEADLINE_EXCEEDED or timed out', async () => {
  const { result: r, say, deadlines } = await delta(plain, () => loadTest({ url: url(), grpc: { call: SAY }, body: { delay_ms: 1500 }, timeout: 250, maxRequests: 40, concurrency: 4, streams: 5 }));
  accounted(r);
  // A call the server reads only after its deadline (or our cancel) never reaches its handler
  // (grpc-js ends it first): on a loaded machine some of the 40 do not. Each that does came
  // with its deadline.
  assert.ok(say >= 1 && say <= 40, `the server's handler saw ${say} calls`);
  assert.equal(deadlines, say, 'each call came with its deadline');
  // Whichever comes first: the server's answer at the deadline, or our cancel.
  const deadline = (r.grpcStatuses && r.grpcStatuses.DEADLINE_EXCEEDED) || 0;
  const timedOut = r.errorsByReason.timeout || 0;
  assert.equal(deadline + timedOut, 40, JSON.stringify(r.errorCodes));
});

test('a server that resets the stream: each call fails with RST_STREAM and its code', async () => {
  const { result: r, resets } = await delta(plain, () => loadTest({ url: url(), grpc: { call: SAY }, body: { reset: true, name: 'r' }, maxRequests: 30, concurrency: 3, streams: 2 }));
  accounted(r);
  assert.equal(resets, 30);
  assert.deepEqual(r.errorsByReason, { 'RST_STREAM INTERNAL_ERROR': 30 });
});

test('a server that sends GOAWAY mid-run (max connection age): new connections, no call lost', async () => {
  const aging = await grpcServer(['--max-age', '150']);
  try {
    const { result: r, say, codes } = await delta(aging, () => loadTest({ url: `grpc://127.0.0.1:${aging.port}`, grpc: { call: SAY }, body: { name: 'g' }, maxRequests: 6000, concurrency: 2, streams: 4 }));
    accounted(r);
    assert.ok(r.connections > 2, `connections: ${r.connections}`);
    assert.equal(r.totalErrors, 0, JSON.stringify(r.errorCodes));
    // Calls above a GOAWAY's last stream were not taken: sent again, each taken once.
    assert.deepEqual(codes, { 0: 6000 });
    assert.equal(say, 6000);
  } finally {
    await aging.close();
  }
});

test('grpcs:// with ALPN h2: --ca trusts the test CA; without it the certificate check fails', async () => {
  const { result: r, say } = await delta(secure, () => loadTest({ url: `grpcs://127.0.0.1:${secure.port}`, ca, grpc: { call: SAY, protos: ['test/grpc/echo.proto'], importPaths: ['test/grpc/include'] }, maxRequests: 200, concurrency: 2, streams: 4 }));
  accounted(r);
  assert.equal(say, 200);
  assert.deepEqual(r.grpcStatuses, { OK: 200 });
  assert.equal(r.protocol, 'grpcs');
  // Reflection is the first thing refused.
  await assert.rejects(loadTest({ url: `grpcs://127.0.0.1:${secure.port}`, grpc: { call: SAY }, maxRequests: 1 }), /reflection: no answer .*CERT_ERROR/);
});

test('cli: the report by gRPC status, and --json with grpcStatuses', async () => {
  const r = await spawnScript(CLI, ['-n', '200', '-c', '2', '--call', SAY, '--data', '{"code":5}', '--metadata', 'x-tag=cli', url()]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Protocol: +gRPC over HTTP\/2 \(h2c\), 1 stream per connection at most/);
  assert.match(r.stdout, /Call: +loadtest\.test\.Echo\.Say/);
  assert.match(r.stdout, /Calls by gRPC status\n  NOT_FOUND  200/);
  assert.match(r.stdout, /Errors by gRPC status\n +NOT_FOUND: +200 errors/);
  const j = await spawnScript(CLI, ['-n', '50', '--grpc', '--call', SAY, '--json', url()]);
  assert.deepEqual(JSON.parse(j.stdout).grpcStatuses, { OK: 50 });
});

test('cli: bad input is one line before the run, exit 2', async () => {
  const cases = [
    [['--proto', 'test/grpc/bad.proto'], /^loadtest: test\/grpc\/bad\.proto:6:17: illegal id ';'$/],
    [['--proto', 'test/grpc/echo.proto'], /^loadtest: test\/grpc\/echo\.proto: import "meta\.proto" not found beside it \(give --import-path DIR\)$/],
    [['--call', 'loadtest.test.Echo.Nope'], /^loadtest: service loadtest\.test\.Echo has no method 'Nope' \(methods: Say, Count, Collect, Chat\)$/],
    [['--call', 'loadtest.test.Nope.Say'], /^loadtest: unknown service 'loadtest\.test\.Nope' \(the server's reflection lists: .*loadtest\.test\.Echo/],
    [['--call', 'loadtest.test.Echo.Chat'], /^loadtest: loadtest\.test\.Echo\.Chat is a bidirectional-streaming method: --grpc calls unary methods$/],
    [['--data', '{"nam":"x"}'], /^loadtest: the message does not fit loadtest\.test\.Hello: unknown field: "nam"$/],
    [['--data', '{"code":"x"}'], /^loadtest: the message does not fit loadtest\.test\.Hello: code: invalid integer: "x"$/],
    [['--data', '{"name":'], /^loadtest: the message is not JSON/],
    [['--metadata', 'grpc-x=1'], /^loadtest: metadata key 'grpc-x' is the call's own/],
    [['-H', 'a:b'], /^loadtest: headers do not apply to gRPC/],
  ];
  const runs = await inTurn(cases, ([args]) => spawnScript(CLI, ['-n', '1', ...(args.includes('--call') ? [] : ['--call', SAY]), ...args, url()]));
  runs.forEach((r, i) => {
    assert.equal(r.code, 2, `${cases[i][0].join(' ')}: ${r.stderr}`);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr.trim(), cases[i][1]);
  });
  const noCall = await spawnScript(CLI, ['-n', '1', url()]);
  assert.equal(noCall.code, 2);
  assert.match(noCall.stderr, /needs --call/);
});
