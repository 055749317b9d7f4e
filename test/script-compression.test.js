// k6/http's compression beyond the corpus's compression.js (recorded with k6 v1.3.0 against
// test/httpbin.js over HTTP/1.1): an h2 server's compressed responses and a compressed request
// over h2, zstd where the runtime has it (node 22.15+, bun, deno; not node 20), and a failed
// request's tags in --out json as k6 writes them (error and error_code, no proto).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import zlib from 'node:zlib';
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnScript } from './servers.js';
import { startHttpbin } from './httpbin.js';
import { contentEncodingOf, compressionOf } from '../src/script/net/content-encoding.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const pem = (name) => readFileSync(new URL(`./tls/${name}.pem`, import.meta.url), 'utf8');
const HAS_ZSTD = typeof zlib.zstdCompressSync === 'function';

async function runScript(source, base, extra = []) {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-compression-'));
  try {
    const path = join(dir, 'test.js');
    writeFileSync(path, source);
    const r = await spawnScript(CLI, ['run', '-q', ...extra.map((a) => a.replace('DIR', dir)), '-e', `BASE=${base}`, path], { timeoutMs: 60000 });
    const logged = [...r.stderr.matchAll(/msg="(.*)" source=console/g)].map((m) => JSON.parse(JSON.parse(`"${m[1]}"`)));
    const out = extra.length ? readFileSync(join(dir, 'out.json'), 'utf8') : '';
    return { ...r, logged, out };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("a head's Content-Encoding: found in the cases servers write it, told apart from Transfer-Encoding and look-alikes", () => {
  const cases = [
    ['HTTP/1.1 200 OK\r\nContent-Type: x\r\nContent-Length: 3\r\n\r\n', null],
    ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n', null],
    ['HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n', 'gzip'],
    ['HTTP/1.1 200 OK\r\ncontent-encoding:br\r\n\r\n', 'br'],
    ['HTTP/1.1 200 OK\r\nCONTENT-ENCODING:  deflate \r\nX: y\r\n\r\n', 'deflate'],
    ['HTTP/1.1 200 OK\r\nContent-Encoding: identity\r\n\r\n', null],
    ['HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\ncontent-encoding: br\r\n\r\n', 'gzip, br'],
    ['HTTP/1.1 200 OK\r\nX-Content-Encoding: gzip\r\n\r\n', null],
    ['HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Encoding: zstd\r\n\r\n', 'zstd'],
    ['HTTP/2.0 200 OK\ncontent-encoding: gzip\n', 'gzip'],
  ];
  for (const [head, want] of cases) assert.equal(contentEncodingOf(head), want, JSON.stringify(head));
  assert.deepEqual(compressionOf(' gzip, br '), ['gzip', 'br']);
  assert.equal(compressionOf(''), null);
  assert.throws(() => compressionOf('gzip,lzw'), { message: 'unknown compression algorithm lzw, supported algorithms are [gzip deflate zstd br]' });
  assert.throws(() => compressionOf('GZIP'), /unknown compression algorithm GZIP/);
});

test('over h2: a gzip or br response read decompressed, a request body compressed and said in content-encoding', async () => {
  const seen = [];
  const server = http2.createSecureServer({ key: pem('server-key'), cert: pem('server') }, (req, res) => {
    const chunks = [];
    req.on('data', (d) => chunks.push(d));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const coding = req.headers['content-encoding'];
      seen.push([req.url, coding || '', coding === 'gzip' ? zlib.gunzipSync(raw).toString() : raw.toString()]);
      const text = JSON.stringify({ path: req.url });
      const answer = req.url === '/br' ? ['br', zlib.brotliCompressSync(text)] : ['gzip', zlib.gzipSync(text)];
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': answer[0] });
      res.end(answer[1]);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const r = await runScript(
      `import http from 'k6/http';
export const options = { iterations: 1, insecureSkipTLSVerify: true };
export default function () {
  const g = http.get(\`\${__ENV.BASE}/gz\`);
  const b = http.get(\`\${__ENV.BASE}/br\`);
  const p = http.post(\`\${__ENV.BASE}/post\`, 'hello h2', { compression: 'gzip' });
  console.log(JSON.stringify([g.proto, g.json('path'), g.headers['Content-Encoding'], b.json('path'), p.json('path'), p.request.body]));
}
`,
      `https://127.0.0.1:${server.address().port}`,
    );
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.logged, [['HTTP/2.0', '/gz', 'gzip', '/br', '/post', 'hello h2']]);
    assert.deepEqual(seen, [['/gz', '', ''], ['/br', '', ''], ['/post', 'gzip', 'hello h2']]);
  } finally {
    server.close();
  }
});

test('zstd both ways where the runtime has it', { skip: HAS_ZSTD ? false : 'this runtime has no zstd in node:zlib (node 20)' }, async () => {
  const server = await startHttpbin(0);
  try {
    const r = await runScript(
      `import http from 'k6/http';
export const options = { iterations: 1 };
export default function () {
  const z = http.get(\`\${__ENV.BASE}/zstd\`);
  const p = http.post(\`\${__ENV.BASE}/post\`, 'zz', { compression: 'zstd' });
  console.log(JSON.stringify([z.json('zstd'), z.headers['Content-Encoding'], p.json('data'), p.json('headers.Content-Encoding')]));
}
`,
      server.url,
    );
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.logged, [[true, 'zstd', 'zz', 'zstd']]);
  } finally {
    await server.stop();
  }
});

test("a failed request's samples: error and error_code tags, no proto, as k6 writes them", async () => {
  const server = await startHttpbin(0);
  try {
    const r = await runScript(
      `import http from 'k6/http';
export const options = { iterations: 1 };
export default function () { http.get(\`\${__ENV.BASE}/bad-gzip\`); http.get(\`\${__ENV.BASE}/get\`); }
`,
      server.url,
      ['--out', 'json=DIR/out.json'],
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /request failed: error decompressing response body \(gzip: invalid header\)/);
    const reqs = r.out.split('\n').filter((l) => l.includes('"metric":"http_reqs","type":"Point"')).map((l) => JSON.parse(l).data.tags);
    assert.equal(reqs.length, 2);
    assert.equal(reqs[0].error, 'error decompressing response body (error decompressing response body (gzip: invalid header))');
    assert.equal(reqs[0].error_code, '1701');
    assert.equal(reqs[0].status, '0');
    assert.equal(reqs[0].proto, undefined);
    assert.equal(reqs[1].error, undefined);
    assert.equal(reqs[1].error_code, undefined);
    assert.equal(reqs[1].proto, 'HTTP/1.1');
  } finally {
    await server.stop();
  }
});
