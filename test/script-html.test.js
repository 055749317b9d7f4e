// loadtest run --html F: a scripted run's page. A script whose figures are known before it runs
// (two scenarios of fixed iterations, checks that fail on given iterations, a Counter and a Trend,
// a threshold that passes and one that fails) against a server that counts what it gets; the
// page must show those figures: the checks by group with their counts, each threshold's source
// and mark, the scenarios with their iterations, the script's metrics, the requests the server
// counted and the seconds that add up to them. On one process and on two (--cores 2, where the
// children's figures are merged). A path that cannot be written is said before the run.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rawServer, ok, spawnScript } from './servers.js';
import { CHROMIUM, CHROMIUM_OWN, countingProxy, openInChromium } from './chromium.js';
import { oneRuntimeAnd } from './scope.js';
import { element, drawn, hasMarks, embedded, statValue, assertSelfContained } from './pages.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const show = (r) => `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;

// Shoppers: 2 VUs × 5 iterations in group 'shop' (its last iteration's request a 404, the check
// 'every third' failing on iterations 0 and 3), a check in the nested group 'pay'; browsers:
// 4 iterations shared by 1 VU in group 'catalog'. 14 requests, 2 of them failed.
const SCRIPT = `import http from 'k6/http';
import { check, group } from 'k6';
import { Counter, Trend } from 'k6/metrics';
const orders = new Counter('orders_placed');
const items = new Trend('cart_items');
export const options = {
  scenarios: {
    shoppers: { executor: 'per-vu-iterations', vus: 2, iterations: 5, exec: 'shop' },
    browsers: { executor: 'shared-iterations', vus: 1, iterations: 4, exec: 'browse' },
  },
  thresholds: { orders_placed: ['count==10'], 'checks{group:::shop}': ['rate>0.9'] },
};
export function shop() {
  group('shop', () => {
    const r = http.get(\`\${__ENV.BASE}/\${__ITER === 4 ? 'missing' : 'cart'}\`);
    check(r, { 'cart answered': (x) => x.status === 200 || x.status === 404, 'every third': () => __ITER % 3 !== 0 });
    group('pay', () => check(null, { paid: () => true }));
    orders.add(1);
    items.add(__ITER);
  });
}
export function browse() {
  group('catalog', () => check(http.get(\`\${__ENV.BASE}/catalog\`), { 'catalog is 200': (x) => x.status === 200 }));
}
`;

const notFound = 'HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n';

