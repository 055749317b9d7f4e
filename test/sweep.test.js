// --sweep 2,4,8: the same test at each concurrency level, one row per level; the JSON document
// holds every level's result; bad lists and contradicting flags are one-line usage errors.

// --sweep is the same plan of runs on every runtime (the runs are other tests'): under node
// (scope.js).
import { oneRuntimeTest as test } from './scope.js';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseLevels, sweepHeader, sweepRow, firstFailing } from '../src/run/sweep.js';
import { rawServer, ok, spawnScript, inTurn } from './servers.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const show = (r) => `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;

/** The table's rows as objects, by the header's column names. */
function rows(text) {
  const lines = text.trim().split('\n');
  const header = lines[0].trim().split(/\s{2,}/);
  return lines.slice(1).filter((l) => /^\s+\d/.test(l)).map((line) => Object.fromEntries(line.trim().split(/\s{2,}/).map((v, i) => [header[i], v])));
}

const countingServer = () => rawServer(({ socket }) => socket.write(ok()));

test('--sweep 2,4,8 -n 300: three rows of 300 requests, at 2, 4 and 8 connections', async () => {
  const server = await countingServer();
  try {
    const r = await spawnScript(CLI, ['--sweep', '2,4,8', '-n', '300', '-k', '--quiet', server.url]);
    assert.equal(r.code, 0, show(r));
    assert.equal(r.stderr, '', show(r));
    const table = rows(r.stdout);
    assert.deepEqual(Object.keys(table[0]), ['Concurrency', 'Requests', 'Requests/s', 'Mean (ms)', 'p50 (ms)', 'p99 (ms)', 'Errors', 'Error rate']);
    assert.deepEqual(table.map((row) => row.Concurrency), ['2', '4', '8']);
    for (const row of table) {
      assert.equal(row.Requests, '300');
      assert.equal(row.Errors, '0');
      assert.equal(row['Error rate'], '0 %');
      assert.ok(Number(row['Requests/s']) > 0 && Number(row['p99 (ms)']) >= Number(row['p50 (ms)']), JSON.stringify(row));
    }
    assert.equal(server.requests, 900);
    // Keep-alive: one connection per connection of each level.
    assert.equal(server.connections, 2 + 4 + 8);
  } finally {
    await server.close();
  }
});

test('--sweep --json: one document with each level\'s full result; --json-file and --html the same sweep', async () => {
  const server = await countingServer();
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-sweep-'));
  try {
    const file = join(dir, 's.json');
    const html = join(dir, 's.html');
    const r = await spawnScript(CLI, ['--sweep', '1,3', '-n', '120', '-k', '--json', '--quiet', '--json-file', file, '--html', html, server.url]);
    assert.equal(r.code, 0, show(r));
    assert.equal(r.stderr, '', show(r));
    const doc = JSON.parse(r.stdout);
    assert.deepEqual(doc.sweep, [1, 3]);
    assert.equal(doc.url, server.url);
    assert.deepEqual(doc.results.map((x) => [x.concurrency, x.totalRequests, x.totalErrors]), [[1, 120, 0], [3, 120, 0]]);
    for (const x of doc.results) assert.ok(x.latencyHistogram.buckets.length > 0 && x.series.length > 0);
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), doc);
    const page = readFileSync(html, 'utf8');
    assert.ok(page.includes('id="sweep-rate"') && page.includes('id="sweep-latency"'));
    assert.equal((page.match(/<details>/g) || []).length, 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.close();
  }
});

test('--sweep with --cores 2: each level split over two children, the requests of each level exact', async () => {
  const server = await countingServer();
  try {
    const r = await spawnScript(CLI, ['--sweep', '2,4', '-n', '200', '-k', '--cores', '2', '--json', '--quiet', server.url]);
    assert.equal(r.code, 0, show(r));
    const doc = JSON.parse(r.stdout);
    assert.deepEqual(doc.results.map((x) => [x.concurrency, x.cores, x.totalRequests]), [[2, 2, 200], [4, 2, 200]]);
    assert.equal(server.requests, 400);
  } finally {
    await server.close();
  }
});

test('--sweep: a level where every request fails ends the sweep with one line, exit 1, after its row', async () => {
  const server = await rawServer(({ socket }) => socket.destroy());
  try {
    const r = await spawnScript(CLI, ['--sweep', '2,4', '-n', '10', '--quiet', server.url]);
    assert.equal(r.code, 1, show(r));
    assert.deepEqual(rows(r.stdout).map((row) => [row.Concurrency, row.Errors, row['Error rate']]), [['2', '10', '100 %']]);
    assert.match(r.stderr, /^loadtest: at 2 connections: .+\n$/);
  } finally {
    await server.close();
  }
});

test('--sweep: a bad list or a flag that contradicts it is one line, exit 2, before anything is sent', async () => {
  const server = await countingServer();
  try {
    const cases = [
      [['--sweep', '2,x'], /--sweep must be a list of connection counts .* got 'x'/],
      [['--sweep', '0,4'], /got '0'/],
      [['--sweep', '2,,4'], /got '2,,4'/],
      [['--sweep', '1.5'], /got '1.5'/],
      [['--sweep', '-3'], /got '-3'/],
      [['--sweep', ''], /option --sweep needs a value/],
      [['--sweep', '2,4', '--rps', '100'], /with --rps the rate is the knob/],
      [['--sweep', '2,4', '-c', '8'], /leave out -c/],
      [['--sweep', '2,4', '--threshold', 'p99<5ms'], /--sweep does not go with --threshold/],
      [['--sweep', '2,4', '--shard', '1/2'], /--sweep does not go with --shard/],
    ];
    const results = await inTurn(cases, ([args]) => spawnScript(CLI, [...args, '-n', '10', server.url]));
    results.forEach((r, i) => {
      assert.equal(r.code, 2, show(r));
      assert.equal(r.stdout, '', show(r));
      assert.match(r.stderr, /^loadtest: [^\n]+\n$/, show(r));
      assert.match(r.stderr, cases[i][1], show(r));
    });
    assert.equal(server.requests, 0);
  } finally {
    await server.close();
  }
});

test('parseLevels and the table: rows line up under the header, the first failing level is named', () => {
  assert.deepEqual(parseLevels('8, 32,128'), [8, 32, 128]);
  assert.throws(() => parseLevels('8;32'), /got '8;32'/);
  const result = (concurrency, totalRequests, totalErrors) => ({ concurrency, totalRequests, totalErrors, effectiveRps: 123456, meanLatencyMs: 1.234, percentiles: { 50: 1, 99: 12.345 } });
  const table = [sweepHeader(), sweepRow(result(8, 1000, 0)), sweepRow(result(4096, 1000000, 2500))];
  assert.equal(new Set(table.map((l) => l.length)).size, 1, table.join('\n'));
  assert.match(table[2], /4096\s+1000000\s+123456\s+1\.234\s+1\s+12\.345\s+2500\s+0\.25 %$/);
  assert.equal(firstFailing([result(8, 100, 0), result(64, 200, 3), result(512, 100, 50)]), 'First errors at 64 connections: 3 of 200 requests (1.5 %)');
  assert.equal(firstFailing([result(8, 100, 0)]), null);
});
