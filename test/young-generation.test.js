// V8's young generation is capped where loadtest generates load (runtimes/processes/young-generation.js):
// the CLI on Deno restarts itself in place with the flag, and --cores children on node and deno
// start with it. The restart must keep the process (same PID: signals, exit codes) and must leave
// a user's own V8 flags alone.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { rawServer, ok, until, startCli, childrenOf, commandLine, runtimeCommand } from './servers.js';
import { nodeChildFlags, nodeCapsItself, YOUNG_GENERATION_FLAG } from '../runtimes/processes/young-generation.js';
import { restartFlags } from '../runtimes/processes/deno-restart.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const runtime = globalThis.Deno ? 'deno' : globalThis.Bun ? 'bun' : 'node';
const hasProc = existsSync('/proc/self/cmdline');
const slowOk = ({ socket }) => setTimeout(() => !socket.destroyed && socket.write(ok()), 5);
const capped = (args) => args.some((a) => a === YOUNG_GENERATION_FLAG || a === `--v8-flags=${YOUNG_GENERATION_FLAG}`);

test('a node child gets the cap unless its parent names a semi-space size', () => {
  assert.deepEqual(nodeChildFlags([]), [YOUNG_GENERATION_FLAG]);
  assert.deepEqual(nodeChildFlags(['--enable-source-maps']), [YOUNG_GENERATION_FLAG]);
  assert.deepEqual(nodeChildFlags(['--max-semi-space-size=8']), []);
});

test('the CLI on node caps its own young generation unless its command line or NODE_OPTIONS sizes it', () => {
  assert.equal(nodeCapsItself([], ''), true);
  assert.equal(nodeCapsItself(['--enable-source-maps'], '--max-old-space-size=100'), true);
  assert.equal(nodeCapsItself(['--max-semi-space-size=8'], ''), false);
  assert.equal(nodeCapsItself(['--semi_space_growth_factor=4'], ''), false);
  assert.equal(nodeCapsItself([], '--min-semi-space-size=4 --no-warnings'), false);
  assert.deepEqual(nodeChildFlags(['--semi-space-growth-factor=4']), []);
});

