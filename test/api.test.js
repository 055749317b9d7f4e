// The API, as loadtest 8 documents it: loadTest(options[, callback]), the result object, the
// callbacks, and startServer().

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadTest, startServer } from '../src/index.js';
import { VERSION } from '../src/version.js';
import { Histogram } from '../src/run/histogram.js';
import { rawServer, ok, shownReport } from './servers.js';

test('loadTest resolves to a result with loadtest 8 keys, and show() prints the report', async () => {
  const server = await startServer({ port: 0, host: '127.0.0.1', quiet: true });
  try {
    const result = await loadTest({ url: `http://127.0.0.1:${server.port}/`, maxRequests: 100, concurrency: 5, agentKeepAlive: true });
    for (const key of ['totalRequests', 'totalErrors', 'totalTimeSeconds', 'effectiveRps', 'rps', 'meanLatencyMs', 'minLatencyMs', 'maxLatencyMs', 'errorCodes']) {
      assert.ok(key in result, key);
    }
    assert.deepEqual(Object.keys(result.percentiles), ['50', '75', '90', '95', '99', '99.9', '99.99']);
    assert.equal(result.totalRequests, 100);
    assert.equal(server.requests, 100);
    assert.ok(result.minLatencyMs <= result.percentiles[50] && result.percentiles[50] <= result.percentiles[99]);
    assert.ok(result.percentiles[99] <= result.maxLatencyMs);
    assert.ok(result.meanLatencyMs > 0 && result.effectiveRps > 0);
    assert.equal(result.rps, result.effectiveRps);
    const text = shownReport(result);
    assert.match(text, /Effective rps: +\d+/);
    assert.match(text, /Completed requests: +100/);
    assert.match(text, /99% +[\d.]+ ms/);
  } finally {
    await server.close();
  }
});

test('loadTest also calls a node-style callback', async () => {
  const server = await startServer({ port: 0, host: '127.0.0.1', quiet: true });
  try {
    const result = await new Promise((resolve, reject) =>
      loadTest({ url: `http://127.0.0.1:${server.port}/`, maxRequests: 10 }, (error, r) => (error ? reject(error) : resolve(r))));
    assert.equal(result.totalRequests, 10);
    const error = await new Promise((resolve) => loadTest({ url: 'nope' }, (e) => resolve(e)).catch(() => {}));
    assert.match(error.message, /invalid URL 'nope'/);
  } finally {
    await server.close();
  }
});

test('missing or bad url and bad numbers reject with a clear message', async () => {
  await assert.rejects(loadTest({}), /missing URL/);
  await assert.rejects(loadTest({ url: 'ftp://127.0.0.1/' }), /must start with http/);
  await assert.rejects(loadTest({ url: 'http://127.0.0.1:1/', concurrency: 0 }), /concurrency must be at least 1/);
  await assert.rejects(loadTest({ url: 'http://127.0.0.1:1/', maxRequests: 'x' }), /maxRequests must be a number/);
  await assert.rejects(loadTest({ url: 'http://127.0.0.1:1/', method: 'GE T' }), /invalid method/);
  await assert.rejects(loadTest({ url: 'http://127.0.0.1:1/', headers: { 'x-a': 'a\r\nb' } }), /invalid value for header/);
});

test('statusCallback is called once per request with status, body, headers and indexes', async () => {
  const server = await rawServer(({ socket }) => socket.write(ok('hello', 'X-Server: raw\r\n')));
  const calls = [];
  try {
    const result = await loadTest({
      url: server.url, maxRequests: 50, concurrency: 5, agentKeepAlive: true,
      statusCallback: (error, r) => calls.push({ error, r, body: r.body, headers: r.headers }),
    });
    assert.equal(result.totalRequests, 50);
    assert.equal(calls.length, 50);
    assert.deepEqual(calls.map((c) => c.r.requestIndex).sort((a, b) => a - b), [...Array(50).keys()]);
    for (const { error, r, body, headers } of calls) {
      assert.equal(error, null);
      assert.equal(r.statusCode, 200);
      assert.equal(body, 'hello');
      assert.equal(headers['x-server'], 'raw');
      assert.equal(r.method, 'GET');
      assert.equal(r.path, '/');
      assert.equal(typeof r.instanceIndex, 'number');
      assert.ok(r.requestElapsed >= 0);
    }
  } finally {
    await server.close();
  }
});

