// The socket interface's contract (src/socket.js), checked the same way on every adapter this
// runtime has: node:net everywhere, plus Bun.connect on bun and Deno.connect on deno.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import tls from 'node:tls';
import { readFileSync } from 'node:fs';
import { runtime, pickAdapter } from '../runtimes/index.js';
import { loadTest } from '../src/index.js';

const pem = (name) => readFileSync(new URL(`./tls/${name}.pem`, import.meta.url), 'utf8');
// On node, also the adapter on node's TCP handle (--socket wrap).
const names = ['node', runtime.name === 'node' ? 'wrap' : runtime.name];

// Records what an adapter reports, and resolves when close() comes.
function recorder() {
  const r = { chunks: [], errors: [], closes: 0 };
  r.closed = new Promise((resolve) => {
    r.handlers = {
      data(chunk) {
        assert.ok(chunk instanceof Uint8Array);
        r.chunks.push(Uint8Array.from(chunk)); // copy: the adapter may reuse its buffer
      },
      error(err) {
        r.errors.push(err);
      },
      close() {
        r.closes++;
        resolve();
      },
    };
  });
  r.bytes = () => Buffer.concat(r.chunks);
  return r;
}

function listen(server) {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
}

function closeServer(server) {
  return new Promise((resolve) => server.close(() => resolve()));
}

