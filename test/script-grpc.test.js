// k6/net/grpc in scripts: the scripts of test/script-grpc/ (as k6's examples/grpc_*.js make
// their calls) against a real server, @grpc/grpc-js (test/grpc-server.js, run by node whatever
// runtime this is), whose counts are checked. The lines the scripts log and the metric counts
// are k6 v1.3.0's, recorded by running the same scripts with k6 against the same server.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readFile } from 'node:fs/promises';
import descriptor from 'protobufjs/ext/descriptor.js';
import protojson from 'protobufjs/ext/protojson.js';
import { loadProtoFiles } from '../src/grpc/schema.js';
import { loadProtobuf } from '../src/grpc/protobuf.js';
import { messageJSON } from '../src/grpc/json-out.js';
import { spawnScript } from './servers.js';
import { grpcServer } from './grpc-harness.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const SCRIPTS = fileURLToPath(new URL('./script-grpc/', import.meta.url));
const PROTOS = fileURLToPath(new URL('./grpc', import.meta.url));
const CA = fileURLToPath(new URL('./tls/ca.pem', import.meta.url));


let plain;
let secure;
let dir;
before(async () => {
  await loadProtobuf(); // for loadProtoFiles here (a run loads it by the runtime's require)
  [plain, secure] = await Promise.all([grpcServer(), grpcServer(['--tls'])]);
  dir = mkdtempSync(join(tmpdir(), 'loadtest-grpc-'));
});
after(async () => {
  await Promise.all([plain.close(), secure.close()]);
  rmSync(dir, { recursive: true, force: true });
});

// A script of test/script-grpc/ (or a path), run with ADDR and PROTOS.
const run = (script, args = [], server = plain) =>
  spawnScript(CLI, ['run', '-q', '-e', `ADDR=127.0.0.1:${server.port}`, '-e', `PROTOS=${PROTOS}`, ...args, script.includes('/') ? script : join(SCRIPTS, script)], { timeoutMs: 60000 });

// What the script logged (k6's log lines: msg="..." source=console), as its text.
const logged = (stderr) => [...stderr.matchAll(/msg="((?:[^"\\]|\\.)*)" source=console/g)].map((m) => JSON.parse(`"${m[1]}"`));

// The samples of `metric` in an --out json file.
const samples = (file, metric) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.includes(`"metric":"${metric}"`) && l.includes('"type":"Point"'))
    .map((l) => JSON.parse(l).data);

async function delta(server, fn) {
  const before = await server.counts();
  const result = await fn();
  const after = await server.counts();
  const diff = (a, b) => Object.fromEntries(Object.keys(a).map((k) => [k, a[k] - (b[k] || 0)]).filter(([, n]) => n !== 0));
  const n = (k) => after[k] - before[k];
  return { result, connections: n('connections'), say: n('say'), count: n('count'), collect: n('collect'), chat: n('chat'), health: n('health'), codes: diff(after.codes, before.codes), names: diff(after.names, before.names), metadata: diff(after.metadata, before.metadata) };
}

// k6 v1.3.0's lines for unary.js, each iteration's (recorded against test/grpc-server.js).
const K6_UNARY = [
  '["loadtest.test Echo /loadtest.test.Echo/Say Say false false","loadtest.test Echo /loadtest.test.Echo/Count Count false true","loadtest.test Echo /loadtest.test.Echo/Collect Collect true false","loadtest.test Echo /loadtest.test.Echo/Chat Chat true true"]',
  '{"message":{"count":"number","kind":"GREETING","message":"hello Joe","meta":{"ids":["1","9007199254740993"],"tag":"t"}},"error":null,"headers":["content-type","date","grpc-accept-encoding"],"trailers":[],"status":0}',
  '{"message":{"count":"number","kind":"KIND_UNSPECIFIED","message":"","meta":null},"error":{"code":5,"details":[],"message":"asked for 5"},"headers":[],"trailers":["content-type","date"],"status":5}',
  '4 4 true',
  'hello async1 hello async2 hello async3',
  '{"status":1} {"status":1} 1',
  'null 0',
];

