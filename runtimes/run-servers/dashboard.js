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
  const board = new Dashboard(dashboardPage({ title }));
  await board.listen(wanted, port);
  return board;
}

class Dashboard {
  url = null;
  port = null;
  #page;
  // [id, frame] per event, the done event last; ids count from 1, as Last-Event-ID comes back.
  #sent = [];
  #streams = new Set();
  #reportHtml = null;
  #finished = false;
  #closed = false;
  #server;
  #beat = null;

  constructor(page) {
    this.#page = page;
    this.#server = http.createServer((req, res) => this.#answer(req, res));
    // A browser that is gone leaves a reset behind: no reason to stop the run.
    this.#server.on('clientError', (err, socket) => socket.destroy());
  }

  /** Listens on 127.0.0.1:`wanted` (`port` as given, for the error), then beats. */
  async listen(wanted, port) {
    const server = this.#server;
    await new Promise((resolve, reject) => {
      server.once('error', (err) => reject(new Error(`--dashboard ${port}: cannot listen (${err.code || err.message})`)));
      server.listen(wanted, '127.0.0.1', resolve);
    });
    this.port = server.address().port;
    this.url = `http://127.0.0.1:${this.port}/`;
    // A comment line now and then: a stream that goes quiet (the run's end, a long first second)
    // would otherwise be cut by an idle timeout on the way (a proxy, Bun's server), and a page gone
    // is noticed.
    this.#beat = setInterval(() => {
      for (const res of this.#streams) res.write(': \n\n');
    }, 5000);
    this.#beat.unref();
  }

  #answer(req, res) {
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
    if (path === '/') return html(this.#page);
    if (path === '/report.html') return this.#reportHtml === null ? plain(404, 'loadtest: the report is here once the run has ended') : html(this.#reportHtml);
    // A browser that lost the stream asks again from the last event it got.
    const after = Number(req.headers['last-event-id']) || 0;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' });
    if (req.method === 'HEAD') return res.end();
    // Written at once, so that the headers go now even with nothing to replay yet; a retry a
    // little quicker than the browser's 3 s default.
    res.write(`retry: 1000\n\n${this.#sent.filter(([id]) => id > after).map(([, text]) => text).join('')}`);
    if (this.#closed) return res.end();
    this.#streams.add(res);
    res.on('close', () => this.#streams.delete(res));
  }

  #send(event, data) {
    const text = frame(this.#sent.length + 1, event, data);
    this.#sent.push([this.#sent.length + 1, text]);
    for (const res of this.#streams) res.write(text);
  }

  /** Event streams open now (a page that is reading the run). */
  get streams() {
    return this.#streams.size;
  }

  push(data) {
    if (!this.#finished && !this.#closed) this.#send(null, data);
  }

  finish({ report = '', summary = {}, html = null } = {}) {
    if (this.#finished || this.#closed) return;
    this.#finished = true;
    this.#reportHtml = typeof html === 'string' ? html : null;
    this.#send('done', { report: String(report), summary });
  }

  close() {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    clearInterval(this.#beat);
    for (const res of this.#streams) res.end();
    this.#streams.clear();
    return new Promise((resolve) => {
      this.#server.close(() => resolve());
      // A browser keeps its connection alive after the page loaded: the run's end must not wait for it.
      if (this.#server.closeAllConnections) this.#server.closeAllConnections();
    });
  }
}
