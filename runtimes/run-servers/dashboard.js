// --dashboard [PORT]: the run's live page (src/results/html/dashboard-page.js) and its Server-Sent
// Events, on 127.0.0.1. node:http, which node, Bun and Deno all serve with.
//
// Every event is kept for the run's length (a second's figures: some 200 bytes, under 1 MB an
// hour), so that a page opened late, or reconnecting, still draws the whole run.

import http from 'node:http';
// Deno's global timers are the web's (a number, no unref()); these are the same on the three.
import { setInterval, clearInterval } from 'node:timers';
import { dashboardPage, DASHBOARD_CSP } from '../../src/results/html/dashboard-page.js';

// Loopback names only: a page elsewhere that rebinds its own name to 127.0.0.1 (DNS rebinding)
// sends its own name as Host, and gets nothing of the run.
const LOCAL = /^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/i;

const frame = (id, event, data) => `id: ${id}\n${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;

/**
 * Listens on 127.0.0.1:port (0 picks a free one). Resolves to { url, port, push(data),
 * finish({ report, summary, html }), close() }; rejects with a one-line Error when it cannot listen.
 * push: a second's figures, sent to every open /events stream; finish: the `done` event (the
 * report's text and summary) and the --html page at /report.html.
 */
export async function serveDashboard(port, { title = '' } = {}) {
  const wanted = Number(port);
  if (!Number.isInteger(wanted) || wanted < 0 || wanted > 65535) throw new Error(`--dashboard '${port}': expected a port, 0 to 65535`);
  const page = dashboardPage({ title });
  // [id, frame] per event, the done event last; ids count from 1, as Last-Event-ID comes back.
  const sent = [];
  const streams = new Set();
  let reportHtml = null;
  let finished = false;
  let closed = false;

  const server = http.createServer((req, res) => {
    // Split, not new URL(): a request line it cannot parse must not throw in the run.
    const path = String(req.url).split('?')[0];
    const plain = (status, text, extra = {}) => res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...extra }).end(`${text}\n`);
    if (!LOCAL.test(req.headers.host || '')) return plain(403, 'loadtest: the dashboard answers on 127.0.0.1 and localhost only');
    const known = path === '/' || path === '/events' || path === '/report.html';
    if (!known) return plain(404, 'loadtest: the dashboard is at /');
    if (req.method !== 'GET' && req.method !== 'HEAD') return plain(405, 'loadtest: GET only', { allow: 'GET, HEAD' });
    const html = (text) =>
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': `${DASHBOARD_CSP}; frame-ancestors 'none'`,
        'x-content-type-options': 'nosniff',
        'cache-control': 'no-store',
      }).end(req.method === 'HEAD' ? undefined : text);
    if (path === '/') return html(page);
    if (path === '/report.html') return reportHtml === null ? plain(404, 'loadtest: the report is here once the run has ended') : html(reportHtml);
    // A browser that lost the stream asks again from the last event it got.
    const after = Number(req.headers['last-event-id']) || 0;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' });
    if (req.method === 'HEAD') return res.end();
    // Written at once, so that the headers go now even with nothing to replay yet; a retry a
    // little quicker than the browser's 3 s default.
    res.write(`retry: 1000\n\n${sent.filter(([id]) => id > after).map(([, text]) => text).join('')}`);
    if (closed) return res.end();
    streams.add(res);
    res.on('close', () => streams.delete(res));
  });
  // A browser that is gone leaves a reset behind: no reason to stop the run.
  server.on('clientError', (err, socket) => socket.destroy());

  await new Promise((resolve, reject) => {
    server.once('error', (err) => reject(new Error(`--dashboard ${port}: cannot listen (${err.code || err.message})`)));
    server.listen(wanted, '127.0.0.1', resolve);
  });
  const bound = server.address().port;
  // A comment line now and then: a stream that goes quiet (the run's end, a long first second)
  // would otherwise be cut by an idle timeout on the way (a proxy, Bun's server), and a page gone
  // is noticed.
  const beat = setInterval(() => {
    for (const res of streams) res.write(': \n\n');
  }, 5000);
  beat.unref();

  const send = (event, data) => {
    const text = frame(sent.length + 1, event, data);
    sent.push([sent.length + 1, text]);
    for (const res of streams) res.write(text);
  };
  return {
    url: `http://127.0.0.1:${bound}/`,
    port: bound,
    /** Event streams open now (a page that is reading the run). */
    get streams() {
      return streams.size;
    },
    push(data) {
      if (!finished && !closed) send(null, data);
    },
    finish({ report = '', summary = {}, html = null } = {}) {
      if (finished || closed) return;
      finished = true;
      reportHtml = typeof html === 'string' ? html : null;
      send('done', { report: String(report), summary });
    },
    close() {
      if (closed) return Promise.resolve();
      closed = true;
      clearInterval(beat);
      for (const res of streams) res.end();
      streams.clear();
      return new Promise((resolve) => {
        server.close(() => resolve());
        // A browser keeps its connection alive after the page loaded: the run's end must not wait for it.
        if (server.closeAllConnections) server.closeAllConnections();
      });
    },
  };
}