test('unary calls: the response (message, error, headers, trailers, status), a deadline, asyncInvoke and healthCheck as k6 v1.3 gives them, every call counted at the server', async () => {
  const out = join(dir, 'unary.json');
  const { result: r, ...server } = await delta(plain, () => run('unary.js', ['-i', '2', '--out', `json=${out}`]));
  assert.equal(r.code, 0, r.stderr);
  const lines = logged(r.stderr);
  assert.deepEqual(lines, [K6_UNARY[0], ...K6_UNARY.slice(1), ...K6_UNARY.slice(1)]);
  assert.match(r.stdout, /checks_succeeded\.+: 100\.00% 4 out of 4/);
  // 2 iterations: Joe (with metadata), Ann (NOT_FOUND), Late (cancelled at its deadline), 3
  // async, Discarded.
  assert.equal(server.say, 14);
  assert.deepEqual(server.codes, { 0: 10, 5: 2 });
  assert.deepEqual(server.names, { Joe: 2, Ann: 2, Late: 2, async1: 2, async2: 2, async3: 2, Discarded: 2 });
  assert.deepEqual(server.metadata, { a: 2 });
  assert.equal(server.health, 4);
  const durations = samples(out, 'grpc_req_duration');
  // A call that ends at its deadline has no sample (k6 pushes it only while the call's context
  // is not done), whichever side said DEADLINE_EXCEEDED (k6 v1.3 gave 16 or 17 here: when the
  // server's status comes in before its context's timer has fired, it has one more).
  assert.equal(durations.length, 16);
  const joe = durations.find((d) => d.tags.k === 'v');
  assert.deepEqual(joe.tags, { group: '', k: 'v', method: 'Say', name: '/loadtest.test.Echo/Say', scenario: 'default', service: 'loadtest.test.Echo', status: '0', url: `127.0.0.1:${plain.port}/loadtest.test.Echo/Say` });
  assert.equal(durations.filter((d) => d.tags.status === '5').length, 2);
  // healthCheck's: the VU's tags and the status only, as in k6.
  assert.deepEqual(durations.filter((d) => d.tags.name === undefined).map((d) => d.tags), Array(4).fill({ group: '', scenario: 'default', status: '0' }));
});

test("a name among the VU's tags is a call's name tag, as k6 (grpc/params.go keeps a name already set)", async () => {
  const out = join(dir, 'unary-named.json');
  const { result: r } = await delta(plain, () => run('unary.js', ['-i', '1', '--tag', 'name=mine', '--out', `json=${out}`]));
  assert.equal(r.code, 0, r.stderr);
  const names = new Set(samples(out, 'grpc_req_duration').map((d) => d.tags.name));
  assert.deepEqual([...names], ['mine']);
});

const K6_STREAMS = [
  'chat data {"count":1,"kind":"KIND_UNSPECIFIED","message":"re: first","meta":null}',
  'chat data {"count":2,"kind":"KIND_UNSPECIFIED","message":"re: again1","meta":null}',
  'chat data {"count":3,"kind":"KIND_UNSPECIFIED","message":"re: again2","meta":null}',
  'chat end',
  'collect data {"count":4,"kind":"KIND_UNSPECIFIED","message":"collected","meta":null}',
  'collect end',
  'count data {"count":1,"kind":"KIND_UNSPECIFIED","message":"n 1","meta":null} number',
  'count data {"count":2,"kind":"KIND_UNSPECIFIED","message":"n 2","meta":null} number',
  'count data {"count":3,"kind":"KIND_UNSPECIFIED","message":"n 3","meta":null} number',
  'count end',
  'late end',
  'late error {"code":4,"details":[],"message":"context deadline exceeded"} code,details,message,error true',
];
// Which side's deadline ends the 'late' stream first is a race, in k6 as here: the server's
// (grpc-timeout) says 'Deadline exceeded'.
const lateAsK6 = (line) => line.replace('"message":"Deadline exceeded"', '"message":"context deadline exceeded"');