test('statusCallback receives an error for HTTP errors and for network failures', async () => {
  const server = await rawServer(({ socket }) => socket.write('HTTP/1.1 500 Oops\r\nContent-Length: 0\r\n\r\n'));
  const errors = [];
  try {
    await loadTest({ url: server.url, maxRequests: 3, concurrency: 1, agentKeepAlive: true, statusCallback: (e, r) => errors.push([e.message, r.statusCode]) });
  } finally {
    await server.close();
  }
  await loadTest({ url: server.url, maxRequests: 2, concurrency: 1, statusCallback: (e, r) => errors.push([e.message, r.statusCode]) });
  assert.deepEqual(errors, [
    ['Status code 500', 500], ['Status code 500', 500], ['Status code 500', 500],
    ['Request failed: ECONNREFUSED', null], ['Request failed: ECONNREFUSED', null],
  ]);
});

test('contentInspector can mark a 200 as an error with a custom code', async () => {
  const server = await rawServer(({ socket, server: s }) => socket.write(ok(s.requests % 2 ? '{"ok":true}' : '{"ok":false}')));
  try {
    const result = await loadTest({
      url: server.url, maxRequests: 10, concurrency: 1, agentKeepAlive: true,
      contentInspector: (r) => {
        if (!JSON.parse(r.body).ok) {
          r.customError = 'not ok';
          r.customErrorCode = 'E1';
        }
      },
    });
    assert.equal(result.totalRequests, 10);
    assert.equal(result.totalErrors, 5);
    assert.deepEqual(result.errorCodes, { '200:E1': 5 });
  } finally {
    await server.close();
  }
});

test('indexParam puts a unique index in each path and body; indexParamCallback chooses it', async () => {
  const server = await rawServer(({ socket }) => socket.write(ok()));
  try {
    await loadTest({ url: server.url + 'item/ID', indexParam: 'ID', method: 'POST', body: 'id=ID', maxRequests: 30, concurrency: 3, agentKeepAlive: true });
    assert.equal(new Set(server.paths).size, 30);
    assert.deepEqual(server.paths.map((p) => Number(p.split('/')[2])).sort((a, b) => a - b), [...Array(30).keys()]);
    assert.ok(server.bodies.every((b, i) => b === `id=${server.paths[i].split('/')[2]}`));
    await loadTest({ url: server.url + 'x/ID', indexParam: 'ID', indexParamCallback: () => 'fixed', maxRequests: 5, concurrency: 1 });
    assert.deepEqual(server.paths.slice(30), Array(5).fill('/x/fixed'));
  } finally {
    await server.close();
  }
});

test('requestGenerator(index) returns method, path, headers and body for each request', async () => {
  const seen = [];
  const server = await rawServer(({ socket }, req) => {
    seen.push(req);
    socket.write(ok());
  });
  try {
    const result = await loadTest({
      url: server.url, maxRequests: 8, concurrency: 2, agentKeepAlive: true,
      requestGenerator: (index) => ({ method: 'PUT', path: `/gen/${index}`, headers: { 'X-Index': index }, body: { index } }),
    });
    assert.equal(result.totalRequests, 8);
    assert.equal(seen.length, 8);
    for (const req of seen) {
      const index = Number(req.path.split('/')[2]);
      assert.equal(req.method, 'PUT');
      assert.equal(req.headers['x-index'], String(index));
      assert.deepEqual(JSON.parse(req.body), { index });
    }
  } finally {
    await server.close();
  }
});

test('a body function is called with each request index', async () => {
  const server = await rawServer(({ socket }) => socket.write(ok()));
  try {
    await loadTest({ url: server.url, method: 'POST', body: (i) => ({ i }), maxRequests: 6, concurrency: 2 });
    assert.deepEqual(server.bodies.map((b) => JSON.parse(b).i).sort(), [0, 1, 2, 3, 4, 5]);
  } finally {
    await server.close();
  }
});

test('startServer: error and percent return that status; delay delays; close() is a Promise', async () => {
  const server = await startServer({ port: 0, host: '127.0.0.1', quiet: true, error: 503, percent: 100, delay: 50 });
  try {
    const result = await loadTest({ url: `http://127.0.0.1:${server.port}/`, maxRequests: 6, concurrency: 3, agentKeepAlive: true });
    assert.deepEqual(result.errorCodes, { 503: 6 });
    assert.ok(result.minLatencyMs >= 45, `delay applied: ${result.minLatencyMs}`);
    assert.equal(server.requests, 6);
  } finally {
    const closed = server.close();
    assert.ok(closed instanceof Promise);
    await closed;
  }
});

