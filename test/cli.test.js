// The command line: src/cli.js and src/commands/testserver.js, each spawned on the current runtime
// (node, bun or deno) against raw servers that count what they read. A run that works prints
// the report and exits 0; every problem is one line on stderr, a non-zero exit, no stack trace.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { rawServer, ok, spawnScript, withoutDenoDanger } from './servers.js';
import { ONE_RUNTIME } from './scope.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const TESTSERVER = fileURLToPath(new URL('../src/commands/testserver.js', import.meta.url));

const runCli = (args) => spawnScript(CLI, args);

const show = (r) => `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;

/** The run worked: exit 0, nothing on stderr, n requests completed without errors. */
function assertSuccess(r, n) {
  assert.equal(r.code, 0, show(r));
  assert.equal(r.stderr, '', show(r));
  assert.ok(r.stdout.includes(`Completed requests:  ${n}\n`), show(r));
  assert.ok(r.stdout.includes('Total errors:        0\n'), show(r));
}

/** A bad command: non-zero exit, one line on stderr starting 'loadtest: ', no stack trace. */
function assertOneLineError(r, pattern, { prefix = 'loadtest: ', code } = {}) {
  assert.notEqual(r.code, 0, show(r));
  if (code !== undefined) assert.equal(r.code, code, show(r));
  assert.equal(r.stderr.trim().split('\n').length, 1, show(r));
  assert.ok(r.stderr.startsWith(prefix), show(r));
  assert.ok(!r.stderr.includes('    at '), show(r));
  assert.match(r.stderr, pattern);
}

function tempDir() {
  return mkdtempSync(join(tmpdir(), 'loadtest-cli-'));
}

test('cli: -n 200 -c 4 -k sends exactly 200 requests and prints the report', async () => {
  const server = await rawServer(({ socket }) => socket.write(ok()));
  try {
    const r = await runCli(['-n', '200', '-c', '4', '-k', server.url]);
    assertSuccess(r, 200);
    assert.match(r.stdout, /Effective rps:\s+\d+/);
    assert.ok(r.stdout.includes(`Target URL:          ${server.url}`), show(r));
    assert.equal(server.requests, 200);
    assert.ok(server.connections <= 4, `at most 4 connections, got ${server.connections}`);
  } finally {
    await server.close();
  }
});

test('cli: without -k every request has its own connection', async () => {
  let closeHeaders = 0;
  const server = await rawServer(({ socket }, req) => {
    if (req.headers.connection === 'close') closeHeaders++;
    socket.end(ok());
  });
  try {
    const r = await runCli(['-n', '30', '-c', '3', server.url]);
    assertSuccess(r, 30);
    assert.equal(server.requests, 30);
    assert.equal(server.connections, 30);
    assert.equal(closeHeaders, 30);
  } finally {
    await server.close();
  }
});

test('cli: -H, -C, -P and -T reach the server', async () => {
  const seen = [];
  const server = await rawServer(({ socket }, req) => {
    seen.push(req);
    socket.write(ok());
  });
  try {
    const r = await runCli(['-H', 'x-a:1', '-H', 'x-b:2', '-C', 'a=1', '-C', 'b=2', '-P', 'body', '-T', 'text/foo', '-n', '5', '-c', '1', '-k', server.url]);
    assertSuccess(r, 5);
    assert.equal(seen.length, 5);
    for (const req of seen) {
      assert.equal(req.method, 'POST');
      assert.equal(req.path, '/');
      assert.equal(req.headers['x-a'], '1');
      assert.equal(req.headers['x-b'], '2');
      assert.equal(req.headers.cookie, 'a=1; b=2');
      assert.equal(req.headers['content-type'], 'text/foo');
      assert.equal(req.headers['content-length'], '4');
      assert.equal(req.body, 'body');
    }
  } finally {
    await server.close();
  }
});

test('cli: --index makes every path unique', async () => {
  const server = await rawServer(({ socket }) => socket.write(ok()));
  try {
    const r = await runCli(['--index', 'XX', '-n', '20', '-c', '2', '-k', `${server.url}item/XX`]);
    assertSuccess(r, 20);
    assert.equal(server.paths.length, 20);
    for (const path of server.paths) assert.match(path, /^\/item\/\d+$/);
    assert.equal(new Set(server.paths).size, 20, `unique paths: ${server.paths.join(' ')}`);
  } finally {
    await server.close();
  }
});

test('cli: -m HEAD sends HEAD and reads body-less responses with a content-length', async () => {
  const methods = [];
  const server = await rawServer(({ socket }, req) => {
    methods.push(req.method);
    // A HEAD response announces the length of the body it does not send.
    socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n');
  });
  try {
    const r = await runCli(['-m', 'HEAD', '-n', '10', '-c', '2', '-k', server.url]);
    assertSuccess(r, 10);
    assert.deepEqual(methods, Array(10).fill('HEAD'));
    assert.ok(server.connections <= 2, `kept-alive connections reused, got ${server.connections}`);
  } finally {
    await server.close();
  }
});

test('cli: -p posts the content of a file', async () => {
  const dir = tempDir();
  const seen = [];
  const server = await rawServer(({ socket }, req) => {
    seen.push(req);
    socket.write(ok());
  });
  try {
    const file = join(dir, 'body.txt');
    const content = 'line one\nline two: é\n';
    writeFileSync(file, content);
    const r = await runCli(['-p', file, '-n', '4', '-c', '2', '-k', server.url]);
    assertSuccess(r, 4);
    assert.equal(seen.length, 4);
    for (const req of seen) {
      assert.equal(req.method, 'POST');
      assert.equal(req.body, content);
      assert.equal(req.headers['content-length'], String(new TextEncoder().encode(content).length));
    }
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('cli: -p with a .js module posts the JSON of what its default export returns', async () => {
  const dir = tempDir();
  const server = await rawServer(({ socket }) => socket.write(ok()));
  try {
    // Node before 20.19 reads a .js file outside a "type": "module" package as CommonJS.
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
    const file = join(dir, 'body.js');
    writeFileSync(file, 'export default (i) => ({ n: i });\n');
    const r = await runCli(['-p', file, '-n', '10', '-c', '2', '-k', server.url]);
    assertSuccess(r, 10);
    assert.equal(server.bodies.length, 10);
    const ns = server.bodies.map((body) => JSON.parse(body).n).sort((a, b) => a - b);
    for (const n of ns) assert.ok(Number.isInteger(n), `n is an index: ${server.bodies.join(' ')}`);
    assert.equal(new Set(ns).size, 10, `one body per index: ${server.bodies.join(' ')}`);
    assert.deepEqual(Object.keys(JSON.parse(server.bodies[0])), ['n']);
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('cli: -R uses the default export of a request generator module', async () => {
  const dir = tempDir();
  const methods = [];
  const server = await rawServer(({ socket }, req) => {
    methods.push(req.method);
    socket.write(ok());
  });
  try {
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
    const file = join(dir, 'generator.js');
    writeFileSync(file, "export default (index) => ({ method: 'PUT', path: '/g/' + index });\n");
    const r = await runCli(['-R', file, '-n', '12', '-c', '3', '-k', server.url]);
    assertSuccess(r, 12);
    assert.deepEqual(methods, Array(12).fill('PUT'));
    for (const path of server.paths) assert.match(path, /^\/g\/\d+$/);
    assert.equal(new Set(server.paths).size, 12, `unique paths: ${server.paths.join(' ')}`);
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

// Bad usage: nothing is sent, so no server is needed; the port is never reached.
const BAD_USAGE = [
  [[], /missing URL/],
  [['foo'], /invalid URL 'foo'/],
  [['ftp://x/'], /'ftp:\/\/x\/'.*http:\/\//],
  [['--bogus', 'http://127.0.0.1:9/'], /unknown option '--bogus'/],
  [['-n', 'abc', 'http://127.0.0.1:9/'], /maxRequests must be a number, got 'abc'/],
  [['-n', '-5', 'http://127.0.0.1:9/'], /maxRequests must be zero or more, got '-5'/],
  [['-c', '0', 'http://127.0.0.1:9/'], /concurrency must be at least 1, got '0'/],
  [['-t', 'x', 'http://127.0.0.1:9/'], /maxSeconds must be a number, got 'x'/],
  [['-n', '1.5', 'http://127.0.0.1:9/'], /maxRequests must be a whole number, got '1.5'/],
  [['--rps', '-1', 'http://127.0.0.1:9/'], /--rps must be zero or more, got '-1'/],
  // A long-only option is named as such (it was once '-/--cores').
  [['--cores', 'x', 'http://127.0.0.1:9/'], /^loadtest: --cores must be a number, got 'x'$/m],
  [['-p', '/nonexistent/file', 'http://127.0.0.1:9/'], /cannot read body file '\/nonexistent\/file'/],
  [['http://nonexistent.invalid/'], /resolve.*nonexistent\.invalid/],
];

// The numbers' and flags' checks are the core's, the same on every runtime: bun and deno run
// those that touch the runtime (its URL parser, files, name lookups) and the way out (one line
// on stderr, exit 2), node all of them.
const RUNTIME_SPECIFIC = /missing URL|invalid URL|cannot read|resolve/;
const badUsage = ONE_RUNTIME ? BAD_USAGE.filter(([, pattern]) => RUNTIME_SPECIFIC.test(pattern.source)) : BAD_USAGE;

test('cli: each bad command line is one line on stderr naming the problem, exit 2', async () => {
  const results = await Promise.all(badUsage.map(([args]) => runCli(args)));
  results.forEach((r, i) => {
    const [args, pattern] = badUsage[i];
    assert.equal(r.stdout, '', `loadtest ${args.join(' ')}: ${show(r)}`);
    assertOneLineError(r, pattern, { code: 2 });
  });
});

test('cli: connection refused ends the run with exit 1 and says so', async () => {
  const server = await rawServer(({ socket }) => socket.write(ok()));
  const { url, port } = server;
  await server.close();
  const r = await runCli(['-n', '50', url]);
  assertOneLineError(r, /refused/, { code: 1 });
  assert.ok(r.stderr.includes(`127.0.0.1:${port}`), show(r));
});

test('cli: a server answering garbage ends the run with exit 1 and a malformed-response message', async () => {
  const server = await rawServer(({ socket }) => socket.write('HTTX/1.1 200 OK\r\n\r\n'));
  try {
    const r = await runCli(['-n', '20', '-c', '2', '-k', server.url]);
    assertOneLineError(r, /malformed/, { code: 1 });
    assert.ok(r.stderr.includes(`127.0.0.1:${server.port}`), show(r));
    assert.ok(server.requests >= 1, 'the server got a request');
  } finally {
    await server.close();
  }
});

test('testserver-loadtest: listens on the port given, answers OK, stops on SIGINT', async () => {
  let port = null;
  let answer = null;
  const r = await spawnScript(TESTSERVER, ['0'], {
    onStdout(stdout, child) {
      const m = /Listening on http:\/\/localhost:(\d+)\//.exec(stdout);
      if (!m || port !== null) return;
      port = Number(m[1]);
      answer = (async () => {
        try {
          const res = await fetch(`http://127.0.0.1:${port}/any/path`, { headers: { connection: 'close' } });
          return { status: res.status, body: await res.text() };
        } finally {
          // process.kill rather than child.kill: deno's child_process reports a child killed
          // through child.kill() as ended by that signal even when it exited with a code.
          globalThis.process.kill(child.pid, 'SIGINT');
        }
      })();
    },
  });
  assert.ok(port > 0, show(r));
  const { status, body } = await answer;
  assert.equal(status, 200);
  assert.equal(body, 'OK');
  assert.equal(r.code, 0, show(r));
  assert.equal(r.signal, null, show(r));
  assert.match(r.stdout, /Served 1 requests \(0 errors\)/);
  assert.equal(r.stderr, '');
});

