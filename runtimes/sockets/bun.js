// The socket interface (src/socket.js) on Bun.connect.
//
// One handlers object serves every socket (Bun passes the socket; socket.data holds our
// wrapper), so a connection costs no closures. Bun's write() returns how many bytes the kernel
// took: the rest waits for drain(). Chunks come as Buffers (Uint8Arrays) and are passed on
// without a copy.

import { certificateError } from './cert-error.js';
import { tlsAlert } from './tls-alert.js';
import { opensslCiphers } from './cipher-names.js';
import { tlsSession } from './tls-session.js';
import { tunnelReader } from '../../src/http1/proxy.js';

export const name = 'Bun.connect';
export const tlsName = 'Bun.connect tls';
export const canSkipVerify = true;
// Each read comes in a Buffer of its own, which Bun never writes again (src/socket.js).
export const freshReads = true;

const handlers = {
  open(socket) {
    const w = socket.data;
    if (w.dead) {
      socket.terminate();
      return;
    }
    if (w.tunnel !== null && !w.tunnelUp) {
      // Connected to the proxy: ask for the tunnel; the core's bytes wait in pending.
      socket.write(w.tunnel.request);
      return;
    }
    w.socket = socket;
    if (!w.unix) socket.setNoDelay(true);
    // Bun 1.4.5 calls open() for a TLS socket when TCP is up, before handshake(); through a
    // proxy, connected() came with the proxy's answer (tunnelAnswer).
    if (w.tunnel === null && w.handlers.connected) w.handlers.connected();
    if (w.pending !== null) w.flush();
    if (w.ending && w.pending === null) socket.end();
  },
  data(socket, chunk) {
    const w = socket.data;
    if (w.tunnel !== null) {
      if (!w.tunnelUp) return w.tunnelAnswer(socket, chunk);
      // After upgradeTLS the raw socket still reports the encrypted bytes.
      if (socket !== w.socket) return;
    }
    if (!w.dead) w.handlers.data(chunk);
  },
  drain(socket) {
    const w = socket.data;
    if (!w.dead && w.pending !== null) {
      w.flush();
      if (w.ending && w.pending === null) socket.end();
    }
  },
  end(socket) {
    // The server half-closed: we have nothing more to say either.
    socket.end();
  },
  close(socket, err) {
    const w = socket.data;
    if (err && !w.dead && !w.failed) w.fail(err);
    if (w.tunnel !== null && !w.tunnelUp && !w.dead && !w.failed) {
      const e = new Error('the proxy closed the connection before answering CONNECT');
      e.code = 'proxy closed';
      w.fail(e);
    }
    w.closed();
  },
  error(socket, err) {
    const w = socket.data;
    if (!w.dead && !w.failed) w.fail(err);
  },
  connectError(socket, err) {
    const w = socket.data;
    // Bun reports a missing Unix socket file from inside Bun.connect(); the core must not hear of
    // it before connect() has returned its socket.
    if (w.connecting) return queueMicrotask(() => handlers.connectError(socket, err));
    if (!w.dead && !w.failed) w.fail(err);
    w.closed();
  },
  handshake(socket, success, authorizationError) {
    const w = socket.data;
    // Bun 1.4 reports a failed check here (success false) whatever rejectUnauthorized says, and
    // goes on with the connection: only a verifying connection may fail on it. An alert from the
    // server (a version or suite it will not take, a certificate it wants) ends any.
    const alert = !success && authorizationError ? tlsAlert(authorizationError) : null;
    if (alert !== null && alert !== authorizationError && !w.dead) {
      w.fail(alert);
      socket.terminate();
      return;
    }
    if (!success && authorizationError && w.verify && !w.dead) {
      w.fail(tlsError(authorizationError));
      socket.terminate();
      return;
    }
    if (!w.dead && (success || !w.verify) && w.handlers.secured) w.handlers.secured(socket.alpnProtocol || null, sessionOf(socket));
    // A socket from upgradeTLS takes no bytes before its handshake (write returns -1).
    if (success && !w.dead && w.pending !== null && socket === w.socket) {
      w.flush();
      if (w.ending && w.pending === null) socket.end();
    }
  },
};

class BunSocket {
  constructor(h) {
    this.handlers = h;
    this.socket = null;
    this.pending = null; // bytes not yet taken by the kernel
    this.dead = false; // destroyed by us: no more callbacks
    this.failed = false;
    this.isClosed = false;
    this.ending = false;
    this.unix = false;
    this.connecting = false; // inside Bun.connect()
    this.tunnel = null; // through a proxy: { request, reader, tls }
    this.tunnelUp = false;
    this.verify = true; // fail the connection on a certificate error (rejectUnauthorized)
  }

