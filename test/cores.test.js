// Multi-core runs: children of the same runtime, an exact split of the work, merged results.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mkdtempSync, writeFileSync, rmSync, readFileSync } from 'node:fs';
import { loadTest } from '../src/index.js';
import { split, shares } from '../src/run/cores.js';
import { Stats } from '../src/run/stats.js';
import { rawServer, ok, runtimeCommand, spawnScript, startScript, until, childrenOf, sleep } from './servers.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

const runCli = (args, options) => spawnScript(CLI, args, options);

const completed = (stdout) => Number(/Completed requests: +(\d+)/.exec(stdout)?.[1]);

test('the work splits exactly: 10 requests on 3 cores are 4 + 3 + 3, with interleaved indexes', () => {
  assert.deepEqual(split(10, 3), [4, 3, 3]);
  assert.deepEqual(split(2, 2), [1, 1]);
  const jobs = shares({ url: 'http://x/', maxRequests: 10, concurrency: 7, requestsPerSecond: 100 }, 3);
  assert.deepEqual(jobs.map((j) => j.maxRequests), [4, 3, 3]);
  assert.deepEqual(jobs.map((j) => j.concurrency), [3, 2, 2]);
  assert.equal(jobs.reduce((a, j) => a + j.requestsPerSecond, 0), 100);
  // child i sends i, i+3, i+6, ...: together every index once
  const indexes = jobs.flatMap((j) => Array.from({ length: j.maxRequests }, (_, k) => k * j.indexStride + j.indexOffset));
  assert.deepEqual(indexes.sort((a, b) => a - b), [...Array(10).keys()]);
});

test('merged Stats equal one Stats fed every sample, through the JSON the children send', () => {
  const one = new Stats();
  const parts = [new Stats(), new Stats(), new Stats()];
  for (let i = 0; i < 30000; i++) {
    const us = 50 + ((i * 7919) % 90000) + (i % 997 === 0 ? 3_000_000 : 0);
    one.histogram.record(us);
    parts[i % 3].histogram.record(us);
    const status = i % 10 === 0 ? 503 : 200;
    one.statusCounts[status]++;
    parts[i % 3].statusCounts[status]++;
  }
  const merged = new Stats();
  for (const p of parts) merged.merge(Stats.fromJSON(JSON.parse(JSON.stringify(p))));
  for (const p of [50, 75, 90, 95, 99, 99.9, 99.99, 100]) assert.equal(merged.histogram.percentile(p), one.histogram.percentile(p), `p${p}`);
  assert.equal(merged.histogram.count, 30000);
  assert.equal(merged.histogram.max, one.histogram.max);
  assert.equal(merged.histogram.min, one.histogram.min);
  assert.equal(merged.histogram.mean(), one.histogram.mean());
  assert.deepEqual([...merged.statusCounts], [...one.statusCounts]);
});

test('loadTest with cores 2: the server reads exactly maxRequests, all reported, indexes unique', async () => {
  const server = await rawServer(({ socket }) => socket.write(ok()));
  try {
    const result = await loadTest({ url: server.url + 'i/N', indexParam: 'N', maxRequests: 1001, concurrency: 6, agentKeepAlive: true, cores: 2 });
    assert.equal(result.cores, 2);
    assert.deepEqual(result.childErrors, []);
    assert.equal(result.totalRequests, 1001);
    assert.equal(result.totalErrors, 0);
    assert.equal(server.requests, 1001);
    assert.equal(result.histogram.count, 1001);
    assert.deepEqual(server.paths.map((p) => Number(p.split('/')[2])).sort((a, b) => a - b), [...Array(1001).keys()]);
    assert.ok(server.connections <= 6);
  } finally {
    await server.close();
  }
});

test('CLI -n 1000 --cores 2: exactly 1000 received and reported', async () => {
  const server = await rawServer(({ socket }) => socket.write(ok()));
  try {
    const r = await runCli([server.url, '-n', '1000', '-c', '4', '-k', '--cores', '2']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Running on cores: +2/);
    assert.equal(completed(r.stdout), 1000);
    assert.equal(server.requests, 1000);
  } finally {
    await server.close();
  }
});

