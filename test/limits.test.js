// Resource limits: more connections than the process may open files is one line before the run,
// not thousands of EMFILE failures; a run near the limit still ends and exits; exhausted
// ephemeral ports and open files are said in words.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { rawServer, ok, runtimeCommand, runCommand } from './servers.js';
import { Stats } from '../src/run/stats.js';
import { makeResult } from '../src/run/result.js';
import { formatReport } from '../src/results/report.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const prlimit = ['/usr/bin/prlimit', '/bin/prlimit'].find((p) => existsSync(p));
const linux = existsSync('/proc/self/limits');

// The CLI under an open-file limit of 200 (prlimit sets it for that process alone).
function cliWithLimit(args) {
  const [command, prefix] = runtimeCommand(CLI);
  return runCommand(prlimit, ['--nofile=200:200', command, ...prefix, ...args], { timeoutMs: 30000 });
}

test('-c above the open-file limit is one line before the run, exit 2', { skip: !prlimit || !linux }, async () => {
  const server = await rawServer(({ socket }) => socket.write(ok()));
  try {
    const r = await cliWithLimit([server.url, '-c', '500', '-n', '500']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /^loadtest: 500 connections need 500 open files, but the open-file limit \(ulimit -n\) is 200 and \d+ are free: raise it \(ulimit -n \d+\)/);
    assert.equal(r.stderr.trim().split('\n').length, 1);
    assert.equal(server.requests, 0, 'nothing was sent');
    const cores = await cliWithLimit([server.url, '-c', '500', '-n', '500', '--cores', '2']);
    assert.equal(cores.code, 2);
    assert.match(cores.stderr, /250 connections per process \(500 on 2 cores\)/);
  } finally {
    await server.close();
  }
});

test('a run with as many connections as the limit allows ends, reports and exits', { skip: !prlimit || !linux }, async () => {
  const server = await rawServer(({ socket }) => socket.write(ok()));
  try {
    const r = await cliWithLimit([server.url, '-c', '120', '-n', '1500', '--quiet']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Completed requests: +1500/);
    assert.doesNotMatch(r.stdout, /EMFILE/);
  } finally {
    await server.close();
  }
});

test('ephemeral ports and open files used up are reported in words', () => {
  const stats = new Stats();
  stats.sent = 3;
  stats.completed = 1;
  stats.statusCounts[200] = 1;
  stats.fail('EADDRNOTAVAIL');
  stats.fail('EMFILE');
  stats.elapsedMs = 1000;
  const text = formatReport(makeResult({ url: 'http://x/', concurrency: 1 }, stats), false);
  assert.match(text, /EADDRNOTAVAIL: +1 errors \(no free local port: the ephemeral ports are used up.*use -k\)/);
  assert.match(text, /EMFILE: +1 errors \(too many open files/);
});
