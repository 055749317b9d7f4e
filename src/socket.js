// The socket interface: the only thing the core needs from a runtime.
//
//   adapter.connect(host, port, handlers) → socket
//     host      an IP address or name; port a number
//     handlers  an object whose methods the adapter calls (as methods, with `this` = handlers):
//                 data(chunk)  chunk is a Uint8Array that is the handler's only until it returns
//                              (adapters may reuse their read buffer: copy what you keep),
//                              unless the adapter says `freshReads: true` (a new one each
//                              read, never written again, as Bun's: kept as it is)
//                 error(err)   at most once; err.code names it ('ECONNREFUSED', 'ECONNRESET',
//                              'EPIPE', 'ENOTFOUND', ...). close() always follows.
//                 close()      exactly once, when the connection is gone for any reason
//                 connected()  when the connection is up (through a proxy: once the tunnel is),
//                              before any data(); not called for one that never opens
//                 secured(protocol, session)  when a TLS connection's handshake is done,
//                              after connected() and before any data() (the request phases
//                              read the clock then); `protocol`: the one chosen by ALPN ('h2',
//                              'http/1.1'), or null; `session`: { version: 'TLSv1.3', cipher:
//                              'TLS_AES_128_GCM_SHA256' } (OpenSSL's and IANA's names), or null
//                              when the runtime does not tell them (Deno's own TLS)
//               batchesWrites  optional, true when the handlers make one write a read, however
//                              many requests it answers (HTTP/2, pipelining): the adapters
//                              then send a plain connection's writes at once rather than at the
//                              turn's end (runtimes/sockets/held-writes.js)
//   socket.write(bytes)  queues a Uint8Array; allowed before the connection is up (the adapter
//                        sends it once connected) and never copied by the core afterwards
//   socket.end()         half-closes after the queued writes; close() follows
//   socket.destroy()     drops the connection at once; after it no handler is called
//
// Handlers are never called from inside connect(): a failure found at once (a missing Unix
// socket file) is reported after connect() has returned the socket.
//
// The runtime adapters take two more arguments that pickAdapter() fixes for a run: the TLS
// options, and a Unix socket path that replaces host and port.
//
// connected() and secured() are optional for a handlers object: an adapter calls them when the
// handlers have them. Adapters also carry `name` (e.g. 'node:net') for the report, and may carry
// `freshReads`. Nothing else: timers, parsing,
// reconnection and accounting are the core's, so every adapter behaves the same.

/** Checks that an object has the adapter's shape, so a wrong one fails at start, not mid-run. */
export function checkAdapter(adapter) {
  if (!adapter || typeof adapter.connect !== 'function' || typeof adapter.name !== 'string') {
    throw new Error('a socket adapter needs connect(host, port, handlers) and a name');
  }
  return adapter;
}

/** A socket error's reason for the report: its code ('ECONNRESET', ...), else its name. */
export function errorName(err) {
  return (err && (err.code || err.name)) || 'socket error';
}
