// The configuration file (.loadtestrc, or package.json's "loadtest" entry), read by the CLI as
// loadtest 8 reads it: its options apply unless a flag says otherwise, and a bad file is one
// line naming it and exit 2, before any request. The CLI runs in a temporary folder holding it.

// Reading the file is the core's, the same on every runtime: under node (scope.js).
import { oneRuntimeTest as test } from './scope.js';
import assert from 'node:assert/strict';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { rawServer, ok, spawnScript } from './servers.js';
import { findConfig, withConfig } from '../src/commands/config-file.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

const show = (r) => `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;

/** A temporary folder holding `files` ({ name: text }); removed by the returned function. */
function folder(files) {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-config-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), typeof text === 'string' ? text : JSON.stringify(text));
  }
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

async function withServer(fn) {
  const seen = [];
  const server = await rawServer(({ socket }, req) => {
    seen.push(req);
    socket.write(ok());
  });
  try {
    await fn(server, seen);
  } finally {
    await server.close();
  }
}

function assertUsageError(r, pattern) {
  assert.equal(r.code, 2, show(r));
  assert.equal(r.stderr.trim().split('\n').length, 1, show(r));
  assert.ok(r.stderr.startsWith('loadtest: '), show(r));
  assert.ok(!r.stderr.includes('    at '), show(r));
  assert.match(r.stderr, pattern);
  assert.equal(r.stdout, '', show(r));
}

test('config file: maxRequests, concurrency, keep-alive, headers and a JSON body from .loadtestrc reach the run', async () => {
  const rc = { maxRequests: 7, concurrency: 2, agentKeepAlive: true, method: 'POST', headers: { 'x-from': 'file' }, body: { hi: 'there' } };
  const { dir, remove } = folder({ '.loadtestrc': rc });
  try {
    await withServer(async (server, seen) => {
      const r = await spawnScript(CLI, [server.url], { cwd: dir });
      assert.equal(r.code, 0, show(r));
      assert.match(r.stdout, /Completed requests:\s+7\n/);
      assert.equal(server.requests, 7);
      assert.ok(server.connections <= 2, `at most 2 connections, got ${server.connections}`);
      assert.ok(seen.every((req) => req.method === 'POST' && req.headers['x-from'] === 'file' && req.body === '{"hi":"there"}'), JSON.stringify(seen[0]));
    });
  } finally {
    remove();
  }
});

test('config file: flags override it; headers add up, a flag winning for the same name', async () => {
  const { dir, remove } = folder({ '.loadtestrc': { maxRequests: 7, concurrency: 2, headers: { 'x-from': 'file', 'x-kept': 'yes' } } });
  try {
    await withServer(async (server, seen) => {
      const r = await spawnScript(CLI, ['-n', '3', '-H', 'x-from:flag', server.url], { cwd: dir });
      assert.equal(r.code, 0, show(r));
      assert.equal(server.requests, 3);
      assert.ok(seen.every((req) => req.headers['x-from'] === 'flag' && req.headers['x-kept'] === 'yes'), JSON.stringify(seen[0]));
    });
  } finally {
    remove();
  }
});

test('config file: package.json\'s "loadtest" entry counts, found from a folder below it', async () => {
  const { dir, remove } = folder({ 'package.json': { name: 'x', loadtest: { maxRequests: 4 } }, 'sub/deeper/.keep': '' });
  try {
    await withServer(async (server) => {
      const r = await spawnScript(CLI, [server.url], { cwd: join(dir, 'sub', 'deeper') });
      assert.equal(r.code, 0, show(r));
      assert.equal(server.requests, 4);
    });
  } finally {
    remove();
  }
});

test('config file: invalid JSON is one line naming the file, exit 2, no request', async () => {
  const { dir, remove } = folder({ '.loadtestrc': '{"maxRequests": 5,' });
  try {
    await withServer(async (server) => {
      const r = await spawnScript(CLI, ['-n', '1', server.url], { cwd: dir });
      assertUsageError(r, /^loadtest: \.loadtestrc: invalid JSON \(/);
      assert.equal(server.requests, 0);
    });
  } finally {
    remove();
  }
});

test('config file: a value of the wrong kind or an unknown key is one line naming file and key, exit 2', async () => {
  const cases = [
    [{ concurrency: 'lots' }, /^loadtest: \.loadtestrc: "concurrency" must be a number, got 'lots'\n$/],
    [{ concurrency: 0 }, /^loadtest: \.loadtestrc: "concurrency" must be at least 1/],
    [{ insecure: 'yes' }, /^loadtest: \.loadtestrc: "insecure" must be true or false, got "yes"/],
    [{ headers: { a: { b: 1 } } }, /^loadtest: \.loadtestrc: "headers" must be an object of "name": "value"/],
    [{ maxRequest: 5 }, /^loadtest: \.loadtestrc: unknown key 'maxRequest'/],
    [[1, 2], /^loadtest: \.loadtestrc: expected an object of options/],
  ];
  for (const [rc, pattern] of cases) {
    const { dir, remove } = folder({ '.loadtestrc': rc });
    try {
      const r = await spawnScript(CLI, ['-n', '1', 'http://127.0.0.1:9/'], { cwd: dir });
      assertUsageError(r, pattern);
    } finally {
      remove();
    }
  }
});

test('config file: none at all changes nothing', async () => {
  const { dir, remove } = folder({});
  try {
    await withServer(async (server) => {
      const r = await spawnScript(CLI, ['-n', '2', '-c', '1', server.url], { cwd: dir });
      assert.equal(r.code, 0, show(r));
      assert.equal(r.stderr, '');
      assert.equal(server.requests, 2);
    });
  } finally {
    remove();
  }
});

test('findConfig: package.json before .loadtestrc; a string entry names the real file; search stops at home', async () => {
  const { dir, remove } = folder({
    'package.json': { loadtest: 'conf/load.json' },
    'conf/load.json': { maxSeconds: '2.5', cookies: { a: 'b' } },
    '.loadtestrc': { maxRequests: 1 },
    'home/user/work/.keep': '',
  });
  const read = async (url) => {
    try {
      return readFileSync(url, 'utf8');
    } catch {
      return null;
    }
  };
  try {
    const root = pathToFileURL(dir + '/').href;
    const found = await findConfig(root, root, read);
    assert.equal(found.name, 'conf/load.json');
    assert.deepEqual(found.flags, { maxSeconds: 2.5, cookie: ['a=b'] });
    // Home is where the search stops: the file above it is not read.
    assert.equal(await findConfig(`${root}home/user/work/`, `${root}home/user/`, read), null);
    assert.equal((await findConfig(`${root}home/user/work/`, `${root}elsewhere/`, read)).name, `${dir}/conf/load.json`);
  } finally {
    remove();
  }
});

test('withConfig: a flag replaces the file\'s value, any body flag leaves out the file\'s body', () => {
  const file = { maxRequests: 7, cookie: ['a=1'], configBody: 'from file', header: ['x:1'] };
  assert.deepEqual(withConfig({ _: [] }, file), { _: [], maxRequests: 7, cookie: ['a=1'], configBody: 'from file', header: ['x:1'] });
  const merged = withConfig({ _: [], maxRequests: '3', cookie: 'b=2', postBody: 'flag', header: ['y:2', 'x:3'] }, file);
  assert.deepEqual(merged, { _: [], maxRequests: '3', cookie: 'b=2', postBody: 'flag', header: ['x:1', 'y:2', 'x:3'] });
});