test("streams: server-, client- and bidi-streaming with their events and a deadline's error, k6 v1.3's lines and grpc_streams* counts; the iteration lasts until its streams end", async () => {
  const exported = join(dir, 'streams-summary.json');
  const out = join(dir, 'streams.json');
  const { result: r, ...server } = await delta(plain, () => run('streams.js', ['-i', '2', '--summary-export', exported, '--out', `json=${out}`]));
  assert.equal(r.code, 0, r.stderr);
  // Events of streams at once interleave as they come: each stream's own are in order.
  const lines = logged(r.stderr).map(lateAsK6);
  assert.deepEqual([...lines].sort(), K6_STREAMS.flatMap((l) => [l, l]).sort());
  for (const kind of ['count', 'chat']) {
    const own = lines.filter((l) => l.startsWith(`${kind} `)).slice(0, 4);
    assert.deepEqual(own, K6_STREAMS.filter((l) => l.startsWith(`${kind} `)));
  }
  assert.ok(lines.indexOf('late error {"code":4,"details":[],"message":"context deadline exceeded"} code,details,message,error true') < lines.indexOf('late end'));
  // k6 v1.3.0's counts for the same script.
  const m = JSON.parse(readFileSync(exported, 'utf8')).metrics;
  assert.deepEqual([m.grpc_streams.count, m.grpc_streams_msgs_sent.count, m.grpc_streams_msgs_received.count, m.iterations.count], [8, 16, 14, 2]);
  // A stream's grpc_req_duration at its end; none for the one past its deadline (as k6).
  const ends = samples(out, 'grpc_req_duration');
  assert.deepEqual(ends.map((d) => `${d.tags.method} ${d.tags.status}`).sort(), ['Chat 0', 'Chat 0', 'Collect 0', 'Collect 0', 'Count 0', 'Count 0']);
  assert.equal(ends.find((d) => d.tags.method === 'Collect').tags.kind, 'collect');
  // Each iteration waited for its streams: the 'late' one's 200 ms deadline.
  assert.ok(samples(out, 'iteration_duration').every((d) => d.value >= 195));
  assert.deepEqual([server.count, server.collect, server.chat], [2, 2, 4]);
});

// k6 v1.3.0's lines for misuse.js (sorted: the streams' events interleave).
const K6_MISUSE = [
  'closed data',
  'closed end',
  'closed error 2 canceled by client (k6)',
  'denied end',
  'denied error 7 asked for 7 code: 7, message: asked for 7',
  'twice end',
  'twice error 13 SendMsg called after CloseSend',
  'twice error 13 SendMsg called after CloseSend',
];

test("streams misused as k6 v1.3 answers: a second message to a method that takes one ('error' twice, as k6), a non-OK status, client.close() under an open stream", async () => {
  const r = await run('misuse.js', ['--summary-mode=disabled']);
  assert.equal(r.code, 0, r.stderr);
  const lines = logged(r.stderr);
  assert.deepEqual([...lines].sort(), K6_MISUSE);
  for (const name of ['twice', 'denied', 'closed']) assert.ok(lines.lastIndexOf(`${name} end`) > Math.max(...lines.map((l, i) => (l.startsWith(`${name} error`) ? i : -1))), name);
});

test("messages larger than HTTP/2's first windows go as the server opens them: a 1.5 MB call, a reply over maxReceiveSize (k6's ResourceExhausted), 3 MB on a client stream; k6 v1.3's lines", async () => {
  const { result: r, say, collect } = await delta(plain, () => run('large.js', ['--summary-mode=disabled']));
  assert.equal(r.code, 0, r.stderr);
  const [big, over, collected] = logged(r.stderr);
  assert.deepEqual([big, collected], ['0 1500006', 'collected 30']);
  // The reply's size has the server's count of calls in it (a varint): 2500017 with k6's.
  assert.match(over, /^8 \{"code":8,"details":\[\],"message":"grpc: received message larger than max \(25000\d\d vs\. 2000000\)"\}$/);
  assert.deepEqual([say, collect], [2, 1]);
});

