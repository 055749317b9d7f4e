// Thresholds: "p99<50ms", "errors<1%", "rps>=5000" parsed before a run, checked on its result,
// listed in the report, and exit code 3 from the CLI (and from loadtest merge) when one fails.

// Thresholds are parsed and checked by the core, and the CLI's exit codes are cli.test.js's on
// every runtime: these run under node (scope.js).
import { oneRuntimeTest as test } from './scope.js';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { tmpdir, cpus } from 'node:os';
import { join } from 'node:path';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { parseThreshold, parseThresholds, checkThresholds } from '../src/results/thresholds.js';
import { makeResult } from '../src/run/result.js';
import { Stats } from '../src/run/stats.js';
import { formatReport } from '../src/results/report.js';
import { loadTest } from '../src/index.js';
import { rawServer, ok, spawnScript } from './servers.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const runCli = (args) => spawnScript(CLI, args);
const show = (r) => `exit ${r.code}\nstdout: ${r.stdout.slice(0, 3000)}\nstderr: ${r.stderr}`;

// A result over known numbers: 100 latencies of 10, 20, ... 1000 µs (below 2048 µs the histogram
// is exact: p50 = 500 µs, p99 = 990 µs, mean 505 µs), 200 requests of which 3 errors, in 0.5 s (400 rps).
function knownResult(thresholds) {
  const stats = new Stats();
  for (let us = 10; us <= 1000; us += 10) stats.histogram.record(us);
  stats.completed = 198;
  stats.failed = 2;
  stats.errors = { ECONNRESET: 2 };
  stats.httpErrors = 1;
  stats.statusCounts[200] = 197;
  stats.statusCounts[500] = 1;
  stats.elapsedMs = 500;
  return makeResult({ url: 'http://x/', concurrency: 1, thresholds: parseThresholds(thresholds) }, stats);
}

test('parseThreshold: metric, operator, limit and unit (ms by default for latency), spaces allowed', () => {
  assert.deepEqual(parseThreshold('p99<50ms'), { threshold: 'p99<50ms', metric: 'p99', op: '<', limit: 50, unit: 'ms', percentile: 99 });
  assert.deepEqual(parseThreshold(' p99.9 <= 0.2s '), { threshold: 'p99.9 <= 0.2s', metric: 'p99.9', op: '<=', limit: 0.2, unit: 's', percentile: 99.9 });
  assert.deepEqual(parseThreshold('p75>3'), { threshold: 'p75>3', metric: 'p75', op: '>', limit: 3, unit: 'ms', percentile: 75 });
  assert.deepEqual(parseThreshold('mean<800us'), { threshold: 'mean<800us', metric: 'mean', op: '<', limit: 800, unit: 'us' });
  assert.deepEqual(parseThreshold('max < 2 µs'), { threshold: 'max < 2 µs', metric: 'max', op: '<', limit: 2, unit: 'us' });
  assert.equal(parseThreshold('min>=.5').limit, 0.5);
  assert.deepEqual(parseThreshold('errors<1%'), { threshold: 'errors<1%', metric: 'errors', op: '<', limit: 1, unit: '%' });
  assert.deepEqual(parseThreshold('errors < 10'), { threshold: 'errors < 10', metric: 'errors', op: '<', limit: 10, unit: '' });
  assert.deepEqual(parseThreshold('rps>=5000'), { threshold: 'rps>=5000', metric: 'rps', op: '>=', limit: 5000, unit: '' });
  assert.equal(parseThreshold('p99.90<1').metric, 'p99.9');
  assert.equal(parseThreshold('p100<1').percentile, 100);
  assert.deepEqual(parseThresholds('rps>1').map((t) => t.metric), ['rps']);
  assert.deepEqual(parseThresholds(undefined), []);
});

