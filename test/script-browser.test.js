// k6/browser on playwright-core and the machine's Chromium, against a site this test starts:
// a login through a form and a navigation (the pages the site served, checks, k6's browser
// metrics, a screenshot that is a PNG), k6's errors for a scenario without a browser and for a
// second context, contexts closed at each iteration's end, a protocol scenario beside a browser
// one. Skipped, with its reason, where no Chromium is installed.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnScript } from './servers.js';
import { findChromium } from '../runtimes/scripts/browser.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const missing = findChromium(null) === null ? 'no Chromium (apt-get install chromium)' : false;

const PAGES = {
  '/': '<html><head><title>Home</title></head><body><h1 id="h">Welcome</h1><a id="login-link" href="/login">Login</a><img src="/missing.png"></body></html>',
  '/login': '<html><head><title>Login</title></head><body><form method="POST" action="/login"><input name="login" id="login"><input name="password" type="password"><button type="submit" id="submit">Go</button></form></body></html>',
};

/** The site: its pages, a login that answers with the name given, a 404 image; `log` of what it served. */
async function site() {
  const log = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      log.push(`${req.method} ${req.url}`);
      if (req.method === 'POST' && req.url === '/login') {
        res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'session=1' });
        return res.end(`<html><head><title>Welcome</title></head><body><h2>Welcome, ${new URLSearchParams(body).get('login')}!</h2></body></html>`);
      }
      if (req.url === '/api') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end('{"ok":true}');
      }
      const page = PAGES[req.url];
      res.writeHead(page ? 200 : 404, { 'content-type': 'text/html' });
      res.end(page || 'no');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, log, close: () => new Promise((resolve) => server.close(resolve)) };
}

const LOGIN = `
import { browser } from 'k6/browser';
import { check } from 'k6';
export const options = { scenarios: { ui: { executor: 'shared-iterations', options: { browser: { type: 'chromium' } } } }, thresholds: { checks: ['rate==1.0'] } };
export default async function () {
  const page = await browser.newPage();
  try {
    await page.goto(__ENV.BASE + '/');
    check(await page.locator('#h').textContent(), { header: (t) => t === 'Welcome' });
    await Promise.all([page.waitForNavigation(), page.locator('#login-link').click()]);
    await page.locator('input[name="login"]').type('admin');
    await page.locator('input[name="password"]').type('123');
    await Promise.all([page.waitForNavigation(), page.locator('#submit').click()]);
    check(await page.title(), { title: (t) => t === 'Welcome' });
    check(await page.evaluate(() => document.querySelector('h2').textContent), { evaluate: (t) => t === 'Welcome, admin!' });
    const cookies = await browser.context().cookies();
    check(cookies, { cookie: (c) => c.some((x) => x.name === 'session') });
    await page.screenshot({ path: __ENV.SHOT });
  } finally {
    await page.close();
  }
}
`;

test('a login in a real Chromium: the pages the site served, the checks, k6\'s browser metrics, a PNG screenshot', { skip: missing, timeout: 120000 }, async () => {
  const s = await site();
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-browser-'));
  try {
    writeFileSync(join(dir, 'login.js'), LOGIN);
    const r = await spawnScript(CLI, ['run', '-q', '-e', `BASE=${s.url}`, '-e', `SHOT=${join(dir, 'shot.png')}`, '--summary-export', join(dir, 'summary.json'), join(dir, 'login.js')], { timeoutMs: 100000 });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    assert.deepEqual(s.log.filter((l) => !l.includes('favicon')), ['GET /', 'GET /missing.png', 'GET /login', 'POST /login']);
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    assert.equal(summary.metrics.checks.passes, 4, JSON.stringify(summary.root_group.checks));
    assert.equal(summary.metrics.checks.fails, 0);
    for (const name of ['browser_http_req_duration', 'browser_http_req_failed', 'browser_data_received', 'browser_data_sent', 'browser_web_vital_fcp', 'browser_web_vital_ttfb']) assert.ok(summary.metrics[name], name);
    // The missing image is the one failed request of the four.
    assert.equal(summary.metrics.browser_http_req_failed.passes, 1);
    const png = readFileSync(join(dir, 'shot.png'));
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await s.close();
  }
});

