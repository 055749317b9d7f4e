// The socket interface (src/socket.js) on node:net. Bun and Deno run it too, through their
// node:net compatibility layers, until their native adapters exist.

import net from 'node:net';

export const name = 'node:net';

export function connect(host, port, handlers) {
  // noDelay: a request is one write that must leave at once, not wait for Nagle's timer.
  const socket = net.connect({ host, port, noDelay: true });
  let dead = false;
  // No setEncoding: chunks arrive as Buffers, which are Uint8Arrays, passed on without a copy.
  socket.on('data', (chunk) => {
    if (!dead) handlers.data(chunk);
  });
  socket.on('error', (err) => {
    if (!dead) handlers.error(err);
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
