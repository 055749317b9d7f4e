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

test('k6/websockets: error events in k6\'s words and shape (a close not normal, a drop, an upgrade refused, a connection refused) before close; the close event\'s code and reason, as k6 v2.2', async () => {
  const { r, lines, server, port } = await runWs(`import { WebSocket } from 'k6/websockets';
export default function () {
  for (const q of ['close/4005', 'close/1000?reason=fine', 'close/none', 'drop', 'reject', 'refused']) {
    const w = new WebSocket(q === 'refused' ? \`ws://127.0.0.1:\${__ENV.REFUSED}/\` : \`ws://127.0.0.1:\${__ENV.PORT}/\${q}\`);
    w.onerror = (e) => console.log(q, 'error', e.error, Object.keys(e).join(), e.type, typeof e.timestamp, e.target === w, w.readyState);
    w.onclose = (e) => console.log(q, 'close', Object.keys(e).join(), e.code, JSON.stringify(e.reason), w.readyState);
  }
  const a = new WebSocket(\`ws://127.0.0.1:\${__ENV.PORT}/done\`);
  a.onopen = () => a.close(4002, 'done');
  a.onerror = (e) => console.log('4002', 'error', e.error);
  a.onclose = (e) => console.log('4002', 'close', e.code, JSON.stringify(e.reason));
  const b = new WebSocket(\`ws://127.0.0.1:\${__ENV.PORT}/default\`);
  b.onopen = () => b.close();
  b.onerror = (e) => console.log('default', 'error', e.error);
  b.onclose = (e) => console.log('default', 'close', e.code, JSON.stringify(e.reason));
}
`);
  assert.equal(r.code, 0, r.stderr);
  const by = (q) => lines.filter((l) => l.startsWith(`${q} `));
  const shape = 'type,target,timestamp,error error number true 3';
  const closed = 'close type,target,timestamp,code,reason';
  assert.deepEqual(by('close/4005'), [`close/4005 error websocket: close 4005: bye ${shape}`, `close/4005 ${closed} 4005 "bye" 3`]);
  assert.deepEqual(by('close/1000?reason=fine'), [`close/1000?reason=fine ${closed} 1000 "fine" 3`]);
  assert.deepEqual(by('close/none'), [`close/none error websocket: close 1005 (no status) ${shape}`, `close/none ${closed} 1005 "" 3`]);
  assert.deepEqual(by('drop'), [`drop error websocket: close 1006 (abnormal closure): unexpected EOF ${shape}`, `drop ${closed} 1006 "unexpected EOF" 3`]);
  // A connection that never opened: no code, as k6.
  assert.deepEqual(by('reject'), [`reject error websocket: bad handshake ${shape}`, 'reject close type,target,timestamp,reason undefined "" 3']);
  assert.match(by('refused')[0], /^refused error dial tcp 127\.0\.0\.1:\d+: connect: connection refused type,target,timestamp,error error number true 3$/);
  assert.equal(by('refused')[1], 'refused close type,target,timestamp,reason undefined "" 3');
  // The server answers a close with its code: 4002 is not normal, so an error too.
  assert.deepEqual(by('4002'), ['4002 error websocket: close 4002', '4002 close 4002 ""']);
  assert.deepEqual(by('default'), ['default close 1000 ""']);
  assert.deepEqual(server.closes.filter(([p]) => p === '/done' || p === '/default').sort(), [['/default', 1000, ''], ['/done', 4002, 'done']]);
  assert.ok(port);
});

