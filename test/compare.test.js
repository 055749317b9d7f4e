// loadtest compare: Welch's t-test against R's t.test, the command line's plan, the tables and
// the CSV, and tiny real runs (servers, a candidate that dies, clients on two runtimes).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { welchTest, twoSidedP, stars, logGamma, median } from '../src/compare/welch.js';
import { parseCompareArgs, parseCpuList } from '../src/compare/args.js';
import { summarize, formatTables, compareCsv } from '../src/compare/report.js';
import { rawServer, ok, spawnScript, runtimeCommand, paced } from './servers.js';
import { freePort } from '../runtimes/processes/groups.js';
import { ONE_RUNTIME } from './scope.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const TESTSERVER = fileURLToPath(new URL('../src/commands/testserver.js', import.meta.url));

// Three significant digits, as R prints them.
const sig3 = (x) => Number(x.toPrecision(3));

test("Welch's t-test gives R's t.test figures (t, df, p to 3 significant digits)", () => {
  const cases = [
    // R: t.test(extra ~ group, data = sleep): t = -1.8608, df = 17.776, p-value = 0.07939
    [[0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0], [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4], -1.86, 17.8, 0.0794],
    // R's ?t.test: t.test(1:10, y = c(7:20)): t = -5.4349, df = 21.982, p-value = 1.855e-05
    [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], [7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20], -5.43, 22.0, 1.86e-5],
    // ... and with an outlier, y = c(7:20, 200): t = -1.6329, df = 14.165, p-value = 0.1245
    [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], [7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 200], -1.63, 14.2, 0.125],
    // Wikipedia, "Welch's t-test", example 2 (unequal variances and sizes): t = -1.57, df = 9.9, p = 0.149
    [[17.2, 20.9, 22.6, 18.1, 21.7, 21.4, 23.5, 24.2, 14.7, 21.8], [21.5, 22.8, 21.0, 23.0, 21.6, 23.6, 22.5, 20.7, 23.4, 21.8, 20.7, 21.7, 21.5, 22.5, 23.6, 21.5, 22.5, 23.5, 21.5, 21.8], -1.57, 9.90, 0.149],
    // n = 2 against a constant: df = n - 1 = 1, t = 2, p = 1 - 2 atan(2) / pi (the Cauchy CDF)
    [[1, 3], [0, 0, 0], 2, 1, 0.295],
    // n = 3 against n = 2 constant: df = 2, t = 3 / sqrt(7/3), p = 1 - t / sqrt(2 + t^2)
    [[1, 2, 6], [0, 0], 1.96, 2, 0.188],
  ];
  for (const [x, y, t, df, p] of cases) {
    const r = welchTest(x, y);
    assert.equal(sig3(r.t), t, `t for ${x}`);
    assert.equal(sig3(r.df), df, `df for ${x}`);
    assert.equal(sig3(r.p), p, `p for ${x}`);
  }
  assert.ok(Math.abs(welchTest([1, 3], [0, 0, 0]).p - (1 - (2 * Math.atan(2)) / Math.PI)) < 1e-12);
});

test("the t distribution's tails match printed tables; log-gamma its known values", () => {
  assert.equal(sig3(twoSidedP(12.706, 1)), 0.05);
  assert.equal(sig3(twoSidedP(2.228, 10)), 0.05);
  assert.equal(sig3(twoSidedP(2.576, 1e9)), 0.01);
  assert.equal(twoSidedP(0, 7), 1);
  assert.ok(Math.abs(logGamma(0.5) - Math.log(Math.sqrt(Math.PI))) < 1e-12);
  assert.ok(Math.abs(logGamma(10) - Math.log(362880)) < 1e-10);
});

test('identical or constant samples give p = 1 or 0, never NaN; fewer than two values give no test', () => {
  assert.deepEqual(welchTest([5, 5, 5], [5, 5]), { t: 0, df: NaN, p: 1 });
  assert.equal(welchTest([5, 5], [6, 6]).p, 0);
  assert.equal(welchTest([4, 6], [4, 6]).p, 1);
  assert.equal(welchTest([1], [1, 2]), null);
  assert.deepEqual(['', '*', '**', '***', ''].map((_, i) => stars([0.2, 0.04, 0.009, 0.0009, NaN][i])), ['', '*', '**', '***', '']);
  assert.equal(median([3, 1, 2, 10]), 2.5);
});

const plan = (args) => parseCompareArgs(args, { cores: 4, here: 'node' });

