// --html F: one self-contained page from a result's JSON document. The page has every plot, drawn
// (paths and bars with coordinates), the figures of the JSON, the JSON itself, no address it
// could fetch from, and nothing a URL or a header can inject. Then headless Chromium opens it:
// no console message, no request leaves the page (a proxy counts them; a control page proves that
// it would have seen one), and the plots are in the DOM it built.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadTest } from '../src/index.js';
import { htmlReport } from '../src/results/html/html-report.js';
import { commandLine } from '../src/results/html/html-page.js';
import { rawServer, ok, spawnScript } from './servers.js';
import { CHROMIUM, CHROMIUM_OWN, countingProxy, openInChromium } from './chromium.js';
import { oneRuntimeAnd } from './scope.js';
import { element, drawn, hasMarks, embedded, statValue, assertSelfContained } from './pages.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const CHARTS = ['percentiles', 'histogram', 'phases', 'rate', 'latency-over-time', 'errors-over-time'];
const show = (r) => `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;

/** A real result's JSON document: 300 requests, every 50th answered 503 after a short wait. */
async function resultDoc() {
  const server = await rawServer(({ socket, server: s }) => {
    if (s.requests % 50 === 0) setTimeout(() => socket.write('HTTP/1.1 503 No\r\nContent-Length: 0\r\n\r\n'), 3);
    else socket.write(ok());
  });
  try {
    const result = await loadTest({ url: server.url, maxRequests: 300, concurrency: 4, agentKeepAlive: true });
    return JSON.parse(JSON.stringify(result));
  } finally {
    await server.close();
  }
}

/** The phase plot and table: a line and a row per phase that happened (over http, no tls). */
function assertPhases(page, doc) {
  const happened = Object.keys(doc.phases).filter((p) => doc.phases[p].count > 0);
  const svg = element(page, 'phases');
  assert.ok(page.includes('<figcaption>Request phases by percentile'), 'no phase figure');
  assert.deepEqual([...svg.matchAll(/<g class="series line" data-series="(\w+)"><path d=/g)].map((m) => m[1]), happened);
  assert.equal(drawn(svg).paths.length, happened.length);
  assert.match(svg, />99%<\/text>/);
  const rows = element(page, 'phase-table').split('<tr>').slice(2);
  assert.deepEqual(rows.map((row) => /^<td>(\w+)<\/td><td class="num">(\d+)<\/td>/.exec(row).slice(1)), happened.map((p) => [p, String(doc.phases[p].count)]));
  rows.forEach((row, i) => assert.ok(row.includes(`<td class="num">${doc.phases[happened[i]].p99}</td>`), row));
}

test('html: every plot drawn, the figures and the JSON of the result, nothing to fetch', async () => {
  const doc = await resultDoc();
  assert.equal(doc.totalRequests, 300);
  assert.equal(doc.totalErrors, 6);
  const page = htmlReport(doc, { command: ['-n', '300', doc.url], generatedAt: Date.now() });
  for (const id of CHARTS) {
    const svg = element(page, id);
    assert.ok(svg && svg.startsWith('<svg'), `plot ${id} is missing`);
    const d = drawn(svg);
    assert.ok(hasMarks(d), `plot ${id} draws nothing: ${svg.slice(0, 300)}`);
  }
  // Errors happened, so some error bar is taller than the zero hairline.
  assert.ok(drawn(element(page, 'errors-over-time')).bars.some((h) => h > 1));
  // The percentile curve has a step per histogram bucket, the histogram a bar per bin in use.
  assert.ok(drawn(element(page, 'percentiles')).points >= doc.latencyHistogram.buckets.length / 2);
  assert.ok(drawn(element(page, 'histogram')).bars.length >= 1);
  assert.match(element(page, 'percentiles'), />99%<\/text>/);
  assertPhases(page, doc);
  // The summary's figures are the JSON's.
  assert.equal(statValue(page, 'totalRequests'), doc.totalRequests);
  assert.equal(statValue(page, 'totalErrors'), doc.totalErrors);
  assert.equal(statValue(page, 'effectiveRps'), doc.effectiveRps);
  assert.equal(statValue(page, 'meanLatencyMs'), doc.meanLatencyMs);
  for (const p of ['50', '90', '99', '99.9']) assert.equal(statValue(page, `p${p}`), doc.percentiles[p], `p${p}`);
  assert.equal(statValue(page, 'maxLatencyMs'), doc.maxLatencyMs);
  assert.ok(page.includes(`>${doc.percentiles['99']} ms<`));
  assert.match(page, /<td>503<\/td><td class="num">6<\/td>/);
  // The settings, and the document itself.
  for (const text of [doc.runtime, doc.socket, new Date(doc.startTime).toISOString(), `loadtest -n 300 ${doc.url}`]) assert.ok(page.includes(text), text);
  assert.deepEqual(embedded(page), doc);
  assertSelfContained(page);
});

test('html: a URL, headers and error reasons cannot inject markup; credentials stay out of the page', async () => {
  const doc = await resultDoc();
  const evil = `</script><script>alert(1)</script><img src=x onerror=alert(2)>"'&`;
  doc.url = `http://127.0.0.1:1/?q=${evil}`;
  doc.errorsByReason = { [evil]: 1 };
  const command = ['-H', `x-evil:${evil}`, '-H', 'Authorization: Bearer SECRET1', '-C', 'sid=SECRET2', '--header=cookie: a=SECRET3', `http://me:SECRET4@host/${evil}`];
  const page = htmlReport(doc, { command });
  assert.ok(!page.includes('<script>alert'), 'a script element was injected');
  assert.ok(!page.includes('<img src=x'), 'an element was injected');
  assert.ok(page.includes('&lt;/script&gt;&lt;script&gt;alert(1)'), 'the URL is shown, escaped');
  assert.ok(!/SECRET\d/.test(page), 'a credential is in the page');
  assert.deepEqual(embedded(page).url, doc.url);
  assertSelfContained(page);
  assert.equal(
    commandLine(['-H', 'Authorization: Bearer x', '-C', 'sid=y', 'http://u:p@h/']),
    "loadtest -H Authorization:… -C sid=… http://u:…@h/",
  );
});