// The guard's timer is cleared once the promise settles: node's runner waits for every timer
// before it ends a file (this one held the file 15 s after its tests were done).
function within(promise, ms, what) {
  let timer;
  const guard = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no close within ${ms} ms`)), ms)));
  return Promise.race([promise, guard]).finally(() => clearTimeout(timer));
}

const pattern = (n) => {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + 7) & 255;
  return b;
};

// After the client's first bytes: `payload` in 1500-byte writes, pausing now and then so that the
// client reads it in several pieces, then the end.
async function sendInPieces(socket, payload) {
  for (let at = 0; at < payload.length; at += 1500) {
    socket.write(payload.subarray(at, at + 1500));
    if (at % 30000 === 0) await new Promise((r) => setTimeout(r, 1));
  }
  socket.end();
}

for (const name of names) {
  test(`${name}: writes made before the connection is up are sent; data split across reads arrives whole and in order`, async () => {
    const payload = pattern(200 * 1024);
    const server = net.createServer((socket) => {
      socket.once('data', () => sendInPieces(socket, payload));
    });
    const port = await listen(server);
    try {
      const r = recorder();
      const sock = pickAdapter(name).connect('127.0.0.1', port, r.handlers);
      sock.write(new TextEncoder().encode('go'));
      await within(r.closed, 5000, name);
      assert.ok(r.chunks.length > 1, 'several reads');
      assert.ok(r.bytes().equals(payload), 'same bytes, same order');
      assert.deepEqual(r.errors, []);
      assert.equal(r.closes, 1);
    } finally {
      await closeServer(server);
    }
  });

  test(`${name}: the server closing gives close() once and no error`, async () => {
    const server = net.createServer((socket) => socket.end('bye'));
    const port = await listen(server);
    try {
      const r = recorder();
      pickAdapter(name).connect('127.0.0.1', port, r.handlers);
      await within(r.closed, 5000, name);
      await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(r.bytes().toString(), 'bye');
      assert.deepEqual(r.errors, []);
      assert.equal(r.closes, 1);
    } finally {
      await closeServer(server);
    }
  });

  test(`${name}: a reset is an ECONNRESET error, then close()`, async () => {
    const server = net.createServer((socket) => socket.once('data', () => socket.resetAndDestroy()));
    const port = await listen(server);
    try {
      const r = recorder();
      pickAdapter(name).connect('127.0.0.1', port, r.handlers).write(new TextEncoder().encode('x'));
      await within(r.closed, 5000, name);
      assert.deepEqual(r.errors.map((e) => e.code), ['ECONNRESET']);
      assert.equal(r.closes, 1);
    } finally {
      await closeServer(server);
    }
  });

  test(`${name}: a refused connection is an ECONNREFUSED error, then close()`, async () => {
    const server = net.createServer();
    const port = await listen(server);
    await closeServer(server);
    const r = recorder();
    pickAdapter(name).connect('127.0.0.1', port, r.handlers);
    await within(r.closed, 5000, name);
    assert.deepEqual(r.errors.map((e) => e.code), ['ECONNREFUSED']);
    assert.equal(r.closes, 1);
  });

  test(`${name}: a 16 MiB write to a server that reads late is delivered whole (partial writes, backpressure)`, async () => {
    const payload = pattern(16 * 1024 * 1024);
    let received = [];
    const done = new Promise((resolve) => {
      const server = net.createServer({ pauseOnConnect: true }, (socket) => {
        // Read nothing for a while so that the client's writes cannot all be taken at once.
        setTimeout(() => socket.resume(), 200);
        let total = 0;
        socket.on('data', (chunk) => {
          received.push(chunk);
          total += chunk.length;
          if (total >= payload.length) socket.end('done');
        });
      });
      listen(server).then((port) => resolve({ server, port }));
    });
    const { server, port } = await done;
    try {
      const r = recorder();
      const sock = pickAdapter(name).connect('127.0.0.1', port, r.handlers);
      sock.write(payload);
      await within(r.closed, 15000, name);
      assert.equal(r.bytes().toString(), 'done');
      assert.ok(Buffer.concat(received).equals(payload), 'every byte, in order');
      assert.deepEqual(r.errors, []);
    } finally {
      await closeServer(server);
    }
  });

  test(`${name}: after destroy() no handler is called`, async () => {
    const server = net.createServer((socket) => socket.write('hello'));
    const port = await listen(server);
    try {
      const calls = [];
      const sock = pickAdapter(name).connect('127.0.0.1', port, {
        data: () => calls.push('data'),
        error: () => calls.push('error'),
        close: () => calls.push('close'),
      });
      sock.destroy();
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.deepEqual(calls, []);
    } finally {
      await closeServer(server);
    }
  });

  test(`${name}: TLS handshake with the test CA, and data both ways`, async () => {
    const server = tls.createServer({ key: pem('server-key'), cert: pem('server') }, (socket) => {
      socket.on('data', (d) => socket.end(`echo:${d}`));
      socket.on('error', () => {});
    });
    const port = await listen(server);
    try {
      const r = recorder();
      const sock = pickAdapter(name, { servername: null, rejectUnauthorized: true, ca: pem('ca') }).connect('127.0.0.1', port, r.handlers);
      sock.write(new TextEncoder().encode('hi'));
      await within(r.closed, 5000, name);
      assert.deepEqual(r.errors, []);
      assert.equal(r.bytes().toString(), 'echo:hi');
    } finally {
      await closeServer(server);
    }
  });

  test(`${name}: over TLS, data split across reads arrives whole and in order (node: read into the one shared buffer)`, async () => {
    const payload = pattern(200 * 1024);
    const server = tls.createServer({ key: pem('server-key'), cert: pem('server') }, (socket) => {
      socket.on('error', () => {});
      socket.once('data', () => sendInPieces(socket, payload));
    });
    const port = await listen(server);
    try {
      const buffers = new Set();
      const one = async () => {
        const r = recorder();
        const data = r.handlers.data;
        r.handlers.data = (chunk) => {
          buffers.add(chunk.buffer);
          data(chunk);
        };
        pickAdapter(name, { servername: null, rejectUnauthorized: true, ca: pem('ca') }).connect('127.0.0.1', port, r.handlers).write(new TextEncoder().encode('go'));
        await within(r.closed, 5000, name);
        assert.deepEqual(r.errors, []);
        assert.ok(r.chunks.length > 1, 'several reads');
        assert.ok(r.bytes().equals(payload), 'same bytes, same order');
      };
      await Promise.all([one(), one()]);
      // node:tls decrypts into the adapter's read buffer (onread), not a new Buffer a read.
      if (name === 'node' && runtime.name === 'node') assert.equal(buffers.size, 1);
    } finally {
      await closeServer(server);
    }
  });

  for (const secure of [false, true]) {
    test(`${name}: ${secure ? 'over TLS' : 'plain'}, writes made while reading (several a read, then end()) reach the server whole and in order`, async () => {
      // node's adapters hold what a connection writes while it reads to the loop's turn's end
      // (runtimes/sockets/held-writes.js) and send it as one write: the order of writes, and of
      // end() after them, must stay.
      const messages = 40;
      let got;
      let ended;
      const serverEnded = new Promise((resolve) => (ended = resolve));
      const serve = (socket) => {
        socket.on('error', () => {});
        const chunks = [];
        socket.on('data', (d) => chunks.push(d));
        socket.on('end', () => {
          got = Buffer.concat(chunks).toString();
          socket.end();
          ended();
        });
        socket.once('data', () => {
          for (let i = 0; i < messages; i++) socket.write(`m${i};`); // over TLS each its own record
        });
      };
      const server = secure ? tls.createServer({ key: pem('server-key'), cert: pem('server') }, serve) : net.createServer(serve);
      const port = await listen(server);
      try {
        const r = recorder();
        const data = r.handlers.data;
        let seen = 0;
        let expected = 'go;';
        const encode = (text) => new TextEncoder().encode(text);
        let socket = null;
        let rest = ''; // plain TCP may cut a message between reads
        r.handlers.data = (chunk) => {
          data(chunk);
          const parts = (rest + Buffer.from(chunk).toString()).split(';');
          rest = parts.pop();
          for (const m of parts) {
            seen++;
            for (const part of ['a', 'b', 'c']) {
              socket.write(encode(`${m}${part};`));
              expected += `${m}${part};`;
            }
          }
          if (seen === messages) {
            socket.write(encode('last;'));
            expected += 'last;';
            socket.end();
          }
        };
        const adapter = secure ? pickAdapter(name, { servername: null, rejectUnauthorized: true, ca: pem('ca') }) : pickAdapter(name);
        socket = adapter.connect('127.0.0.1', port, r.handlers);
        socket.write(encode('go;'));
        // Bun.connect's socket may close before node:net's server has told its end.
        await within(Promise.all([r.closed, serverEnded]), 5000, name);
        assert.deepEqual(r.errors, []);
        assert.equal(seen, messages);
        assert.equal(got, expected);
      } finally {
        await closeServer(server);
      }
    });
  }

  test(`${name}: a self-signed certificate fails the check, and insecure skips it where the adapter can`, async () => {
    const server = tls.createServer({ key: pem('self-signed-key'), cert: pem('self-signed') }, (socket) => {
      socket.on('data', () => socket.end('ok'));
      socket.on('error', () => {});
    });
    const port = await listen(server);
    try {
      const strict = recorder();
      pickAdapter(name, { servername: null, rejectUnauthorized: true }).connect('127.0.0.1', port, strict.handlers).write(new TextEncoder().encode('x'));
      await within(strict.closed, 5000, name);
      assert.equal(strict.errors.length, 1);
      assert.equal(strict.errors[0].code, 'CERT_ERROR');
      assert.equal(strict.bytes().length, 0);
      const insecure = { servername: null, rejectUnauthorized: false };
      if (name === 'deno') {
        assert.throws(() => pickAdapter(name, insecure), /only in a process started with --unsafely-ignore-certificate-errors.*--socket node/);
        return;
      }
      const loose = recorder();
      pickAdapter(name, insecure).connect('127.0.0.1', port, loose.handlers).write(new TextEncoder().encode('x'));
      await within(loose.closed, 5000, name);
      assert.deepEqual(loose.errors, []);
      assert.equal(loose.bytes().toString(), 'ok');
    } finally {
      await closeServer(server);
    }
  });

  test(`${name}: a load test over https counts every request`, async () => {
    let served = 0;
    const server = tls.createServer({ key: pem('server-key'), cert: pem('server') }, (socket) => {
      socket.on('error', () => {});
      let buffered = '';
      socket.on('data', (d) => {
        buffered += d;
        let end;
        while ((end = buffered.indexOf('\r\n\r\n')) >= 0) {
          buffered = buffered.slice(end + 4);
          served++;
          socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOK');
        }
      });
    });
    const port = await listen(server);
    try {
      const result = await loadTest({ url: `https://127.0.0.1:${port}/`, socket: name, ca: pem('ca'), maxRequests: 300, concurrency: 3, agentKeepAlive: true });
      assert.equal(result.totalRequests, 300);
      assert.equal(result.totalErrors, 0);
      assert.equal(served, 300);
      assert.match(result.socket, /tls|Tls/);
    } finally {
      await closeServer(server);
    }
  });
}