test("k6's errors: a scenario without a browser, a second context; a VU's context closed at each iteration's end; a protocol scenario beside a browser one", { skip: missing, timeout: 120000 }, async () => {
  const s = await site();
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-browser-rules-'));
  try {
    writeFileSync(join(dir, 'none.js'), `import { browser } from 'k6/browser';\nexport default async function () { const page = await browser.newPage(); await page.close(); }\n`);
    const none = await spawnScript(CLI, ['run', '-q', join(dir, 'none.js')], { timeoutMs: 60000 });
    assert.equal(none.code, 0, none.stderr);
    assert.match(none.stderr, /^loadtest run: browser not found in registry\. make sure to set browser type option in scenario definition in order to use the browser module at none\.js:2:\d+\n$/);
    writeFileSync(
      join(dir, 'mixed.js'),
      `import { browser } from 'k6/browser';
import http from 'k6/http';
export const options = { scenarios: {
  ui: { executor: 'per-vu-iterations', vus: 2, iterations: 2, options: { browser: { type: 'chromium' } } },
  api: { executor: 'shared-iterations', iterations: 5, exec: 'api' },
} };
export function api() { http.get(__ENV.BASE + '/api'); }
export default async function () {
  // Not closed: the context goes at the iteration's end, so the next iteration may make one.
  const page = await browser.newPage();
  await page.goto(__ENV.BASE + '/');
  try {
    await browser.newPage();
  } catch (e) {
    console.log(String(e));
  }
}
`,
    );
    const mixed = await spawnScript(CLI, ['run', '-q', '-e', `BASE=${s.url}`, '--summary-export', join(dir, 'mixed.json'), join(dir, 'mixed.js')], { timeoutMs: 100000 });
    assert.equal(mixed.code, 0, mixed.stderr);
    const said = mixed.stderr.split('\n').filter((l) => l.includes('existing browser context'));
    assert.equal(said.length, 4, mixed.stderr);
    assert.ok(said.every((l) => l.includes('msg="new page: existing browser context must be closed before creating a new one"')));
    const summary = JSON.parse(readFileSync(join(dir, 'mixed.json'), 'utf8'));
    assert.equal(summary.metrics.iterations.count, 9);
    assert.equal(summary.metrics.http_reqs.count, 5);
    assert.equal(s.log.filter((l) => l === 'GET /').length, 4);
    assert.equal(s.log.filter((l) => l === 'GET /api').length, 5);
    // A browser scenario where there is no Chromium: one line, before the run.
    const gone = await spawnScript(CLI, ['run', '-q', '-e', `BASE=${s.url}`, join(dir, 'mixed.js')], { env: { K6_BROWSER_EXECUTABLE_PATH: '/nonexistent/chromium' }, timeoutMs: 60000 });
    assert.equal(gone.code, 107, gone.stderr);
    assert.match(gone.stderr, /^loadtest run: .*K6_BROWSER_EXECUTABLE_PATH '\/nonexistent\/chromium': no such file at mixed\.js:1:\d+\n$/);
    assert.equal(s.log.filter((l) => l === 'GET /api').length, 5, 'no request made');
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await s.close();
  }
});

const PATTERNS = `
import { browser } from 'k6/browser';
import { check } from 'k6';
export const options = { scenarios: { ui: { executor: 'shared-iterations', options: { browser: { type: 'chromium' } } } } };
export default async function () {
  const context = await browser.newContext();
  const page = await context.newPage();
  const told = [];
  try {
    await page.goto(__ENV.BASE + '/');
    // Chromium's own log of the 404 image is no console call; an async handler is waited for.
    page.on('console', async (msg) => {
      const second = await msg.args()[1].jsonValue();
      told.push([msg.type(), msg.text(), second]);
    });
    await page.evaluate(() => console.log('told', 42));
    check(await page.evaluate((x, y) => x * y, 6, 7), { 'evaluate with two arguments': (n) => n === 42 });
    check(context.browser().userAgent(), { 'no Headless': (ua) => !ua.includes('Headless') });
    check(await page.evaluate(() => navigator.userAgent), { 'the page says no Headless': (ua) => !ua.includes('Headless') });
    // A tap, though the context has no touch (k6 taps through Chromium's touch events).
    await page.evaluate(() => document.addEventListener('touchstart', () => (window.tapped = true)));
    await page.touchscreen.tap(10, 10);
    check(await page.evaluate(() => window.tapped === true), { tapped: (t) => t });
  } finally {
    await page.close();
  }
  check(told, { 'console told once, after its handler': (t) => JSON.stringify(t) === JSON.stringify([['log', 'told 42', 42]]) });
  const other = await context.newPage();
  await other.setContent('<div class="e">Edit me</div><input class="r" readonly>');
  check(await (await other.$('.e')).isEditable(), { 'a div is editable': (e) => e === true });
  check(await other.locator('.r').isEditable(), { 'a read-only input is not': (e) => e === false });
  await other.close();
}
`;

test("k6's ways where Playwright's differ: evaluate's several arguments, a user agent without Headless, a tap without touch, the console's calls only, a handler waited for, a div editable; the page's LCP told at its close", { skip: missing, timeout: 120000 }, async () => {
  const s = await site();
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-browser-ways-'));
  try {
    writeFileSync(join(dir, 'ways.js'), PATTERNS);
    const r = await spawnScript(CLI, ['run', '-q', '-e', `BASE=${s.url}`, '--summary-export', join(dir, 'summary.json'), join(dir, 'ways.js')], { timeoutMs: 100000 });
    assert.equal(r.code, 0, r.stderr);
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    const checks = summary.root_group.checks;
    for (const [name, c] of Object.entries(checks)) assert.deepEqual([name, c.passes, c.fails], [name, 1, 0]);
    assert.equal(Object.keys(checks).length, 7);
    for (const name of ['browser_web_vital_fcp', 'browser_web_vital_lcp', 'browser_web_vital_ttfb']) assert.ok(summary.metrics[name], name);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await s.close();
  }
});
