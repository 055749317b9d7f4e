// The first connection of a VU to an https origin: it offers h2 and HTTP/1.1 by ALPN and, once
// the server has chosen, is handed to the driver of that protocol (src/script/net/client.js) with
// its connect and TLS times, so that the request that waited for it is timed as if it had
// opened it. What the server sends before the hand-over (an h2 server's SETTINGS) is kept and
// given to the driver then.

export class Negotiation {
  constructor(origin, resolve) {
    this.origin = origin;
    this.resolve = resolve;
    this.socket = null;
    this.startedAt = performance.now();
    this.readyAt = 0;
    this.connectMs = 0;
    this.tlsMs = 0;
    this.protocol = null; // ALPN's choice ('h2', 'http/1.1') or null (none)
    this.session = null; // the TLS version and cipher, as the adapter said them (src/socket.js)
    this.settled = false;
    this.failed = false; // closed before the handshake was done
    this.closed = false;
    this.driver = null; // the socket's handlers once handed over
    this.early = [];
    this.earlyError = null;
  }

  connected() {
    const now = performance.now();
    this.connectMs = now - this.startedAt;
    this.readyAt = now;
  }

  secured(protocol, session) {
    this.tlsMs = performance.now() - this.readyAt;
    this.protocol = protocol;
    this.session = session || null;
    this.settle();
  }

  settle() {
    if (this.settled) return;
    this.settled = true;
    this.resolve(this);
  }

  data(chunk) {
    if (this.driver !== null) return this.driver.data(chunk);
    this.early.push(chunk.slice()); // an adapter may reuse its read buffer
  }

  // An error before the hand-over (a TLS alert read right after the handshake: Deno's node:tls
  // gives it before the driver has the socket) is the driver's once it has it.
  error(err) {
    if (this.driver !== null) this.driver.error(err);
    else this.earlyError = err;
  }

  close() {
    this.closed = true;
    if (this.driver !== null) return this.driver.close();
    this.socket = null;
    if (!this.settled) this.failed = true;
    this.settle();
  }

  /** From now on the socket's events are `driver`'s; what came before reaches it next. */
  handOver(driver) {
    this.driver = driver;
    if (this.early.length === 0 && this.earlyError === null) return;
    const early = this.early;
    const err = this.earlyError;
    this.early = [];
    this.earlyError = null;
    // After the driver has the socket (its connect returns it), as any chunk comes.
    queueMicrotask(() => {
      for (const chunk of early) if (!this.closed) driver.data(chunk);
      if (err !== null) driver.error(err);
    });
  }

  drop() {
    if (this.socket !== null) this.socket.destroy();
    this.socket = null;
  }
}