test('compare names candidates, adds the default load flags and pins the server to the last core', () => {
  const p = plan(['--server', 'node app.js', '--server', '/opt/bin/bun app.js', '--server', 'node b.js', '--name', 'first', '--url', 'http://127.0.0.1:3000/', '-c', '50']);
  assert.deepEqual(p.candidates.map((c) => c.name), ['first', 'bun', 'node']);
  assert.deepEqual(p.loadArgs, ['-c', '50', '-t', '5', '-k']);
  assert.equal(p.serverCpus, '3');
  assert.equal(p.clientCpus, '0,1,2');
  assert.equal(p.baseline, 'first');
  const twice = plan(['--server', 'node a.js', '--server', 'node b.js', '--url', 'http://h:1/', '--no-keepalive', '-n', '100', '--rounds', '3']);
  assert.deepEqual(twice.candidates.map((c) => c.name), ['node', 'node-2']);
  assert.deepEqual(twice.loadArgs, ['-n', '100', '-c', '10']);
  assert.equal(twice.maxSeconds, null);
  assert.equal(twice.rounds, 3);
  assert.deepEqual(plan(['--builtin', 'node,bun', '-t2', '-kc', '3', '--rps=100']).loadArgs, ['-t2', '-kc', '3', '--rps=100']);
  assert.deepEqual(parseCpuList('0,2-3'), [0, 2, 3]);
});

test('compare --client x --socket all gives each valid adapter; with --builtin of several runtimes, the matrix', () => {
  const clients = plan(['--client', 'node,bun,deno', '--socket', 'all', 'http://127.0.0.1:1/']);
  assert.deepEqual(clients.candidates.map((c) => c.name), ['node/node', 'bun/bun', 'bun/node', 'deno/deno', 'deno/node']);
  assert.equal(clients.serverCpus, null, 'a server compare did not start is not pinned');
  const shared = plan(['--client', 'node,bun', '--builtin', 'deno']);
  assert.equal(shared.sharedServer.builtin, 'deno');
  assert.ok(shared.candidates.every((c) => c.server === null));
  const matrix = plan(['--client', 'node,bun', '--builtin', 'node,deno', '--baseline', 'bun@deno']);
  assert.deepEqual(matrix.candidates.map((c) => c.name), ['node@node', 'bun@node', 'node@deno', 'bun@deno']);
  assert.equal(matrix.baseline, 'bun@deno');
});

test('compare rejects bad usage in one line each', () => {
  const bad = [
    [['--server', 'node a.js', '--server', 'node b.js'], /--server needs --url/],
    [['--builtin', 'node'], /at least two candidates/],
    [['--builtin', 'node,java'], /unknown runtime 'java'/],
    [['--client', 'node', '--socket', 'bun', 'http://h:1/'], /none runs on node/],
    [['--builtin', 'node,bun', '--baseline', 'deno'], /--baseline 'deno' is none of node, bun/],
    [['--builtin', 'node,bun', '--rounds', '1'], /--rounds must be at least 2/],
    [['--builtin', 'node,bun', '--json'], /--json needs a value/],
    [['--builtin', 'node,bun', '--hdr-log', 'x'], /not a load flag/],
    [['--builtin', 'node,bun', '--server-cpus', '7'], /cores 0-3/],
    [['--builtin', 'node,bun', 'http://h:1/'], /leave out the URL/],
    [['--builtin', 'node,bun', '--foo'], /unknown option '--foo'/],
    [['--builtin', 'node,bun', '-kz'], /unknown option '-z'/],
  ];
  for (const [args, message] of bad) assert.throws(() => plan(args), message, args.join(' '));
});

test("the tables show median, min - max, ratio, p-value and stars; the CSV is compare.js's shape for compare.R", () => {
  const records = [];
  const rps = { a: [100, 102, 98, 101], b: [150, 149, 152, 151], c: [99, 103, 100, 98] };
  for (let round = 1; round <= 4; round++) {
    for (const name of ['a', 'b', 'c']) records.push({ round, candidate: name, rps: rps[name][round - 1], p50: 1, p99: 2, seconds: 5 });
  }
  const summary = summarize(records, ['a', 'b', 'c'], 'a');
  assert.equal(summary.serverCpuPerRequest, undefined, 'a metric no record has is left out');
  const b = summary.rps[1];
  assert.equal(b.median, 150.5);
  assert.equal(sig3(b.ratio), 1.5);
  assert.equal(b.stars, '***');
  assert.equal(summary.rps[2].stars, '');
  const text = formatTables(summary, 'a', { rounds: 4 });
  assert.match(text, /requests\/s \(higher is better\)/);
  assert.match(text, /\n {2}b +151 +149 - 152 +1\.50 +\d\.\de-\d+ +\*\*\*\n/);
  assert.match(text, /\n {2}a .* baseline/);
  assert.match(text, /With 6 comparisons/);
  const csv = compareCsv(records, ['a', 'b', 'c'], 'a', '-t 5 -c 10 -k').trim().split('\n');
  assert.equal(csv[0], '"binary","filename","configuration","rate","time"');
  assert.equal(csv.length, 1 + 2 * 8, "the baseline's rows once per comparison");
  assert.equal(csv[1], '"old","b vs a","-t 5 -c 10 -k",100,5');
  assert.equal(csv[2], '"new","b vs a","-t 5 -c 10 -k",150,5');
});

