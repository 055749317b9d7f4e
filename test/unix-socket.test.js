// --unix-socket / socketPath: every adapter of this runtime reaches a server on a Unix domain
// socket, with the URL giving the Host header and the path; https over it; and the errors.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import https from 'node:https';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runtime } from '../runtimes/index.js';
import { loadTest } from '../src/index.js';
import { spawnScript } from './servers.js';

const pem = (name) => readFileSync(new URL(`./tls/${name}.pem`, import.meta.url), 'utf8');
const names = ['node', runtime.name === 'node' ? null : runtime.name].filter(Boolean);
let serial = 0;
const socketFile = () => join(tmpdir(), `loadtest-${process.pid}-${serial++}.sock`);

// A server on a fresh socket file that records what it was asked.
async function unixServer(tlsOptions = null) {
  const path = socketFile();
  const seen = { requests: 0, hosts: new Set(), urls: new Set() };
  const handle = (req, res) => {
    seen.requests++;
    seen.hosts.add(req.headers.host);
    seen.urls.add(req.url);
    req.resume();
    req.on('end', () => res.end('OK'));
  };
  const server = tlsOptions ? https.createServer(tlsOptions, handle) : http.createServer(handle);
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, resolve);
  });
  const close = () => new Promise((resolve) => {
    server.close(() => resolve());
    if (server.closeAllConnections) server.closeAllConnections();
  });
  return { path, seen, close };
}

for (const name of names) {
  for (const keepAlive of [true, false]) {
    test(`${name}: every request reaches a Unix-socket server (keep-alive ${keepAlive})`, async () => {
      const server = await unixServer();
      try {
        const result = await loadTest({
          url: 'http://app.local/items?page=2',
          socketPath: server.path,
          socket: name,
          maxRequests: 120,
          concurrency: 4,
          agentKeepAlive: keepAlive,
          quiet: true,
        });
        assert.equal(result.totalRequests, 120);
        assert.equal(result.totalErrors, 0);
        assert.equal(server.seen.requests, 120);
        assert.deepEqual([...server.seen.hosts], ['app.local']);
        assert.deepEqual([...server.seen.urls], ['/items?page=2']);
        assert.match(result.socket, /\(unix\)$/);
      } finally {
        await server.close();
      }
    });
  }

  test(`${name}: https over a Unix socket`, async () => {
    const server = await unixServer({ key: pem('server-key'), cert: pem('server') });
    try {
      const options = { url: 'https://localhost/', socketPath: server.path, socket: name, ca: pem('ca'), maxRequests: 40, concurrency: 2, agentKeepAlive: true, quiet: true };
      if (name === 'deno') {
        // Deno's own TLS has no Unix transport: asked for by name, it says so.
        await assert.rejects(loadTest(options), /cannot run over a Unix socket; use --socket node/);
        return;
      }
      const result = await loadTest(options);
      assert.equal(result.totalRequests, 40);
      assert.equal(result.totalErrors, 0);
      assert.equal(server.seen.requests, 40);
    } finally {
      await server.close();
    }
  });
}

test('https over a Unix socket works with the default adapter (node:tls on deno)', async () => {
  const server = await unixServer({ key: pem('server-key'), cert: pem('server') });
  try {
    const result = await loadTest({ url: 'https://localhost/', socketPath: server.path, ca: pem('ca'), maxRequests: 20, concurrency: 2, quiet: true });
    assert.equal(result.totalRequests, 20);
    assert.equal(server.seen.requests, 20);
    const bunOwn = runtime.name === 'bun' && !process.env.LOADTEST_SOCKET;
    assert.equal(result.socket, bunOwn ? 'Bun.connect tls (unix)' : 'node:tls (unix)');
  } finally {
    await server.close();
  }
});

test('--unix-socket on the command line, and on two cores', async () => {
  const server = await unixServer();
  try {
    const { code, stdout, stderr } = await spawnScript('src/cli.js', ['--unix-socket', server.path, '-n', '300', '-c', '4', '-k', '--cores', '2', '--quiet', 'http://localhost/'], { timeoutMs: 20000 });
    assert.equal(code, 0, stderr);
    assert.match(stdout, /Completed requests:\s+300\b/);
    assert.equal(server.seen.requests, 300);
  } finally {
    await server.close();
  }
});

test('--unix-socket to a missing file: one line and exit 1', async () => {
  const path = socketFile();
  const { code, stdout, stderr } = await spawnScript('src/cli.js', ['--unix-socket', path, '-n', '5', 'http://localhost/'], { timeoutMs: 20000 });
  assert.equal(code, 1);
  assert.equal(stderr.trim(), `loadtest: no such socket: unix:${path}`);
  assert.equal(stdout, '');
});

test('socketPath must be a path', async () => {
  await assert.rejects(loadTest({ url: 'http://localhost/', socketPath: 42, maxRequests: 1 }), /socketPath must be the path of a Unix domain socket/);
});
