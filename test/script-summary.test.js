// k6 v1's end-of-test summary: compact by default (thresholds, then the totals: checks by name,
// custom metrics first, then HTTP, execution, network), full (also each group and scenario with
// only its own figures, the same with --cores 2 and from shards merged), legacy (k6 v0's, with
// k6's deprecation note) and disabled (no handleSummary() and no --summary-export, as in k6 v1).
// The counts in each section are checked against what the server counted. Exact layout beside
// k6's own renderer: bench/summary-vs-k6.js; beside k6 on real scripts: test/k6-corpus.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rawServer, spawnScript, ok } from './servers.js';
import { collated, byName } from '../src/script/summary/summary.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

// Two scenarios, groups within groups, checks that fail, a custom Counter and Trend, thresholds
// on a metric and a sub-metric; per-vu-iterations so that every count is known.
const SCRIPT = `import http from 'k6/http';
import { check, group } from 'k6';
import { Counter, Trend } from 'k6/metrics';
const orders = new Counter('orders');
const basket = new Trend('basket');
export const options = {
  scenarios: {
    shop: { executor: 'per-vu-iterations', vus: 2, iterations: 3, exec: 'shop' },
    browse: { executor: 'per-vu-iterations', vus: 1, iterations: 2, exec: 'browse' },
  },
  thresholds: { orders: ['count==6'], 'http_reqs{scenario:browse}': ['count==2'], checks: ['rate>0.9'] },
};
export function setup() { return { token: 't1' }; }
export function shop() {
  group('cart', () => {
    http.get(\`\${__ENV.BASE}/cart\`);
    group('pay', () => {
      check(http.get(\`\${__ENV.BASE}/pay\`), { 'paid': (r) => r.status === 200 });
      orders.add(1);
      basket.add(40);
    });
  });
}
export function browse() {
  const r = http.get(\`\${__ENV.BASE}/list\`);
  check(r, { 'listed': (x) => x.status === 200, 'is json': (x) => x.status === 201 });
}
`;