test('html: the request phases: a line per phase that happened; a document without phases has neither plot nor table', async () => {
  const doc = await resultDoc();
  assert.equal(doc.phases.connect.count, 4);
  assert.equal(doc.phases.tls.count, 0);
  assert.equal(doc.phases.wait.count, 300);
  assert.ok(!element(htmlReport(doc), 'phases').includes('data-series="tls"'));
  // As if each connection had a TLS handshake as long as its connect.
  const tls = { ...doc, phases: { ...doc.phases, tls: doc.phases.connect }, phaseHistograms: { ...doc.phaseHistograms, tls: doc.phaseHistograms.connect } };
  const page = htmlReport(tls);
  assertPhases(page, tls);
  assert.equal(drawn(element(page, 'phases')).paths.length, 4);
  // A document written before phases were kept.
  const old = { ...doc };
  delete old.phases;
  delete old.phaseHistograms;
  const oldPage = htmlReport(old);
  for (const id of CHARTS.filter((c) => c !== 'phases')) assert.ok(hasMarks(drawn(element(oldPage, id))), id);
  assert.equal(element(oldPage, 'phases'), null);
  assert.equal(element(oldPage, 'phase-table'), null);
  assert.ok(!oldPage.includes('Request phases'));
  assert.equal(statValue(oldPage, 'p99'), doc.percentiles['99']);
  assertSelfContained(oldPage);
});

test('html: a sweep document plots rate and p99 against concurrency, with a row and a section per level', async () => {
  const doc = await resultDoc();
  const levels = [2, 8, 32];
  const results = levels.map((c, i) => ({ ...doc, concurrency: c, effectiveRps: 1000 * (i + 1), percentiles: { ...doc.percentiles, 99: 1.5 * (i + 1) } }));
  const page = htmlReport({ sweep: levels, url: doc.url, results });
  const rows = element(page, 'sweep-table').split('<tr>').slice(2);
  assert.equal(rows.length, 3);
  rows.forEach((row, i) => assert.ok(row.startsWith(`<td class="num">${levels[i]}</td><td class="num">300</td><td class="num">${1000 * (i + 1)}</td>`), row));
  for (const id of ['sweep-rate', 'sweep-latency']) {
    const d = drawn(element(page, id));
    assert.ok(d.paths.length >= 1 && d.points >= 3, id);
  }
  for (const c of levels) for (const id of ['percentiles', 'phases']) assert.ok(element(page, `c${c}-${id}`), `level ${c}'s plots`);
  assert.equal(embedded(page).results.length, 3);
  assertSelfContained(page);
});