test("an iteration that throws with a stream open: the stream's 'error' (k6's 'canceled by client (k6)') and 'end' in that iteration, before the exception's line, as k6 v1.3", async () => {
  const r = await run('thrown.js', ['--summary-mode=disabled']);
  assert.equal(r.code, 0, r.stderr);
  // (The exception's column is the engine's: the throw, or its Error, on bun.)
  const lines = r.stderr.split('\n').filter((l) => l.includes('source=console') || l.startsWith('loadtest run: boom')).map((l) => logged(l)[0] ?? l.replace(/:16:\d+$/, ':16'));
  assert.deepEqual(lines, ['error 0 2 canceled by client (k6)', 'end 0', 'loadtest run: boom 0 at thrown.js:16', 'error 1 2 canceled by client (k6)', 'end 1', 'loadtest run: boom 1 at thrown.js:16']);
});

test("a stream still open at its scenario's end is cut as k6 v1.3 cuts it: a warning without an 'error' handler, no 'end', the run ends", async () => {
  const exported = join(dir, 'cut-summary.json');
  const { result: r, chat } = await delta(plain, () => run('cut.js', ['--summary-export', exported]));
  assert.equal(r.code, 0, r.stderr);
  const warned = r.stderr.match(/level=warning msg="no handlers for error registered, but an error happened: rpc error: code = DeadlineExceeded desc = context deadline exceeded" streamMethod=\/loadtest\.test\.Echo\/Chat/g) || [];
  assert.equal(warned.length, 2, r.stderr);
  assert.deepEqual(logged(r.stderr), []);
  const m = JSON.parse(readFileSync(exported, 'utf8')).metrics;
  assert.deepEqual([m.grpc_streams.count, m.grpc_streams_msgs_sent.count, m.grpc_streams_msgs_received.count, m.iterations.count], [2, 2, 2, 0]);
  assert.equal(chat, 2);
});

test('a server that ends its connections with GOAWAY every 300 ms: every call answered OK on the next connection, each counted at the server', async () => {
  const aging = await grpcServer(['--max-age', '300']);
  try {
    const exported = join(dir, 'goaway-summary.json');
    const { result: r, say, connections } = await delta(aging, () => run('goaway.js', ['--summary-export', exported], aging));
    assert.equal(r.code, 0, r.stderr);
    const m = JSON.parse(readFileSync(exported, 'utf8')).metrics;
    assert.ok(m.iterations.count > 0);
    assert.equal(m.checks.fails, 0, r.stdout);
    assert.equal(say, m.iterations.count);
    // 2 VUs for 2 s, a connection each at a time, each closed after 300 ms.
    assert.ok(connections >= 4, `${connections} connections`);
  } finally {
    await aging.close();
  }
});

test('patterns of public scripts: a subclass of Client calling super.invoke, connect on the first iteration, a group, thresholds on grpc_req_duration; 3 VUs, every call counted', async () => {
  const { result: r, ...server } = await delta(plain, () => run('patterns.js'));
  assert.equal(r.code, 0, r.stderr);
  // As k6 v1.3.0 gives them for this script.
  assert.deepEqual(logged(r.stderr), ['"GREETING"', '"GREETING"', '"GREETING"']);
  assert.match(r.stdout, /✓ 'p\(95\)<5000' p\(95\)=/);
  assert.match(r.stdout, /\{method:Say\}\n\s+✓ 'max<5000' max=/);
  assert.match(r.stdout, /checks_succeeded\.+: 100\.00% 30 out of 30/);
  assert.equal(server.say, 30);
  assert.deepEqual(server.metadata, { tagged: 30 });
  // Shared iterations: the VUs take them as they come.
  assert.equal(Object.values(server.names).reduce((a, b) => a + b, 0), 30);
  assert.ok(Object.keys(server.names).every((n) => /^vu[123]$/.test(n)), Object.keys(server.names).join());
});

