// WebSocket echo for the node:http test server (node, bun and deno all emit node:http's
// `upgrade` event), with our own frame code from src/: every text or binary message comes back
// as it came, pings get pongs, a close is answered and the connection ended.

import { FrameParser } from '../../src/websocket/frame-parser.js';
import { OP_CLOSE, OP_PING, OP_PONG, acceptFor, closePayload, encodeFrame } from '../../src/websocket/protocol.js';

/**
 * Handles the server's `upgrade` events. `counts.messages` counts the messages echoed;
 * `sockets` collects the upgraded sockets, which the server's close() must end itself
 * (closeAllConnections only knows HTTP ones). `delay` ms before each echo, as for requests.
 */
export function websocketEcho(server, { counts, sockets, delay = 0 }) {
  server.on('upgrade', (req, socket, head) => {
    socket.on('error', () => {});
    const key = req.headers['sec-websocket-key'];
    if ((req.headers.upgrade || '').toLowerCase() !== 'websocket' || !key || req.headers['sec-websocket-version'] !== '13') {
      socket.end('HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
      return;
    }
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    if (socket.setNoDelay) socket.setNoDelay(true);
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-accept: ${acceptFor(key)}\r\n\r\n`);
    const parser = new FrameParser(
      {
        onMessage(opcode) {
          const chunks = parser.chunks;
          const payload = chunks.length === 1 ? chunks[0] : concat(chunks, parser.messageLength);
          const frame = encodeFrame(opcode, payload, null);
          counts.messages++;
          if (delay > 0) setTimeout(() => socket.write(frame), delay);
          else socket.write(frame);
        },
        onControl(opcode, payload) {
          if (opcode === OP_PING) socket.write(encodeFrame(OP_PONG, payload, null));
          else if (opcode === OP_CLOSE) socket.end(encodeFrame(OP_CLOSE, payload.length >= 2 ? payload.subarray(0, 2) : payload, null));
        },
        onFrameError() {
          // 1002: protocol error (RFC 6455 7.4.1).
          socket.end(encodeFrame(OP_CLOSE, closePayload(1002), null));
        },
      },
      { masked: true, capture: true },
    );
    if (head && head.length) parser.execute(head);
    socket.on('data', (chunk) => parser.execute(chunk));
  });
}

function concat(chunks, length) {
  const all = new Uint8Array(length);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  return all;
}
