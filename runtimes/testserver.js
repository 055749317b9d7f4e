// The test server, on node:http (all three runtimes run it). It answers "OK" (or `body`, or the
// contents of `file`) to everything, after `delay` ms if asked, with `error` (default 500) for
// `percent` % of the requests or when `shouldErrorCustom(request)` says so, and counts what it
// served so that tests can compare with what the client reports.

import http from 'node:http';
import https from 'node:https';
import { readFileSync } from 'node:fs';

/**
 * loadtest 8's two forms: with a callback, the server object at once and callback(error) once it
 * listens (its close(callback) calls back once closed); without one, a Promise of that object.
 */
export function startServer(options = {}, callback) {
  const o = { port: 7357, delay: 0, error: 0, percent: 0, quiet: false, logger: null, ...options };
  const delay = Number(o.delay) || 0;
  const percent = o.error && !o.percent ? 100 : Number(o.percent) || 0;
  const errorCode = Number(o.error) || 500;
  const shouldErrorCustom = typeof o.shouldErrorCustom === 'function' ? o.shouldErrorCustom : null;
  const body = o.file ? readFileSync(o.file) : o.body !== undefined && o.body !== null ? o.body : 'OK';
  let served = 0;
  let errors = 0;
  const answer = (req, res) => {
    served++;
    if ((shouldErrorCustom && shouldErrorCustom(req)) || (percent && Math.random() * 100 < percent)) {
      errors++;
      res.writeHead(errorCode, { 'content-type': 'text/plain' });
      res.end('ERROR');
    } else {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(body);
    }
    if (o.logger) o.logger(req, res);
  };
  // With cert and key (PEM) it serves https.
  const tls = o.cert && o.key ? { cert: o.cert, key: o.key } : null;
  const handle = (req, res) => {
    // Read the body before answering, as a real server would; shouldErrorCustom sees it as
    // request.body (a string), as in loadtest 8.
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      req.body = Buffer.concat(chunks).toString();
      if (delay > 0) setTimeout(() => answer(req, res), delay);
      else answer(req, res);
    });
  };
  const server = tls ? https.createServer(tls, handle) : http.createServer(handle);
  server.keepAliveTimeout = 30000;
  const testServer = {
    port: Number(o.port),
    server,
    get requests() {
      return served;
    },
    get errors() {
      return errors;
    },
    /** close(callback) as loadtest 8's; without a callback, a Promise. */
    close(done) {
      const closed = new Promise((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        if (server.closeAllConnections) server.closeAllConnections();
      });
      if (typeof done === 'function') closed.then(() => done(null), (err) => done(err));
      else return closed;
    },
  };
  const listening = new Promise((resolve, reject) => {
    server.on('error', (err) => reject(new Error(`could not start test server on port ${o.port}: ${err.code || err.message}`)));
    // No host: every interface, as loadtest 8's test server (tests pass 127.0.0.1).
    server.listen(Number(o.port), o.host, () => {
      testServer.port = server.address().port;
      if (!o.quiet) console.log(`Listening on ${tls ? 'https' : 'http'}://${o.host || 'localhost'}:${testServer.port}/`);
      resolve(testServer);
    });
  });
  if (typeof callback !== 'function') return listening;
  listening.then((s) => callback(null, s), (e) => callback(e));
  return testServer;
}
