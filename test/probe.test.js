// --probe: one request, printed as it went over the wire (HTTP/1.1 text, the WebSocket upgrade
// and frame, HTTP/2 frames with their headers decoded), the response's head as received, the
// first 4 KiB of its body and the request's phases; one line and a non-zero exit when it failed.
// The CLI runs as a child on this runtime against servers in this process.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startServer } from '../src/index.js';
import { rawServer, spawnScript } from './servers.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const CA = fileURLToPath(new URL('./tls/ca.pem', import.meta.url));
const pem = (name) => readFileSync(new URL(`./tls/${name}.pem`, import.meta.url), 'utf8');

const probe = (args) => spawnScript(CLI, ['--probe', ...args]);
const show = (r) => `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;

function assertProbed(r) {
  assert.equal(r.code, 0, show(r));
  assert.equal(r.stderr, '', show(r));
}

// The phases section: a row per phase that happened, and the total.
function assertPhases(r, { tls }) {
  for (const phase of ['connect', 'wait', 'receive', 'total']) assert.match(r.stdout, new RegExp(`^  ${phase} +\\d+\\.\\d{3} ms`, 'm'), show(r));
  if (tls) assert.match(r.stdout, /^ {2}tls +\d+\.\d{3} ms {3}TLS handshake$/m, show(r));
  else assert.doesNotMatch(r.stdout, /^ {2}tls /m, show(r));
}

function assertOneLineError(r, pattern, code = 1) {
  assert.equal(r.code, code, show(r));
  assert.equal(r.stderr.trim().split('\n').length, 1, show(r));
  assert.ok(r.stderr.startsWith('loadtest: '), show(r));
  assert.ok(!r.stderr.includes('    at '), show(r));
  assert.match(r.stderr, pattern);
}

// 100 lines of 60 bytes: 6000 bytes, sent in three chunks of a chunked body.
const LINES = Array.from({ length: 100 }, (_, i) => `line ${String(i).padStart(3, '0')} ${'x'.repeat(50)}\n`).join('');
const HEAD = 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\nX-Probe: yes\r\n\r\n';

function chunked(text, sizes) {
  let out = '';
  let at = 0;
  for (const size of sizes) {
    out += `${size.toString(16)}\r\n${text.slice(at, at + size)}\r\n`;
    at += size;
  }
  return out + '0\r\n\r\n';
}

test('http: the request as sent, the head as received, a chunked body of 6000 bytes cut at 4096, the phases; one request reached the server', async () => {
  const server = await rawServer(({ socket }) => socket.end(HEAD + chunked(LINES, [2500, 2500, 1000])));
  try {
    const r = await probe([`http://127.0.0.1:${server.port}/probe?x=1`, '-H', 'x-token: abc']);
    assertProbed(r);
    assert.equal(server.requests, 1);
    assert.ok(r.stdout.startsWith(`Probe: GET http://127.0.0.1:${server.port}/probe?x=1 over HTTP/1.1, connected to 127.0.0.1:${server.port} (socket `), show(r));
    assert.match(r.stdout, new RegExp(`^> GET /probe\\?x=1 HTTP/1\\.1\\n> host: 127\\.0\\.0\\.1:${server.port}\\n`, 'm'));
    assert.match(r.stdout, /^> x-token: abc\n(> .*\n)*>\n\n/m, 'the header given, and the blank line that ends the head');
    assert.ok(r.stdout.includes('\n< HTTP/1.1 200 OK\n< Content-Type: text/plain\n< Transfer-Encoding: chunked\n< X-Probe: yes\n<\n'), show(r));
    const body = /\nBody: 6000 bytes \(decoded from chunked encoding\), cut at 4096:\n([^]*)\n… \(1904 more bytes not shown\)\n/.exec(r.stdout);
    assert.ok(body, show(r));
    assert.equal(body[1], LINES.slice(0, 4096));
    assertPhases(r, { tls: false });
  } finally {
    await server.close();
  }
});

test('https with --ca: the certificate checked against the test CA, the tls phase shown', async () => {
  const server = await startServer({ port: 0, host: '127.0.0.1', quiet: true, cert: pem('server'), key: pem('server-key') });
  try {
    const r = await probe([`https://localhost:${server.port}/`, '--ca', CA]);
    assertProbed(r);
    assert.equal(server.requests, 1);
    assert.match(r.stdout, /^> host: localhost:\d+$/m);
    assert.match(r.stdout, /^< HTTP\/1\.1 200 OK$/m);
    assert.match(r.stdout, /\nBody: 2 bytes:\nOK\n/);
    assertPhases(r, { tls: true });
  } finally {
    await server.close();
  }
});

