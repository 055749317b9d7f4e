// Certificates as real servers present them, made here at test time with openssl: each way a
// check fails (self-signed, a CN without subjectAltName, expired, the wrong name, an unknown CA)
// fails a verifying connection with CERT_ERROR and is skipped by --insecure, on every adapter this
// runtime has (node:tls everywhere, Bun.connect, Deno.connectTls through the CLI's restart);
// --ca and client certificates keep working. The server is node:tls on each runtime.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import tls from 'node:tls';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runtime, pickAdapter } from '../runtimes/index.js';
import { loadTest } from '../src/index.js';
import { spawnScript, withoutDenoDanger } from './servers.js';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const names = ['node', runtime.name === 'node' ? null : runtime.name].filter(Boolean);

let openssl = null;
try {
  execFileSync('openssl', ['version'], { stdio: 'ignore' });
  openssl = 'openssl';
} catch {
  // skipped below, with the reason
}
const skip = openssl ? false : 'needs the openssl command to make certificates';

let dir;
const file = (name) => join(dir, name);
const pem = (name) => readFileSync(file(name), 'utf8');

function run(...args) {
  execFileSync(openssl, args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

// An EC P-256 key (quick to make) and a certificate for `cn`: self-signed, or signed by `ca`
// for `days` (negative: it expired before it was made); `san` as openssl writes it, or none.
function certificate(name, { cn = '127.0.0.1', san = 'IP:127.0.0.1', ca = null, days = 30 } = {}) {
  const key = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${name}-key.pem`, '-subj', `/CN=${cn}`];
  if (ca === null) {
    run('req', '-x509', ...key, '-out', `${name}.pem`, '-days', String(days), ...(san ? ['-addext', `subjectAltName=${san}`] : []));
    return;
  }
  run('req', ...key, '-out', `${name}.csr`);
  // An extension makes it X.509 v3: rustls (Deno) refuses v1 certificates.
  writeFileSync(file(`${name}.ext`), `basicConstraints=CA:FALSE\n${san ? `subjectAltName=${san}\n` : ''}`);
  run('x509', '-req', '-in', `${name}.csr`, '-CA', `${ca}.pem`, '-CAkey', `${ca}-key.pem`, '-CAcreateserial', '-days', String(days), '-extfile', `${name}.ext`, '-out', `${name}.pem`);
}

before(() => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), 'loadtest-certs-'));
  certificate('ca', { cn: 'loadtest test CA', san: null });
  certificate('other-ca', { cn: 'a CA nobody was told of', san: null });
  certificate('good', { ca: 'ca' });
  certificate('client', { cn: 'loadtest client', san: null, ca: 'ca' });
  certificate('self-signed');
  certificate('cn-only', { san: null });
  certificate('expired', { ca: 'ca', days: -1 });
  certificate('wrong-name', { ca: 'ca', san: 'DNS:elsewhere.example' });
  certificate('unknown-ca', { ca: 'other-ca' });
});

after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// A TLS server that answers each request 200 and counts them. `clients`: ask for a client
// certificate signed by the test CA, and refuse connections without one.
async function tlsServer(name, { clients = false } = {}) {
  const state = { requests: 0, sockets: new Set() };
  const options = { cert: pem(`${name}.pem`), key: pem(`${name}-key.pem`) };
  if (clients) Object.assign(options, { requestCert: true, rejectUnauthorized: true, ca: pem('ca.pem') });
  const server = tls.createServer(options, (socket) => {
    state.sockets.add(socket);
    socket.on('close', () => state.sockets.delete(socket));
    socket.on('error', () => {});
    let buffered = '';
    socket.on('data', (d) => {
      buffered += d;
      let end;
      while ((end = buffered.indexOf('\r\n\r\n')) >= 0) {
        buffered = buffered.slice(end + 4);
        state.requests++;
        socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOK');
      }
    });
  });
  server.on('tlsClientError', () => {});
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `https://127.0.0.1:${server.address().port}/`;
  state.close = () =>
    new Promise((resolve) => {
      for (const s of state.sockets) s.destroy();
      server.close(() => resolve());
    });
  return state;
}

const DEFECTS = ['self-signed', 'cn-only', 'expired', 'wrong-name', 'unknown-ca'];

for (const name of names) {
  test(`${name}: each failed check (${DEFECTS.join(', ')}) fails a verifying run with CERT_ERROR and no request through; insecure runs it`, { skip }, async () => {
    for (const defect of DEFECTS) {
      const server = await tlsServer(defect);
      try {
        const base = { url: server.url, socket: name, maxRequests: 20, concurrency: 2, agentKeepAlive: true };
        // The test CA is trusted: expired and wrong-name fail for what they are, not their issuer.
        const strict = await loadTest({ ...base, maxRequests: 4, ca: pem('ca.pem') });
        assert.ok(strict.totalErrors > 0, defect);
        assert.equal(strict.totalErrors, strict.totalRequests, `${defect}: every request failed`);
        assert.equal(server.requests, 0, `${defect}: no request got through an unverified connection`);
        assert.deepEqual(Object.keys(strict.errorCodes), ['CERT_ERROR'], `${defect}: ${JSON.stringify(strict.errorCodes)}`);
        if (name === 'deno') {
          // This test process does not skip checks; the CLI restarts so (below).
          assert.throws(() => pickAdapter('deno', { servername: null, rejectUnauthorized: false }), /only in a process started with --unsafely-ignore-certificate-errors/);
          continue;
        }
        const loose = await loadTest({ ...base, insecure: true });
        assert.equal(loose.totalRequests, 20, defect);
        assert.equal(loose.totalErrors, 0, `${defect}: ${JSON.stringify(loose.errorCodes)}`);
        assert.equal(server.requests, 20, defect);
      } finally {
        await server.close();
      }
    }
  });

  test(`${name}: --ca trusts a CA-signed certificate, and a client certificate gets through a server that asks for one`, { skip }, async () => {
    const server = await tlsServer('good', { clients: true });
    try {
      const base = { url: server.url, socket: name, maxRequests: 20, concurrency: 2, agentKeepAlive: true, ca: pem('ca.pem') };
      const withCert = await loadTest({ ...base, cert: pem('client.pem'), key: pem('client-key.pem') });
      assert.equal(withCert.totalRequests, 20, JSON.stringify(withCert.errorCodes));
      assert.equal(withCert.totalErrors, 0);
      assert.equal(server.requests, 20);
      const without = await loadTest({ ...base, maxRequests: 4 });
      assert.equal(without.totalErrors, without.totalRequests, 'the server refused every connection without a certificate');
      assert.equal(server.requests, 20);
    } finally {
      await server.close();
    }
  });
}

// The CLI as a new user runs it, on this runtime's own TLS (or node:tls when the test suite runs
// with LOADTEST_SOCKET=node): on deno, --insecure restarts the process with
// --unsafely-ignore-certificate-errors so that Deno.connectTls can skip the check.
const stderrOf = (r) => withoutDenoDanger(r.stderr);
const ownTls = globalThis.process.env.LOADTEST_SOCKET === 'node' ? 'node:tls' : { node: 'node:tls', bun: 'Bun.connect tls', deno: 'Deno.connectTls' }[runtime.name];

test(`cli: --insecure runs against a CN-only and an expired certificate on ${ownTls}, nothing else on stderr; without it, one line`, { skip }, async () => {
  for (const defect of ['cn-only', 'expired']) {
    const server = await tlsServer(defect);
    try {
      const r = await spawnScript(CLI, [server.url, '-n', '40', '-c', '4', '-k', '--insecure']);
      const show = `${defect}: exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;
      assert.equal(r.code, 0, show);
      assert.equal(stderrOf(r), '', show);
      assert.match(r.stdout, /Completed requests: {2}40\n/, show);
      assert.match(r.stdout, /Total errors: {8}0\n/, show);
      assert.ok(r.stdout.includes(`(${ownTls})`), show);
      assert.equal(server.requests, 40);
      const strict = await spawnScript(CLI, [server.url, '-n', '40', '-c', '4', '-k', '--ca', file('ca.pem')]);
      assert.equal(strict.code, 1, strict.stderr);
      assert.equal(strict.stderr.trim().split('\n').length, 1, strict.stderr);
      assert.match(strict.stderr, /^loadtest: certificate check failed for 127\.0\.0\.1:\d+/);
      assert.equal(server.requests, 40);
    } finally {
      await server.close();
    }
  }
});

test('cli: --insecure --cores 2 runs every child on the same TLS as the parent', { skip }, async () => {
  const server = await tlsServer('self-signed');
  try {
    const r = await spawnScript(CLI, [server.url, '-n', '40', '-c', '4', '-k', '--insecure', '--cores', '2']);
    const show = `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;
    assert.equal(r.code, 0, show);
    assert.equal(stderrOf(r), '', show);
    assert.match(r.stdout, /Completed requests: {2}40\n/, show);
    assert.ok(r.stdout.includes(`(${ownTls})`), show);
    assert.equal(server.requests, 40);
  } finally {
    await server.close();
  }
});