// A server command on this runtime: the test server on `port`, optionally writing its PID first.
function serverCommand(port, pidFile) {
  const [exe, prefix] = runtimeCommand(TESTSERVER);
  const run = [exe, ...prefix, '--quiet', String(port)].map((w) => `'${w}'`).join(' ');
  return pidFile ? `echo $$ > '${pidFile}'; exec ${run}` : run;
}

const gone = (pid) => {
  try {
    globalThis.process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
};

async function waitGone(pid) {
  // An orphan is reaped by PID 1, which can take a second or two in a container.
  for (let i = 0; i < 100 && !gone(pid); i++) await new Promise((r) => setTimeout(r, 50));
  return gone(pid);
}

// The tables, the JSON and the CSV are the same on every runtime; servers and clients as each
// runtime's processes are the tests below.
test('compare of two servers, 2 rounds of 0.5 s, prints every cell and writes the JSON and the CSV', { skip: ONE_RUNTIME }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'compare-'));
  try {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/`;
    const args = ['compare', '--server', serverCommand(port), '--name', 'a', '--server', serverCommand(port), '--name', 'b', '--url', url];
    // A rate: the tables are the point, and full speed would take both cores from the files beside.
    args.push('--rounds', '2', '-t', '0.5', '-c', '4', '--rps', '400', '--warmup', '0', '--json', join(dir, 'c.json'), '--csv', join(dir, 'c.csv'));
    const { code, stdout, stderr } = await spawnScript(CLI, args, { timeoutMs: 40000 });
    assert.equal(code, 0, stderr);
    assert.match(stderr, /round 2\/2, b \(2\/2\): loading 0.5 s/);
    for (const title of ['requests/s', 'latency p50, ms', 'latency p99, ms', 'server CPU µs per request', 'server peak RSS, MB']) {
      const table = stdout.split(`${title} (`)[1];
      assert.ok(table, `a ${title} table in:\n${stdout}`);
      assert.match(table, /^\S+ is better\)\n.*\n {2}a +[\d.,]+ +[\d.,]+ - [\d.,]+ +1\.00 +baseline\n {2}b +[\d.,]+ +[\d.,]+ - [\d.,]+ +\d+\.\d\d +[\de.-]+/, title);
    }
    const doc = JSON.parse(readFileSync(join(dir, 'c.json'), 'utf8'));
    assert.equal(doc.records.length, 4);
    assert.deepEqual(doc.records.map((r) => `${r.round}${r.candidate}`), ['1a', '1b', '2a', '2b']);
    for (const r of doc.records) {
      for (const key of ['rps', 'p50', 'p99', 'requests', 'seconds', 'serverCpuPerRequest', 'serverRssMb']) assert.equal(typeof r[key], 'number', key);
      assert.ok(r.requests > 0 && r.serverRssMb > 5, JSON.stringify(r));
    }
    assert.equal(doc.summary.rps.length, 2);
    const csv = readFileSync(join(dir, 'c.csv'), 'utf8').trim().split('\n');
    assert.equal(csv.length, 5);
    assert.match(csv[1], /^"old","b vs a","-t 0.5 -c 4 --rps 400 -k",\d+(\.\d)?,0\.\d+$/);
    assert.match(csv[2], /^"new","b vs a",/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a candidate whose server exits at start: one line naming it, exit 1, no process left behind', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'compare-'));
  try {
    const port = await freePort();
    const goodPid = join(dir, 'good.pid');
    const orphanPid = join(dir, 'orphan.pid');
    // The bad server leaves a child of its own behind in its process group, then exits.
    const bad = `sleep 30 & echo $! > '${orphanPid}'; echo 'cannot bind' >&2; exit 3`;
    const args = ['compare', '--server', serverCommand(port, goodPid), '--name', 'good', '--server', bad, '--name', 'bad'];
    args.push('--url', `http://127.0.0.1:${port}/`, '--rounds', '2', '-t', '0.5', '--warmup', '0');
    const { code, stdout, stderr } = await spawnScript(CLI, args, { timeoutMs: 30000 });
    assert.equal(code, 1);
    const lines = stderr.trim().split('\n').filter((l) => l.startsWith('loadtest'));
    assert.deepEqual(lines, [`loadtest compare: bad (round 1): the server exited with code 3 before answering on http://127.0.0.1:${port}/: cannot bind`]);
    assert.doesNotMatch(stdout, /requests\/s/);
    for (const file of [goodPid, orphanPid]) {
      const pid = Number(readFileSync(file, 'utf8'));
      assert.ok(pid > 0);
      assert.ok(await waitGone(pid), `process ${pid} (${file}) is gone`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('compare --client on two runtimes loads the same server with each, interleaved', async () => {
  const server = await rawServer(paced());
  try {
    const other = globalThis.Bun ? 'node' : 'bun';
    const here = globalThis.Bun ? 'bun' : globalThis.Deno ? 'deno' : 'node';
    const args = ['compare', '--client', `${here},${other}`, server.url, '--rounds', '2', '-t', '0.5', '-c', '2', '--warmup', '0'];
    const { code, stdout, stderr } = await spawnScript(CLI, args, { timeoutMs: 30000 });
    assert.equal(code, 0, stderr);
    assert.match(stdout, new RegExp(`\\n {2}${here} +[\\d,]+ .* baseline\\n {2}${other} +[\\d,]+ `));
    assert.doesNotMatch(stdout, /server CPU/, 'no server of its own to measure');
    const order = [...stderr.matchAll(/round (\d)\/2, (\w+) \(\d\/2\): loading/g)].map((m) => `${m[1]}${m[2]}`);
    assert.deepEqual(order, [`1${here}`, `1${other}`, `2${here}`, `2${other}`]);
    assert.ok(server.requests > 100, `${server.requests} requests served`);
  } finally {
    await server.close();
  }
});

test('compare --http2: the clients get --http2 and the plan says so, for the built-in servers and the readiness probe', () => {
  const p = plan(['--builtin', 'node,bun', '--http2', '--streams', '10']);
  assert.equal(p.http2, true);
  assert.ok(p.loadArgs.includes('--http2') && p.loadArgs.includes('--streams'), p.loadArgs.join(' '));
  assert.equal(plan(['--builtin', 'node,bun']).http2, false);
});

test('compare --script: the same k6 script against each server, its figures in every cell; load flags and levels beside it refused', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'compare-script-'));
  try {
    const script = join(dir, 'load.js');
    writeFileSync(script, `import http from 'k6/http';
import { check } from 'k6';
export const options = { vus: 2, iterations: 40, thresholds: { checks: ['rate==1'] } };
export default function () { check(http.get(__ENV.URL), { 'is 200': (r) => r.status === 200 }); }
`);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/`;
    const args = ['compare', '--server', serverCommand(port), '--name', 'a', '--server', serverCommand(port), '--name', 'b', '--url', url];
    args.push('--script', script, '--rounds', '2', '--warmup', '0', '--json', join(dir, 'c.json'));
    const before = readdirSync(tmpdir()).filter((f) => f.startsWith('loadtest-compare-script-'));
    const { code, stdout, stderr } = await spawnScript(CLI, args, { timeoutMs: 60000 });
    assert.equal(code, 0, stderr);
    assert.match(stdout, /2 rounds, the script .*load\.js, warm-up 0 s/);
    const doc = JSON.parse(readFileSync(join(dir, 'c.json'), 'utf8'));
    assert.deepEqual(doc.records.map((r) => `${r.round}${r.candidate}`), ['1a', '1b', '2a', '2b']);
    for (const r of doc.records) {
      assert.equal(r.requests, 40, JSON.stringify(r));
      assert.equal(r.errors, 0);
      for (const key of ['rps', 'p50', 'p99', 'seconds']) assert.ok(typeof r[key] === 'number' && r[key] > 0, `${key}: ${JSON.stringify(r)}`);
    }
    const exports = () => readdirSync(tmpdir()).filter((f) => f.startsWith('loadtest-compare-script-'));
    assert.deepEqual(exports().filter((f) => !before.includes(f)), [], 'the summary exports are removed');
    for (const [extra, message] of [
      [['-c', '5'], /--script: the script sets the load; leave out -c 5/],
      [['--rps', '10,20'], /--rps and --sweep levels are for a URL/],
    ]) {
      const r = await spawnScript(CLI, ['compare', '--builtin', 'node,bun', '--script', script, ...extra]);
      assert.equal(r.code, 2);
      assert.match(r.stderr, message);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
