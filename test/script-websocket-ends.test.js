// How k6's WebSocket modules end a session and fail one, as k6 v1.3.0 gives it against the same
// server (its lines, result fields and samples recorded with k6 beside these runs): the error
// event of a close that is not normal or of a dropped connection, the result and samples of a
// connection refused or an upgrade refused, the reason of the browser's close, its name tag.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnScript } from './servers.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

const frame = (opcode, payload) => Buffer.concat([Buffer.from([0x80 | opcode, payload.length]), payload]);
const closeFrame = (code, reason) => (code === 'none' ? frame(8, Buffer.alloc(0)) : frame(8, Buffer.concat([Buffer.from([code >> 8, code & 255]), Buffer.from(reason)])));

// A WebSocket server on node:net (every runtime has it). Paths: /close/CODE?reason=R (the
// server closes 50 ms after the upgrade; CODE 'none': a close frame without one), /drop (the
// connection ends, no close frame), /reject?body=B (403), else an echo. `closes` lists the
// close frames it read: [path, code, reason]; it answers one with its code only, as gorilla.
function wsServer() {
  const closes = [];
  const sockets = new Set();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let buf = Buffer.alloc(0);
    let path = null;
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      if (path === null) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buf.subarray(0, end).toString();
        buf = buf.subarray(end + 4);
        path = head.split(' ')[1];
        upgrade(socket, path, /sec-websocket-key: (.*)/i.exec(head)[1].trim());
      }
      while (buf.length >= 6 && buf.length >= 6 + (buf[1] & 0x7f)) {
        const n = buf[1] & 0x7f; // the tests' frames are short
        const payload = Buffer.from(buf.subarray(6, 6 + n)).map((b, i) => b ^ buf[2 + (i & 3)]);
        const opcode = buf[0] & 0x0f;
        buf = buf.subarray(6 + n);
        if (opcode === 8) {
          closes.push([path, n >= 2 ? payload.readUInt16BE(0) : null, payload.subarray(2).toString()]);
          socket.end(frame(8, payload.subarray(0, 2)));
        } else if (!socket.destroyed) socket.write(frame(opcode, payload));
      }
    });
  });
  function upgrade(socket, path, key) {
    const url = new URL(path, 'http://x');
    if (url.pathname === '/reject') {
      const body = url.searchParams.get('body') || '';
      return socket.end(`HTTP/1.1 403 Forbidden\r\nX-Why: nope\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    }
    const accept = createHash('sha1').update(key + '258EAFA5-E914-47DA-95CA-C5AB0DC85B11').digest('base64');
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
    const close = /^\/close\/(\w+)$/.exec(url.pathname);
    if (close) setTimeout(() => socket.write(closeFrame(close[1] === 'none' ? 'none' : Number(close[1]), url.searchParams.get('reason') ?? 'bye')), 50);
    if (url.pathname === '/drop') setTimeout(() => socket.end(), 50);
  }
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: server.address().port,
        closes,
        close: () => new Promise((done) => {
          for (const s of sockets) s.destroy();
          server.close(() => done());
        }),
      }));
  });
}

// A port nothing listens on: a listener's, closed.
async function refusedPort() {
  const s = net.createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

// Runs `source` against the server: { r (the run), lines (the console's messages, in order),
// samples (the ws_* samples of --out json: [metric, tags]), server, port, refused }.
async function runWs(source) {
  const server = await wsServer();
  const refused = await refusedPort();
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-ws-ends-'));
  try {
    const path = join(dir, 'ws.js');
    writeFileSync(path, source);
    const out = join(dir, 'out.json');
    const r = await spawnScript(CLI, ['run', '-q', '--out', `json=${out}`, '-e', `PORT=${server.port}`, '-e', `REFUSED=${refused}`, path], { timeoutMs: 60000 });
    const lines = [...r.stderr.matchAll(/msg="(.*)" source=console/g)].map((m) => m[1].replace(/\\"/g, '"'));
    const samples = readFileSync(out, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
      .filter((o) => o.type === 'Point' && o.metric.startsWith('ws_')).map((o) => [o.metric, o.data.tags]);
    return { r, lines, samples, server, port: server.port, refused };
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const tagsOf = (samples, metric, url) => samples.filter(([m, t]) => m === metric && t.url === url).map(([, t]) => t);

test('k6/ws: a close other than 1000 and 1001, or a connection dropped, fires error (gorilla\'s CloseError: code, text, error()) before close, as k6', async () => {
  const { r, lines } = await runWs(`import ws from 'k6/ws';
export default function () {
  for (const q of ['close/4005', 'close/1000?reason=fine', 'close/1001', 'close/none', 'close/1011', 'close/3000?reason=', 'drop']) {
    ws.connect(\`ws://127.0.0.1:\${__ENV.PORT}/\${q}\`, {}, (s) => {
      s.on('error', (e) => console.log(q, 'error', e.error(), e.code, JSON.stringify(e.text)));
      s.on('close', (code) => console.log(q, 'close', code));
    });
  }
}
`);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(lines, [
    'close/4005 error websocket: close 4005: bye 4005 "bye"',
    'close/4005 close 4005',
    'close/1000?reason=fine close 1000',
    'close/1001 close 1001',
    'close/none error websocket: close 1005 (no status) 1005 ""',
    'close/none close 1005',
    'close/1011 error websocket: close 1011 (internal server error): bye 1011 "bye"',
    'close/1011 close 1011',
    'close/3000?reason= error websocket: close 3000 3000 ""',
    'close/3000?reason= close 3000',
    'drop error websocket: close 1006 (abnormal closure): unexpected EOF 1006 "unexpected EOF"',
    'drop close 1006',
  ]);
});

test('k6/ws: the result of a session (url, body \'\'), of an upgrade refused (its status, headers and body, no url, no error) and of a connection refused; each one a session with k6\'s samples and tags', async () => {
  const { r, lines, samples, port, refused } = await runWs(`import ws from 'k6/ws';
export default function () {
  const urls = [\`ws://127.0.0.1:\${__ENV.PORT}/\`, \`ws://127.0.0.1:\${__ENV.PORT}/reject?body=forbidden%20here\`, \`ws://127.0.0.1:\${__ENV.REFUSED}/x\`];
  for (const url of urls) {
    const res = ws.connect(url, null, (s) => { s.on('open', () => s.close()); });
    console.log(JSON.stringify({ url: res.url, status: res.status, body: res.body, error: res.error, why: res.headers['X-Why'] ?? null, keys: Object.keys(res) }));
  }
}
`);
  assert.equal(r.code, 0, r.stderr);
  const keys = ['url', 'status', 'headers', 'body', 'error'];
  assert.deepEqual(lines.map((l) => JSON.parse(l)), [
    { url: `ws://127.0.0.1:${port}/`, status: 101, body: '', error: '', why: null, keys },
    { url: '', status: 403, body: 'forbidden here', error: '', why: 'nope', keys },
    { url: '', status: 0, body: '', error: `dial tcp 127.0.0.1:${refused}: connect: connection refused`, why: null, keys },
  ]);
  const reject = `ws://127.0.0.1:${port}/reject?body=forbidden%20here`;
  const none = `ws://127.0.0.1:${refused}/x`;
  for (const metric of ['ws_sessions', 'ws_connecting', 'ws_session_duration']) {
    assert.deepEqual(tagsOf(samples, metric, reject).map((t) => [t.status, t.subproto]), [['403', '']], metric);
    assert.deepEqual(tagsOf(samples, metric, none).map((t) => [t.status, t.subproto, t.name]), [[undefined, undefined, undefined]], metric);
  }
});

test('k6/experimental/websockets: error events in k6\'s words and shape (a close not normal, a drop, an upgrade refused, a connection refused) before close; close(code, reason) sends the reason', async () => {
  const { r, lines, server, port } = await runWs(`import { WebSocket } from 'k6/experimental/websockets';
export default function () {
  for (const q of ['close/4005', 'close/1000', 'drop', 'reject', 'refused']) {
    const w = new WebSocket(q === 'refused' ? \`ws://127.0.0.1:\${__ENV.REFUSED}/\` : \`ws://127.0.0.1:\${__ENV.PORT}/\${q}\`);
    w.onerror = (e) => console.log(q, 'error', e.error, Object.keys(e).join(), e.type, typeof e.timestamp, e.target === w, w.readyState);
    w.onclose = (e) => console.log(q, 'close', Object.keys(e).join());
  }
  const a = new WebSocket(\`ws://127.0.0.1:\${__ENV.PORT}/done\`);
  a.onopen = () => a.close(4002, 'done');
  a.onerror = (e) => console.log('4002', 'error', e.error);
  const b = new WebSocket(\`ws://127.0.0.1:\${__ENV.PORT}/default\`);
  b.onopen = () => b.close();
  b.onerror = (e) => console.log('default', 'error', e.error);
}
`);
  assert.equal(r.code, 0, r.stderr);
  const by = (q) => lines.filter((l) => l.startsWith(`${q} `));
  const shape = 'type,target,timestamp,error error number true 3';
  assert.deepEqual(by('close/4005'), [`close/4005 error websocket: close 4005: bye ${shape}`, 'close/4005 close type,target,timestamp']);
  assert.deepEqual(by('close/1000'), ['close/1000 close type,target,timestamp']);
  assert.deepEqual(by('drop'), [`drop error websocket: close 1006 (abnormal closure): unexpected EOF ${shape}`, 'drop close type,target,timestamp']);
  assert.deepEqual(by('reject'), [`reject error websocket: bad handshake ${shape}`, 'reject close type,target,timestamp']);
  assert.match(by('refused')[0], /^refused error dial tcp 127\.0\.0\.1:\d+: connect: connection refused type,target,timestamp,error error number true 3$/);
  // The server answers a close with its code: 4002 is not normal, so an error too.
  assert.deepEqual(by('4002'), ['4002 error websocket: close 4002']);
  assert.deepEqual(by('default'), []);
  assert.deepEqual(server.closes.filter(([p]) => p === '/done' || p === '/default').sort(), [['/default', 1000, ''], ['/done', 4002, 'done']]);
  assert.ok(port);
});

test('k6/experimental/websockets: every ws_* sample named by its URL (a name the script gives is the url too); a connection that failed is a session with its connecting time and no duration', async () => {
  const { r, samples, port, refused } = await runWs(`import { WebSocket } from 'k6/experimental/websockets';
export default function () {
  const a = new WebSocket(\`ws://127.0.0.1:\${__ENV.PORT}/x?y=1\`);
  a.onopen = () => a.close();
  const b = new WebSocket(\`ws://127.0.0.1:\${__ENV.PORT}/y\`, null, { tags: { name: 'named' } });
  b.onopen = () => b.close();
  new WebSocket(\`ws://127.0.0.1:\${__ENV.PORT}/reject\`);
  new WebSocket(\`ws://127.0.0.1:\${__ENV.REFUSED}/z\`);
}
`);
  assert.equal(r.code, 0, r.stderr);
  const open = `ws://127.0.0.1:${port}/x?y=1`;
  const reject = `ws://127.0.0.1:${port}/reject`;
  const none = `ws://127.0.0.1:${refused}/z`;
  const metrics = (url) => tagsOf(samples, 'ws_sessions', url).length + tagsOf(samples, 'ws_connecting', url).length + tagsOf(samples, 'ws_session_duration', url).length;
  for (const [metric, tags] of samples) assert.equal(tags.name, tags.url, `${metric} ${JSON.stringify(tags)}`);
  assert.deepEqual(samples.filter(([, t]) => t.url === open).map(([m]) => m).sort(), ['ws_connecting', 'ws_msgs_sent', 'ws_session_duration', 'ws_sessions']);
  assert.equal(samples.filter(([, t]) => t.url === 'named').length, 4);
  assert.deepEqual(tagsOf(samples, 'ws_sessions', reject).map((t) => [t.status, t.subproto]), [['403', '']]);
  assert.deepEqual(tagsOf(samples, 'ws_sessions', none).map((t) => [t.status, t.subproto]), [[undefined, undefined]]);
  assert.equal(metrics(reject), 2);
  assert.equal(metrics(none), 2);
});
