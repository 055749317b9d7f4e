// The test server on each runtime's own server (node:http, Bun.serve, Deno.serve) and on
// node:http forced with impl 'node': the same answers byte for byte where it matters (status,
// body, content-type, content-length, keep-alive), size, delay, error percent, counts, and
// several processes on one port (cores).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { loadTest, startServer } from '../src/index.js';
import { spawnScript } from './servers.js';

const TESTSERVER = fileURLToPath(new URL('../src/commands/testserver.js', import.meta.url));
const LOCAL = { port: 0, host: '127.0.0.1', quiet: true };
const T = { timeout: 20000 };
const RUNTIME = globalThis.Bun ? 'bun' : globalThis.Deno ? 'deno' : 'node';
const NATIVE = { node: 'node:http', bun: 'Bun.serve', deno: 'Deno.serve' }[RUNTIME];
// On node both are node:http; on bun and deno, the native server and the compat layer.
const IMPLS = RUNTIME === 'node' ? ['native'] : ['native', 'node'];

/** Writes `text` on one connection and resolves to the responses read until the server closes it. */
function exchange(port, text) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
    const chunks = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no close after 5 s; read: ${Buffer.concat(chunks).toString('latin1')}`));
    }, 5000);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(parseResponses(Buffer.concat(chunks).toString('latin1')));
    });
  });
}

function parseResponses(text) {
  const responses = [];
  while (text.length > 0) {
    const end = text.indexOf('\r\n\r\n');
    assert.ok(end > 0, `a response head in: ${JSON.stringify(text)}`);
    const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
    const headers = {};
    for (const line of lines) headers[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
    const length = Number(headers['content-length']);
    responses.push({ statusLine, headers, body: text.slice(end + 4, end + 4 + length) });
    text = text.slice(end + 4 + length);
  }
  return responses;
}

const PIPELINE =
  'GET / HTTP/1.1\r\nHost: x\r\n\r\n' +
  'POST /post HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello' +
  'GET /last HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n';

for (const impl of IMPLS) {
  const expected = impl === 'node' ? 'node:http' : NATIVE;

  test(`${expected} (impl ${impl}): three requests on one kept-alive connection get 200, OK, text/plain, a length, and are counted`, T, async () => {
    const server = await startServer({ ...LOCAL, impl });
    try {
      assert.equal(server.impl, expected);
      const responses = await exchange(server.port, PIPELINE);
      assert.equal(responses.length, 3, 'the connection stayed open for all three');
      for (const r of responses) {
        assert.equal(r.statusLine, 'HTTP/1.1 200 OK');
        assert.equal(r.headers['content-type'], 'text/plain');
        assert.equal(r.headers['content-length'], '2');
        assert.equal(r.headers['transfer-encoding'], undefined);
        assert.equal(r.body, 'OK');
      }
      assert.equal(server.requests, 3);
      assert.equal(server.errors, 0);
    } finally {
      await server.close();
    }
  });

  test(`${expected}: error 503 for every request answers 503 ERROR; size answers that many bytes`, T, async () => {
    const failing = await startServer({ ...LOCAL, impl, error: 503 });
    const sized = await startServer({ ...LOCAL, impl, size: 100000 });
    const empty = await startServer({ ...LOCAL, impl, size: 0 });
    try {
      const [a, b] = await exchange(failing.port, 'GET / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      for (const r of [a, b]) {
        assert.equal(r.statusLine, 'HTTP/1.1 503 Service Unavailable');
        assert.equal(r.body, 'ERROR');
      }
      assert.equal(failing.errors, 2);
      const [big] = await exchange(sized.port, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      assert.equal(big.headers['content-length'], '100000');
      assert.equal(big.body, 'x'.repeat(100000));
      const [none] = await exchange(empty.port, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      assert.equal(none.statusLine, 'HTTP/1.1 200 OK');
      assert.equal(none.headers['content-length'], '0');
    } finally {
      await failing.close();
      await sized.close();
      await empty.close();
    }
  });

  test(`${expected}: percent 50 fails about half of 400 requests, as counted by both sides; delay delays`, T, async () => {
    const half = await startServer({ ...LOCAL, impl, error: 502, percent: 50 });
    const slow = await startServer({ ...LOCAL, impl, delay: 60 });
    try {
      const r = await loadTest({ url: `http://127.0.0.1:${half.port}/`, maxRequests: 400, concurrency: 8, agentKeepAlive: true });
      const failed = r.errorCodes[502] || 0;
      // Binomial(400, 0.5): 120..280 is more than 8 standard deviations either side.
      assert.ok(failed > 120 && failed < 280, `502s: ${failed}`);
      assert.equal(half.errors, failed);
      assert.equal(half.requests, 400);
      const s = await loadTest({ url: `http://127.0.0.1:${slow.port}/`, maxRequests: 4, concurrency: 2, agentKeepAlive: true });
      assert.equal(s.totalErrors, 0);
      assert.ok(s.minLatencyMs >= 55, `delayed: ${s.minLatencyMs} ms`);
    } finally {
      await half.close();
      await slow.close();
    }
  });

  test(`${expected}: logger and shouldErrorCustom get loadtest 8's request shape (method, url, lower-case headers, body)`, T, async () => {
    const seen = [];
    const server = await startServer({
      ...LOCAL,
      impl,
      shouldErrorCustom: (request) => request.body === 'fail',
      logger: (request, response) => seen.push({ method: request.method, url: request.url, header: request.headers['x-mark'], body: request.body, status: response.statusCode }),
    });
    try {
      const url = `http://127.0.0.1:${server.port}/path?q=1`;
      const ok = await fetch(url, { method: 'POST', body: 'fine', headers: { 'X-Mark': 'one' } });
      await ok.text();
      const bad = await fetch(url, { method: 'PUT', body: 'fail' });
      assert.equal(bad.status, 500);
      await bad.text();
      assert.deepEqual(seen, [
        { method: 'POST', url: '/path?q=1', header: 'one', body: 'fine', status: 200 },
        { method: 'PUT', url: '/path?q=1', header: undefined, body: 'fail', status: 500 },
      ]);
      assert.equal(server.errors, 1);
    } finally {
      await server.close();
    }
  });
}

