// The test server: what it answers, what it counts, and startServer(), loadtest 8's API. Each
// runtime answers with its own server (testserver-node.js, testserver-bun.js,
// testserver-deno.js); `impl: 'node'` takes node:http wherever, and `cores` runs several
// processes on one port (testserver-cores.js).
//
// It answers "OK" (or `body`, `size` bytes, the contents of `file`) to everything, after `delay`
// ms if asked, with `error` (default 500) for `percent` % of the requests and for those
// `shouldErrorCustom(request)` picks, and counts what it served so that tests can compare with
// what the client reports.

import { readFileSync } from 'node:fs';
import { Buffer } from 'node:buffer';
import { runtime } from '../index.js';
import * as nodeServer from './node.js';
import * as bunServer from './bun.js';
import * as denoServer from './deno.js';
import * as http2Server from './http2.js';
import { serveOnCores } from './cores.js';

const NATIVE = { node: nodeServer, bun: bunServer, deno: denoServer };

/** The largest `size`: a body is built once and held in memory, and tests need no more. */
export const MAX_SIZE = 64 * 1024 * 1024;

// loadtest 8's two forms: with a callback it returns the server object at once and calls back
// with (error) or (null, server) once listening; without one, a Promise of that object.
export function startServer(options = {}, callback) {
  const { testServer, start } = createTestServer(options);
  if (callback) {
    start(callback);
    return testServer;
  }
  return new Promise((resolve, reject) => start((err) => (err ? reject(err) : resolve(testServer))));
}

/** The server module for `impl` ('native', the default, or 'node') on this runtime. */
export function serverFor(impl = 'native') {
  if (impl !== 'native' && impl !== 'node') throw new Error(`impl must be 'native' or 'node', got '${impl}'`);
  return impl === 'node' ? nodeServer : NATIVE[runtime.name];
}

/** Whether `impl`'s server can run on several processes sharing a port on this runtime. */
export const canShare = (impl) => Boolean(serverFor(impl).sharing(runtime.name));

const encode = (text) => new Uint8Array(Buffer.from(text));

function responseBody(o) {
  const given = [o.size !== undefined && o.size !== null && 'size', o.body !== undefined && o.body !== null && o.body !== '' && 'body', o.file && 'file'].filter(Boolean);
  // file winning over body is loadtest 8's; size is ours and ambiguous next to either.
  if (given.includes('size') && given.length > 1) throw new Error(`size and ${given.filter((g) => g !== 'size').join(' and ')} both set the response body; give one`);
  if (given.includes('size')) {
    const size = Number(o.size);
    if (!Number.isInteger(size) || size < 0 || size > MAX_SIZE) throw new Error(`size must be a whole number of bytes from 0 to ${MAX_SIZE}, got '${o.size}'`);
    return { body: new Uint8Array(size).fill(0x78), type: 'text/plain' }; // 'x' repeated
  }
  if (o.file) {
    try {
      return { body: new Uint8Array(readFileSync(o.file)), type: 'application/octet-stream' };
    } catch (err) {
      const error = new Error(`cannot read file '${o.file}' (${err.code || err.message})`);
      error.code = err.code;
      throw error;
    }
  }
  if (!given.includes('body')) return { body: encode('OK'), type: 'text/plain' };
  if (typeof o.body === 'string') return { body: encode(o.body), type: 'text/plain' };
  if (o.body instanceof Uint8Array) return { body: o.body, type: 'application/octet-stream' };
  return { body: encode(JSON.stringify(o.body)), type: 'application/json' };
}

/**
 * The options read once: what each server module needs. `answer(request)` counts a request and
 * gives the answer for it ({ status, type, body }, built once); `request` is loadtest 8-shaped
 * ({ method, url, headers, body }), or null when neither function would read it.
 */
