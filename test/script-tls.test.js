// k6's TLS options in scripts (tlsVersion, tlsCipherSuites, tlsAuth), res.ocsp, a TLS alert in
// k6's words, and a certificate that is its own CA, against https servers on node
// (test/tls-server.js: OpenSSL whatever runtime runs the test). The lines and values are k6
// v2.2.0's, recorded by running the same scripts with k6 against the same servers. The test CA
// is trusted the runtime's way (NODE_EXTRA_CA_CERTS, DENO_CERT), so that certificates are
// checked: on Deno that is Deno.connectTls, where insecureSkipTLSVerify would take node:tls.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runtime } from '../runtimes/index.js';
import { spawnScript } from './servers.js';
import { grpcServer } from './grpc-harness.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const SERVER = fileURLToPath(new URL('./tls-server.js', import.meta.url));
const SELF_SIGNED = fileURLToPath(new URL('./tls/self-signed.pem', import.meta.url));
const SELF_SIGNED_KEY = fileURLToPath(new URL('./tls/self-signed-key.pem', import.meta.url));
const TEST_CA = fileURLToPath(new URL('./tls/ca.pem', import.meta.url));

let openssl = true;
try {
  execFileSync('openssl', ['version'], { stdio: 'ignore' });
} catch {
  openssl = false;
}
const skip = openssl ? false : 'needs the openssl command to make certificates';

let dir;
const file = (name) => join(dir, name);
const pem = (name) => readFileSync(file(name), 'utf8');
const ssl = (...args) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });

