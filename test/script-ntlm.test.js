// k6/http's auth: 'ntlm' (src/script/k6/http/auth/ntlm.js) against an NTLM server that checks
// the NTLMv2 response (test/ntlm-server.js). What each run must give was recorded with k6 v2.2.0
// against the same server: its statuses, its http_reqs with their expected_response, which of
// them opened a connection, and the messages the server read in their order.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnScript } from './servers.js';
import { startNtlmServer } from './ntlm-server.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

const SCRIPT = String.raw`import http from 'k6/http';
import { check } from 'k6';
export const options = { iterations: 2, vus: 1, thresholds: { checks: ['rate==1'] } };
const at = (cred, path) => 'http://' + cred + '@127.0.0.1:' + __ENV.PORT + path;
export default function () {
  const ntlm = { auth: 'ntlm' };
  check(http.get(at('alice:Secret-1', '/x'), ntlm), {
    'authenticated': (r) => r.status === 200 && r.body === 'hello \\alice',
    'res.url': (r) => r.url === at('alice:Secret-1', '/x'),
    'res.request.headers': (r) => JSON.stringify(Object.keys(r.request.headers)) === '["User-Agent"]',
  });
  check(http.get(at('alice:wrong', '/each/wrong'), ntlm), { 'wrong password: 401': (r) => r.status === 401 && r.body === 'wrong password' });
  check(http.get('http://127.0.0.1:' + __ENV.PORT + '/each/none', ntlm), { 'no credentials: 401': (r) => r.status === 401 && r.body === 'who are you?' });
  check(http.get(at('TESTDOM%5Calice:Secret-1', '/each/domain'), ntlm), { 'DOMAIN\\user': (r) => r.status === 200 && r.body === 'hello TESTDOM\\alice' });
  check(http.get(at('alice%40TESTDOM:Secret-1', '/each/upn'), ntlm), { 'user@domain': (r) => r.status === 200 && r.body === 'hello \\alice@TESTDOM' });
  check(http.post(at('alice:Secret-1', '/each/post'), 'the body', { auth: 'ntlm', headers: { 'X-A': 'b' } }), {
    'POST': (r) => r.status === 200 && r.request.body === 'the body' && r.request.headers['X-A'][0] === 'b',
  });
  const basic = 'Basic YWxpY2U6U2VjcmV0LTE='; // alice:Secret-1
  check(http.get('http://127.0.0.1:' + __ENV.PORT + '/each/header', { auth: 'ntlm', headers: { Authorization: basic } }), {
    'a Basic header': (r) => r.status === 200 && r.request.headers.Authorization[0] === basic,
  });
}
`;

// Each iteration as k6 v2.2.0 ran it: a request is [status, expected_response], the server's
// messages 0 (none), 1 (negotiate) or 3 (authenticate). The first iteration authenticates the
// connection for /x; the second finds it so. The call's first 401 is expected, the challenge not.
const HANDSHAKE = [['401', 'true'], ['401', 'false'], ['200', 'true']];
const REFUSED = [['401', 'true'], ['401', 'false'], ['401', 'false']];
const REST = [...REFUSED, ['401', 'true'], ...HANDSHAKE, ...HANDSHAKE, ...HANDSHAKE, ...HANDSHAKE];
const K6_REQUESTS = [...HANDSHAKE, ...REST, ['200', 'true'], ...REST];
const K6_SEEN = [0, 1, 3, 0, 1, 3, 0, 0, 1, 3, 0, 1, 3, 0, 1, 3, 0, 1, 3, 0, 0, 1, 3, 0, 0, 1, 3, 0, 1, 3, 0, 1, 3, 0, 1, 3];
// go-ntlmssp's negotiate message, as the server read it from k6.
const K6_NEGOTIATE = 'TlRMTVNTUAABAAAAAYKIoAAAAAAoAAAAAAAAACgAAAAGAbEdAAAADw==';

async function runScript(source, server) {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-ntlm-'));
  try {
    writeFileSync(join(dir, 'test.js'), source);
    const r = await spawnScript(CLI, ['run', '-q', '--out', `json=${join(dir, 'out.json')}`, '-e', `PORT=${server.port}`, join(dir, 'test.js')], { timeoutMs: 60000 });
    const points = readFileSync(join(dir, 'out.json'), 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((p) => p.type === 'Point');
    return { ...r, points };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("auth: 'ntlm' authenticates as k6 v2.2.0: the same statuses, requests, samples and messages; a wrong password and no credentials a 401", async () => {
  const server = await startNtlmServer();
  try {
    const r = await runScript(SCRIPT, server);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const requests = r.points.filter((p) => p.metric === 'http_reqs').map((p) => [p.data.tags.status, p.data.tags.expected_response]);
    assert.deepEqual(requests, K6_REQUESTS);
    assert.deepEqual(server.seen, K6_SEEN);
    assert.equal(server.requests, 36);
    // As k6: the first request's connection stays busy through the first handshake, which
    // opens another; the rest go on those two.
    assert.equal(server.connections, 2);
    const opened = r.points.filter((p) => p.metric === 'http_req_connecting').map((p) => p.data.value > 0);
    assert.deepEqual(opened, requests.map((_, i) => i < 2));
    assert.deepEqual([...server.negotiates], [K6_NEGOTIATE]);
    assert.deepEqual(server.users, ['\\alice', 'TESTDOM\\alice', '\\alice@TESTDOM', '\\alice', '\\alice', 'TESTDOM\\alice', '\\alice@TESTDOM', '\\alice', '\\alice']);
    // The body goes with each of the POST's three requests.
    assert.deepEqual(server.bodies.filter((b) => b !== ''), Array(6).fill('the body'));
  } finally {
    await server.close();
  }
});

test("auth: 'ntlm' a challenge go-ntlmssp does not answer (NTLMv1's LM key): the first 401, after two requests, as k6", async () => {
  const server = await startNtlmServer();
  try {
    const r = await runScript(
      `import http from 'k6/http';
export const options = { thresholds: { checks: ['rate==1'] } };
import { check } from 'k6';
export default function () {
  check(http.get('http://alice:Secret-1@127.0.0.1:' + __ENV.PORT + '/v1/x', { auth: 'ntlm' }), { 'the first 401': (r) => r.status === 401 && r.body === 'who are you?' });
}
`,
      server,
    );
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.deepEqual(r.points.filter((p) => p.metric === 'http_reqs').map((p) => [p.data.tags.status, p.data.tags.expected_response]), [['401', 'true'], ['401', 'false']]);
    assert.deepEqual(server.seen, [0, 1]);
  } finally {
    await server.close();
  }
});

// Where we part from k6 (doc/scripts.md): in a batch, Go's pool may give a handshake's
// authenticate message another request's connection, and k6 then gets a 401 now and then; here
// each handshake keeps its connection, and every request authenticates.
test("auth: 'ntlm' in a batch: each handshake on a connection of its own, every request authenticated", async () => {
  const server = await startNtlmServer();
  try {
    const r = await runScript(
      `import http from 'k6/http';
import { check } from 'k6';
export const options = { iterations: 3, vus: 1, thresholds: { checks: ['rate==1'] } };
export default function () {
  const u = (p) => ['GET', 'http://alice:Secret-1@127.0.0.1:' + __ENV.PORT + '/each/' + p, null, { auth: 'ntlm' }];
  const rs = http.batch([u('a'), u('b'), u('c'), u('d')]);
  check(rs, { 'all authenticated': (rs) => rs.every((r) => r.status === 200) });
}
`,
      server,
    );
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(server.users.length, 12);
    assert.equal(server.requests, 36);
  } finally {
    await server.close();
  }
});