test('asking for an adapter this runtime lacks, or an unknown one, is a one-line error', () => {
  const missing = runtime.name === 'bun' ? 'deno' : 'bun';
  assert.throws(() => pickAdapter(missing), new RegExp(`socket adapter '${missing}' needs the ${missing} runtime`));
  assert.throws(() => pickAdapter('uv'), /unknown socket adapter 'uv'/);
  if (runtime.name !== 'node') assert.throws(() => pickAdapter('wrap'), /socket adapter 'wrap' needs the node runtime/);
});

// Deno throws EBADF from setNoDelay() on a connection the peer closed between the connect and
// then (seen under load: the testserver's child gone at SIGTERM). It is that connection's error.
// (Set before a second write: see the next tests.)
test('deno: a connection gone before its socket options are set is an error, then close(), not an exception', { skip: runtime.name === 'deno' ? false : 'Deno.connect only' }, async () => {
  const real = globalThis.Deno.connect;
  const conn = {
    setNoDelay() {
      throw new Error('Bad file descriptor (os error 9)');
    },
    write: (bytes) => Promise.resolve(bytes.length),
    read: () => new Promise(() => {}),
    close() {},
  };
  globalThis.Deno.connect = () => Promise.resolve(conn);
  try {
    const r = recorder();
    const socket = pickAdapter('deno').connect('127.0.0.1', 9, r.handlers);
    socket.write(new TextEncoder().encode('GET / HTTP/1.1\r\n'));
    socket.write(new TextEncoder().encode('\r\n'));
    await within(r.closed, 5000, 'deno');
    assert.equal(r.errors.length, 1);
    assert.match(r.errors[0].message, /Bad file descriptor/);
    assert.equal(r.closes, 1);
  } finally {
    globalThis.Deno.connect = real;
  }
});

