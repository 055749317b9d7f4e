// The test server on node:http (node:https with a certificate): Node's own, and the compat
// layer of Bun and Deno with `impl: 'node'`. logger and shouldErrorCustom get node's request
// (its body as a string in `body`) and response, as in loadtest 8.

import http from 'node:http';
import https from 'node:https';
import { Buffer } from 'node:buffer';
import { websocketEcho } from './websocket-echo.js';

export const name = 'node:http';

/**
 * The request handler for settings `s` (runtimes/test-server/server.js): node:http's, and node:http2's
 * compatibility API (runtimes/test-server/http2.js) takes the same.
 */
export function requestHandler(s) {
  const answer = (req, res) => {
    const a = s.answer(req);
    // A length rather than node's chunked default, as Bun.serve and Deno.serve send.
    res.writeHead(a.status, { 'content-type': a.type, 'content-length': a.body.length });
    res.end(a.body);
    if (s.logger) s.logger(req, res);
  };
  const reply = s.delay > 0 ? (req, res) => setTimeout(() => answer(req, res), s.delay) : answer;
  const handle = (req, res) => {
    if (!s.wantsRequest) {
      req.resume();
      req.on('end', () => reply(req, res));
      return;
    }
    // The whole body is read before answering, as a real server would, and kept as a string in
    // req.body, where loadtest 8's logger and shouldErrorCustom find it.
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      req.body = chunks.length ? Buffer.concat(chunks).toString() : '';
      reply(req, res);
    });
  };
  return handle;
}

/** Resolves to { port, server, close() } once listening; rejects with the listening error. */
export function listen(s) {
  const handle = requestHandler(s);
  const server = s.tls ? https.createServer(s.tls, handle) : http.createServer(handle);
  server.keepAliveTimeout = 30000;
  // ws:// and wss:// echo through the upgrade event, with our own frames.
  const upgraded = new Set();
  websocketEcho(server, { counts: s.counts, sockets: upgraded, delay: s.delay });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    const ready = () => {
      server.off('error', reject);
      resolve({ port: server.address().port, server, close: () => close(server, upgraded) });
    };
    // A --cores child takes the socket its parent opened (fd), or binds beside its siblings.
    if (s.share && s.share.fd !== undefined) server.listen({ fd: s.share.fd }, ready);
    // No host: every interface, as loadtest 8's test server (tests pass 127.0.0.1).
    else server.listen({ port: s.port, host: s.host, reusePort: Boolean(s.share && s.share.reusePort) }, ready);
  });
}

function close(server, upgraded) {
  return new Promise((resolve, reject) => {
    server.close((err) => (err ? reject(err) : resolve()));
    if (server.closeAllConnections) server.closeAllConnections();
    // closeAllConnections knows only HTTP connections, not upgraded ones.
    for (const socket of upgraded) socket.destroy();
  });
}

/**
 * How processes share a port with node:http here. Node 20 has no reusePort (Node 22.12 added
 * it); the parent opens the socket and the children accept from it. Deno's node:http binds with
 * SO_REUSEPORT; Bun's does so only inside node:cluster, which our children are not.
 */
export function sharing(runtimeName) {
  if (runtimeName === 'deno') return 'reuseport';
  if (runtimeName === 'node') return 'fd';
  return null;
}

/** For 'fd' sharing: a listening socket the children inherit; the parent never accepts on it. */
export async function openShared(port, host) {
  const net = await import('node:net');
  const server = net.createServer({ pauseOnConnect: true });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host }, resolve);
  });
  // The descriptor is libuv's (Unix); spawn duplicates it into each child as fd 3.
  return { port: server.address().port, fd: server._handle.fd, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