// An EC P-256 certificate signed by the test CA (ECDHE-ECDSA suites, then).
function certificate(name, cn, ext) {
  ssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${name}-key.pem`, '-subj', `/CN=${cn}`, '-out', `${name}.csr`);
  writeFileSync(file(`${name}.ext`), ext);
  ssl('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca-key.pem', '-CAcreateserial', '-days', '30', '-extfile', `${name}.ext`, '-out', `${name}.pem`);
}

// Servers on node: { port, close() }.
function tlsServer(options) {
  const child = spawn('node', [SERVER, JSON.stringify(options)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  return new Promise((resolve) => {
    createInterface({ input: child.stdout }).once('line', (line) => resolve({ port: JSON.parse(line).port, close: () => (child.stdin.end(), exited) }));
  });
}

let servers = {};
before(async () => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), 'loadtest-tls-'));
  ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca-key.pem', '-out', 'ca.pem', '-subj', '/CN=loadtest TLS options CA', '-days', '30');
  certificate('server', '127.0.0.1', 'basicConstraints=CA:FALSE\nsubjectAltName=IP:127.0.0.1\n');
  certificate('client', 'loadtest client', 'basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n');
  // The key encrypted as k6 takes one (Go's x509.DecryptPEMBlock: Proc-Type and DEK-Info).
  ssl('ec', '-in', 'client-key.pem', '-aes128', '-passout', 'pass:secret', '-out', 'client-encrypted.pem');
  const server = { cert: pem('server.pem'), key: pem('server-key.pem') };
  [servers.any, servers.old, servers.clients, servers.self] = await Promise.all([
    tlsServer(server),
    // TLS 1.2 only, and one suite of it.
    tlsServer({ ...server, maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES256-GCM-SHA384' }),
    tlsServer({ ...server, requestCert: true, ca: pem('ca.pem') }),
    tlsServer({ cert: readFileSync(SELF_SIGNED, 'utf8'), key: readFileSync(SELF_SIGNED_KEY, 'utf8') }),
  ]);
});

after(async () => {
  await Promise.all(Object.values(servers).map((s) => s.close()));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// The runtime's trust store given `ca` (k6 reads SSL_CERT_FILE).
const trusting = (ca) => ({ NODE_EXTRA_CA_CERTS: ca, DENO_CERT: ca });

// Runs `body` (the default function's) with `options`; its console lines, as logged values.
async function run(options, body, { ca = file('ca.pem'), env = {}, init = '' } = {}) {
  const script = join(dir, `script-${Math.random().toString(36).slice(2)}.js`);
  writeFileSync(script, `import http from 'k6/http';\nimport grpc from 'k6/net/grpc';\nconst client = new grpc.Client();\n${init}\nexport const options = ${JSON.stringify({ iterations: 1, ...options })};\nexport default function () {\n${body}\n}\n`);
  const r = await spawnScript(CLI, ['run', '-q', script], { env: { ...trusting(ca), ...env }, timeoutMs: 60000 });
  const logged = [...r.stderr.matchAll(/msg="((?:[^"\\]|\\.)*)" source=console/g)].map((m) => JSON.parse(JSON.parse(`"${m[1]}"`)));
  return { ...r, logged };
}

// What a script logs of a response.
const show = (url) => `{ const r = http.get(${JSON.stringify(url)}); console.log(JSON.stringify({ status: r.status, error: r.error, code: r.error_code, version: r.tls_version, cipher: r.tls_cipher_suite, proto: r.proto, ocsp: r.ocsp, body: r.status ? JSON.parse(r.body) : null })); }`;
const url = (server) => `https://127.0.0.1:${server.port}/`;
const NO_OCSP = { produced_at: 0, this_update: 0, next_update: 0, revoked_at: 0, revocation_reason: '', status: '' };

test('tlsVersion: a min the server does not reach fails the handshake in k6 words; a version asked is the one spoken, over HTTP/2 too', { skip }, async () => {
  const { code, stderr, logged } = await run({ tlsVersion: { min: 'tls1.3', max: 'tls1.3' } }, show(url(servers.old)));
  assert.equal(code, 0, stderr);
  assert.deepEqual(logged, [{ status: 0, error: 'remote error: tls: protocol version not supported', code: 1010, version: '', cipher: '', proto: '', ocsp: NO_OCSP, body: null }]);
  const ok = await run({ tlsVersion: 'tls1.2' }, show(url(servers.any)));
  assert.equal(ok.logged.length, 1, ok.stderr);
  const [r] = ok.logged;
  assert.equal(r.status, 200);
  assert.equal(r.proto, 'HTTP/2.0');
  assert.equal(r.body.version, 'TLSv1.2');
  assert.equal(r.body.http, '2.0');
  // Deno.connectTls cannot limit versions: the connection is node:tls's there, which tells them.
  assert.equal(r.version, 'tls1.2');
  assert.equal(r.cipher, r.body.cipher);
  // k6's for a response over TLS without a stapled OCSP answer.
  assert.deepEqual(r.ocsp, { ...NO_OCSP, status: 'unknown' });
});

test('tlsCipherSuites: only those suites are offered for TLS 1.2 (a server without them fails the handshake); refused on deno', { skip }, async () => {
  const options = { tlsCipherSuites: ['TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256', 'TLS_AES_128_GCM_SHA256'] };
  const body = `${show(url(servers.old))}\n${show(url(servers.any))}`;
  const { code, stderr, logged } = await run({ ...options, tlsVersion: { max: 'tls1.2' } }, body);
  if (runtime.name === 'deno') {
    assert.equal(code, 104);
    assert.match(stderr, /^loadtest run: tlsCipherSuites: deno cannot limit the TLS cipher suites it offers .*run this script with node or bun/m);
    assert.equal(stderr.trim().split('\n').length, 1, stderr);
    return;
  }
  assert.equal(code, 0, stderr);
  assert.equal(logged[0].error, 'remote error: tls: handshake failure');
  assert.equal(logged[0].code, 1010);
  assert.equal(logged[1].status, 200);
  assert.equal(logged[1].body.cipher, 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256');
  assert.equal(logged[1].cipher, 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256');
  // TLS 1.3's suites are the library's, as Go's: the option does not stop TLS 1.3.
  const v13 = await run(options, show(url(servers.any)));
  assert.equal(v13.logged[0].version, 'tls1.3', v13.stderr);
});

test('tlsAuth: the client certificate is sent (its key encrypted or not), and none is k6 words for the alert', { skip }, async () => {
  const cert = pem('client.pem');
  const none = await run({}, show(url(servers.clients)));
  assert.deepEqual(none.logged, [{ status: 0, error: 'remote error: tls: certificate required', code: 1010, version: '', cipher: '', proto: '', ocsp: NO_OCSP, body: null }], none.stderr);
  const plain = await run({ tlsAuth: [{ domains: [], cert, key: pem('client-key.pem') }] }, show(url(servers.clients)));
  assert.equal(plain.logged[0].status, 200, plain.stderr);
  assert.equal(plain.logged[0].body.client, 'loadtest client');
  assert.doesNotMatch(plain.stderr, /tlsAuth\.domains/);
  // k6's warning for domains, and its certificate sent whatever the name.
  const encrypted = await run({ tlsAuth: [{ domains: ['example.com'], cert, key: pem('client-encrypted.pem'), password: 'secret' }] }, show(url(servers.clients)));
  assert.equal(encrypted.logged[0].status, 200, encrypted.stderr);
  assert.equal(encrypted.logged[0].body.client, 'loadtest client');
  assert.match(encrypted.stderr, /tlsAuth\.domains option could be removed in the next releases/);
  const wrong = await run({ tlsAuth: [{ cert, key: pem('client-encrypted.pem'), password: 'nope' }] }, '');
  assert.equal(wrong.code, 104);
  assert.match(wrong.stderr, /^loadtest run: tlsAuth\[0\]: x509: decryption password incorrect$/m);
});

test("bad TLS option values are one line and exit 104, in k6's words", { skip }, async () => {
  const tries = [
    [{ tlsVersion: 'tls9' }, "tlsVersion: unknown TLS version 'tls9'"],
    [{ tlsVersion: { min: 'tls1.2', foo: 1 } }, "tlsVersion: unknown field 'foo'"],
    [{ tlsCipherSuites: ['NOPE'] }, "tlsCipherSuites: unknown cipher suite 'NOPE'"],
    [{ tlsAuth: [{ cert: 'x', key: 'y' }] }, 'tlsAuth[0]: tls: failed to find any PEM data in certificate input'],
    [{ tlsAuth: [{ cert: pem('client.pem'), key: pem('client-key.pem'), password: 'x' }] }, 'tlsAuth[0]: x509: no DEK-Info header in block'],
  ];
  for (const [options, line] of tries) {
    const { code, stderr } = await run(options, '');
    assert.equal(code, 104, stderr);
    assert.equal(stderr.trim().split('\n').length, 1, stderr);
    assert.ok(stderr.startsWith(`loadtest run: ${line}`), stderr);
  }
});

test('a certificate that is its own CA is trusted as given (k6/net/grpc cacerts, the trust store for https), and still checked', { skip }, async () => {
  const grpcSelf = await grpcServer(['--tls', '--self-signed']);
  try {
    const call = `try { client.connect('127.0.0.1:${grpcSelf.port}', { reflect: true, timeout: '5s', tls: { cacerts: [ca] } }); const r = client.invoke('loadtest.test.Echo/Say', { name: 'tls' }); console.log(JSON.stringify([r.status, r.message.message])); client.close(); } catch (e) { console.log(JSON.stringify(String(e.message))); }`;
    const good = await run({}, call, { init: `const ca = open(${JSON.stringify(SELF_SIGNED)});` });
    assert.deepEqual(good.logged, [[0, 'hello tls']], good.stderr);
    const other = await run({}, call, { init: `const ca = open(${JSON.stringify(TEST_CA)});` });
    assert.equal(other.logged.length, 1, other.stderr);
    assert.match(other.logged[0], /^connection error: desc = "transport: authentication handshake failed: tls: failed to verify certificate/);
  } finally {
    await grpcSelf.close();
  }
  const https = await run({}, `${show(url(servers.self))}\n${show(url(servers.self))}`, { ca: SELF_SIGNED });
  assert.deepEqual(
    https.logged.map((r) => [r.status, r.error]),
    [
      [200, ''],
      [200, ''],
    ],
    https.stderr,
  );
  const untrusted = await run({}, show(url(servers.self)), { ca: TEST_CA });
  assert.deepEqual([untrusted.logged[0].status, untrusted.logged[0].code], [0, 1310], untrusted.stderr);
});

test('res.ocsp without TLS is k6 empty one; JSON.stringify(res) has it after tls_cipher_suite', { skip }, async () => {
  const { logged, stderr } = await run({}, `const r = http.get('http://127.0.0.1:1/'); console.log(JSON.stringify([r.ocsp, Object.keys(JSON.parse(JSON.stringify(r))).join()]));`);
  assert.deepEqual(logged, [[NO_OCSP, 'remote_ip,remote_port,url,status,status_text,proto,headers,cookies,body,timings,tls_version,tls_cipher_suite,ocsp,error,error_code,request']], stderr);
});
