// --dashboard: the server of the live page (its routes, the events replayed to a late stream and
// streamed after, nothing left listening), then the page itself in headless Chromium, fed by the
// server while it is open: its figures, the final report, no console message and nothing fetched
// from elsewhere.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import net from 'node:net';
import { serveDashboard } from '../runtimes/run-servers/dashboard.js';
import { dashboardPage } from '../src/results/html/dashboard-page.js';
import { CHROMIUM, CHROMIUM_OWN } from './chromium.js';
import { fileURLToPath } from 'node:url';
import { runCommand, sleep, rawServer, ok, startScript, until, paced } from './servers.js';
import { oneRuntimeAnd } from './scope.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

const second = (n) => ({ second: n, elapsedSeconds: n, sent: 100 * n, completed: 98 * n, failed: n - 1, rps: 90 + n, p50Ms: 1 + n / 10, p99Ms: 5 + n, errors: n % 2, connections: 4, done: false });
const SUMMARY = { totalRequests: 600, totalErrors: 3, effectiveRps: 97.5, percentiles: { 50: 1.25, 99: 9.5 }, maxLatencyMs: 31.5 };
const REPORT = 'Target URL:          http://127.0.0.1:1/<b>x</b>\nCompleted requests:  600\n';
const HTML = '<!DOCTYPE html><title>the report</title><p>the --html page</p>';

const TIMEOUT = Symbol('timeout');

/** What `promise` resolves to, or TIMEOUT after `ms`; the timer does not outlive it (node would wait for it before exiting). */
function within(promise, ms) {
  let timer;
  return Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, Math.max(0, ms), TIMEOUT)))]).finally(() => clearTimeout(timer));
}

/** The SSE frames read from `url` until `until(frames)` holds or `ms` pass: [{ id, event, data }]. */
async function readEvents(url, until, ms = 5000, headers = {}) {
  const controller = new AbortController();
  const res = await fetch(url, { signal: controller.signal, headers });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/event-stream');
  assert.equal(res.headers.get('cache-control'), 'no-cache');
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  const frames = [];
  let text = '';
  const deadline = Date.now() + ms;
  try {
    while (!until(frames) && Date.now() < deadline) {
      const chunk = await within(reader.read(), deadline - Date.now());
      if (chunk === TIMEOUT || chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
      let end;
      while ((end = text.indexOf('\n\n')) >= 0) {
        const block = text.slice(0, end);
        text = text.slice(end + 2);
        const frame = {};
        for (const line of block.split('\n')) {
          const [, key, value] = /^([^:]*): ?(.*)$/.exec(line) || [];
          if (key === 'id') frame.id = Number(value);
          else if (key === 'event') frame.event = value;
          else if (key === 'data') frame.data = JSON.parse(value);
        }
        if ('data' in frame) frames.push(frame);
      }
    }
  } finally {
    controller.abort();
    await reader.cancel().catch(() => {});
  }
  return frames;
}

const listening = (port) =>
  new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.on('connect', () => socket.destroy() || resolve(true));
    socket.on('error', () => resolve(false));
  });

test('the dashboard server: the page, events replayed then streamed, the report after the end, 404 elsewhere', async () => {
  const board = await serveDashboard(0, { title: 'http://127.0.0.1:1/<script>' });
  try {
    assert.equal(board.url, `http://127.0.0.1:${board.port}/`);
    const page = await fetch(board.url);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type'), /^text\/html/);
    const body = await page.text();
    assert.equal(body, dashboardPage({ title: 'http://127.0.0.1:1/<script>' }));
    assert.ok(body.includes('http://127.0.0.1:1/&lt;script&gt;') && !body.includes('1/<script>'), 'the title is escaped');
    assert.equal((await fetch(`${board.url}nothing`)).status, 404);
    const early = await fetch(`${board.url}report.html`);
    assert.equal(early.status, 404);
    await early.text();

    board.push(second(1));
    board.push(second(2));
    // A late stream gets what was pushed before it, then what comes after.
    const later = setTimeout(() => board.push(second(3)), 200);
    const frames = await readEvents(`${board.url}events`, (f) => f.length >= 3);
    clearTimeout(later);
    assert.deepEqual(frames.map((f) => f.data), [second(1), second(2), second(3)]);
    assert.deepEqual(frames.map((f) => f.id), [1, 2, 3]);

    // A stream open at the end gets the done event; one opened after gets it replayed.
    assert.ok(await until(() => board.streams === 0, 10000), 'the first streams closed');
    const open = readEvents(`${board.url}events`, (f) => f.some((x) => x.event === 'done'));
    assert.ok(await until(() => board.streams === 1, 10000), 'the stream is open');
    board.finish({ report: REPORT, summary: SUMMARY, html: HTML });
    board.push(second(4));
    const done = { event: 'done', id: 4, data: { report: REPORT, summary: SUMMARY } };
    assert.deepEqual((await open).at(-1), done);
    const replayed = await readEvents(`${board.url}events`, (f) => f.length >= 4);
    assert.deepEqual(replayed.map((f) => f.data), [second(1), second(2), second(3), done.data]);
    assert.equal(replayed.length, 4, 'nothing is pushed after the end');
    // A browser that reconnects after event 2 gets what followed only.
    const resumed = await readEvents(`${board.url}events`, (f) => f.length >= 2, 5000, { 'last-event-id': '2' });
    assert.deepEqual(resumed.map((f) => f.id), [3, 4]);
    const report = await fetch(`${board.url}report.html`);
    assert.equal(report.status, 200);
    assert.equal(await report.text(), HTML);
    // Only loopback names: a rebound name gets nothing.
    const rebound = await new Promise((resolve) => {
      const socket = net.connect(board.port, '127.0.0.1', () => socket.write('GET / HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n'));
      let text = '';
      socket.on('data', (chunk) => (text += chunk));
      socket.on('close', () => resolve(text));
    });
    assert.match(rebound, /^HTTP\/1\.1 403 /);
  } finally {
    await board.close();
  }
  assert.equal(await listening(board.port), false, 'still listening after close()');
});