// A Deno connection that answers its first read with `reply` and the next with the end, and
// logs what is asked of it.
function fakeDenoConn(log, reply) {
  let answered = false;
  return {
    setNoDelay() {
      log.push('nodelay');
    },
    write(bytes) {
      log.push('write');
      return Promise.resolve(bytes.length);
    },
    read(buf) {
      log.push('read');
      if (answered) return Promise.resolve(null);
      answered = true;
      buf.set(reply);
      return Promise.resolve(reply.length);
    },
    closeWrite: () => Promise.resolve(),
    close() {
      log.push('close');
    },
  };
}

const denoOnly = { skip: runtime.name === 'deno' ? false : 'Deno.connect only' };
const reply = new TextEncoder().encode('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n');

// A new connection per request: the request leaves before a read is parked on the connection.
test('deno: a request queued before the connection is up is written before the first read', denoOnly, async () => {
  const real = globalThis.Deno.connect;
  const log = [];
  globalThis.Deno.connect = () => Promise.resolve(fakeDenoConn(log, reply));
  try {
    const r = recorder();
    pickAdapter('deno').connect('127.0.0.1', 9, r.handlers).write(new TextEncoder().encode('GET / HTTP/1.1\r\n\r\n'));
    await within(r.closed, 5000, 'deno');
    assert.deepEqual(log.slice(0, 2), ['write', 'read']);
    assert.deepEqual(r.bytes(), Buffer.from(reply));
  } finally {
    globalThis.Deno.connect = real;
  }
});

