// HTTP/2 in scripts, as k6 has it: an https origin is offered h2 and HTTP/1.1 by ALPN; one that
// chooses h2 gets every request of the VU as a stream of one connection (http.batch()'s at
// once), res.proto 'HTTP/2.0', status_text as Go writes it, the proto tag; one that offers only
// HTTP/1.1 is spoken to in HTTP/1.1. The same script beside k6 v1.3 gave the same lines (doc/
// scripts.md). Streams and sessions counted at the server.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import https from 'node:https';
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnScript } from './servers.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const pem = (name) => readFileSync(new URL(`./tls/${name}.pem`, import.meta.url), 'utf8');
const TLS = { key: pem('server-key'), cert: pem('server') };

// A TLS server speaking h2 (and HTTP/1.1 with `both`): it answers each path with what it saw,
// and holds the batch's three requests until all three are open at once.
async function h2Server({ both = false } = {}) {
  const state = { streams: 0, sessions: 0, versions: new Set(), held: [] };
  const answer = (req, res) => {
    state.versions.add(req.httpVersion);
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ path: req.url, method: req.method, body }));
    });
  };
  const server = http2.createSecureServer({ ...TLS, allowHTTP1: both }, (req, res) => {
    state.streams++;
    if (!req.url.startsWith('/b')) return answer(req, res);
    state.held.push([req, res]);
    if (state.held.length === 3) for (const [q, s] of state.held.splice(0)) answer(q, s);
  });
  const sessions = new Set();
  server.on('session', (s) => {
    state.sessions++;
    sessions.add(s);
    s.on('close', () => sessions.delete(s));
    s.on('error', () => {});
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `https://127.0.0.1:${server.address().port}`;
  state.close = () =>
    new Promise((resolve) => {
      for (const s of sessions) s.destroy();
      server.close(() => resolve());
    });
  return state;
}

const SCRIPT = `import http from 'k6/http';
import { check } from 'k6';
export const options = {
  iterations: 2,
  insecureSkipTLSVerify: true,
  thresholds: { 'http_reqs{proto:HTTP/2.0}': ['count==10'] },
};
const lines = [];
export default function () {
  const r = http.get(\`\${__ENV.BASE}/a\`);
  const p = http.post(\`\${__ENV.BASE}/p\`, JSON.stringify({ x: 1 }), { headers: { 'Content-Type': 'application/json' } });
  const b = http.batch([\`\${__ENV.BASE}/b1\`, \`\${__ENV.BASE}/b2\`, \`\${__ENV.BASE}/b3\`]);
  check(r, { 'h2': (x) => x.proto === 'HTTP/2.0' });
  console.log(JSON.stringify([r.proto, r.status_text, r.headers['Content-Type'], r.json('path'), p.json('body'), b.map((x) => x.proto + ' ' + x.json('path')), r.timings.connecting > 0]));
}
`;

async function runScript(source, base) {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-h2-'));
  try {
    const path = join(dir, 'test.js');
    writeFileSync(path, source);
    const r = await spawnScript(CLI, ['run', '-q', '-e', `BASE=${base}`, path], { timeoutMs: 60000 });
    const logged = [...r.stderr.matchAll(/msg="(.*)" source=console/g)].map((m) => JSON.parse(JSON.parse(`"${m[1]}"`)));
    return { ...r, logged };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('an h2-only server: every request a stream of one connection, the batch at once; HTTP/2.0 as k6 gives it', async () => {
  const server = await h2Server();
  try {
    const r = await runScript(SCRIPT, server.url);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(server.streams, 10);
    assert.equal(server.sessions, 1, 'the VU keeps its connection between iterations');
    assert.deepEqual([...server.versions], ['2.0']);
    const first = ['HTTP/2.0', '200 OK', 'application/json', '/a', '{"x":1}', ['HTTP/2.0 /b1', 'HTTP/2.0 /b2', 'HTTP/2.0 /b3']];
    assert.deepEqual(r.logged, [[...first, true], [...first, false]], 'connect time on the first request only');
    assert.match(r.stdout, /http_reqs\{proto:HTTP\/2\.0\}\n {4}✓ 'count==10' count=10\n/);
  } finally {
    await server.close();
  }
});

test('a server offering h2 and HTTP/1.1 is spoken to in h2; one offering HTTP/1.1 alone, in HTTP/1.1', async () => {
  const both = await h2Server({ both: true });
  try {
    const r = await runScript(SCRIPT, both.url);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual([...both.versions], ['2.0']);
    assert.equal(both.streams, 10);
  } finally {
    await both.close();
  }
  let requests = 0;
  const h1 = https.createServer(TLS, (req, res) => {
    requests++;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ path: req.url, body: '' }));
  });
  await new Promise((resolve) => h1.listen(0, '127.0.0.1', resolve));
  try {
    const r = await runScript(SCRIPT, `https://127.0.0.1:${h1.address().port}`);
    assert.equal(r.code, 99, 'no request went as HTTP/2.0: the threshold fails');
    assert.equal(requests, 10);
    assert.deepEqual(r.logged[0].slice(0, 2), ['HTTP/1.1', '200 OK']);
    assert.deepEqual(r.logged[0][5], ['HTTP/1.1 /b1', 'HTTP/1.1 /b2', 'HTTP/1.1 /b3']);
  } finally {
    h1.closeAllConnections?.();
    await new Promise((resolve) => h1.close(resolve));
  }
});