async function withScript(source, fn) {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-summary-'));
  const server = await rawServer(({ socket }) => socket.write(ok()));
  try {
    const path = join(dir, 'test.js');
    writeFileSync(path, source);
    const base = server.url.replace(/\/$/, '');
    // The last argument may be { env } for the command's environment.
    const run = (...args) => {
      const extra = typeof args.at(-1) === 'object' ? args.pop() : {};
      return spawnScript(CLI, ['run', '-q', '-e', `BASE=${base}`, ...args, path], { timeoutMs: 60000, ...extra });
    };
    await fn({ run, server, dir });
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// The titles of the sections, in order.
const titles = (stdout) => [...stdout.matchAll(/^ +[█↳] (.+) $/gm)].map((m) => m[1]);

// The text of the section titled `title`, to the next top-level title.
function section(stdout, title) {
  const start = stdout.indexOf(`  █ ${title} \n`);
  assert.ok(start >= 0, `no section ${title} in\n${stdout}`);
  const next = stdout.indexOf('\n  █ ', start + 1);
  return stdout.slice(start, next < 0 ? undefined : next);
}

test('compact by default: the thresholds, then the totals; no groups or scenarios', async () => {
  await withScript(SCRIPT, async ({ run, server }) => {
    const r = await run();
    assert.equal(r.code, 99, r.stderr); // 'is json' fails: checks 8/10 < 0.9
    assert.equal(server.requests, 14);
    assert.deepEqual(titles(r.stdout), ['THRESHOLDS', 'TOTAL RESULTS']);
    const thresholds = section(r.stdout, 'THRESHOLDS');
    // Sorted by name, each with its threshold's figure.
    assert.match(thresholds, /\n {4}checks\n {4}✗ 'rate>0\.9' rate=80\.00%\n\n {4}http_reqs\{scenario:browse\}\n {4}✓ 'count==2' count=2\n\n {4}orders\n {4}✓ 'count==6' count=6\n/);
    const total = section(r.stdout, 'TOTAL RESULTS');
    assert.match(total, /\n {4}checks_total\.{7}: 10 +[\d.]+\/s\n {4}checks_succeeded\.{3}: 80\.00% 8 out of 10\n {4}checks_failed\.{6}: 20\.00% 2 out of 10\n/);
    // In the order they first came (the two scenarios race): each once.
    assert.match(total, /\n {4}✓ paid\n/);
    assert.match(total, /\n {4}✓ listed\n/);
    assert.match(total, /\n {4}✗ is json\n {6}↳ {2}0% — ✓ 0 \/ ✗ 2\n/);
    // Custom first, then HTTP (without the parts of a request's time), execution, network.
    assert.deepEqual([...total.matchAll(/^ {4}([A-Z]+)$/gm)].map((m) => m[1]), ['CUSTOM', 'HTTP', 'EXECUTION', 'NETWORK']);
    assert.match(total, /\n {4}basket\.+: avg=40 +min=40 +med=40 +max=40 /);
    assert.match(total, /\n {4}orders\.+: 6 /);
    assert.match(total, /\n {4}http_reqs\.+: 14 /);
    assert.match(total, /\n {6}\{ scenario:browse \}\.+: 2 /);
    assert.match(total, /\n {4}iterations\.+: 8 /);
    assert.doesNotMatch(total, /http_req_blocked|http_req_waiting|group_duration/);
    // Every name of a block ends on the same column.
    for (const block of total.split('\n\n')) {
      const colons = [...block.matchAll(/^.*?\.{3,}:/gm)].map((m) => m[0].length);
      assert.equal(new Set(colons).size <= 1, true, block);
    }
  });
});

test('full: each scenario and its groups with their own figures, the same with --cores 2', async () => {
  await withScript(SCRIPT, async ({ run, server }) => {
    for (const cores of ['1', '2']) {
      const before = server.requests;
      const r = await run('--summary-mode', 'full', '--cores', cores);
      assert.equal(r.code, 99, r.stderr);
      assert.equal(server.requests - before, 14);
      // Scenarios by name; a scenario's groups within it, as k6 v1 shows them.
      assert.deepEqual(titles(r.stdout), ['THRESHOLDS', 'TOTAL RESULTS', 'SCENARIO: browse', 'SCENARIO: shop', 'GROUP: cart', 'GROUP: pay']);
      const total = section(r.stdout, 'TOTAL RESULTS');
      assert.match(total, /\n {4}http_req_blocked\.+: avg=/, 'full shows the parts of a request');
      const browse = section(r.stdout, 'SCENARIO: browse');
      assert.match(browse, /\n {4}checks_total\.+: 4 /);
      assert.match(browse, /\n {4}✓ listed\n {4}✗ is json\n/);
      assert.match(browse, /\n {4}http_reqs\.+: 2 /);
      assert.match(browse, /\n {4}iterations\.+: 2 /);
      const shop = section(r.stdout, 'SCENARIO: shop');
      assert.match(shop, /\n {4}iterations\.+: 6 /);
      // A scenario's figures are all of its samples, its groups' too (as k6 v1 has them).
      assert.match(shop.split('↳ GROUP: cart')[0], /\n {4}http_reqs\.+: 12 /);
      // cart's own request, then pay's within it: its checks, request and custom figures.
      assert.match(shop, /\n {4}↳ GROUP: cart \n\n {6}HTTP\n(.+\n)* {6}http_reqs\.+: 6 /);
      const pay = shop.slice(shop.indexOf('↳ GROUP: pay'));
      assert.match(pay, /^↳ GROUP: pay \n\n {8}checks_total\.+: 6 +[\d.]+\/s\n/);
      assert.match(pay, /\n {8}✓ paid\n/);
      assert.match(pay, /\n {8}CUSTOM\n {8}basket\.+: avg=40 .*\n {8}orders\.+: 6 /);
      assert.match(pay, /\n {8}http_reqs\.+: 6 /);
      assert.doesNotMatch(pay, /iterations|data_sent|group_duration/, 'iterations and bytes are not a group\'s');
    }
  });
});

test('legacy, which k6 v2.0 removed: k6 v0\'s summary as k6 v1 wrote it, and a line saying so; --no-summary and K6_NO_SUMMARY too; disabled: no handleSummary(), no export', async () => {
  const script = SCRIPT + `export function handleSummary(data) {
  if (__ENV.MODE === 'none') return undefined;
  if (__ENV.MODE === 'throw') throw new Error('boom');
  return { stdout: JSON.stringify({ setup: data.setup_data, keys: Object.keys(data).sort() }) };
}
`;
  await withScript(script, async ({ run, dir }) => {
    const legacy = await run('--summary-mode', 'legacy', '-e', 'MODE=none');
    assert.match(legacy.stderr, /^loadtest run: the "legacy" summary mode was removed in k6 v2\.0 \("compact" or "full" are its modes now\): written as k6 v1 wrote it$/m);
    const flag = await run('--no-summary', '-e', 'MODE=none');
    assert.equal(flag.code, 99, flag.stderr);
    assert.doesNotMatch(flag.stdout, /checks/);
    assert.match(flag.stderr, /^loadtest run: --no-summary was removed in k6 v2\.0 \(--summary-mode=disabled is its form now\): taken as k6 v1 took it$/m);
    const env = await run('-e', 'MODE=none', { env: { K6_NO_SUMMARY: 'true' } });
    assert.doesNotMatch(env.stdout, /checks/);
    assert.match(env.stderr, /^loadtest run: K6_NO_SUMMARY is no longer read by k6 v2\.0/m);
    assert.match(legacy.stdout, /✗ checks\.+: 80\.00% +✓ 8 +✗ 2/);
    assert.doesNotMatch(legacy.stdout, /TOTAL RESULTS/);
    // handleSummary() gets setup()'s data; no result, or an exception, is the summary printed.
    const custom = await run();
    assert.deepEqual(JSON.parse(custom.stdout), { setup: { token: 't1' }, keys: ['metrics', 'options', 'root_group', 'setup_data', 'state'] });
    for (const mode of ['none', 'throw']) {
      const r = await run('-e', `MODE=${mode}`);
      assert.match(r.stdout, /█ TOTAL RESULTS/, mode);
    }
    const exported = join(dir, 'summary.json');
    const disabled = await run('--summary-mode', 'disabled', '--summary-export', exported);
    assert.equal(disabled.code, 99, disabled.stderr);
    assert.equal(disabled.stdout, '');
    assert.equal(existsSync(exported), false, 'k6 v1 writes no export with the summary disabled');
    const plain = await run('-e', 'MODE=none', '--summary-export', exported);
    assert.equal(JSON.parse(readFileSync(exported, 'utf8')).metrics.orders.count, 6, plain.stderr);
  });
});

test('shards merged: loadtest merge --summary-mode full shows the groups of the whole', async () => {
  await withScript(SCRIPT, async ({ run, dir }) => {
    const files = [1, 2].map((i) => join(dir, `s${i}.json`));
    const started = Date.now() + 1500;
    const shards = await Promise.all(files.map((f, i) => run('--summary-mode', 'full', '--shard', `${i + 1}/2`, '--start-at', String(started), '--result', f)));
    for (const s of shards) assert.equal(s.code === 0 || s.code === 99, true, s.stderr);
    const merged = await spawnScript(CLI, ['merge', '--summary-mode', 'full', ...files], { timeoutMs: 30000 });
    assert.equal(merged.code, 99, merged.stderr);
    assert.deepEqual(titles(merged.stdout), ['THRESHOLDS', 'TOTAL RESULTS', 'SCENARIO: browse', 'SCENARIO: shop', 'GROUP: cart', 'GROUP: pay']);
    assert.match(section(merged.stdout, 'SCENARIO: shop'), /↳ GROUP: pay \n\n {8}checks_total\.+: 6 /);
    const bad = await spawnScript(CLI, ['merge', '--summary-mode', 'short', ...files], { timeoutMs: 30000 });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--summary-mode 'short': compact, full, legacy or disabled/);
  });
});

test("the summary's order of names is localeCompare's (k6's), without loading ICU's collator for names of _, digits and small letters", () => {
  // Random names, most of _, digits and small letters (the fast way), the rest with capitals,
  // braces, colons, dots and accents (given to localeCompare).
  let seed = 11;
  const random = (n) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const plain = 'ab_z09y';
  const any = `${plain}A{:-. é`;
  const name = (chars) => Array.from({ length: random(7) }, () => chars[random(chars.length)]).join('');
  for (let i = 0; i < 20000; i++) {
    const chars = i % 3 === 0 ? any : plain;
    const [a, b] = [name(chars), name(chars)];
    assert.equal(Math.sign(collated(a, b)), Math.sign(a.localeCompare(b)), `${JSON.stringify(a)} against ${JSON.stringify(b)}`);
  }
  const names = ['iterations', 'http_reqs', 'http_req_duration', 'http_req_failed', 'data_sent', 'vus_max', 'vus', 'iteration_duration', 'checks', 'x2', 'x_1', 'x10'];
  assert.deepEqual([...names].sort(collated), [...names].sort((a, b) => a.localeCompare(b)));
});

// Every run has http_req_duration{expected_response:true}: a metric's one sub-metric goes after it
// without ICU's collator (some 30 ms on node and Deno), several are ordered by it.
test('a metric comes before its sub-metrics, ordered as k6 orders them, one alone without localeCompare', () => {
  const calls = [];
  const localeCompare = String.prototype.localeCompare;
  String.prototype.localeCompare = function (...args) {
    calls.push(String(this));
    return localeCompare.apply(this, args);
  };
  try {
    const one = byName(['http_req_duration{expected_response:true}', 'iterations', 'http_req_duration', 'checks']);
    assert.deepEqual(one, ['checks', 'http_req_duration', 'http_req_duration{expected_response:true}', 'iterations']);
    assert.deepEqual(calls, []);
    const several = byName(['x{b:1}', 'x{a:2}', 'x', 'w{a:1}', 'x{B:0}']);
    assert.deepEqual(several, ['w{a:1}', 'x', 'x{a:2}', 'x{B:0}', 'x{b:1}']);
    assert.ok(calls.length > 0);
  } finally {
    String.prototype.localeCompare = localeCompare;
  }
});
