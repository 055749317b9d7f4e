// --metrics HOST:PORT: an HTTP endpoint for a Prometheus to scrape while the run goes. node:http,
// which node, Bun and Deno all serve with; what it answers comes from src/results/metrics-text.js.

import http from 'node:http';

/**
 * Listens on `where` ('HOST:PORT', '[::1]:PORT' or ':PORT' for every interface; port 0 picks a
 * free one) and answers GET /metrics with render(). Resolves to { url, close() }; rejects with a
 * one-line Error when it cannot listen.
 */
export async function serveMetrics(where, render) {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(String(where));
  if (!m || Number(m[3]) > 65535) throw new Error(`--metrics '${where}': expected HOST:PORT, e.g. 127.0.0.1:9464 or :9464 (every interface)`);
  const host = m[1] || m[2] || '0.0.0.0';
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || req.url.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('loadtest: the metrics are at /metrics\n');
      return;
    }
    let text;
    try {
      text = render();
    } catch (err) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(`${err && err.message}\n`);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }).end(text);
  });
  await new Promise((resolve, reject) => {
    server.once('error', (err) => reject(new Error(`--metrics ${where}: cannot listen (${err.code || err.message})`)));
    server.listen(Number(m[3]), host, resolve);
  });
  const port = server.address().port;
  const shown = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  return {
    url: `http://${shown}:${port}/metrics`,
    port,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        // Scrapers keep their connections open: the run's end must not wait for them.
        if (server.closeAllConnections) server.closeAllConnections();
      }),
  };
}