/** The script run with `args` against a counting server; the page's text, the run and the server's counts. */
async function runWithPage(args) {
  const server = await rawServer(({ socket }, req) => socket.write(req.path === '/missing' ? notFound : ok()));
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-script-html-'));
  try {
    const script = join(dir, 'shop.js');
    const html = join(dir, 'run.html');
    writeFileSync(script, SCRIPT);
    const run = await spawnScript(CLI, ['run', '-q', '--html', html, ...args, '-e', `BASE=${server.url.replace(/\/$/, '')}`, script], { timeoutMs: 60000 });
    return { run, page: existsSync(html) ? readFileSync(html, 'utf8') : '', requests: server.requests, missing: server.paths.filter((p) => p === '/missing').length };
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const unescape = (s) => s.replace(/<[^>]*>/g, '').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');

/** A table's rows, each its cells' text (the header row left out). */
const rows = (tableHtml) => tableHtml.split('<tr>').slice(2).map((row) => [...row.matchAll(/<td[^>]*>([^]*?)<\/td>/g)].map((m) => unescape(m[1])));

/** The rows of a group's own checks table (not its groups'), found by the group's path. */
function groupChecks(page, path) {
  const start = page.indexOf(`<div class="group" data-group="${path}">`);
  assert.ok(start >= 0, `no group ${path}`);
  const next = page.indexOf('<div class="group"', start + 1);
  const own = page.slice(start, next < 0 ? undefined : next);
  const table = own.indexOf('<table');
  return table < 0 ? [] : rows(own.slice(table, own.indexOf('</table>', table)));
}

/** Everything the script's figures say the page must show. */
function assertPage({ run, page, requests, missing }) {
  assert.equal(run.code, 99, show(run));
  assert.ok(page.length > 0, 'no page written though a threshold failed');
  assertSelfContained(page);
  assert.equal(requests, 14);
  assert.equal(statValue(page, 'totalRequests'), requests);
  assert.equal(statValue(page, 'totalErrors'), missing);
  assert.equal(statValue(page, 'iterations'), 14);

  // Each threshold with its source and mark; the actual value as k6's summary shows it.
  assert.deepEqual(rows(element(page, 'thresholds')), [
    ['✓', 'orders_placed', 'count==10', '10'],
    ['✗', 'checks{group:::shop}', 'rate>0.9', '80.00%'],
  ]);

  // The checks by group, their passes and fails; the nested group under its parent.
  assert.deepEqual(groupChecks(page, '::shop'), [
    ['✓', 'cart answered', '10', '0', '100 %'],
    ['✗', 'every third', '6', '4', '60 %'],
  ]);
  assert.deepEqual(groupChecks(page, '::shop::pay'), [['✓', 'paid', '10', '0', '100 %']]);
  assert.deepEqual(groupChecks(page, '::catalog'), [['✓', 'catalog is 200', '4', '0', '100 %']]);
  assert.match(page, /<h3>█ shop<\/h3>[^]*<h3>█ pay<\/h3>[^]*<h3>█ catalog<\/h3>/);

  // The scenarios: executor, VUs, the iterations each ran.
  assert.deepEqual(rows(element(page, 'scenarios')).map((r) => r.slice(0, 4)), [
    ['shoppers', 'per-vu-iterations', '2', '10'],
    ['browsers', 'shared-iterations', '1', '4'],
  ]);

  // The script's metrics: the Counter, and the Trend's statistics (iterations 0 to 4, twice).
  assert.deepEqual(rows(element(page, 'metrics-counter')).map((r) => r.slice(0, 3)), [['✓', 'orders_placed', '10']]);
  const [trend] = rows(element(page, 'metrics-trend'));
  assert.deepEqual(trend.slice(0, 6), ['', 'cart_items', '2', '0', '2', '4']);

  // The seconds add up to the server's count; every plot drawn.
  const doc = embedded(page);
  assert.equal(doc.kind, 'script');
  assert.equal(doc.series.reduce((a, s) => a + s.completed, 0), requests);
  assert.equal(doc.series.reduce((a, s) => a + s.errors, 0), missing);
  for (const id of ['percentiles', 'histogram', 'rate', 'latency-over-time', 'errors-over-time', 'vus-over-time']) {
    assert.ok(hasMarks(drawn(element(page, id))), `plot ${id} is empty`);
  }
}

test('--html: the checks by group with their counts, thresholds marked with their source, the scenarios, the script\'s metrics, the server\'s count; written though a threshold failed', { timeout: 90000 }, async () => {
  const r = await runWithPage([]);
  assertPage(r);
  assert.match(r.page, /<th>Cores<\/th><td><code>1<\/code>/);
});

test('--html with --cores 2: the children\'s figures merged into the same page', { timeout: 90000 }, async () => {
  const r = await runWithPage(['--cores', '2']);
  assertPage(r);
  assert.match(r.page, /<th>Cores<\/th><td><code>2<\/code>/);
});

test('--html to a path that cannot be written: one line and exit 2, before the run', async () => {
  const server = await rawServer(({ socket }) => socket.write(ok()));
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-script-html-'));
  try {
    const script = join(dir, 'shop.js');
    writeFileSync(script, SCRIPT);
    const run = await spawnScript(CLI, ['run', '-q', '--html', join(dir, 'no/such/dir/run.html'), '-e', `BASE=${server.url.replace(/\/$/, '')}`, script]);
    assert.equal(run.code, 2, show(run));
    assert.match(run.stderr, /^loadtest run: --html: cannot write '.*run\.html' \(ENOENT\)\n$/);
    assert.equal(server.requests, 0);
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

// The page in a browser is the same page whichever runtime wrote it.
test('--html in headless Chromium: no console message, no request leaves the page, the plots and tables in the DOM', { skip: oneRuntimeAnd(CHROMIUM ? false : 'no chromium at /usr/bin/chromium (apt-get install chromium)'), timeout: 150000 }, async () => {
  const { page } = await runWithPage([]);
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-script-chromium-'));
  const proxy = await countingProxy();
  try {
    const file = join(dir, 'run.html');
    writeFileSync(file, page);
    const { dom, console: lines } = await openInChromium(file, proxy.port, join(dir, 'profile'));
    assert.deepEqual(lines, []);
    assert.deepEqual(proxy.hosts.filter((h) => !CHROMIUM_OWN.test(h)), []);
    for (const id of ['percentiles', 'rate', 'vus-over-time', 'thresholds', 'scenarios', 'metrics-trend']) assert.ok(element(dom, id), `${id} is not in the DOM`);
    assert.equal(statValue(dom, 'totalRequests'), 14);
  } finally {
    await proxy.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