test('html: a result with entries (request sequences) gets a table of them', async () => {
  const doc = await resultDoc();
  doc.entries = [
    { name: 'GET /a', count: 200, errors: 0, percentiles: { 50: 0.2, 99: 1.1 } },
    { name: 'POST /<b>', count: 100, errors: 6, percentiles: { 50: 0.3, 99: 3.2 } },
  ];
  const page = htmlReport(doc);
  const t = element(page, 'entries');
  assert.ok(t, 'no entries table');
  assert.ok(t.includes('<th>p99 (ms)</th>') && t.includes('POST /&lt;b&gt;') && t.includes('<td class="num">3.2</td>'), t);
  assert.equal(element(htmlReport({ ...doc, entries: undefined }), 'entries'), null);
});

test('cli: --html with --cores 2, and loadtest merge --html, write pages whose figures are the JSON\'s', async () => {
  const server = await rawServer(({ socket }) => socket.write(ok()));
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-html-'));
  try {
    const [a, b] = ['a', 'b'].map((n) => [join(dir, `${n}.json`), join(dir, `${n}.html`)]);
    const r = await spawnScript(CLI, ['-n', '400', '-c', '4', '-k', '--cores', '2', '--quiet', '--json-file', a[0], '--html', a[1], server.url]);
    assert.equal(r.code, 0, show(r));
    const r2 = await spawnScript(CLI, ['-n', '100', '-c', '2', '-k', '--quiet', '--json-file', b[0], server.url]);
    assert.equal(r2.code, 0, show(r2));
    const merged = join(dir, 'm.html');
    const m = await spawnScript(CLI, ['merge', a[0], b[0], '--json', '--html', merged]);
    assert.equal(m.code, 0, show(m));
    for (const [page, doc] of [[readFileSync(a[1], 'utf8'), JSON.parse(readFileSync(a[0], 'utf8'))], [readFileSync(merged, 'utf8'), JSON.parse(m.stdout)]]) {
      for (const key of ['totalRequests', 'effectiveRps', 'maxLatencyMs']) assert.equal(statValue(page, key), doc[key], key);
      assert.equal(statValue(page, 'p99'), doc.percentiles['99']);
      assert.deepEqual(embedded(page), doc);
      for (const id of CHARTS) assert.ok(element(page, id).startsWith('<svg'), id);
    }
    assert.equal(JSON.parse(m.stdout).totalRequests, 500);
    assert.match(readFileSync(a[1], 'utf8'), /<th>Cores<\/th><td><code>2<\/code>/);
    assert.match(readFileSync(merged, 'utf8'), /<th>Merged results<\/th><td><code>2<\/code>/);
    const bad = await spawnScript(CLI, ['-n', '5', '--quiet', '--html', join(dir, 'no/such/dir/x.html'), server.url]);
    assert.equal(bad.code, 1, show(bad));
    assert.match(bad.stderr, /^loadtest: --html: cannot write '.*x\.html' \(ENOENT\)\n$/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.close();
  }
});


// The page in a browser is the same page whichever runtime wrote it.
test('html in headless Chromium: no console message, no request leaves the page, every plot in the DOM', { skip: oneRuntimeAnd(CHROMIUM ? false : 'no chromium at /usr/bin/chromium (apt-get install chromium)'), timeout: 150000 }, async () => {
  const doc = await resultDoc();
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-chromium-'));
  const proxy = await countingProxy();
  try {
    const file = join(dir, 'report.html');
    writeFileSync(file, htmlReport(doc, { command: [doc.url] }));
    // The control: a page that fetches from elsewhere is seen by the proxy, and its log by us.
    const control = join(dir, 'control.html');
    writeFileSync(control, '<!DOCTYPE html><img src="http://fetch.invalid/x.png"><script>console.log("control")</script>');
    const seen = await openInChromium(control, proxy.port, join(dir, 'profile-control'));
    assert.ok(proxy.hosts.includes('fetch.invalid'), `the proxy saw: ${proxy.hosts.join(', ')}`);
    assert.ok(seen.console.some((line) => line.includes('"control"')), 'console lines are not seen');
    proxy.hosts.length = 0;
    const { dom, console: lines } = await openInChromium(file, proxy.port, join(dir, 'profile'));
    assert.deepEqual(lines, []);
    assert.deepEqual(proxy.hosts.filter((h) => !CHROMIUM_OWN.test(h)), []);
    for (const id of CHARTS) {
      const svg = element(dom, id);
      assert.ok(svg, `plot ${id} is not in the DOM`);
      const d = drawn(svg);
      assert.ok(hasMarks(d), `plot ${id} is empty in the DOM`);
    }
    assert.equal(statValue(dom, 'totalRequests'), doc.totalRequests);
    assert.equal(statValue(dom, 'p99'), doc.percentiles['99']);
    assert.deepEqual(embedded(dom), doc);
  } finally {
    await proxy.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