// TCP_NODELAY costs a system call a connection: a fresh connection's one small write leaves at
// once without it (Nagle holds a write back only behind unacknowledged bytes); any other write
// must not wait.
test('deno: TCP_NODELAY is set before a second write or a first one beyond a segment, not for one small request', denoOnly, async () => {
  const real = globalThis.Deno.connect;
  const writes = [[20], [20, 20], [5000]];
  const logs = writes.map(() => []);
  try {
    for (let i = 0; i < writes.length; i++) {
      globalThis.Deno.connect = () => Promise.resolve(fakeDenoConn(logs[i], reply));
      const r = recorder();
      const socket = pickAdapter('deno').connect('127.0.0.1', 9, r.handlers);
      for (const n of writes[i]) socket.write(new Uint8Array(n));
      await within(r.closed, 5000, 'deno');
    }
    const before = (log) => log.filter((e) => e !== 'read' && e !== 'close');
    assert.deepEqual(before(logs[0]), ['write']);
    assert.deepEqual(before(logs[1]), ['write', 'nodelay', 'write']);
    assert.deepEqual(before(logs[2]), ['nodelay', 'write']);
  } finally {
    globalThis.Deno.connect = real;
  }
});

// Keep-alive: what each connection writes from data() goes once the reads settled in the same
// turn have all been handed on, so that a server that answered them all is woken once, not by
// each write; handlers that batch their writes themselves (HTTP/2, pipelining) write at once.
test("deno: writes made from data() wait for the turn's other reads, unless the handlers batch their own", denoOnly, async () => {
  const real = globalThis.Deno.connect;
  const request = new TextEncoder().encode('GET / HTTP/1.1\r\n\r\n');
  const order = async (batchesWrites) => {
    const log = [];
    const names = ['a', 'b'];
    let made = 0;
    globalThis.Deno.connect = () => {
      const name = names[made++];
      const conn = fakeDenoConn([], reply);
      const { write, read } = conn;
      conn.write = (bytes) => (log.push(`write ${name}`), write(bytes));
      conn.read = (buf) => read(buf);
      return Promise.resolve(conn);
    };
    const closed = names.map((name) => {
      const r = recorder();
      let again = true;
      const data = r.handlers.data;
      r.handlers.data = (chunk) => {
        log.push(`data ${name}`);
        data(chunk);
        if (again) socket.write(request);
        again = false;
      };
      if (batchesWrites) r.handlers.batchesWrites = true;
      const socket = pickAdapter('deno').connect('127.0.0.1', 9, r.handlers);
      socket.write(request);
      return r.closed;
    });
    await within(Promise.all(closed), 5000, 'deno');
    return log;
  };
  try {
    assert.deepEqual(await order(false), ['write a', 'write b', 'data a', 'data b', 'write a', 'write b']);
    assert.deepEqual(await order(true), ['write a', 'write b', 'data a', 'write a', 'data b', 'write b']);
  } finally {
    globalThis.Deno.connect = real;
  }
});

// The read buffer of a connection whose read loop has ended serves the next one.
test("deno: a closed connection's read buffer is read into by the next connection", denoOnly, async () => {
  const real = globalThis.Deno.connect;
  globalThis.Deno.connect = () => Promise.resolve(fakeDenoConn([], reply));
  try {
    const buffers = [];
    for (let i = 0; i < 2; i++) {
      const r = recorder();
      const data = r.handlers.data;
      r.handlers.data = (chunk) => {
        buffers.push(chunk.buffer);
        data(chunk);
      };
      pickAdapter('deno').connect('127.0.0.1', 9, r.handlers);
      await within(r.closed, 5000, 'deno');
      assert.deepEqual(r.bytes(), Buffer.from(reply));
    }
    assert.equal(buffers.length, 2);
    assert.equal(buffers[1], buffers[0]);
  } finally {
    globalThis.Deno.connect = real;
  }
});