export function settingsOf(options) {
  const o = { port: 7357, delay: 0, error: 0, percent: 0, quiet: false, logger: null, ...options };
  const cores = o.cores === undefined ? 1 : Number(o.cores);
  if (!Number.isInteger(cores) || cores < 1) throw new Error(`cores must be a whole number from 1, got '${o.cores}'`);
  const server = o.http2 ? http2Server : serverFor(o.impl);
  if (o.http2 && cores > 1) throw new Error('http2 runs on one process (cores 1)');
  const { body, type } = responseBody(o);
  // parseFloat as loadtest 8's parseInt reads "10%", but keeps fractions such as 0.5.
  const percent = o.error && !o.percent ? 100 : parseFloat(o.percent) || 0;
  const shouldErrorCustom = typeof o.shouldErrorCustom === 'function' ? o.shouldErrorCustom : null;
  const logger = typeof o.logger === 'function' ? o.logger : null;
  const ok = { status: 200, type, body };
  const failed = { status: Number(o.error) || 500, type: 'text/plain', body: encode('ERROR') };
  const counts = { served: 0, errors: 0, messages: 0 }; // messages: WebSocket messages echoed
  const answer = (request) => {
    counts.served++;
    if ((shouldErrorCustom && shouldErrorCustom(request)) || (percent && Math.random() * 100 < percent)) {
      counts.errors++;
      return failed;
    }
    return ok;
  };
  return {
    options: o,
    server,
    cores,
    port: Number(o.port),
    host: o.host,
    delay: Number(o.delay) || 0,
    // With cert and key (PEM) it serves https.
    tls: o.cert && o.key ? { cert: o.cert, key: o.key } : null,
    wantsRequest: Boolean(shouldErrorCustom || logger),
    logger,
    answer,
    counts,
    // How a --cores child shares the port (set by testserver-cores.js): { reusePort } or { fd }.
    share: o.share || null,
  };
}

function createTestServer(options) {
  let settings = null;
  let problem = null;
  try {
    settings = settingsOf(options);
  } catch (err) {
    problem = err;
  }
  let listening = null;
  let whenListening = null;
  const testServer = {
    port: Number(options.port ?? 7357),
    server: null,
    impl: settings ? settings.server.name : null,
    get requests() {
      return listening && listening.counts ? listening.counts().served : settings ? settings.counts.served : 0;
    },
    get errors() {
      return listening && listening.counts ? listening.counts().errors : settings ? settings.counts.errors : 0;
    },
    get messages() {
      return listening && listening.counts ? listening.counts().messages || 0 : settings ? settings.counts.messages : 0;
    },
    // close(callback) as loadtest 8's (callback(error) once closed); without one, a Promise.
    // Kept-alive connections are cut, or close would wait for the clients to hang up.
    close(cb) {
      const closed = (whenListening || Promise.resolve()).then(() => listening && listening.close());
      if (!cb) return closed;
      closed.then(() => cb(null), (err) => cb(err));
      return undefined;
    },
  };
  const start = (done) => {
    if (problem) {
      // Asynchronous as a listening error, so that the callback form has returned its object.
      const error = new Error(`could not start test server: ${problem.message}`);
      error.code = problem.code;
      queueMicrotask(() => done(error));
      return;
    }
    const s = settings;
    const listen = s.cores > 1 ? serveOnCores(s) : s.server.listen(s);
    whenListening = listen.then(
      (l) => {
        listening = l;
        testServer.port = l.port;
        testServer.server = l.server;
        if (l.processes) testServer.processes = l.processes;
        if (!s.options.quiet) {
          const on = l.processes ? `, ${l.processes.length} processes: ${l.processes.map((p) => p.pid).join(' ')}` : '';
          const h2 = s.options.http2 ? (s.tls ? ', h2 and http/1.1 by ALPN' : ', h2c') : '';
          console.log(`Listening on ${s.tls ? 'https' : 'http'}://${s.host || 'localhost'}:${l.port}/ (${s.server.name}${h2}${on})`);
        }
        done(null, testServer);
      },
      (err) => {
        const reason = err.code === 'EADDRINUSE' ? `port ${s.port} in use` : err.message || err.code;
        const error = new Error(`could not start test server on port ${s.port}: ${reason}`);
        error.code = err.code;
        done(error);
      },
    );
  };
  return { testServer, start };
}
