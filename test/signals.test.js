// Signals: Ctrl-C (SIGINT) and SIGTERM stop a run, print its partial report once and exit 130 or
// 143 as shells expect; a second Ctrl-C quits at once; children of --cores never outlive their
// parent; the API's result says it was interrupted.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadTest } from '../src/index.js';
import { rawServer, ok, sleep, until, startCli, startScript, childrenOf } from './servers.js';

const slowOk = ({ socket }) => setTimeout(() => !socket.destroyed && socket.write(ok()), 5);

for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]]) {
  test(`${signal} stops the run, prints the partial report once and exits ${code}`, async () => {
    const server = await rawServer(slowOk);
    try {
      const { child, done } = startCli([server.url, '-t', '20', '-c', '2', '-k', '--quiet', '--json']);
      assert.ok(await until(() => server.requests >= 20), 'requests were flowing');
      globalThis.process.kill(child.pid, signal);
      const r = await done;
      assert.equal(r.code, code, r.stderr);
      const result = JSON.parse(r.stdout);
      assert.equal(result.interrupted, true);
      assert.ok(result.totalTimeSeconds < 10, 'stopped long before -t');
      assert.equal(result.totalRequests + result.inFlight, result.requestsSent);
      assert.ok(result.totalRequests >= 18, `${result.totalRequests} completed`); // 20 read, 2 maybe in flight
      // and the text report, once
      const text = startCli([server.url, '-t', '20', '-c', '2', '-k', '--quiet']);
      const before = server.requests;
      assert.ok(await until(() => server.requests >= before + 20));
      globalThis.process.kill(text.child.pid, signal);
      const t = await text.done;
      assert.equal(t.code, code, t.stderr);
      assert.equal(t.stdout.match(/Completed requests/g).length, 1);
    } finally {
      await server.close();
    }
  });
}

test('a run that ends by its limits is not interrupted; an AbortSignal interrupts the API run', async () => {
  const server = await rawServer(slowOk);
  try {
    const full = await loadTest({ url: server.url, maxRequests: 10, concurrency: 2, agentKeepAlive: true });
    assert.equal(full.interrupted, false);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const cut = await loadTest({ url: server.url, maxSeconds: 20, concurrency: 2, agentKeepAlive: true, signal: controller.signal });
    assert.equal(cut.interrupted, true);
    assert.ok(cut.totalTimeSeconds < 10);
    assert.equal(cut.totalRequests + cut.inFlight, cut.requestsSent);
  } finally {
    await server.close();
  }
});

test('--cores: SIGTERM to the parent stops its children, which report, and exits 143', async () => {
  const server = await rawServer(slowOk);
  try {
    const { child, done } = startCli([server.url, '-t', '20', '-c', '4', '-k', '--cores', '2', '--quiet', '--json']);
    assert.ok(await until(() => server.requests >= 40), 'the children were sending');
    const children = childrenOf(child.pid);
    assert.equal(children.length, 2, `children of ${child.pid}: ${children}`);
    globalThis.process.kill(child.pid, 'SIGTERM');
    const r = await done;
    assert.equal(r.code, 143, r.stderr);
    const result = JSON.parse(r.stdout);
    assert.equal(result.interrupted, true);
    assert.equal(result.cores, 2);
    assert.equal(result.totalRequests + result.inFlight, result.requestsSent);
    assert.ok(await until(() => children.every((pid) => !childrenOf(child.pid).includes(pid) && !isAlive(pid)), 5000), 'no child outlived the parent');
    const after = server.requests;
    await sleep(300);
    assert.equal(server.requests, after, 'nothing more arrived');
  } finally {
    await server.close();
  }
});

test('a second Ctrl-C quits at once while the first waits for stuck children', async () => {
  const server = await rawServer(slowOk);
  const { child, done } = startCli([server.url, '-t', '20', '-c', '2', '-k', '--cores', '2', '--quiet']);
  let children = [];
  try {
    assert.ok(await until(() => server.requests >= 20), 'the children were sending');
    children = childrenOf(child.pid);
    assert.equal(children.length, 2);
    // Frozen children cannot answer the parent's `stop`: the first Ctrl-C waits for them.
    for (const pid of children) globalThis.process.kill(pid, 'SIGSTOP');
    globalThis.process.kill(child.pid, 'SIGINT');
    await sleep(500);
    assert.equal(child.exitCode, null, 'the first Ctrl-C waits for the children');
    const at = Date.now();
    globalThis.process.kill(child.pid, 'SIGINT');
    const r = await done;
    assert.equal(r.code, 130, r.stderr);
    assert.ok(Date.now() - at < 3000, 'the second Ctrl-C quit at once');
  } finally {
    // Thawed, the orphans find their stdin closed and end (src/run/worker.js).
    for (const pid of children) {
      try {
        globalThis.process.kill(pid, 'SIGCONT');
      } catch {
        // already gone
      }
    }
    child.kill('SIGKILL');
    assert.ok(await until(() => children.every((pid) => !isAlive(pid)), 5000), 'the thawed children ended');
    await server.close();
  }
});

// The runtimes drop a signal caught while a listener was set if the last listener goes before the
// signal is handed to it: a scripted run's Ctrl-C as the run ended was lost so, and it lingered.
test('a Ctrl-C caught as its handler is removed still ends the process with 130', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-signal-'));
  try {
    const path = join(dir, 'late.js');
    writeFileSync(path, `import { onInterrupt } from ${JSON.stringify(new URL('../runtimes/index.js', import.meta.url).href)};
const remove = onInterrupt(() => console.log('handled'));
globalThis.process.kill(globalThis.process.pid, 'SIGINT');
// Caught by the runtime at once, handed to the listener only once this turn is over.
const start = Date.now();
while (Date.now() - start < 200);
remove();
setTimeout(() => console.log('lingered'), 10000);
`);
    const r = await startScript(path, [], { timeoutMs: 30000 }).done;
    assert.equal(r.code, 130, `${r.signal} ${r.stdout} ${r.stderr}`);
    assert.equal(r.stdout, '');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

function isAlive(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}