test('connect: over TLS with cacerts or insecureSkipTLSVerify, the schema by reflection; a certificate not trusted is one line', async () => {
  const script = join(dir, 'tls.js');
  writeFileSync(
    script,
    `import grpc from 'k6/net/grpc';
const client = new grpc.Client();
const ca = open(${JSON.stringify(CA)});
export default () => {
  client.connect(__ENV.ADDR, __ENV.HOW === 'ca' ? { reflect: true, tls: { cacerts: [ca] } } : { reflect: true, timeout: '5s' });
  const r = client.invoke('loadtest.test.Echo/Say', { name: 'tls' });
  console.log(r.status, r.message.message, r.message.kind);
  console.log(JSON.stringify(client.healthCheck('loadtest.test.Echo')));
  client.close();
};
`,
  );
  const { result: withCa, say } = await delta(secure, () => run(script, ['-e', 'HOW=ca'], secure));
  assert.equal(withCa.code, 0, withCa.stderr);
  assert.deepEqual(logged(withCa.stderr), ['0 hello tls GREETING', '{"status":1}']);
  assert.equal(say, 1);
  const insecure = await run(script, ['--insecure-skip-tls-verify'], secure);
  assert.deepEqual(logged(insecure.stderr), ['0 hello tls GREETING', '{"status":1}']);
  const untrusted = await run(script, [], secure);
  assert.equal(untrusted.code, 0);
  assert.match(untrusted.stderr, /^loadtest run: connection error: desc = "transport: authentication handshake failed: tls: failed to verify certificate: .+"( at tls\.js:\d+:\d+)?$/m);
  assert.doesNotMatch(untrusted.stderr, /\n\s+at /);
});

test("parameters refused in k6 v1.3's words (its lines, the error's name aside: k6's are GoErrors)", async () => {
  const script = join(dir, 'params.js');
  const tries = [
    "new grpc.Stream(client, 'loadtest.test.Echo/Chat', { foo: 1 })",
    "new grpc.Stream(null, 'loadtest.test.Echo/Chat')",
    "new grpc.Stream({}, 'loadtest.test.Echo/Chat')",
    "client.invoke('loadtest.test.Echo/Say', {}, { timeout: 'x' })",
    "client.invoke('loadtest.test.Echo/Say', {}, { metadata: { a: 1 } })",
    "client.invoke('', {})",
    "client.connect(__ENV.ADDR, { plaintext: 'yes' })",
    "client.connect(__ENV.ADDR, { maxReceiveSize: -1 })",
  ];
  writeFileSync(
    script,
    `import grpc from 'k6/net/grpc';
const client = new grpc.Client();
client.load([\`\${__ENV.PROTOS}/include\`, __ENV.PROTOS], 'echo.proto');
export default () => {
  client.connect(__ENV.ADDR, { plaintext: true });
${tries.map((t) => `  try { ${t}; } catch (e) { console.log(String(e).replace(/^\\w*Error: /, '')); }`).join('\n')}
};
`,
  );
  const r = await run(script, ['--summary-mode=disabled']);
  assert.deepEqual(logged(r.stderr), [
    'invalid GRPC Stream\'s parameters: unknown param: "foo"',
    "invalid GRPC Stream's client: empty gRPC client",
    "invalid GRPC Stream's client: not a gRPC client",
    'invalid GRPC\'s client.invoke() parameters: invalid timeout value: time: invalid duration "x"',
    'invalid GRPC\'s client.invoke() parameters: invalid metadata param: "a" value must be a string',
    'method to invoke cannot be empty',
    'invalid grpc.connect() parameters: invalid plaintext value: \'"yes"\', it needs to be boolean',
    "invalid grpc.connect() parameters: invalid maxReceiveSize value: '-1, it needs to be a positive integer",
  ]);
});

