// The test server on Deno.serve, with WebSocket echo for requests that ask to upgrade.

import { fetchHandler, wantsWebSocket } from './web.js';

export const name = 'Deno.serve';

// Deno.serve's reusePort needs --unstable-net (Deno 2.x); the children are started with it.
export const sharing = () => 'reuseport';

const pem = (x) => (typeof x === 'string' ? x : new TextDecoder().decode(x));

/** Resolves to { port, server, close() } once listening; rejects with the listening error. */
export async function listen(s) {
  const answer = fetchHandler(s);
  const options = {
    port: s.port,
    // No host: every interface (Deno's own default is 0.0.0.0).
    hostname: s.host,
    onListen() {}, // Deno prints a line of its own otherwise
    onError: (err) => new Response(`server error: ${err.message}`, { status: 500 }),
  };
  if (s.share && s.share.reusePort) options.reusePort = true;
  if (s.tls) Object.assign(options, { cert: pem(s.tls.cert), key: pem(s.tls.key) });
  const server = globalThis.Deno.serve(options, (req) => {
    if (!wantsWebSocket(req)) return answer(req);
    const { socket, response } = globalThis.Deno.upgradeWebSocket(req);
    // Counted, and delayed as requests are, like node:http's echo.
    socket.onmessage = (event) => {
      s.counts.messages++;
      if (s.delay > 0) setTimeout(() => socket.send(event.data), s.delay);
      else socket.send(event.data);
    };
    return response;
  });
  // Closed once its connections are done and its listener is gone (`finished`): the port is
  // free again then (a loaded machine showed it taken right after shutdown() alone).
  return {
    port: server.addr.port,
    server,
    close: async () => {
      await server.shutdown();
      await server.finished;
    },
  };
}
