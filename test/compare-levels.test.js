// `loadtest compare` at load levels: every candidate at every level, the rounds interleaved within
// a level, each candidate's knee against a server that slows down past a rate, and the levels in
// the JSON, the CSV (compare.R's configuration), the Markdown and the HTML page.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../runtimes/processes/groups.js';
import { parseCompareArgs } from '../src/compare/args.js';
import { kneesOf } from '../src/compare/report.js';
import { spawnScript, runtimeCommand } from './servers.js';
import { ONE_RUNTIME } from './scope.js';
import { CHROMIUM, CHROMIUM_OWN, countingProxy, openInChromium } from './chromium.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

// Answers at once while its rate over the last 250 ms is at most LIMIT a second, else 250 ms
// later: past the 200 ms SLO whatever a loaded machine adds (a timer is never early), and at
// rates any machine reaches.
const SLOW_SERVER = `
import http from 'node:http';
const [port, limit] = process.argv.slice(2).map(Number);
const times = [];
http.createServer((req, res) => {
  const now = performance.now();
  times.push(now);
  while (times[0] < now - 250) times.shift();
  if (times.length * 4 > limit) setTimeout(() => res.end('slow'), 250);
  else res.end('ok');
}).listen(port, '127.0.0.1');
`;

test('levels and the SLO on the command line: --rps LIST, --sweep LIST, --slo; one rate stays a load flag', () => {
  const plan = (args) => parseCompareArgs(args, { cores: 2, here: 'node' });
  const p = plan(['--builtin', 'node,bun', '--rps', '100,500,1200', '--slo', 'p99<20ms']);
  assert.deepEqual(p.levels, { kind: 'rps', values: [100, 500, 1200] });
  assert.deepEqual(p.slo, { text: 'p99<20ms', metric: 'p99', key: 'p99', op: '<', limitMs: 20 });
  assert.deepEqual(plan(['--builtin', 'node,bun', '--sweep', '8,64']).loadArgs, ['-t', '5', '-k']);
  assert.deepEqual(plan(['--builtin', 'node,bun', '--rps', '300']).levels, null);
  for (const [args, message] of [
    [['--rps', '100,50'], /ascending order/],
    [['--rps', '100,x'], /--rps must be a rate or a list of rates/],
    [['--sweep', '8,64', '-c', '10'], /--sweep sets -c at each level/],
    [['--rps', '1,2', '--sweep', '8,64'], /give one/],
    [['--slo', 'p99<10ms'], /--slo marks the knee of load levels/],
    [['--rps', '1,2', '--slo', 'rps>5'], /give p50, p99 or p99.9 below a limit/],
  ]) {
    assert.throws(() => plan(['--builtin', 'node,bun', ...args]), message);
  }
});

test('the knee: the highest level up to which the SLO holds, the rate is met and nothing failed', () => {
  const levels = { kind: 'rps', values: [100, 500, 1200] };
  const slo = { key: 'p99', op: '<', limitMs: 20 };
  const r = (candidate, level, p99, rps = level, errors = 0) => ({ candidate, level, p99, rps, errors });
  const records = [
    r('a', 100, 2), r('a', 100, 3), r('a', 500, 45), r('a', 500, 41), r('a', 1200, 1), r('a', 1200, 1),
    r('b', 100, 2), r('b', 100, 2), r('b', 500, 3), r('b', 500, 3), r('b', 1200, 3, 1000), r('b', 1200, 3, 1100),
    r('c', 100, 30), r('c', 100, 30), r('c', 500, 1), r('c', 500, 1),
    r('d', 100, 1), r('d', 100, 1), r('d', 500, 1, 500, 3), r('d', 500, 1, 500, 2),
  ];
  // a: slow at 500 (and fast again at 1200 does not count); b: 1200 not reached (under 95 %);
  // c: not even the lowest; d: errors at 500.
  assert.deepEqual(kneesOf(records, ['a', 'b', 'c', 'd'], levels, slo), { a: 100, b: 500, c: null, d: 100 });
  assert.equal(kneesOf(records, ['a'], null, slo), null);
});