test('connect({ reflect: true }) to a server without reflection: one line', async () => {
  const bare = await grpcServer(['--no-reflection']);
  try {
    const script = join(dir, 'noreflect.js');
    writeFileSync(script, "import grpc from 'k6/net/grpc';\nconst client = new grpc.Client();\nexport default () => { client.connect(__ENV.ADDR, { plaintext: true, reflect: true }); };\n");
    const r = await run(script, ['--summary-mode=disabled'], bare);
    assert.equal(r.code, 0);
    // k6 v1.3.0's line against this server.
    assert.match(r.stderr, /^loadtest run: can't list services: rpc error: code = Unimplemented desc = The server does not implement the method \/grpc\.reflection\.v1alpha\.ServerReflection\/ServerReflectionInfo( at noreflect\.js:\d+:\d+)?$/m);
    assert.doesNotMatch(r.stderr, /\n\s+at /);
  } finally {
    await bare.close();
  }
});

test("--http-debug: k6's lines for a call (Out Header, In Header; with 'full' the payloads in protobuf's text format)", async () => {
  const script = join(dir, 'debug.js');
  writeFileSync(
    script,
    `import grpc from 'k6/net/grpc';
const client = new grpc.Client();
client.load([\`\${__ENV.PROTOS}/include\`, __ENV.PROTOS], 'echo.proto');
export default () => {
  client.connect(__ENV.ADDR, { plaintext: true });
  client.invoke('loadtest.test.Echo/Say', { name: 'dbg', meta: { tag: 't' } }, { metadata: { 'x-tag': 'd' } });
};
`,
  );
  const debugLines = (stderr) => [...stderr.matchAll(/msg="((?:[^"\\]|\\.)*)" source=http-debug/g)].map((m) => JSON.parse(`"${m[1]}"`));
  const full = debugLines((await run(script, ['--http-debug=full', '--summary-mode=disabled'])).stderr);
  assert.equal(full.length, 4, full.join('\n---\n'));
  assert.match(full[0], new RegExp(`^Out Header:\nFull Method: /loadtest\\.test\\.Echo/Say\nRemote Address: 127\\.0\\.0\\.1:${plain.port}\nuser-agent: [^\n]+\nx-tag: d\n\n$`));
  assert.match(full[1], /^Out Payload:\nWire Length: 15\nSent Time: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{9} \+0000 UTC m=\+\d+\.\d{9}\nname: "dbg"\nmeta: \{\n  tag: "t"\n\}\n\n\n$/);
  assert.match(full[2], /^In Header:\nWire Length: \d+\ncontent-type: application\/grpc\+proto\n/);
  assert.match(full[3], /^In Payload:\nWire Length: \d+\nReceived Time: .+\nmessage: "hello dbg"\ncount: \d+\nmeta: \{\n  tag: "t"\n\}\nkind: GREETING\n\n\n$/);
  const headers = debugLines((await run(script, ['--http-debug', '--summary-mode=disabled'])).stderr);
  assert.deepEqual(headers.map((l) => l.split('\n')[0]), ['Out Header:', 'In Header:']);
});

test('loadProtoset: the schema from a FileDescriptorSet file', async () => {
  // A protoset made here from echo.proto (as protoc --descriptor_set_out would): no protoc needed.
  const root = await loadProtoFiles([join(PROTOS, 'echo.proto')], [join(PROTOS, 'include')], (path) => readFile(path, 'utf8'));
  writeFileSync(join(dir, 'echo.protoset'), descriptor.FileDescriptorSet.encode(root.toDescriptor('proto3')).finish());
  const script = join(dir, 'protoset.js');
  writeFileSync(
    script,
    `import grpc from 'k6/net/grpc';
const client = new grpc.Client();
console.log(client.loadProtoset('./echo.protoset').map((m) => m.full_method).join(' '));
export default () => {
  client.connect(__ENV.ADDR, { plaintext: true });
  console.log(JSON.stringify(client.invoke('loadtest.test.Echo/Say', { name: 'set', meta: { ids: [3] } }).message.meta));
};
`,
  );
  const r = await run(script);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(logged(r.stderr).slice(-2), ['/loadtest.test.Echo/Say /loadtest.test.Echo/Count /loadtest.test.Echo/Collect /loadtest.test.Echo/Chat', '{"tag":"","ids":["3"]}']);
});