test('k6/websockets: close(code, reason) checked as k6 v2.2 (1000 or 3000-4999, a reason of 123 bytes at most: k6\'s GoErrors, nothing sent); the code as k6\'s engine reads it; close() before the connection opened sends the close once it has, with no open event', async () => {
  const { r, lines, server } = await runWs(`import { WebSocket } from 'k6/websockets';
export default function () {
  const cases = [[1001], [2000], [5000], [-1], [true], [1000, 'x'.repeat(124)], [1000, 'é'.repeat(62)], [1000, 'é'.repeat(61) + 'x'], [3000.7], ['4000'], ['abc'], [null, 42]];
  cases.forEach((args, i) => {
    const w = new WebSocket(\`ws://127.0.0.1:\${__ENV.PORT}/c\${i}\`);
    w.onopen = () => {
      try { w.close(...args); console.log(i, 'ok', w.readyState); }
      catch (e) { console.log(i, 'threw', e.name, e.message, w.readyState); w.close(); }
    };
  });
  const early = new WebSocket(\`ws://127.0.0.1:\${__ENV.PORT}/early\`);
  early.close(4001, 'early');
  console.log('early', early.readyState);
  early.onopen = () => console.log('early open');
  early.onclose = (e) => console.log('early', 'close', e.code, early.readyState);
  // A message that comes once the script has closed is not given to it.
  const late = new WebSocket(\`ws://127.0.0.1:\${__ENV.PORT}/late\`);
  late.onopen = () => { late.send('a'); late.send('b'); };
  late.onmessage = (m) => { console.log('late', m.data); late.close(); };
}
`);
  assert.equal(r.code, 0, r.stderr);
  const code = (n) => `GoError InvalidAccessError: Failed to execute 'close' on 'WebSocket': The close code must be either 1000, or between 3000 and 4999. ${n} is neither 1`;
  const long = "GoError SyntaxError: Failed to execute 'close' on 'WebSocket': The message must not be greater than 123 bytes 1";
  const said = Object.fromEntries(lines.filter((l) => /^\d+ /.test(l)).map((l) => [Number(l.split(' ')[0]), l.slice(l.indexOf(' ') + 1)]));
  assert.deepEqual(said, { 0: `threw ${code(1001)}`, 1: `threw ${code(2000)}`, 2: `threw ${code(5000)}`, 3: `threw ${code(-1)}`, 4: `threw ${code(1)}`, 5: `threw ${long}`, 6: `threw ${long}`, 7: 'ok 2', 8: 'ok 2', 9: 'ok 2', 10: 'ok 2', 11: 'ok 2' });
  const sent = Object.fromEntries(server.closes.map(([p, c, why]) => [p.slice(1), [c, why]]));
  for (let i = 0; i <= 6; i++) assert.deepEqual(sent[`c${i}`], [1000, ''], `c${i}`);
  assert.deepEqual([sent.c7, sent.c8, sent.c9, sent.c10, sent.c11], [[1000, `${'é'.repeat(61)}x`], [3000, ''], [4000, ''], [1000, ''], [1000, '42']]);
  assert.deepEqual(lines.filter((l) => l.startsWith('early')), ['early 2', 'early close 4001 3']);
  assert.deepEqual(sent.early, [4001, 'early']);
  assert.deepEqual(lines.filter((l) => l.startsWith('late')), ['late a']);
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

test('k6/websockets and k6/experimental/websockets are one module; the old name logs k6 v2.2\'s deprecation line once', async () => {
  const { r, lines } = await runWs(`import { WebSocket } from 'k6/websockets';
import { WebSocket as Old } from 'k6/experimental/websockets';
import * as again from 'k6/experimental/websockets';
export const options = { vus: 2, iterations: 2 };
export default function () {
  for (const W of [WebSocket, Old, again.WebSocket]) {
    const w = new W(\`ws://127.0.0.1:\${__ENV.PORT}/\`);
    w.onopen = () => w.send('hi');
    w.onmessage = (m) => { console.log('got', m.data); w.close(); };
  }
}
`);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(lines, Array(6).fill('got hi'));
  const warnings = r.stderr.split('\n').filter((l) => l.includes('deprecated'));
  assert.deepEqual(warnings.map((l) => l.replace(/^time="[^"]*" /, '')), ['level=warning msg="k6/experimental/websockets is deprecated and will be removed in a future release. Please use k6/websockets instead."']);
});

test('k6/websockets: bufferedAmount counts the bytes sent until the connection has taken them (5, 8, 12, then 0, as k6 v2.2); what k6 refuses is refused in its words', async () => {
  const { r, lines } = await runWs(`import { WebSocket } from 'k6/websockets';
function t(label, fn) { try { fn(); console.log(label, 'ok'); } catch (e) { console.log(label, String(e)); } }
export default function () {
  t('no url', () => new WebSocket());
  t('http', () => new WebSocket('http://127.0.0.1:1/'));
  t('fragment', () => new WebSocket('ws://127.0.0.1:1/#x'));
  t('bad url', () => new WebSocket('ws://[::1/'));
  const w = new WebSocket(\`ws://127.0.0.1:\${__ENV.PORT}/\`);
  t('send early', () => w.send('x'));
  t('ping early', () => w.ping());
  t('binaryType', () => { w.binaryType = 'text'; });
  t('onmessage', () => { w.onmessage = 5; });
  console.log('initially', w.bufferedAmount, JSON.stringify(w.extensions), WebSocket.OPEN);
  w.binaryType = 'arraybuffer';
  let n = 0;
  w.onopen = () => {
    w.send(new Uint8Array([1, 2, 3, 4, 5]));
    console.log('typed', w.bufferedAmount);
    w.send(new Uint8Array([1, 2, 3]).buffer);
    console.log('buffer', w.bufferedAmount);
    w.send('abé');
    console.log('text', w.bufferedAmount);
    t('dataview', () => w.send(new DataView(new ArrayBuffer(2))));
    t('object', () => w.send({}));
    t('number', () => w.send(5));
  };
  w.onmessage = () => { if (++n === 3) { console.log('end', w.bufferedAmount); w.close(); } };
  w.onclose = () => { t('send closed', () => w.send('x')); t('ping closed', () => w.ping()); };
}
`);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(lines, [
    'no url GoError: WebSocket requires a url',
    'http GoError: WebSocket requires url with scheme ws or wss, but got "http"',
    'fragment GoError: WebSocket requires no url fragment, but got "x"',
    'bad url GoError: WebSocket requires valid url, but got "ws://[::1/" which resulted in parse "ws://[::1/": missing \']\' in host',
    'send early GoError: InvalidStateError',
    'ping early GoError: InvalidStateError',
    'binaryType GoError: unknown binaryType text, the supported ones are "blob" and "arraybuffer"',
    "onmessage GoError: a value for 'onmessage' should be callable",
    'initially 0 [] undefined',
    'typed 5',
    'buffer 8',
    'text 12',
    'dataview GoError: unsupported send type map[string]interface {}',
    'object GoError: unsupported send type map[string]interface {}',
    'number GoError: unsupported send type int64',
    'end 0',
    'send closed GoError: InvalidStateError',
    'ping closed GoError: InvalidStateError',
  ]);
});

test('k6/ws: a URL that is not ws: or wss: (or that Go cannot parse) is a session that failed, its result\'s error in gorilla\'s words, as k6 v2.2; with throw: true, a failed connection throws', async () => {
  const { r, lines, samples } = await runWs(`import ws from 'k6/ws';
export default function () {
  for (const u of ['http://127.0.0.1:1/', 'ftp://x/', 'ws://[::1/', 'ws://', '127.0.0.1:1']) {
    const res = ws.connect(u, null, () => console.log('never'));
    console.log(u, res.status, res.url === '', res.error);
  }
}
`);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(lines, [
    'http://127.0.0.1:1/ 0 true malformed ws or wss URL',
    'ftp://x/ 0 true malformed ws or wss URL',
    'ws://[::1/ 0 true parse "ws://[::1/": missing \']\' in host',
    'ws:// 0 true lookup : no such host',
    '127.0.0.1:1 0 true parse "127.0.0.1:1": first path segment in URL cannot contain colon',
  ]);
  for (const m of ['ws_sessions', 'ws_connecting', 'ws_session_duration']) assert.equal(tagsOf(samples, m, 'http://127.0.0.1:1/').length, 1, m);
  const thrown = await runWs(`import ws from 'k6/ws';
export const options = { throw: true };
export default function () {
  for (const u of ['http://x/', \`ws://127.0.0.1:\${__ENV.PORT}/reject\`, \`ws://127.0.0.1:\${__ENV.REFUSED}/\`]) {
    try { ws.connect(u, null, () => {}); console.log('returned'); } catch (e) { console.log(String(e)); }
  }
}
`);
  assert.equal(thrown.r.code, 0, thrown.r.stderr);
  assert.deepEqual(thrown.lines, ['GoError: malformed ws or wss URL', 'GoError: websocket: bad handshake', `GoError: dial tcp 127.0.0.1:${thrown.refused}: connect: connection refused`]);
});