test('testserver-loadtest: --delay abc is one line on stderr and a non-zero exit', async () => {
  const r = await spawnScript(TESTSERVER, ['--delay', 'abc', '0']);
  assertOneLineError(r, /--delay must be a number, got 'abc'/, { prefix: 'testserver-loadtest: ' });
  assert.equal(r.stdout, '');
});

test('https: --insecure runs against a server our CA does not vouch for; without it, one line about the certificate; --ca trusts it', async () => {
  const { startServer } = await import('../src/index.js');
  const pemFile = (name) => readFileSync(new URL(`./tls/${name}.pem`, import.meta.url));
  const server = await startServer({ port: 0, host: '127.0.0.1', quiet: true, cert: pemFile('server'), key: pemFile('server-key') });
  try {
    const url = `https://127.0.0.1:${server.port}/`;
    const ok = await runCli([url, '-n', '50', '-c', '2', '-k', '--insecure']);
    ok.stderr = withoutDenoDanger(ok.stderr);
    assertSuccess(ok, 50);
    assert.equal(server.requests, 50);
    const strict = await runCli([url, '-n', '50', '-c', '2', '-k']);
    assertOneLineError(strict, /certificate check failed for 127\.0\.0\.1:\d+/, { code: 1 });
    assert.equal(server.requests, 50, 'no request got through an unverified connection');
    const trusted = await runCli([url.replace('127.0.0.1', 'localhost'), '-n', '10', '--ca', fileURLToPath(new URL('./tls/ca.pem', import.meta.url))]);
    assertSuccess(trusted, 10);
  } finally {
    await server.close();
  }
});