// ProtoJSON inputs, and what Go's protojson (google.golang.org/protobuf v1 as vendored by k6
// v1.3.0, MarshalOptions{EmitUnpopulated: true}, as k6's grpcext calls it) wrote for each, run
// on the same message bytes: every kind of field, unset, set, and set to its default.
const JSON_CASES = [
  {},
  {
    aDouble: 1.5, aFloat: 0.1, aInt32: -7, aInt64: "-9007199254740993", aUint32: 4000000000,
    aUint64: "18446744073709551615", aSint32: -3, aSint64: "-5", aFixed32: 7, aFixed64: "8",
    aSfixed32: -9, aSfixed64: "-10", aBool: true, aString: "héllo", aBytes: "AAEC/w==",
    color: "GREEN", inner: {"label": "in", "big": ["1", "2"]}, inners: [{}, {"label": "x"}],
    colors: ["RED", "COLOR_UNSPECIFIED"], counts: {"a": "1", "b": "-2"},
    byId: {"3": {"label": "three"}}, choiceInner: {}, maybe: 0, at: "2024-01-02T03:04:05.123Z",
    took: "1.500s", extra: {"k": [1, "two", null, true, {"n": {}}]}, wrapped: "0", name: "",
    nothing: {}, renamed: "r", notANumber: "NaN", infinite: "-Infinity",
  },
  {
    choiceText: "", maybe: 5, inner: {}, aFloat: 1e+38, aDouble: 1e-07, at: "1970-01-01T00:00:00Z",
    took: "-0.000000001s",
  },
];
const GO_JSON = [
  {
    aDouble: 0, aFloat: 0, aInt32: 0, aInt64: "0", aUint32: 0, aUint64: "0", aSint32: 0,
    aSint64: "0", aFixed32: 0, aFixed64: "0", aSfixed32: 0, aSfixed64: "0", aBool: false,
    aString: "", aBytes: "", color: "COLOR_UNSPECIFIED", inner: null, inners: [], colors: [],
    counts: {}, byId: {}, at: null, took: null, extra: null, wrapped: null, name: null,
    nothing: null, renamed: "", notANumber: 0, infinite: 0,
  },
  {
    aDouble: 1.5, aFloat: 0.1, aInt32: -7, aInt64: "-9007199254740993", aUint32: 4000000000,
    aUint64: "18446744073709551615", aSint32: -3, aSint64: "-5", aFixed32: 7, aFixed64: "8",
    aSfixed32: -9, aSfixed64: "-10", aBool: true, aString: "héllo", aBytes: "AAEC/w==",
    color: "GREEN", inner: {"label": "in", "big": ["1", "2"]},
    inners: [{"label": "", "big": []}, {"label": "x", "big": []}],
    colors: ["RED", "COLOR_UNSPECIFIED"], counts: {"a": "1", "b": "-2"},
    byId: {"3": {"label": "three", "big": []}}, choiceInner: {"label": "", "big": []}, maybe: 0,
    at: "2024-01-02T03:04:05.123Z", took: "1.500s", extra: {"k": [1, "two", null, true, {"n": {}}]},
    wrapped: "0", name: "", nothing: {}, renamed: "r", notANumber: "NaN", infinite: "-Infinity",
  },
  {
    aDouble: 1e-07, aFloat: 1e+38, aInt32: 0, aInt64: "0", aUint32: 0, aUint64: "0", aSint32: 0,
    aSint64: "0", aFixed32: 0, aFixed64: "0", aSfixed32: 0, aSfixed64: "0", aBool: false,
    aString: "", aBytes: "", color: "COLOR_UNSPECIFIED", inner: {"label": "", "big": []},
    inners: [], colors: [], counts: {}, byId: {}, choiceText: "", maybe: 5,
    at: "1970-01-01T00:00:00Z", took: "-0.000000001s", extra: null, wrapped: null, name: null,
    nothing: null, renamed: "", notANumber: 0, infinite: 0,
  },
];

test('a message as k6 gives it to a script: what Go protojson writes with EmitUnpopulated, for every kind of field (test/grpc/types.proto)', async () => {
  const root = await loadProtoFiles([join(PROTOS, 'types.proto')], [], (path) => readFile(path, 'utf8'));
  const type = root.lookupType('loadtest.types.All');
  JSON_CASES.forEach((input, i) => {
    const bytes = type.encode(protojson.fromJson(type, input)).finish();
    assert.deepEqual(messageJSON(type, type.decode(bytes)), GO_JSON[i], `case ${i}`);
  });
});