// Without the cap, the probe's garbage grew node 20's young generation to 32 MB (16 MB semi-spaces).
test('the CLI on node keeps its young generation small through a load run; a size of the user\'s own wins', { skip: runtime !== 'node' && 'node only (deno restarts with the cap; bun has no such heap)' }, async () => {
  const server = await rawServer(({ socket }) => socket.write(ok()));
  const probe = fileURLToPath(new URL('./young-generation-probe.js', import.meta.url));
  const youngMb = async (flags) => {
    const child = spawn(globalThis.process.execPath, [...flags, '--import', probe, CLI, server.url, '-n', '200', '-c', '4', '-k', '--quiet'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (t) => (stderr += t));
    const code = await new Promise((resolve) => child.on('close', resolve));
    assert.equal(code, 0, stderr);
    return Number(/new_space (\S+)/.exec(stderr)[1]);
  };
  try {
    assert.ok((await youngMb([])) <= 4, 'capped');
    assert.ok((await youngMb(['--max-semi-space-size=16'])) > 4, "the user's own size");
  } finally {
    await server.close();
  }
});

test("deno's restart adds the cap unless the user names V8 flags, and skips certificate checks only for --insecure", () => {
  const cap = `--v8-flags=${YOUNG_GENERATION_FLAG}`;
  const ignore = '--unsafely-ignore-certificate-errors';
  assert.deepEqual(restartFlags(['-A'], ['http://127.0.0.1/'], {}), [cap]);
  assert.deepEqual(restartFlags(['-A'], ['https://127.0.0.1/', '--insecure'], {}), [cap, ignore]);
  assert.deepEqual(restartFlags(['-A', '--v8-flags=--max-old-space-size=100'], ['--insecure'], {}), [ignore]);
  assert.deepEqual(restartFlags(['-A'], ['--insecure'], { DENO_V8_FLAGS: '--jitless' }), [ignore]);
  assert.deepEqual(restartFlags(['-A', `${ignore}=example.com`], ['--insecure'], { DENO_V8_FLAGS: '--jitless' }), []);
  assert.deepEqual(restartFlags(['-A'], ['https://127.0.0.1/--insecure'], { DENO_V8_FLAGS: '--jitless' }), []);
  // loadtest run: its own heap flags, a large young generation and V8's memory saver mode; the
  // user's own V8 flags still win.
  assert.deepEqual(restartFlags(['-A'], ['run', 'test.js'], {}), ['--v8-flags=--min-semi-space-size=16,--max-semi-space-size=16,--memory-saver-mode']);
  assert.deepEqual(restartFlags(['-A'], ['run', 'test.js'], { DENO_V8_FLAGS: '--jitless' }), []);
  // Not a run: no restart.
  assert.deepEqual(restartFlags(['-A'], ['merge', 'a.json', 'b.json'], {}), []);
  assert.deepEqual(restartFlags(['-A'], ['compare', 'a.json', 'b.json', '--insecure'], {}), []);
});

test('the CLI on deno restarts in place with the cap; SIGINT still gives the report and 130', { skip: runtime !== 'deno' ? 'the restart is deno only' : !hasProc && 'needs /proc' }, async () => {
  const server = await rawServer(slowOk);
  try {
    const { child, done } = startCli([server.url, '-t', '20', '-c', '2', '-k', '--quiet', '--json']);
    assert.ok(await until(() => server.requests >= 20), 'requests were flowing');
    const args = commandLine(child.pid);
    assert.ok(capped(args), `same PID, restarted with the flag: ${args.join(' ')}`);
    globalThis.process.kill(child.pid, 'SIGINT');
    const r = await done;
    assert.equal(r.code, 130, r.stderr);
    const result = JSON.parse(r.stdout);
    assert.equal(result.interrupted, true);
    assert.equal(result.totalRequests + result.inFlight, result.requestsSent);
  } finally {
    await server.close();
  }
});

test("the CLI on deno leaves the user's own V8 flags alone", { skip: runtime !== 'deno' ? 'the restart is deno only' : !hasProc && 'needs /proc' }, async () => {
  const server = await rawServer(({ socket }) => socket.write(ok()));
  try {
    const { child, done } = startCli([server.url, '-t', '20', '-c', '1', '-k', '--quiet'], { DENO_V8_FLAGS: '--max-semi-space-size=4' });
    assert.ok(await until(() => server.requests >= 10), 'requests were flowing');
    const args = commandLine(child.pid);
    assert.ok(!args.some((a) => a.startsWith('--v8-flags')), args.join(' '));
    child.kill('SIGKILL');
    await done;
  } finally {
    await server.close();
  }
});

test('--cores children start with the cap', { skip: runtime === 'bun' ? 'JavaScriptCore has no such flag' : !hasProc && 'needs /proc' }, async () => {
  const server = await rawServer(slowOk);
  try {
    const { child, done } = startCli([server.url, '-t', '20', '-c', '2', '-k', '--cores', '2', '--quiet', '--json']);
    assert.ok(await until(() => server.requests >= 20), 'requests were flowing');
    const kids = childrenOf(child.pid).map(commandLine).filter((args) => args && args.some((a) => a.endsWith('worker.js')));
    assert.equal(kids.length, 2);
    for (const args of kids) assert.ok(capped(args), args.join(' '));
    globalThis.process.kill(child.pid, 'SIGTERM');
    const r = await done;
    assert.equal(r.code, 143, r.stderr);
  } finally {
    await server.close();
  }
});

test('the restart comes before any file is read: -p /dev/stdin still finds its input', { skip: runtime !== 'deno' ? 'the restart is deno only' : !hasProc && 'needs /proc' }, async () => {
  const server = await rawServer(({ socket }) => socket.write(ok()));
  try {
    const [command, prefix] = runtimeCommand(CLI);
    const child = spawn(command, [...prefix, server.url, '-n', '3', '-p', '/dev/stdin', '--quiet'], { stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin.end('{"from":"stdin"}');
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (t) => (stderr += t));
    child.stdout.resume();
    const timer = setTimeout(() => child.kill('SIGKILL'), 20000);
    const code = await new Promise((resolve) => child.on('close', resolve));
    clearTimeout(timer);
    assert.equal(code, 0, stderr);
    assert.deepEqual(server.bodies, ['{"from":"stdin"}', '{"from":"stdin"}', '{"from":"stdin"}']);
  } finally {
    await server.close();
  }
});

// execve throws away what the first process loaded: Deno's node: modules, behind the runtime's
// own (runtimes/index.js), cost a run's start 0.1-0.15 s of CPU before the restart.
test("what the CLI loads before Deno's restart imports no node: module", async () => {
  const { readFile } = await import('node:fs/promises');
  const seen = new Set();
  const walk = async (url) => {
    if (seen.has(url.href)) return;
    seen.add(url.href);
    const text = await readFile(fileURLToPath(url), 'utf8');
    // Static imports only: the dynamic ones load after the restart.
    for (const [, spec] of text.matchAll(/^(?:import|export)\s[^;]*?from\s+'([^']+)'/gms)) {
      assert.ok(spec.startsWith('.'), `${fileURLToPath(url)} imports ${spec} before the restart`);
      await walk(new URL(spec, url));
    }
  };
  await walk(new URL('../src/cli.js', import.meta.url));
  assert.ok(seen.size >= 3, [...seen].join(' '));
});