test('a child that dies mid-run is reported with its reason; the others are merged', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-cores-'));
  const generator = join(dir, 'dies.mjs');
  // Index 41 belongs to the second child (odd indexes): it exits with code 9 there.
  writeFileSync(generator, "export default (i) => { if (i === 41) process.exit(9); return { path: '/x' }; };\n");
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
  const server = await rawServer(({ socket }) => socket.write(ok()));
  try {
    const r = await runCli([server.url, '-n', '200', '-c', '2', '-k', '--cores', '2', '-R', generator]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^loadtest: child 2 of 2 exited with code 9/);
    assert.equal(r.stderr.trim().split('\n').length, 1);
    assert.equal(completed(r.stdout), 100, 'the first child did its share');
    assert.ok(server.requests >= 100 + 20 && server.requests <= 100 + 21, `server read ${server.requests}`);
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('Ctrl-C stops every child and still prints what was done', async () => {
  const server = await rawServer(({ socket }) => setTimeout(() => !socket.destroyed && socket.write(ok()), 5));
  try {
    const { child, done: exited } = startScript(CLI, [server.url, '-t', '20', '-c', '4', '-k', '--cores', '2', '--quiet']);
    // Ctrl-C once both children are sending: all 4 connections (2 a child) open, and answers
    // coming back; a guard bound only if they never do.
    assert.ok(await until(() => server.connections >= 4 && server.requests >= 40, 20000), `connections ${server.connections}, requests ${server.requests}`);
    globalThis.process.kill(child.pid, 'SIGINT');
    const r = await exited;
    assert.equal(r.code, 130, r.stderr);
    assert.match(r.stdout, /Running on cores: +2/);
    const done = completed(r.stdout);
    const inFlight = Number(/In flight at stop: +(\d+)/.exec(r.stdout)?.[1] || 0);
    assert.ok(done > 10, `completed ${done}`);
    assert.equal(done + inFlight, server.requests);
    assert.ok(/Total time: +([\d.]+) s/.exec(r.stdout)[1] < 10, 'stopped long before -t');
  } finally {
    await server.close();
  }
});

test('--cores 0 and more cores than the machine has are one-line errors', async () => {
  const zero = await runCli(['http://127.0.0.1:9/', '--cores', '0']);
  assert.equal(zero.code, 2);
  assert.match(zero.stderr, /^loadtest: --cores must be at least 1/);
  const many = await runCli(['http://127.0.0.1:9/', '--cores', '999']);
  assert.equal(many.code, 2);
  assert.match(many.stderr, /^loadtest: cores 999: this machine has \d+\n$/);
  await assert.rejects(loadTest({ url: 'http://127.0.0.1:9/', cores: 2, statusCallback() {} }), /statusCallback cannot be sent to child processes/);
});

test('a killed parent leaves no child sending requests', async () => {
  const server = await rawServer(({ socket }) => setTimeout(() => !socket.destroyed && socket.write(ok()), 2));
  const [command, prefix] = runtimeCommand(CLI);
  const child = spawn(command, [...prefix, server.url, '-t', '20', '-c', '2', '-k', '--cores', '2', '--quiet'], { stdio: ['ignore', 'ignore', 'ignore'] });
  try {
    assert.ok(await until(() => server.requests >= 50 && childrenOf(child.pid).length === 2, 20000), 'the children were sending');
    const kids = childrenOf(child.pid);
    child.kill('SIGKILL');
    // The children see their parent's pipe close and exit: wait for that, not for a time.
    const alive = (pid) => {
      try {
        return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      } catch {
        return false;
      }
    };
    assert.ok(await until(() => !kids.some(alive), 20000), `children ${kids.filter(alive).join(' ')} still run`);
    // Requests the children wrote before they went may still be in the server's buffers: once
    // those are read, nothing more comes (a short look, for an absence).
    await sleep(100);
    const after = server.requests;
    await sleep(300);
    assert.equal(server.requests, after, 'nothing more arrived once the parent was gone');
  } finally {
    child.kill('SIGKILL');
    await server.close();
  }
});
