// The test server, on node:http (all three runtimes run it). It answers "OK" (or `body`, or the
// contents of `file`) to everything, after `delay` ms if asked, with `error` (default 500) for
// `percent` % of the requests and for those `shouldErrorCustom(request)` picks, echoes WebSocket
// messages (runtimes/websocket-echo.js), and counts what it served so that tests can compare with
// what the client reports.

import http from 'node:http';
import https from 'node:https';
import { readFileSync } from 'node:fs';
import { Buffer } from 'node:buffer';
import { websocketEcho } from './websocket-echo.js';

// loadtest 8's two forms: with a callback it returns the server object at once and calls back
// with (error) or (null, server) once listening; without one, a Promise of that object.
export function startServer(options = {}, callback) {
  const { testServer, start } = createTestServer(options);
  if (callback) {
    start(callback);
    return testServer;
  }
  return new Promise((resolve, reject) => start((err) => (err ? reject(err) : resolve(testServer))));
}

function responseBody(o) {
  if (o.file) {
    try {
      return { body: readFileSync(o.file) };
    } catch (err) {
      return { problem: `cannot read file '${o.file}' (${err.code || err.message})`, code: err.code };
    }
  }
  if (o.body === undefined || o.body === null || o.body === '') return { body: 'OK', headers: { 'content-type': 'text/plain' } };
  if (typeof o.body === 'string' || o.body instanceof Uint8Array) return { body: o.body };
  return { body: JSON.stringify(o.body), headers: { 'content-type': 'application/json' } };
}

function createTestServer(options) {
  const o = { port: 7357, delay: 0, error: 0, percent: 0, quiet: false, logger: null, ...options };
  const delay = Number(o.delay) || 0;
  // parseFloat as loadtest 8's parseInt reads "10%", but keeps fractions such as 0.5.
  const percent = o.error && !o.percent ? 100 : parseFloat(o.percent) || 0;
  const errorCode = Number(o.error) || 500;
  const shouldErrorCustom = typeof o.shouldErrorCustom === 'function' ? o.shouldErrorCustom : null;
  const { body, headers, problem, code } = responseBody(o);
  let served = 0;
  let errors = 0;
  const answer = (req, res) => {
    served++;
    if ((shouldErrorCustom && shouldErrorCustom(req)) || (percent && Math.random() * 100 < percent)) {
      errors++;
      res.writeHead(errorCode, { 'content-type': 'text/plain' });
      res.end('ERROR');
    } else {
      res.writeHead(200, headers);
      res.end(body);
    }
    if (o.logger) o.logger(req, res);
  };
  // With cert and key (PEM) it serves https.
  const tls = o.cert && o.key ? { cert: o.cert, key: o.key } : null;
  const handle = (req, res) => {
    // The whole body is read before answering, as a real server would, and kept as a string in
    // req.body, where loadtest 8's logger and shouldErrorCustom find it.
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      req.body = chunks.length ? Buffer.concat(chunks).toString() : '';
      if (delay > 0) setTimeout(() => answer(req, res), delay);
      else answer(req, res);
    });
  };
  const server = tls ? https.createServer(tls, handle) : http.createServer(handle);
  server.keepAliveTimeout = 30000;
  // ws:// and wss:// echo; `messages` counts what it echoed.
  const ws = { messages: 0 };
  const upgraded = new Set();
  websocketEcho(server, { counts: ws, sockets: upgraded, delay });
  const testServer = {
    port: Number(o.port),
    server,
    get requests() {
      return served;
    },
    get errors() {
      return errors;
    },
    get messages() {
      return ws.messages;
    },
    // close(callback) as loadtest 8's (callback(error) once closed); without one, a Promise.
    // Kept-alive connections are cut, or close would wait for the clients to hang up.
    close(cb) {
      const closed = new Promise((resolve, reject) => {
        server.close((err) => (err && cb ? reject(err) : resolve()));
        if (server.closeAllConnections) server.closeAllConnections();
        for (const socket of upgraded) socket.destroy();
      });
      if (!cb) return closed;
      closed.then(() => cb(null), (err) => cb(err));
      return undefined;
    },
  };
  const start = (done) => {
    if (problem) {
      // Asynchronous as a listening error, so that the callback form has returned its object.
      const error = new Error(`could not start test server: ${problem}`);
      error.code = code;
      queueMicrotask(() => done(error));
      return;
    }
    let settled = false;
    server.on('error', (err) => {
      if (settled) return;
      settled = true;
      const reason = err.code === 'EADDRINUSE' ? `port ${o.port} in use` : err.code || err.message;
      const error = new Error(`could not start test server on port ${o.port}: ${reason}`);
      error.code = err.code;
      done(error);
    });
    // No host: every interface, as loadtest 8's test server (tests pass 127.0.0.1).
    server.listen(Number(o.port), o.host, () => {
      settled = true;
      testServer.port = server.address().port;
      if (!o.quiet) console.log(`Listening on ${tls ? 'https' : 'http'}://${o.host || 'localhost'}:${testServer.port}/`);
      done(null, testServer);
    });
  };
  return { testServer, start };
}