// What compare does with the levels is the same on every runtime; its servers and clients as
// processes of each runtime are test/compare.test.js's.
test('compare --rps 20,150 of 2 servers × 2 rounds: every cell, the knees, the CSV, Markdown and HTML', { skip: ONE_RUNTIME }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'compare-levels-'));
  try {
    const script = join(dir, 'slow.mjs');
    writeFileSync(script, SLOW_SERVER);
    const [exe, prefix] = runtimeCommand(script);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/`;
    const server = (limit) => [exe, ...prefix, String(port), String(limit)].map((w) => `'${w}'`).join(' ');
    const out = (name) => join(dir, name);
    const args = ['compare', '--server', server(40), '--name', 'slow', '--server', server(100000), '--name', 'fast', '--url', url];
    // A warm-up before each run: a server just started on a loaded machine has been seen to
    // answer nothing in a cold half second (the client then exits 1, no response).
    args.push('--rps', '20,150', '--slo', 'p99<200ms', '--rounds', '2', '-t', '1', '--warmup', '0.5');
    args.push('--json', out('c.json'), '--csv', out('c.csv'), '--md', out('c.md'), '--html', out('c.html'));
    const { code, stdout, stderr } = await spawnScript(CLI, args, { timeoutMs: 120000 });
    assert.equal(code, 0, stderr);
    for (const level of ["20 rps (target)", "150 rps (target)"]) assert.ok(stdout.includes(`\n${level}\n`), stdout);
    // The knees follow from the rounds' own figures; a loaded machine may miss a rate, so which
    // level each reached is not asserted, only what cannot depend on it: slow's server answers
    // 250 ms late past 40 rps (over the 200 ms SLO, and well inside the second of a run: a half
    // second left a loaded machine no answer before the stop, the client's exit 1), so its knee
    // is never above 20 rps.
    const doc0 = JSON.parse(readFileSync(out('c.json'), 'utf8'));
    const slo = parseCompareArgs(['--builtin', 'node,bun', '--rps', '20,150', '--slo', 'p99<200ms'], { cores: 2, here: 'node' }).slo;
    assert.deepEqual(doc0.knees, kneesOf(doc0.records, ['slow', 'fast'], doc0.levels, slo));
    assert.ok(doc0.knees.slow === null || doc0.knees.slow === 20, `slow's knee ${doc0.knees.slow}`);
    const said = (k) => (k === null ? 'none \\(not even 20 rps\\)' : `${k} rps`);
    assert.match(stdout, new RegExp(`knee \\(the highest level up to which p99<200ms, achieved rate at least 95 % of the target, no errors\\):\\n {2}slow: ${said(doc0.knees.slow)}\\n {2}fast: ${said(doc0.knees.fast)}`));

    const doc = JSON.parse(readFileSync(out('c.json'), 'utf8'));
    assert.equal(doc.records.length, 8);
    // Level by level, the rounds interleaved within each.
    assert.deepEqual(
      doc.records.map((r) => `${r.level}:${r.round}${r.candidate}`),
      [20, 150].flatMap((l) => [`${l}:1slow`, `${l}:1fast`, `${l}:2slow`, `${l}:2fast`]),
    );
    for (const r of doc.records) {
      for (const key of ['rps', 'p50', 'p99', 'p999', 'errors', 'requests', 'serverCpuPerRequest', 'serverRssMb']) assert.equal(typeof r[key], 'number', `${key} of ${JSON.stringify(r)}`);
    }
    assert.deepEqual(doc.levels, { kind: 'rps', values: [20, 150] });
    assert.deepEqual(doc.byLevel.map((l) => [l.level, l.summary.rps.length, l.summary.p99.length]), [[20, 2, 2], [150, 2, 2]]);
    assert.equal(typeof doc.machine.cpuModel, 'string');
    assert.ok(doc.machine.cpus >= 1);

    const csv = readFileSync(out('c.csv'), 'utf8').trim().split('\n');
    assert.equal(csv.length, 9);
    for (const level of [20, 150]) assert.equal(csv.filter((line) => line.includes(`"-t 1 -c 10 -k --rps ${level}"`)).length, 4, `level ${level}`);

    const md = readFileSync(out('c.md'), 'utf8');
    assert.match(md, /\| candidate \|/);
    assert.ok(md.includes('slow') && md.includes('fast'));
    const html = readFileSync(out('c.html'), 'utf8');
    const plots = (html.match(/<svg/g) || []).length;
    assert.ok(plots >= 2, `${plots} plots`);
    if (!CHROMIUM) return; // said by test/compare-html.test.js, which needs it too
    // The page of a real run in headless Chromium: every plot drawn, no console line, no request.
    const proxy = await countingProxy();
    try {
      const { dom, console: lines } = await openInChromium(out('c.html'), proxy.port, join(dir, 'profile'));
      assert.equal((dom.match(/<svg/g) || []).length, plots);
      assert.deepEqual(lines, []);
      assert.deepEqual(proxy.hosts.filter((h) => !CHROMIUM_OWN.test(h)), []);
    } finally {
      await proxy.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