  // The proxy's answer to CONNECT: on a 2xx the tunnel carries the core's bytes, through TLS for
  // https and wss; anything else fails the connection.
  tunnelAnswer(socket, chunk) {
    const answer = this.tunnel.reader.push(chunk);
    if (answer === null) return;
    if (answer.error) {
      this.fail(answer.error);
      socket.terminate();
      return;
    }
    this.tunnelUp = true;
    if (this.handlers.connected) this.handlers.connected();
    if (this.dead) return;
    if (this.tunnel.tls) {
      socket.upgradeTLS({ data: this, tls: this.tunnel.tls, socket: handlers });
      return;
    }
    handlers.open(socket);
    if (answer.rest.length > 0 && !this.dead) this.handlers.data(answer.rest);
  }

  write(bytes) {
    if (this.dead || this.isClosed) return;
    if (this.socket === null || this.pending !== null) {
      this.pending = this.pending === null ? bytes : concat(this.pending, bytes);
      return;
    }
    const n = this.socket.write(bytes);
    if (n < bytes.length) this.pending = bytes.subarray(n < 0 ? 0 : n);
  }

  flush() {
    const bytes = this.pending;
    const n = this.socket.write(bytes);
    this.pending = n >= bytes.length ? null : bytes.subarray(n < 0 ? 0 : n);
  }

  end() {
    if (this.dead) return;
    this.ending = true;
    if (this.socket !== null && this.pending === null) this.socket.end();
  }

  destroy() {
    if (this.dead) return;
    this.dead = true;
    if (this.socket !== null) this.socket.terminate();
  }

  fail(err) {
    this.failed = true;
    this.handlers.error(normalize(err));
  }

  closed() {
    if (this.isClosed) return;
    this.isClosed = true;
    if (!this.dead) this.handlers.close();
  }
}

// Bun 1.4.5's client ALPNProtocols takes the wire format (each name after its length byte) as
// an ArrayBuffer; an array is refused and a string ('h2') offers nothing.
function alpnWire(names) {
  const bytes = names.flatMap((n) => [n.length, ...new TextEncoder().encode(n)]);
  return new Uint8Array(bytes).buffer;
}

function concat(a, b) {
  const all = new Uint8Array(a.length + b.length);
  all.set(a, 0);
  all.set(b, a.length);
  return all;
}

// Bun 1.4.5's Bun.connect takes a TLS version as its number on the wire (node:tls's names are
// refused: "TLSOptions.minVersion must be a number").
const VERSION_NUMBERS = { TLSv1: 0x0301, 'TLSv1.1': 0x0302, 'TLSv1.2': 0x0303, 'TLSv1.3': 0x0304 };

// Bun's errors carry node-style codes for most failures; keep them, name the rest.
function normalize(err) {
  const alert = tlsAlert(err);
  if (alert !== err) return alert;
  if (err && typeof err.code === 'string') return certificateError(err);
  const e = err instanceof Error ? err : new Error(String(err));
  if (!e.code) e.code = e.name && e.name !== 'Error' ? e.name : 'socket error';
  return e;
}

function tlsError(err) {
  const e = certificateError(err);
  if (e !== err) return e;
  const t = new Error(`certificate error: ${err.message || err.code || err}`);
  t.code = 'CERT_ERROR';
  return t;
}

/**
 * tls: null for plain TCP, or { servername, rejectUnauthorized, ca, cert, key, alpn, minVersion,
 * maxVersion, ciphers } (runtimes/sockets/node.js). path: a Unix domain socket to connect to
 * instead of host and port. tunnel: { request } to send to the proxy at host:port first
 * (CONNECT), then speak to the target through it.
 */
export function connect(host, port, h, tls = null, path = null, tunnel = null) {
  const w = new BunSocket(h);
  w.unix = path !== null;
  if (tls) w.verify = tls.rejectUnauthorized !== false;
  const options = path ? { unix: path, socket: handlers, data: w } : { hostname: host, port, socket: handlers, data: w };
  const bunTls = tls
    ? {
        serverName: tls.servername,
        rejectUnauthorized: tls.rejectUnauthorized,
        ...(tls.ca ? { ca: tls.ca } : {}),
        ...(tls.cert ? { cert: tls.cert } : {}),
        ...(tls.key ? { key: tls.key } : {}),
        ...(tls.alpn ? { ALPNProtocols: alpnWire(tls.alpn) } : {}),
        ...(tls.minVersion ? { minVersion: VERSION_NUMBERS[tls.minVersion] } : {}),
        ...(tls.maxVersion ? { maxVersion: VERSION_NUMBERS[tls.maxVersion] } : {}),
        ...(tls.ciphers ? { ciphers: opensslCiphers(tls.ciphers) } : {}),
      }
    : null;
  // Through a proxy the connection starts plain; TLS begins once the tunnel is up.
  if (tunnel) w.tunnel = { request: tunnel.request, reader: tunnelReader(), tls: bunTls };
  else if (bunTls) options.tls = bunTls;
  // Failures arrive through connectError/close; the promise needs no handler of its own, but
  // a rejection must not surface as unhandled.
  w.connecting = true;
  globalThis.Bun.connect(options).catch(() => {});
  w.connecting = false;
  return w;
}

const sessionOf = (socket) => tlsSession(socket.getTLSVersion(), socket.getCipher());
