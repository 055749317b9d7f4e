// The test server, on node:http (all three runtimes run it). It answers "OK" to everything,
// after `delay` ms if asked, with `error` (default 500) for `percent` % of the requests, and
// counts what it served so that tests can compare with what the client reports.

import http from 'node:http';
import https from 'node:https';

export function startServer(options = {}, callback) {
  const promise = new Promise((resolve, reject) => {
    const o = { port: 7357, delay: 0, error: 0, percent: 0, quiet: false, logger: null, ...options };
    const delay = Number(o.delay) || 0;
    const percent = o.error && !o.percent ? 100 : Number(o.percent) || 0;
    const errorCode = Number(o.error) || 500;
    let served = 0;
    let errors = 0;
    const answer = (req, res) => {
      served++;
      if (percent && Math.random() * 100 < percent) {
        errors++;
        res.writeHead(errorCode, { 'content-type': 'text/plain' });
        res.end('ERROR');
      } else {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('OK');
      }
      if (o.logger) o.logger(req, res);
    };
    // With cert and key (PEM) it serves https.
    const tls = o.cert && o.key ? { cert: o.cert, key: o.key } : null;
    const handle = (req, res) => {
      // Read (and drop) the body before answering, as a real server would.
      req.resume();
      req.on('end', () => {
        if (delay > 0) setTimeout(() => answer(req, res), delay);
        else answer(req, res);
      });
    };
    const server = tls ? https.createServer(tls, handle) : http.createServer(handle);
    server.keepAliveTimeout = 30000;
    server.on('error', (err) => reject(new Error(`could not start test server on port ${o.port}: ${err.code || err.message}`)));
    // No host: every interface, as loadtest 8's test server (tests pass 127.0.0.1).
    server.listen(Number(o.port), o.host, () => {
      const { port } = server.address();
      if (!o.quiet) console.log(`Listening on ${tls ? 'https' : 'http'}://${o.host || 'localhost'}:${port}/`);
      resolve({
        port,
        server,
        get requests() {
          return served;
        },
        get errors() {
          return errors;
        },
        close() {
          return new Promise((done) => {
            server.close(() => done());
            if (server.closeAllConnections) server.closeAllConnections();
          });
        },
      });
    });
  });
  if (callback) promise.then((s) => callback(null, s), (e) => callback(e));
  return promise;
}
