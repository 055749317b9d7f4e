// A request's bytes are kept by URL, method and the script's headers (src/script/k6/
// request-bytes.js), a request with a body's head alone: every request must still say the
// headers it was given that time, whether the script changes them between calls in a new
// object, in the same params object it mutates, or not at all; a header of the script's replaces ours (User-Agent);
// and a body, each time another, goes with its own length.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnScript } from './servers.js';
import { startHttpbin } from './httpbin.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

const SCRIPT = `import http from 'k6/http';
import { check } from 'k6';
export const options = { vus: 2, iterations: 40, thresholds: { checks: ['rate==1'] } };
const shared = { headers: { 'X-Shared': 'a' } };
const fixed = { headers: { 'X-Fixed': 'same', 'User-Agent': 'mine/1' } };
export default function () {
  const n = String(__ITER % 5);
  const seen = (res) => res.json('headers');
  // A new params object each time, its value changing.
  const a = http.get(\`\${__ENV.BASE}/headers\`, { headers: { 'X-Id': n } });
  check(a, { 'X-Id as sent': (r) => seen(r)['X-Id'] === n, 'no X-Shared': (r) => seen(r)['X-Shared'] === undefined });
  // The same params object, changed between calls.
  shared.headers['X-Shared'] = 'v' + n;
  const b = http.get(\`\${__ENV.BASE}/headers\`, shared);
  check(b, { 'X-Shared as changed': (r) => seen(r)['X-Shared'] === 'v' + n, 'no X-Id': (r) => seen(r)['X-Id'] === undefined });
  // The same object, never changed; its User-Agent replaces ours.
  const c = http.get(\`\${__ENV.BASE}/headers\`, fixed);
  check(c, { 'X-Fixed': (r) => seen(r)['X-Fixed'] === 'same', 'its User-Agent': (r) => seen(r)['User-Agent'] === 'mine/1' });
  // None: our User-Agent, no header of the others.
  const d = http.get(\`\${__ENV.BASE}/headers\`);
  check(d, { 'ours': (r) => seen(r)['User-Agent'].startsWith('loadtest/') && seen(r)['X-Id'] === undefined && seen(r)['X-Fixed'] === undefined });
  // Another method with the same headers: its own bytes.
  const e = http.del(\`\${__ENV.BASE}/anything\`, null, { headers: { 'X-Id': n } });
  check(e, { 'DELETE with X-Id': (r) => r.json('method') === 'DELETE' && r.json('headers')['X-Id'] === n });
  // A body, each time another (its length too): the head kept, the body and its length not.
  const body = JSON.stringify({ n: __ITER, pad: 'é'.repeat(__ITER % 3) });
  const f = http.post(\`\${__ENV.BASE}/post\`, body, { headers: { 'Content-Type': 'application/json' } });
  check(f, { 'POST body as sent': (r) => r.json('data') === body && r.json('headers')['Content-Length'] === String(body.length + (__ITER % 3)) });
  const g = http.post(\`\${__ENV.BASE}/post\`, '', { headers: { 'Content-Type': 'application/json' } });
  check(g, { 'empty body': (r) => r.json('data') === '' && r.json('headers')['Content-Length'] === '0' });
}
`;

test("each request says the headers it was given, the bytes kept or not: changed, mutated in place, fixed, none, another method, a body", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-bytes-'));
  const server = await startHttpbin(0);
  try {
    const path = join(dir, 'test.js');
    writeFileSync(path, SCRIPT);
    const r = await spawnScript(CLI, ['run', '-q', '-e', `BASE=${server.url}`, path], { timeoutMs: 60000 });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    // 40 iterations of 10 checks, each passed.
    assert.match(r.stdout, /checks_succeeded\.*: 100\.00% 400 out of 400/);
    assert.match(r.stdout, /http_reqs\.*: 280\b/);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