// Conn.read adds an async function and a Set of pending reads to its op, whose table left old
// garbage at each read once the connection had waited through two scavenges
// (runtimes/sockets/deno-read.js): a real connection is read by the op itself, its data whole.
test('deno: a connection is read by Deno\'s op, not through Conn.read, and its data arrives whole', denoOnly, async () => {
  const payload = pattern(200000);
  const server = net.createServer((socket) => socket.once('data', () => sendInPieces(socket, payload)));
  const port = await listen(server);
  const real = globalThis.Deno.connect;
  let connReads = 0;
  globalThis.Deno.connect = async (options) => {
    const conn = await real(options);
    const read = conn.read;
    conn.read = (buf) => {
      connReads++;
      return read.call(conn, buf);
    };
    return conn;
  };
  try {
    const r = recorder();
    pickAdapter('deno').connect('127.0.0.1', port, r.handlers).write(new TextEncoder().encode('hello'));
    await within(r.closed, 10000, 'deno');
    assert.deepEqual(r.errors, []);
    assert.ok(r.chunks.length > 1, `in ${r.chunks.length} read(s)`);
    assert.deepEqual(r.bytes(), payload);
    assert.equal(connReads, 0);
  } finally {
    globalThis.Deno.connect = real;
    await closeServer(server);
  }
});

// A connection per request: a run's connection drops its socket in data() and opens the next
// one there, with itself as the handlers again. The socket object is made again for it, and each
// connection's bytes, close and errors still go to that connection alone.
test('deno: handlers that reconnect from data() get their closed socket object made again, each connection answered alone', denoOnly, async () => {
  const real = globalThis.Deno.connect;
  const conns = [];
  globalThis.Deno.connect = () => {
    const log = [];
    conns.push(log);
    return Promise.resolve(fakeDenoConn(log, reply));
  };
  try {
    const adapter = pickAdapter('deno');
    const sockets = [];
    const got = [];
    let done;
    const finished = new Promise((resolve) => (done = resolve));
    const handlers = {
      data(chunk) {
        got.push(Buffer.from(chunk).toString());
        sockets[sockets.length - 1].destroy();
        if (sockets.length < 3) open();
        else done();
      },
      error(err) {
        got.push(`error ${err.code}`);
      },
      close() {
        got.push('close');
      },
    };
    const open = () => {
      const socket = adapter.connect('127.0.0.1', 9, handlers);
      sockets.push(socket);
      socket.write(new TextEncoder().encode('GET / HTTP/1.1\r\n\r\n'));
    };
    open();
    await within(finished, 5000, 'deno');
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(got, [reply, reply, reply].map((b) => Buffer.from(b).toString()));
    assert.equal(sockets[1], sockets[0]);
    assert.equal(sockets[2], sockets[0]);
    // Each connection written once, read once, closed once (by destroy()).
    for (const log of conns) assert.deepEqual(log, ['write', 'read', 'close']);
  } finally {
    globalThis.Deno.connect = real;
  }
});

// A socket dropped while Deno still has a read of it pending is not made again: the read's late
// end must not reach the next connection.
test('deno: a socket dropped with a read pending is not made again, and its late read end reaches no one', denoOnly, async () => {
  const real = globalThis.Deno.connect;
  let endRead;
  const first = {
    write: (bytes) => Promise.resolve(bytes.length),
    read: () => new Promise((resolve) => (endRead = resolve)),
    closeWrite: () => Promise.resolve(),
    close() {},
  };
  const conns = [first, fakeDenoConn([], reply)];
  globalThis.Deno.connect = () => Promise.resolve(conns.shift());
  try {
    const adapter = pickAdapter('deno');
    const r = recorder();
    const a = adapter.connect('127.0.0.1', 9, r.handlers);
    a.write(new Uint8Array(10));
    await new Promise((resolve) => setTimeout(resolve, 10));
    a.destroy();
    const b = adapter.connect('127.0.0.1', 9, r.handlers);
    b.write(new Uint8Array(10));
    await within(r.closed, 5000, 'deno');
    assert.notEqual(b, a);
    endRead(null);
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.deepEqual(r.bytes(), Buffer.from(reply));
    assert.equal(r.closes, 1);
    assert.equal(r.errors.length, 0);
  } finally {
    globalThis.Deno.connect = real;
  }
});
