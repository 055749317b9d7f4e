// Cookies of a WebSocket's handshake, as k6 v2.2.0 sends them (gorilla's Dialer with the VU's
// jar, or the params' jar): the jar's cookies for the URL as http(s), and the handshake's
// Set-Cookie kept in the jar; for k6/ws and k6/websockets alike. And a cookie marked Secure goes
// over http to a loopback address, as Go 1.26's jar (k6 v2.2's) sends it. The lines asserted are
// k6 v2.2.0's for the same script against the same server.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnScript } from './servers.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

// Sets cookies at /set, echoes the Cookie header at /cookie, and upgrades anything else: its
// answer sets a cookie, then one text frame with the Cookie header it got, then a close.
function cookieServer() {
  const seen = [];
  const sockets = new Set();
  const server = http.createServer((req, res) => {
    if (req.url === '/set') res.setHeader('Set-Cookie', ['a=1; Path=/', 'sec=2; Path=/; Secure', 'other=3; Path=/other']);
    res.end(req.url === '/cookie' ? String(req.headers.cookie) : 'ok');
  });
  server.on('upgrade', (req, socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    seen.push([req.url, req.headers.cookie ?? null]);
    const accept = createHash('sha1').update(req.headers['sec-websocket-key'] + '258EAFA5-E914-47DA-95CA-C5AB0DC85B11').digest('base64');
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\nSet-Cookie: fromws=9; Path=/\r\n\r\n`);
    const text = Buffer.from(String(req.headers.cookie ?? null));
    socket.write(Buffer.concat([Buffer.from([0x81, text.length]), text, Buffer.from([0x88, 0x02, 0x03, 0xe8])]));
    socket.on('data', () => socket.end());
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        base: `127.0.0.1:${server.address().port}`,
        seen,
        close: () => {
          for (const s of sockets) s.destroy();
          return new Promise((r) => server.close(r));
        },
      }),
    ),
  );
}

test('a WebSocket handshake sends the jar\'s cookies and keeps its Set-Cookie (k6/ws, k6/websockets, params.jar); a Secure cookie goes to loopback over http', async () => {
  const server = await cookieServer();
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-ws-cookies-'));
  try {
    const path = join(dir, 'test.js');
    writeFileSync(path, `import http from 'k6/http';
import ws from 'k6/ws';
import { WebSocket } from 'k6/websockets';
export const options = { iterations: 1 };
export default async function () {
  const B = __ENV.B;
  http.get(\`http://\${B}/set\`);
  console.log('http ' + http.get(\`http://\${B}/cookie\`).body);
  ws.connect(\`ws://\${B}/ws1\`, {}, (s) => { s.on('message', (m) => console.log('ws1 ' + m)); });
  const jar = http.cookieJar().cookiesForURL(\`http://\${B}/\`);
  console.log('jar ' + Object.keys(jar).sort().join(','));
  const own = new http.CookieJar();
  own.set(\`http://\${B}/\`, 'mine', 'x');
  ws.connect(\`ws://\${B}/ws2\`, { jar: own }, (s) => { s.on('message', (m) => console.log('ws2 ' + m)); });
  await new Promise((resolve) => {
    const w = new WebSocket(\`ws://\${B}/ws3\`);
    w.onmessage = (e) => console.log('ws3 ' + e.data);
    w.onclose = resolve;
  });
}
`);
    const r = await spawnScript(CLI, ['run', '-q', '-e', `B=${server.base}`, path], { timeoutMs: 60000 });
    assert.equal(r.code, 0, r.stderr);
    const logged = [...r.stderr.matchAll(/msg="(.*)" source=console/g)].map((m) => JSON.parse(`"${m[1]}"`));
    assert.deepEqual(logged, ['http a=1; sec=2', 'ws1 a=1; sec=2', 'jar a,fromws,sec', 'ws2 mine=x', 'ws3 a=1; sec=2; fromws=9']);
    assert.deepEqual(server.seen, [['/ws1', 'a=1; sec=2'], ['/ws2', 'mine=x'], ['/ws3', 'a=1; sec=2; fromws=9']]);
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