for (const impl of IMPLS) {
  test(`${impl === 'node' ? 'node:http' : NATIVE} echoes and counts WebSocket messages; plain requests still answered`, T, async () => {
    const server = await startServer({ ...LOCAL, impl });
    try {
      const result = await loadTest({ url: `ws://127.0.0.1:${server.port}/`, body: 'hello ws', maxRequests: 60, concurrency: 3, quiet: true, statusCallback: (error, r) => {
        if (!error) assert.equal(r.body, 'hello ws');
      } });
      assert.equal(result.totalRequests, 60);
      assert.equal(result.totalErrors, 0, JSON.stringify(result.errorCodes));
      assert.equal(server.messages, 60);
      assert.equal(server.requests, 0); // upgrades are not requests
      const [plain] = await exchange(server.port, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      assert.equal(plain.body, 'OK');
    } finally {
      await server.close();
    }
  });
}

test('bad size, impl and cores are refused with one message; size beside body or file is a conflict', T, async () => {
  await assert.rejects(startServer({ ...LOCAL, size: -1 }), /size must be a whole number of bytes from 0 to \d+, got '-1'/);
  await assert.rejects(startServer({ ...LOCAL, size: 1.5 }), /size must be a whole number/);
  await assert.rejects(startServer({ ...LOCAL, size: 1e12 }), /size must be a whole number/);
  await assert.rejects(startServer({ ...LOCAL, size: 10, body: 'hi' }), /size and body both set the response body; give one/);
  await assert.rejects(startServer({ ...LOCAL, size: 10, file: 'x.txt' }), /size and file both set the response body/);
  await assert.rejects(startServer({ ...LOCAL, impl: 'uws' }), /impl must be 'native' or 'node', got 'uws'/);
  await assert.rejects(startServer({ ...LOCAL, cores: 0 }), /cores must be a whole number from 1, got '0'/);
  await assert.rejects(startServer({ ...LOCAL, cores: 2, logger: () => {} }), /logger and shouldErrorCustom need cores: 1/);
});

const gone = (pid) => {
  try {
    globalThis.process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
};

// The kernel (SO_REUSEPORT) or the accept race (node's shared socket) decides which process takes
// a connection: with 20 connections each of 2 processes gets some, and so some requests.
test(`cores: 2 runs two ${NATIVE} processes on one port; both serve, requests adds them up, close stops both`, T, async () => {
  const server = await startServer({ ...LOCAL, cores: 2 });
  const pids = server.processes.map((p) => p.pid);
  try {
    assert.equal(server.impl, NATIVE);
    assert.equal(pids.length, 2);
    const r = await loadTest({ url: `http://127.0.0.1:${server.port}/`, maxRequests: 2000, concurrency: 20, agentKeepAlive: false });
    assert.equal(r.totalErrors, 0);
    // Counts come 4 times a second; wait (bounded) for the last.
    for (let i = 0; i < 40 && server.requests < 2000; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(server.requests, 2000);
    for (const p of server.processes) assert.ok(p.requests > 0, `each process served some: ${server.processes.map((q) => q.requests)}`);
  } finally {
    await server.close();
  }
  assert.ok(pids.every(gone), `no process left: ${pids.filter((pid) => !gone(pid))}`);
});

test('testserver-loadtest --cores 2: SIGTERM stops both processes and prints the total and each share', T, async () => {
  let pids = [];
  let load = null;
  const r = await spawnScript(TESTSERVER, ['--cores', '2', '--size', '10', '--host', '127.0.0.1', '0'], {
    timeoutMs: 15000,
    onStdout(stdout, child) {
      const m = /Listening on http:\/\/127\.0\.0\.1:(\d+)\/ \((\S+), 2 processes: (\d+) (\d+)\)/.exec(stdout);
      if (!m || load) return;
      pids = [Number(m[3]), Number(m[4])];
      load = loadTest({ url: `http://127.0.0.1:${m[1]}/`, maxRequests: 1000, concurrency: 20 }).finally(() => globalThis.process.kill(child.pid, 'SIGTERM'));
    },
  });
  assert.ok(load, `listening line: ${r.stdout} ${r.stderr}`);
  const result = await load;
  assert.equal(result.totalErrors, 0);
  assert.equal(result.bytesReceived > 10 * 1000, true);
  assert.equal(r.code, 0, r.stderr);
  const m = /Served 1000 requests \(0 errors\) on 2 processes: (\d+) \+ (\d+)\./.exec(r.stdout);
  assert.ok(m, r.stdout);
  assert.ok(Number(m[1]) > 0 && Number(m[2]) > 0, r.stdout);
  assert.ok(pids.every(gone), `no process left: ${pids.filter((pid) => !gone(pid))}`);
});

test('testserver-loadtest: bad --impl, --size and --cores are one line on stderr and exit 2', T, async () => {
  const cases = [
    [['--impl', 'fast', '0'], /--impl must be native or node, got 'fast'/],
    [['--size', 'lots', '0'], /--size must be a number, got 'lots'/],
    [['--size', '99999999999', '0'], /size must be a whole number of bytes from 0 to \d+/],
    [['--cores', '0', '0'], /--cores must be at least 1, got '0'/],
  ];
  if (RUNTIME === 'bun') cases.push([['--impl', 'node', '--cores', '2', '0'], /node:http on bun cannot share a port between processes/]);
  for (const [args, pattern] of cases) {
    const r = await spawnScript(TESTSERVER, args, { timeoutMs: 10000 });
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.ok(r.stderr.startsWith('testserver-loadtest: '), r.stderr);
    assert.match(r.stderr, pattern);
    assert.equal(r.stdout, '');
  }
});