test('the histogram is exact to 3 significant digits and merges without loss', () => {
  const values = [];
  let x = 12345;
  for (let i = 0; i < 20000; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    values.push(1 + (x % 5_000_000));
  }
  const all = new Histogram();
  const a = new Histogram();
  const b = new Histogram();
  values.forEach((v, i) => {
    all.record(v);
    (i % 3 ? a : b).record(v);
  });
  a.merge(b);
  const sorted = [...values].sort((p, q) => p - q);
  for (const p of [50, 90, 95, 99, 99.9]) {
    const exact = sorted[Math.ceil((p / 100) * sorted.length) - 1];
    assert.ok(Math.abs(all.percentile(p) - exact) <= exact / 1000, `p${p}: ${all.percentile(p)} vs ${exact}`);
    assert.equal(a.percentile(p), all.percentile(p));
  }
  assert.equal(all.max, sorted[sorted.length - 1]);
  assert.equal(all.min, sorted[0]);
  assert.equal(a.count, 20000);
  assert.equal(Histogram.fromJSON(JSON.parse(JSON.stringify(a))).percentile(99), all.percentile(99));
});

test('the version sent as user-agent is package.json version', () => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  assert.equal(VERSION, pkg.version);
});

test("indexParamLiteral (loadtest 8's name) replaces the string in path and body; with indexParam it is rejected", async () => {
  const seen = [];
  const server = await rawServer(({ socket }, req) => {
    seen.push(req);
    socket.write(ok());
  });
  try {
    const result = await loadTest({ url: server.url + 'u/ID', method: 'POST', body: 'id=ID', indexParamLiteral: 'ID', maxRequests: 4, concurrency: 1, agentKeepAlive: true });
    assert.equal(result.totalErrors, 0);
    assert.deepEqual(seen.map((r) => `${r.path} ${r.body}`), ['/u/0 id=0', '/u/1 id=1', '/u/2 id=2', '/u/3 id=3']);
    await assert.rejects(loadTest({ url: server.url, indexParam: 'A', indexParamLiteral: 'B', maxRequests: 1 }), /use indexParam or indexParamLiteral, not both/);
  } finally {
    await server.close();
  }
});

test('result.clients is the number of connection loops started: the concurrency, or fewer requests', async () => {
  const server = await rawServer(({ socket }) => socket.write(ok()));
  try {
    assert.equal((await loadTest({ url: server.url, maxRequests: 20, concurrency: 3, agentKeepAlive: true })).clients, 3);
    assert.equal((await loadTest({ url: server.url, maxRequests: 2, concurrency: 5 })).clients, 2);
  } finally {
    await server.close();
  }
});

test("loadtest 8's body options in the API: postBody, postFile (text), putFile, patchBody set method and body", async () => {
  const server = await rawServer(({ socket }) => socket.write(ok()));
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-body-'));
  try {
    const file = join(dir, 'body.txt');
    writeFileSync(file, 'from a file');
    const cases = [
      [{ postBody: 'hello' }, 'POST', 'hello'],
      [{ postFile: file }, 'POST', 'from a file'],
      [{ putFile: file }, 'PUT', 'from a file'],
      [{ patchBody: 'patched' }, 'PATCH', 'patched'],
    ];
    for (const [extra, method, body] of cases) {
      const before = server.requests;
      const r = await loadTest({ url: server.url, maxRequests: 2, concurrency: 1, ...extra });
      assert.equal(r.totalErrors, 0);
      assert.equal(server.requests - before, 2);
      assert.deepEqual(server.bodies.slice(-2), [body, body], method);
    }
    await assert.rejects(loadTest({ url: server.url, maxRequests: 1, postFile: join(dir, 'missing.txt') }), /cannot read body file '.*missing\.txt' \(ENOENT\)/);
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("startServer with a callback (loadtest 8's form): the server object at once, close(callback) frees the port", async () => {
  const first = await new Promise((resolve, reject) => {
    const s = startServer({ port: 0, host: '127.0.0.1', quiet: true, body: 'custom', shouldErrorCustom: (req) => req.body === 'bad' }, (err) => (err ? reject(err) : resolve(s)));
    assert.equal(typeof s.close, 'function', 'returned before listening');
  });
  const port = first.port;
  assert.ok(port > 0);
  const good = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: 'fine' });
  assert.equal(await good.text(), 'custom');
  const bad = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: 'bad' });
  assert.equal(bad.status, 500);
  await bad.text();
  // the same port again while it is taken: the error reaches the callback
  const inUse = await new Promise((resolve) => startServer({ port, host: '127.0.0.1', quiet: true }, resolve));
  assert.equal(inUse && inUse.code, 'EADDRINUSE');
  await new Promise((resolve, reject) => first.close((err) => (err ? reject(err) : resolve())));
  const again = await startServer({ port, host: '127.0.0.1', quiet: true });
  assert.equal(again.port, port);
  await again.close();
});