test('parseThreshold: a malformed threshold is one line naming it and what is expected', () => {
  const cases = [
    ['p99<abc', /^threshold 'p99<abc': expected <metric><op><value>\[unit\], e\.g\. p99<50ms/],
    ['p99=50ms', /^threshold 'p99=50ms': expected <metric><op><value>/],
    ['p99<', /^threshold 'p99<': expected/],
    ['p99<-5', /^threshold 'p99<-5': expected/],
    ['', /^threshold '': expected/],
    ['p101<5', /^threshold 'p101<5': a percentile is between 0 and 100$/],
    ['latency<5', /^threshold 'latency<5': unknown metric 'latency' \(p50, p99\.9 or any pN/],
    ['p99<5min', /^threshold 'p99<5min': latency takes us, µs, ms \(the default\) or s, not 'min'$/],
    ['errors<5ms', /^threshold 'errors<5ms': errors are a count \(errors<10\) or a percentage \(errors<1%\), not 'ms'$/],
    ['errors<150%', /^threshold 'errors<150%': a percentage is between 0 and 100$/],
    ['rps>5/s', /^threshold 'rps>5\/s': rps takes no unit, not '\/s'$/],
  ];
  for (const [text, message] of cases) {
    assert.throws(() => parseThreshold(text), (err) => message.test(err.message) && !err.message.includes('\n'), text);
  }
  assert.throws(() => parseThresholds(42), /^Error: thresholds must be a string or an array of strings/);
  assert.throws(() => parseThresholds(['p99<1', 5]), /^Error: threshold 5: must be a string/);
});

test('checkThresholds: each kind passes and fails on exact numbers, actual in the threshold unit', () => {
  const r = knownResult([
    'p50<=0.5ms', 'p50<0.5', 'p99 < 0.001s', 'p99>=991us', 'mean<0.505', 'mean<=505us', 'min>=0.01', 'max>1',
    'errors<=3', 'errors<3', 'errors<1.6%', 'errors<=1.5%', 'rps>=400', 'rps>400',
  ]);
  const got = Object.fromEntries(r.thresholds.map((t) => [t.threshold, [t.actual, t.passed]]));
  assert.deepEqual(got, {
    'p50<=0.5ms': [0.5, true],
    'p50<0.5': [0.5, false],
    'p99 < 0.001s': [0.00099, true],
    'p99>=991us': [990, false],
    'mean<0.505': [0.505, false],
    'mean<=505us': [505, true],
    'min>=0.01': [0.01, true],
    'max>1': [1, false],
    'errors<=3': [3, true],
    'errors<3': [3, false],
    'errors<1.6%': [1.5, true],
    'errors<=1.5%': [1.5, true],
    'rps>=400': [400, true],
    'rps>400': [400, false],
  });
  assert.deepEqual(r.thresholds[0], { threshold: 'p50<=0.5ms', metric: 'p50', op: '<=', limit: 0.5, unit: 'ms', actual: 0.5, passed: true });
  // checkThresholds on its own gives the same.
  assert.deepEqual(checkThresholds([parseThreshold('errors<1%')], r), [{ threshold: 'errors<1%', metric: 'errors', op: '<', limit: 1, unit: '%', actual: 1.5, passed: false }]);
  assert.equal('thresholds' in knownResult(undefined), false, 'no thresholds given, no key');
});

test('report: a Thresholds section at the end, each passed or failed with its actual value, coloured when asked', () => {
  const r = knownResult(['p99<0.5ms', 'errors<2%', 'rps>=5000', 'p99.9 <= 0.2s', 'mean<1000us']);
  const text = formatReport(r, false);
  assert.ok(text.endsWith('Thresholds\n  ✗ p99<0.5ms (p99 = 0.99 ms)\n  ✓ errors<2% (errors = 1.5%)\n  ✗ rps>=5000 (rps = 400)\n  ✓ p99.9 <= 0.2s (p99.9 = 0.001 s)\n  ✓ mean<1000us (mean = 505 us)'), text);
  const colored = formatReport(r, true);
  assert.ok(colored.includes('\x1b[31m  ✗ p99<0.5ms (p99 = 0.99 ms)\x1b[39m'), colored);
  assert.ok(colored.includes('\x1b[32m  ✓ errors<2% (errors = 1.5%)\x1b[39m'), colored);
  assert.equal(formatReport(knownResult(undefined)).includes('Thresholds'), false);
});

// A server that answers every fourth request with a 500: 25% errors.
const quarterErrors = () => rawServer(({ socket, server: s }) => socket.write(s.requests % 4 === 0 ? ok('x').replace('200 OK', '500 Oops') : ok()));

test('API: a malformed threshold rejects before anything is sent', async () => {
  const server = await quarterErrors();
  try {
    await assert.rejects(loadTest({ url: server.url, maxRequests: 10, thresholds: ['p99<50ms', 'p99<abc'] }), /^Error: threshold 'p99<abc': expected/);
    await assert.rejects(loadTest({ url: server.url, maxRequests: 10, thresholds: 'errors<5s' }), /^Error: threshold 'errors<5s': errors are a count/);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(server.requests, 0);
    assert.equal(server.connections, 0);
  } finally {
    await server.close();
  }
});

test('API: the result has thresholds checked on the run (a single string allowed), none when not given', async () => {
  const server = await quarterErrors();
  try {
    const r = await loadTest({ url: server.url, maxRequests: 200, concurrency: 4, agentKeepAlive: true, quiet: true, thresholds: ['errors<=25%', 'errors<50', 'p99<60s', 'rps>0'] });
    assert.equal(r.totalErrors, 50);
    assert.deepEqual(r.thresholds.map((t) => [t.threshold, t.actual, t.passed]), [
      ['errors<=25%', 25, true],
      ['errors<50', 50, false],
      ['p99<60s', Math.round(r.histogram.percentile(99)) / 1e6, true],
      ['rps>0', r.effectiveRps, true],
    ]);
    const single = await loadTest({ url: server.url, maxRequests: 4, quiet: true, thresholds: 'max<1us' });
    assert.equal(single.thresholds.length, 1);
    assert.equal(single.thresholds[0].passed, false);
    assert.equal(single.thresholds[0].actual, single.histogram.max);
    const none = await loadTest({ url: server.url, maxRequests: 4, quiet: true });
    assert.equal('thresholds' in none, false);
  } finally {
    await server.close();
  }
});

test('API: with cores > 1 the thresholds are checked on the merged result', { skip: cpus().length < 2 && 'one core' }, async () => {
  const server = await quarterErrors();
  try {
    const r = await loadTest({ url: server.url, maxRequests: 200, concurrency: 4, cores: 2, agentKeepAlive: true, quiet: true, thresholds: ['errors<=50', 'errors<25%'] });
    assert.equal(r.cores, 2);
    assert.equal(r.totalRequests, 200);
    assert.deepEqual(r.thresholds.map((t) => [t.actual, t.passed]), [[50, true], [25, false]]);
  } finally {
    await server.close();
  }
});

test('CLI: thresholds of each kind that hold exit 0; the report lists them passed', async () => {
  const server = await quarterErrors();
  try {
    const r = await runCli(['-n', '200', '-c', '4', '-k', '--threshold', 'p99<60s', '--threshold', 'mean <= 60000ms', '--threshold', 'errors<=25%',
      '--threshold', 'errors<51', '--threshold', 'rps>=1', '--threshold', 'min>0', server.url]);
    assert.equal(r.code, 0, show(r));
    const section = r.stdout.slice(r.stdout.indexOf('\nThresholds\n'));
    assert.match(section, /^\nThresholds\n  ✓ p99<60s \(p99 = [\d.]+ s\)\n  ✓ mean <= 60000ms \(mean = [\d.]+ ms\)\n  ✓ errors<=25% \(errors = 25%\)\n  ✓ errors<51 \(errors = 50\)\n  ✓ rps>=1 \(rps = \d+\)\n  ✓ min>0 \(min = [\d.]+ ms\)\n$/);
    assert.equal(r.stderr, '');
  } finally {
    await server.close();
  }
});

test('CLI: a failed threshold of any kind exits 3 after the report, with one line naming the failures', async () => {
  const server = await quarterErrors();
  try {
    for (const [threshold, actual] of [['p99<1us', /p99 = \d+ us/], ['mean<0.001', /mean = [\d.]+ ms/], ['errors<25%', /errors = 25%/], ['errors<50', /errors = 50/], ['rps>1000000000', /rps = \d+/]]) {
      const r = await runCli(['-n', '200', '-c', '4', '-k', '--threshold', 'rps>0', '--threshold', threshold, server.url]);
      assert.equal(r.code, 3, show(r));
      assert.match(r.stdout, /Completed requests: +200\n/);
      assert.ok(r.stdout.includes(`  ✗ ${threshold} (`), show(r));
      assert.ok(r.stdout.includes('  ✓ rps>0 ('), show(r));
      const line = r.stderr.trim();
      assert.equal(line.split('\n').length, 1, line);
      assert.ok(line.startsWith(`loadtest: 1 of 2 thresholds failed: ${threshold} (`), line);
      assert.match(line, actual);
    }
  } finally {
    await server.close();
  }
});

test('CLI: --json carries the thresholds, and a failed one still exits 3', async () => {
  const server = await quarterErrors();
  try {
    const r = await runCli(['-n', '100', '-c', '2', '-k', '--json', '--threshold', 'errors < 20%', '--threshold', 'errors<=25', server.url]);
    assert.equal(r.code, 3, show(r));
    const doc = JSON.parse(r.stdout);
    assert.deepEqual(doc.thresholds, [
      { threshold: 'errors < 20%', metric: 'errors', op: '<', limit: 20, unit: '%', actual: 25, passed: false },
      { threshold: 'errors<=25', metric: 'errors', op: '<=', limit: 25, unit: '', actual: 25, passed: true },
    ]);
  } finally {
    await server.close();
  }
});

test('CLI: a malformed threshold is a usage error (exit 2, one line) and nothing is sent', async () => {
  const server = await quarterErrors();
  try {
    for (const [args, message] of [
      [['--threshold', 'p99<abc'], "loadtest: threshold 'p99<abc': expected <metric><op><value>[unit], e.g. p99<50ms, errors<1%, rps>=5000"],
      [['--threshold', 'p99<1', '--threshold', 'tps>5'], "loadtest: threshold 'tps>5': unknown metric 'tps' (p50, p99.9 or any pN (0 to 100), mean, min, max, errors, rps, or a phase\'s latency: connect.p99, tls.max, wait.p50, receive.mean)"],
      [['--threshold', ''], 'loadtest: option --threshold needs a value, e.g. --threshold p99<50ms'],
    ]) {
      const r = await runCli(['-n', '10', ...args, server.url]);
      assert.equal(r.code, 2, show(r));
      assert.equal(r.stderr, message + '\n');
      assert.equal(r.stdout, '');
    }
    assert.equal(server.requests, 0);
    assert.equal(server.connections, 0);
  } finally {
    await server.close();
  }
});

test('CLI: a run that fails outright keeps exit 1, whatever the thresholds', async () => {
  const server = await rawServer(() => {});
  const url = server.url;
  await server.close();
  const r = await runCli(['-n', '3', '--threshold', 'errors<1', url]);
  assert.equal(r.code, 1, show(r));
  assert.match(r.stderr.trim(), /^loadtest: connection refused by 127\.0\.0\.1:\d+$/);
});

test('merge --threshold: thresholds on the merged result, exit 3 when one fails, 2 when malformed', async () => {
  const server = await quarterErrors();
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-thresholds-'));
  try {
    const files = [join(dir, 'a.json'), join(dir, 'b.json')];
    for (const file of files) {
      const r = await runCli(['-n', '100', '-c', '2', '-k', '--json-file', file, '--threshold', 'errors<=25', server.url]);
      assert.equal(r.code, 0, show(r));
    }
    const errors = files.map((f) => JSON.parse(readFileSync(f, 'utf8')).totalErrors).reduce((a, b) => a + b);
    assert.equal(errors, 50);
    const passed = await runCli(['merge', ...files, '--threshold', 'errors<=50', '--threshold', 'errors<=25%']);
    assert.equal(passed.code, 0, show(passed));
    assert.match(passed.stdout, /Completed requests: +200\n/);
    assert.match(passed.stdout, /\nThresholds\n  ✓ errors<=50 \(errors = 50\)\n  ✓ errors<=25% \(errors = 25%\)\n$/);
    const failed = await runCli(['merge', ...files, '--json', '--threshold', 'errors<=25']);
    assert.equal(failed.code, 3, show(failed));
    // The shards' own thresholds (errors<=25, each passed) are not the merged result's.
    assert.deepEqual(JSON.parse(failed.stdout).thresholds, [{ threshold: 'errors<=25', metric: 'errors', op: '<=', limit: 25, unit: '', actual: 50, passed: false }]);
    // Run one after the other, the two may have started over a second apart: merge says so.
    const said = failed.stderr.replace(/^loadtest merge: warning: the results started [\d.]+ s apart; .*\n/, '');
    assert.equal(said, 'loadtest merge: 1 of 1 thresholds failed: errors<=25 (errors = 50)\n');
    const none = await runCli(['merge', ...files, '--json']);
    assert.equal(none.code, 0, show(none));
    assert.equal('thresholds' in JSON.parse(none.stdout), false);
    const bad = await runCli(['merge', ...files, '--threshold', 'p99<<5']);
    assert.equal(bad.code, 2, show(bad));
    assert.equal(bad.stderr, "loadtest merge: threshold 'p99<<5': expected <metric><op><value>[unit], e.g. p99<50ms, errors<1%, rps>=5000\n");
    assert.equal(bad.stdout, '');
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.close();
  }
});

test('checkThresholds: with no response at all, a latency threshold fails (actual null), errors and rps still count', () => {
  const stats = new Stats();
  stats.failed = 4;
  stats.errors = { ECONNREFUSED: 4 };
  stats.elapsedMs = 100;
  const r = makeResult({ url: 'http://x/', concurrency: 1, thresholds: parseThresholds(['p99<1000ms', 'max<5s', 'errors<=4', 'rps>=40']) }, stats);
  assert.deepEqual(r.thresholds.map((t) => [t.threshold, t.actual, t.passed]), [
    ['p99<1000ms', null, false],
    ['max<5s', null, false],
    ['errors<=4', 4, true],
    ['rps>=40', 40, true],
  ]);
  assert.match(formatReport(r), /✗ p99<1000ms \(p99: no responses\)/);
});
