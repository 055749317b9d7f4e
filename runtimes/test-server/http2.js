// The test server over HTTP/2 (`http2: true`, testserver-loadtest --http2) on node:http2: h2c
// (prior knowledge) without a certificate; with one, h2 and http/1.1 by ALPN. The same answers
// and counts as the HTTP/1.1 servers (runtimes/test-server/server.js).

import http2 from 'node:http2';
import { requestHandler } from './node.js';

export const name = 'node:http2';

/** Resolves to { port, server, close() } once listening; rejects with the listening error. */
export function listen(s) {
  const handle = requestHandler(s);
  const server = s.tls ? http2.createSecureServer({ ...s.tls, allowHTTP1: true }, handle) : http2.createServer(handle);
  const sessions = new Set();
  server.on('session', (session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
    session.on('error', () => {});
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    const ready = () => {
      server.off('error', reject);
      resolve({ port: server.address().port, server, close: () => close(server, sessions) });
    };
    server.listen({ port: s.port, host: s.host }, ready);
  });
}

function close(server, sessions) {
  return new Promise((resolve, reject) => {
    server.close((err) => (err ? reject(err) : resolve()));
    // server.close waits for every session to end: a client's kept-open connection would hold it.
    for (const session of sessions) session.destroy();
  });
}

/** Several processes on one port: not for HTTP/2 here. */
export function sharing() {
  return null;
}