test('the dashboard server: close() ends open streams; a port in use is a one-line error', async () => {
  const board = await serveDashboard(0, {});
  board.push(second(1));
  const controller = new AbortController();
  const res = await fetch(`${board.url}events`, { signal: controller.signal });
  const reader = res.body.getReader();
  await reader.read();
  const started = Date.now();
  await board.close();
  assert.ok(Date.now() - started < 2000, 'close() waited for the open stream');
  // The stream ends (or, on some runtimes, errors) once the server is gone.
  const end = await within(reader.read().then((r) => (r.done ? 'ended' : 'more'), () => 'ended'), 3000);
  assert.equal(end, 'ended');
  controller.abort();
  assert.equal(await listening(board.port), false);

  const holder = await serveDashboard(0, {});
  try {
    await assert.rejects(serveDashboard(holder.port, {}), new Error(`--dashboard ${holder.port}: cannot listen (EADDRINUSE)`));
    await assert.rejects(serveDashboard('x', {}), /--dashboard 'x': expected a port/);
  } finally {
    await holder.close();
  }
});

/**
 * A proxy for Chromium that notes every request's host, forwards those for `target` (one request
 * a connection: it asks the server to close after) and answers 502 to any other. Chromium sends
 * everything through it, loopback too, so the hosts are all the page asked for.
 */
function pageProxy(target) {
  const hosts = [];
  const paths = [];
  const sockets = new Set();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => {});
    let head = Buffer.alloc(0);
    const onData = (chunk) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      client.off('data', onData);
      const lines = head.subarray(0, end).toString('latin1').split('\r\n');
      const [method, where = '', version] = lines[0].split(' ');
      const url = where.includes('://') ? new URL(where) : null;
      const host = url ? url.host : where;
      hosts.push(host);
      if (!url || host !== `127.0.0.1:${target}`) return void client.end('HTTP/1.1 502 No\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      paths.push(url.pathname);
      const kept = lines.slice(1).filter((l) => !/^(proxy-)?connection:/i.test(l));
      const upstream = net.connect(target, '127.0.0.1');
      sockets.add(upstream);
      upstream.on('close', () => sockets.delete(upstream) && client.destroy());
      upstream.on('error', () => client.destroy());
      upstream.write([`${method} ${url.pathname}${url.search} ${version}`, ...kept, 'Connection: close', '', ''].join('\r\n'));
      upstream.write(head.subarray(end + 4));
      client.pipe(upstream);
      upstream.pipe(client);
    };
    client.on('data', onData);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        hosts,
        paths,
        port: server.address().port,
        close: () => {
          for (const s of sockets) s.destroy();
          return new Promise((r) => server.close(r));
        },
      }),
    ),
  );
}

/** test/chromium.js's openInChromium, for a page served over http: rather than a file. */
async function openUrlInChromium(url, proxyPort, profile, budgetMs) {
  const r = await runCommand(CHROMIUM, [
    '--headless=new', '--disable-gpu', '--no-sandbox', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--disable-default-apps', `--user-data-dir=${profile}`,
    `--proxy-server=http://127.0.0.1:${proxyPort}`, '--proxy-bypass-list=<-loopback>',
    '--enable-logging=stderr', '--v=0', `--virtual-time-budget=${budgetMs}`, '--dump-dom', url,
  ], { timeoutMs: 60000 });
  assert.equal(r.code, 0, `chromium: ${r.stderr.slice(-2000)}`);
  return { dom: r.stdout, console: r.stderr.split('\n').filter((line) => line.includes(':CONSOLE')) };
}

