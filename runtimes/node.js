// The socket interface (src/socket.js) on node:net, and node:tls for https. Bun and Deno run it
// too, through their node compatibility layers (`--socket node`).

import net from 'node:net';
import tlsModule from 'node:tls';
import { certificateError } from './cert-error.js';

export const name = 'node:net';
export const tlsName = 'node:tls';
export const canSkipVerify = true;

const READ_BUFFER = 64 * 1024;

/**
 * tls: null for plain TCP, or { servername, rejectUnauthorized, ca, cert, key }. path: a Unix
 * domain socket to connect to instead of host and port.
 */
export function connect(host, port, handlers, tls = null, path = null) {
  let dead = false;
  let intoBuffer = false;
  // Plain TCP reads into one buffer per connection (`onread`) instead of a new Buffer per read:
  // +12-18 % req/s on node 20 against nginx (bench/README.md). The chunk handed on is a view of
  // that buffer, valid until data() returns, as the socket interface says.
  const onread = tls
    ? undefined
    : {
        buffer: Buffer.allocUnsafe(READ_BUFFER),
        callback(n, buf) {
          intoBuffer = true;
          if (!dead) handlers.data(buf.subarray(0, n));
        },
      };
  // noDelay: a request is one write that must leave at once, not wait for Nagle's timer.
  const where = path ? { path } : { host, port };
  const socket = tls
    ? tlsModule.connect({ ...where, noDelay: true, ...tlsOptions(tls) })
    : net.connect({ ...where, noDelay: true, onread });
  if (tls && !path) socket.setNoDelay(true);
  // No setEncoding: chunks arrive as Buffers, which are Uint8Arrays, passed on without a copy.
  // (A node:net without `onread` support emits them here instead; never both.)
  socket.on('data', (chunk) => {
    if (!dead && !intoBuffer) handlers.data(chunk);
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