test("bad input: one line each, in k6's words where k6 has them (the init context's rules, an unknown method, a bad .proto's file:line:column)", async () => {
  const echo = `client.load([${JSON.stringify(join(PROTOS, 'include'))}, ${JSON.stringify(PROTOS)}], 'echo.proto');`;
  const cases = [
    ['client.connect(__ENV.ADDR, { plaintext: true });\nexport default () => {};', 107, /^loadtest run: the init context of VU 0 failed: connecting to a gRPC server in the init context is not supported at bad\.js:3:8$/m],
    ["export default () => { client.load([], 'echo.proto'); };", 0, /^loadtest run: load must be called in the init context at bad\.js:3:\d+$/m],
    [`${echo}\nexport default () => { client.connect(__ENV.ADDR, { plaintext: true }); client.invoke('loadtest.test.Echo/Nope', {}); };`, 0, /^loadtest run: method "\/loadtest\.test\.Echo\/Nope" not found in file descriptors at bad\.js:4:\d+$/m],
    [`client.load([${JSON.stringify(PROTOS)}], 'bad.proto');\nexport default () => {};`, 107, /^loadtest run: the init context of VU 0 failed: .*bad\.proto:6:17: illegal id ';'( at bad\.js:3:\d+)?$/m],
    [`${echo}\nexport default () => { client.invoke('loadtest.test.Echo/Say', {}); };`, 0, /^loadtest run: no gRPC connection, you must call connect first at bad\.js:4:\d+$/m],
    [`${echo}\nexport default () => { client.connect(__ENV.ADDR, { plaintext: true }); client.invoke('loadtest.test.Echo/Say', { nam: 'x' }); };`, 0, /^loadtest run: unable to serialise request object to protocol buffer: proto: unknown field: "nam" at bad\.js:4:\d+$/m],
    ["export default () => { client.connect('127.0.0.1:1', { plaintext: true }); };", 0, /^loadtest run: connection error: desc = "transport: error while dialing: dial tcp 127\.0\.0\.1:1: connect: connection refused"/m],
    // A client whose connect failed has no connection, as in k6.
    ["export default () => { try { client.connect('127.0.0.1:1', { plaintext: true }); } catch (e) {} client.invoke('x.Y/Z', {}); };", 0, /^loadtest run: no gRPC connection, you must call connect first at bad\.js:3:\d+$/m],
    ["export default () => { client.connect('nope.invalid:50051', { plaintext: true }); };", 0, /^loadtest run: connection error: desc = "transport: error while dialing: lookup nope\.invalid: no such host"/m],
    [`${echo}\nexport default () => { client.connect(__ENV.ADDR, { plaintext: true, foo: 1 }); };`, 0, /^loadtest run: invalid grpc\.connect\(\) parameters: unknown connect param: "foo" at bad\.js:4:\d+$/m],
    [`${echo}\nexport default () => { client.connect(__ENV.ADDR, { plaintext: true }); client.invoke('loadtest.test.Echo/Say', {}, { foo: 1 }); };`, 0, /^loadtest run: invalid GRPC's client\.invoke\(\) parameters: unknown param: "foo" at bad\.js:4:\d+$/m],
    [`${echo}\nexport default () => { client.connect(__ENV.ADDR, { plaintext: true }); new grpc.Stream(client, 'loadtest.test.Echo/Nope'); };`, 0, /^loadtest run: invalid GRPC Stream's method: method "\/loadtest\.test\.Echo\/Nope" not found in file descriptors at bad\.js:4:\d+$/m],
  ];
  for (const [body, code, line] of cases) {
    const script = join(dir, 'bad.js');
    writeFileSync(script, `import grpc from 'k6/net/grpc';\nconst client = new grpc.Client();\n${body}\n`);
    const r = await run(script, ['--summary-mode=disabled']);
    assert.equal(r.code, code, `${body}\n${r.stderr}`);
    assert.match(r.stderr, line, body);
    // One line: no stack trace.
    assert.doesNotMatch(r.stderr, /\n\s+at /, body);
  }
});
