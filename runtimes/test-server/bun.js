// The test server on Bun.serve, with WebSocket echo for requests that ask to upgrade.

import { fetchHandler, wantsWebSocket } from './web.js';

export const name = 'Bun.serve';

export const sharing = () => 'reuseport';

/** Resolves to { port, server, close() } once listening; rejects with the listening error. */
export async function listen(s) {
  const answer = fetchHandler(s);
  const server = globalThis.Bun.serve({
    port: s.port,
    // No host: every interface, as node:http's default (Bun's own default is 0.0.0.0 too).
    hostname: s.host,
    // node:http's keepAliveTimeout is 30 s; Bun's default idle timeout is 10 s.
    idleTimeout: 30,
    reusePort: Boolean(s.share && s.share.reusePort),
    tls: s.tls || undefined,
    fetch(req, srv) {
      if (wantsWebSocket(req) && srv.upgrade(req)) return undefined;
      return answer(req);
    },
    websocket: {
      // Counted, and delayed as requests are, like node:http's echo.
      message(ws, message) {
        s.counts.messages++;
        if (s.delay > 0) setTimeout(() => ws.send(message), s.delay);
        else ws.send(message);
      },
    },
  });
  return { port: server.port, server, close: () => server.stop(true) };
}