const byId = (dom, id) => {
  const m = new RegExp(`<(\\w+)[^>]*\\bid="${id}"[^>]*>([\\s\\S]*?)</\\1>`).exec(dom);
  return m ? m[2] : null;
};
const statValue = (dom, key) => {
  const m = new RegExp(`data-key="${key}" data-value="([^"]*)"`).exec(dom);
  return m ? Number(m[1]) : null;
};
const unescape = (text) => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');

// The page in a browser: what it does with the events is the same whichever runtime served them
// (the server's part on each runtime is the tests above and the --cores one below).
test('the dashboard in headless Chromium: live seconds, then the final report, nothing from elsewhere', { skip: oneRuntimeAnd(CHROMIUM ? false : 'no chromium at /usr/bin/chromium (apt-get install chromium)'), timeout: 120000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-dashboard-'));
  const board = await serveDashboard(0, { title: 'http://127.0.0.1:1/' });
  const proxy = await pageProxy(board.port);
  let timer = null;
  try {
    // Two seconds before the page opens (replayed to it), four more once its stream is open.
    board.push(second(1));
    board.push(second(2));
    let n = 2;
    const feed = (async () => {
      const deadline = Date.now() + 30000;
      while (!proxy.paths.includes('/events') && Date.now() < deadline) await sleep(20);
      await new Promise((resolve) => {
        timer = setInterval(() => {
          n += 1;
          board.push(second(n));
          if (n < 6) return;
          clearInterval(timer);
          setTimeout(() => board.finish({ report: REPORT, summary: SUMMARY, html: HTML }) || resolve(), 200);
        }, 200);
      });
    })();
    // Virtual time stands still while a fetch is open: the budget runs out only once the page
    // has closed its stream, after the done event, however slow the real seconds were.
    const { dom, console: lines } = await openUrlInChromium(board.url, proxy.port, join(dir, 'profile'), 5000);
    await feed;
    assert.deepEqual(lines, []);
    assert.ok(proxy.paths.includes('/') && proxy.paths.includes('/events'), `the proxy saw: ${proxy.paths.join(', ')}`);
    assert.deepEqual(proxy.hosts.filter((h) => h !== `127.0.0.1:${board.port}` && !CHROMIUM_OWN.test(h)), []);
    const updates = Number((/updates: (\d+)/.exec(byId(dom, 'updates') || '') || [])[1]);
    assert.ok(updates >= 3, `updates: ${updates}`);
    assert.equal(byId(dom, 'status'), 'done');
    assert.equal(statValue(dom, 'totalRequests'), SUMMARY.totalRequests);
    assert.equal(statValue(dom, 'totalErrors'), SUMMARY.totalErrors);
    assert.equal(statValue(dom, 'effectiveRps'), SUMMARY.effectiveRps);
    assert.equal(statValue(dom, 'p99'), SUMMARY.percentiles['99']);
    assert.equal(statValue(dom, 'maxLatencyMs'), SUMMARY.maxLatencyMs);
    assert.ok(dom.includes('>9.5 ms<'), 'the p99 is shown');
    assert.equal(unescape(byId(dom, 'report')), REPORT);
    assert.match(dom, /<a id="save" href="\/report.html" download="loadtest-report.html">Save the report as a page<\/a>/);
    // Each plot drew every second: 6 dots a line, a bar a second.
    for (const [id, marks] of [['rate', /<circle /g], ['latency-over-time', /<circle /g], ['errors-over-time', /<rect x=/g]]) {
      const svg = byId(dom, id);
      assert.ok(svg, `plot ${id} is not in the DOM`);
      assert.equal((svg.match(marks) || []).length, id === 'latency-over-time' ? 12 : 6, `plot ${id}`);
    }
  } finally {
    clearInterval(timer);
    await proxy.close();
    await board.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the dashboard in headless Chromium: a run gone without its end leaves its last second shown, and says so', { skip: oneRuntimeAnd(CHROMIUM ? false : 'no chromium at /usr/bin/chromium (apt-get install chromium)'), timeout: 120000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-dashboard-'));
  const board = await serveDashboard(0, { title: 'http://127.0.0.1:1/' });
  const proxy = await pageProxy(board.port);
  try {
    for (let n = 1; n <= 3; n++) board.push(second(n));
    // The stream ends without a done event: the page keeps trying (in virtual time), and the
    // budget runs out.
    const gone = (async () => {
      const deadline = Date.now() + 30000;
      while (!proxy.paths.includes('/events') && Date.now() < deadline) await sleep(20);
      // The page's stream open: the three seconds went with its first write.
      await until(() => board.streams >= 1, 30000);
      await board.close();
    })();
    const { dom } = await openUrlInChromium(board.url, proxy.port, join(dir, 'profile'), 3000);
    await gone;
    assert.equal(byId(dom, 'updates'), 'updates: 3');
    assert.match(dom, /<span id="status" class="lost">(reconnecting|disconnected)<\/span>/);
    const last = second(3);
    for (const key of ['sent', 'completed', 'connections', 'elapsedSeconds']) assert.equal(statValue(dom, key), last[key], key);
    assert.equal(statValue(dom, 'errors'), second(1).errors + second(2).errors + last.errors);
    assert.equal(statValue(dom, 'rps'), last.rps);
    assert.equal(statValue(dom, 'p50'), last.p50Ms);
    assert.equal(statValue(dom, 'p99'), last.p99Ms);
    assert.ok(dom.includes('>3.0 s<') && dom.includes(`>${last.p99Ms} ms<`), 'the figures are shown');
    assert.equal(byId(dom, 'report'), null);
    assert.ok(!dom.includes('id="save"'));
  } finally {
    await proxy.close();
    await board.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a real 3.5 s run with --dashboard: the page updates at least three times, then shows the run\'s own figures', { skip: oneRuntimeAnd(CHROMIUM ? false : 'no chromium at /usr/bin/chromium (apt-get install chromium)'), timeout: 120000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-dashboard-run-'));
  const target = await rawServer(paced());
  const port = await new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });
  const proxy = await pageProxy(port);
  try {
    // --metrics-linger 8: Chromium may take seconds to start on a loaded machine (a clean-clone
    // run found the dashboard gone, after a linger of 2, when the page asked for it).
    const run = startScript(CLI, [target.url, '-t', '3.5', '-c', '2', '-k', '--json', '--dashboard', String(port), '--metrics-linger', '8']);
    const deadline = Date.now() + 30000;
    while (!(await fetch(`http://127.0.0.1:${port}/`).then((r) => r.ok, () => false)) && Date.now() < deadline) await sleep(50);
    // The page opens during the run; its stream closes with the done event, then the DOM is dumped.
    const { dom, console: lines } = await openUrlInChromium(`http://127.0.0.1:${port}/`, proxy.port, join(dir, 'profile'), 5000);
    const done = await run.done;
    assert.equal(done.code, 0, done.stderr);
    assert.match(done.stderr, new RegExp(`loadtest: dashboard at http://127\\.0\\.0\\.1:${port}/`));
    const result = JSON.parse(done.stdout);
    assert.deepEqual(lines, []);
    assert.deepEqual(proxy.hosts.filter((h) => h !== `127.0.0.1:${port}` && !CHROMIUM_OWN.test(h)), []);
    const updates = Number((/updates: (\d+)/.exec(byId(dom, 'updates') || '') || [])[1]);
    assert.ok(updates >= 3, `updates: ${updates}`);
    assert.equal(byId(dom, 'status'), 'done');
    assert.equal(statValue(dom, 'totalRequests'), result.totalRequests);
    assert.equal(statValue(dom, 'effectiveRps'), result.effectiveRps);
    assert.ok(unescape(byId(dom, 'report')).includes(`Completed requests:  ${result.totalRequests}`));
  } finally {
    await proxy.close();
    await target.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--cores 2 with --dashboard: every second carries the whole run\'s p50 and p99, merged from the children\'s buckets', { timeout: 60000 }, async () => {
  const target = await rawServer(paced());
  const port = await new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });
  try {
    const run = startScript(CLI, [target.url, '-t', '1.5', '-c', '4', '-k', '--cores', '2', '--json', '--dashboard', String(port), '--metrics-linger', '2']);
    const deadline = Date.now() + 30000;
    while (!(await fetch(`http://127.0.0.1:${port}/`).then((r) => r.ok, () => false)) && Date.now() < deadline) await sleep(50);
    // The whole stream, up to the done event (replayed to a late reader).
    const frames = await readEvents(`http://127.0.0.1:${port}/events`, (f) => f.some((x) => x.event === 'done'), 30000);
    const done = await run.done;
    assert.equal(done.code, 0, done.stderr);
    const result = JSON.parse(done.stdout);
    const seconds = frames.filter((f) => f.event !== 'done').map((f) => f.data);
    assert.ok(seconds.length >= 2, `${seconds.length} seconds`);
    for (const s of seconds) {
      assert.equal(typeof s.p50Ms, 'number', JSON.stringify(s));
      assert.ok(s.p50Ms > 0 && s.p50Ms <= s.p99Ms, JSON.stringify(s));
    }
    // The seconds are the children's merged: their counts add up to the run's, and each second's
    // percentiles are those of the result's series (the same buckets, merged the same way).
    assert.equal(seconds.at(-1).completed, result.totalRequests);
    seconds.forEach((s, i) => {
      assert.equal(s.p50Ms, result.series[i].p50Ms);
      assert.equal(s.p99Ms, result.series[i].p99Ms);
    });
  } finally {
    await target.close();
  }
});
