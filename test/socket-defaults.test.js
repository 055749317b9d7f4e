// The default socket adapter of a run that names none: the runtime's own, but on Deno node:net
// for many kept-alive HTTP/1.1 connections (runtimes/index.js), for a load run and a scripted
// run alike.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runtime, pickAdapter } from '../runtimes/index.js';
import { prepare } from '../src/index.js';
import { loadScript } from '../runtimes/scripts/load.js';
import { facilitiesOf } from '../runtimes/scripts/host.js';
import { transformModule } from '../src/script/transform/transform.js';
import { runScript } from '../src/script/runner.js';
import { rawServer, ok } from './servers.js';
import { startHttpbin } from './httpbin.js';

// LOADTEST_SOCKET (the CI's second pass on node:net) decides every default itself.
const chosen = globalThis.process.env.LOADTEST_SOCKET ? 'LOADTEST_SOCKET names the adapter' : false;
const own = () => pickAdapter().name;
const many = runtime.name === 'deno' ? 'node:net' : null; // what 200 kept connections get, if not their own

test('on Deno from 200 kept-alive connections the default is node:net; elsewhere, fewer, or one a request: the runtime\'s own', { skip: chosen }, () => {
  const name = (connections, keepAlive, tls = null) => pickAdapter(null, tls, null, null, { connections, keepAlive }).name;
  assert.equal(name(199, true), own());
  assert.equal(name(200, true), many ?? own());
  assert.equal(name(10000, true), many ?? own());
  assert.equal(name(10000, false), own());
  // Measured for plain TCP only: TLS keeps its adapter's own TLS.
  assert.equal(name(10000, true, { rejectUnauthorized: false }), pickAdapter(null, { rejectUnauthorized: false }).name);
  // Named, an adapter is what it names.
  if (runtime.name === 'deno') assert.equal(pickAdapter('deno', null, null, null, { connections: 10000, keepAlive: true }).name, 'Deno.connect');
});

test("a load run's connections and keep-alive choose its default adapter", { skip: chosen }, async () => {
  const adapterOf = async (options) => (await prepare({ url: 'http://127.0.0.1:9/', maxRequests: 1, ...options })).adapter.name;
  assert.equal(await adapterOf({ concurrency: 300, keepAlive: true }), many ?? own());
  assert.equal(await adapterOf({ concurrency: 10, keepAlive: true }), own());
  assert.equal(await adapterOf({ concurrency: 300 }), own());
  // The open model's connections are those it may open.
  assert.equal(await adapterOf({ concurrency: 1, requestsPerSecond: 1000, maxConnections: 300, keepAlive: true }), many ?? own());
  // HTTP/2 and WebSocket keep their connections too, but were not measured: their own adapter.
  assert.equal(await adapterOf({ concurrency: 300, http2: true }), own());
});

// In this process, with the facilities the CLI gives a scripted run, recording what it asks for.
async function scriptAsks(source, server) {
  const dir = mkdtempSync(join(tmpdir(), 'socket-defaults-'));
  const file = join(dir, 'script.js');
  writeFileSync(file, source);
  const loaded = await loadScript(file, transformModule);
  const asked = [];
  const base = facilitiesOf(file);
  const facilities = {
    ...base,
    adapterFor: (origin) => {
      const adapter = base.adapterFor(origin);
      asked.push({ load: origin.load, name: adapter.name, alpn: origin.alpn ?? null });
      return adapter;
    },
  };
  try {
    const result = await runScript(loaded.factory, { flags: { quiet: true, env: { URL: server.url } }, facilities, hooks: {} });
    assert.ok(result.data.metrics.http_reqs.values.count >= 1);
  } finally {
    loaded.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
  return asked;
}

test("a scripted run's VUs, and whether they keep their connections, choose its default adapter", { skip: chosen }, async () => {
  const server = await rawServer(({ socket }) => socket.write(ok()));
  try {
    const script = (options) => `import http from 'k6/http';\nexport const options = { vus: 3, iterations: 3, ${options} };\nexport default function () { http.get(__ENV.URL); }\n`;
    const kept = await scriptAsks(script(''), server);
    assert.ok(kept.length > 0);
    for (const a of kept) {
      assert.deepEqual(a.load, { connections: 3, keepAlive: true });
      assert.equal(a.name, own());
    }
    // An arrival-rate scenario may grow to its maxVUs: those are its connections.
    const arrivals = await scriptAsks(
      `import http from 'k6/http';\nexport const options = { scenarios: { a: { executor: 'constant-arrival-rate', rate: 2, timeUnit: '1s', duration: '1s', preAllocatedVUs: 1, maxVUs: 250 } } };\nexport default function () { http.get(__ENV.URL); }\n`,
      server,
    );
    for (const a of arrivals) {
      assert.deepEqual(a.load, { connections: 250, keepAlive: true });
      assert.equal(a.name, many ?? own());
    }
    const once = await scriptAsks(script('noConnectionReuse: true'), server);
    for (const a of once) assert.deepEqual(a.load, { connections: 3, keepAlive: false });
  } finally {
    await server.close();
  }
});

test("a scripted run's WebSocket keeps its runtime's own adapter, as a load run's: only HTTP/1.1 is told the VUs", { skip: chosen }, async () => {
  const server = await startHttpbin(); // a WebSocket echo on any path
  try {
    const asked = await scriptAsks(
      `import http from 'k6/http';\nimport ws from 'k6/ws';\nexport const options = { scenarios: { a: { executor: 'constant-arrival-rate', rate: 2, timeUnit: '1s', duration: '1s', preAllocatedVUs: 1, maxVUs: 250 } } };\nexport default function () { http.get(__ENV.URL); ws.connect(__ENV.URL.replace('http', 'ws'), null, (s) => s.on('open', () => s.close())); }\n`,
      server,
    );
    const kept = asked.filter((a) => a.load !== null);
    const own = asked.filter((a) => a.load === null);
    assert.ok(kept.length >= 1 && own.length >= 1, JSON.stringify(asked));
    for (const a of kept) assert.deepEqual(a.load, { connections: 250, keepAlive: true });
    for (const a of own) assert.equal(a.name, pickAdapter().name);
  } finally {
    await server.stop();
  }
});