test('ws: the upgrade request and the masked message frame, the 101 head and the reply', async () => {
  const server = await startServer({ port: 0, host: '127.0.0.1', quiet: true });
  try {
    const r = await probe([`ws://127.0.0.1:${server.port}/chat`, '--data', 'hello']);
    assertProbed(r);
    assert.match(r.stdout, /^Probe: ws:\/\/127\.0\.0\.1:\d+\/chat over WebSocket/);
    assert.match(r.stdout, /^> GET \/chat HTTP\/1\.1\n(> .*\n)*> upgrade: websocket\n(> .*\n)*> sec-websocket-key: \S+\n>\n> text frame, 5 bytes, masked: hello\n/m);
    assert.match(r.stdout, /^< HTTP\/1\.1 101 Switching Protocols\n(< .*\n)*<\n< text frame, 5 bytes: hello\n/m);
    assert.match(r.stdout, /\nBody: 5 bytes \(the reply message\):\nhello\n/);
    assertPhases(r, { tls: false });
  } finally {
    await server.close();
  }
});

test('--http2: the request\'s frames with its pseudo-headers, :status and the response headers decoded', async () => {
  const server = await startServer({ port: 0, host: '127.0.0.1', quiet: true, http2: true });
  try {
    const r = await probe(['--http2', `http://127.0.0.1:${server.port}/h2`]);
    assertProbed(r);
    assert.equal(server.requests, 1);
    assert.match(r.stdout, /over HTTP\/2 \(h2c, prior knowledge\)/);
    assert.match(r.stdout, /^> connection preface: PRI \* HTTP\/2\.0\n> SETTINGS stream 0, /m);
    assert.match(r.stdout, /^> HEADERS stream 1, \d+ bytes, END_STREAM, END_HEADERS\n>   :method: GET\n>   :scheme: http\n>   :authority: 127\.0\.0\.1:\d+\n>   :path: \/h2\n/m);
    assert.match(r.stdout, /^< HEADERS stream 1, \d+ bytes, END_HEADERS\n<   :status: 200\n(<   .*\n)*<   content-type: text\/plain\n/m);
    assert.match(r.stdout, /\nBody: 2 bytes \(from its DATA frames\):\nOK\n/);
    assertPhases(r, { tls: false });
  } finally {
    await server.close();
  }
});

test('a refused connection: one line, exit 1, nothing on stdout', async () => {
  // A port that was free a moment ago, and is closed now.
  const port = await new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
  const r = await probe([`http://127.0.0.1:${port}/`]);
  assertOneLineError(r, /^loadtest: connection refused by 127\.0\.0\.1:\d+\n$/);
  assert.equal(r.stdout, '');
});

test('a server that never answers: the request as sent, then one line when --timeout runs out; load flags are refused', async () => {
  const server = await rawServer(() => {});
  try {
    const r = await probe([server.url, '--timeout', '300']);
    assertOneLineError(r, /^loadtest: no response from 127\.0\.0\.1:\d+ within 300 ms \(--timeout MS to wait longer\)\n$/);
    assert.match(r.stdout, /^> GET \/ HTTP\/1\.1$/m);
    assert.equal(server.requests, 1);
    const load = await probe([server.url, '-n', '5']);
    assertOneLineError(load, /^loadtest: --probe sends one request: leave out -n\/--maxRequests\n$/, 2);
    assert.equal(server.requests, 1);
  } finally {
    await server.close();
  }
});

test('--debug (loadtest 8) is still accepted and does nothing: a normal run', async () => {
  const server = await rawServer(({ socket }) => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOK'));
  try {
    const r = await spawnScript(CLI, [server.url, '-n', '3', '-c', '1', '-k', '--quiet', '--debug']);
    assert.equal(r.code, 0, show(r));
    assert.equal(server.requests, 3);
    assert.match(r.stdout, /Completed requests: +3/);
    assert.doesNotMatch(r.stdout, /Probe:|^> /m);
  } finally {
    await server.close();
  }
});
