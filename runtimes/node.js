// The socket interface (src/socket.js) on node:net, and node:tls for https. Bun and Deno run it
// too, through their node compatibility layers (`--socket node`).

import net from 'node:net';
import tlsModule from 'node:tls';
import { certificateError } from './cert-error.js';

export const name = 'node:net';
export const tlsName = 'node:tls';
export const canSkipVerify = true;

/** tls: null for plain TCP, or { servername, rejectUnauthorized, ca, cert, key }. */
export function connect(host, port, handlers, tls = null) {
  // noDelay: a request is one write that must leave at once, not wait for Nagle's timer.
  const socket = tls
    ? tlsModule.connect({ host, port, noDelay: true, ...tlsOptions(tls) })
    : net.connect({ host, port, noDelay: true });
  if (tls) socket.setNoDelay(true);
  let dead = false;
  // No setEncoding: chunks arrive as Buffers, which are Uint8Arrays, passed on without a copy.
  socket.on('data', (chunk) => {
    if (!dead) handlers.data(chunk);
  });
  socket.on('error', (err) => {
    if (!dead) handlers.error(tls ? certificateError(err) : err);
  });
  socket.on('close', () => {
    if (dead) return;
    dead = true;
    handlers.close();
  });
  return {
    write(bytes) {
      if (!dead) socket.write(bytes);
    },
    end() {
      if (!dead) socket.end();
    },
    destroy() {
      dead = true;
      socket.destroy();
    },
  };
}

function tlsOptions(tls) {
  const o = { rejectUnauthorized: tls.rejectUnauthorized };
  if (tls.servername) o.servername = tls.servername;
  if (tls.ca) o.ca = tls.ca;
  if (tls.cert) o.cert = tls.cert;
  if (tls.key) o.key = tls.key;
  return o;
}
