// Requests that vary: --feed rows into {{column}} places, --urls, values captured from one
// response into the next requests of a connection's walk, and checks; against a server that
// needs POST /login (a token) and then GET /items/{{id}} with that token.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadTest } from '../src/index.js';
import http2 from 'node:http2';
import { rawServer, spawnScript, ok } from './servers.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const IDS = 1000;

function files() {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-data-'));
  return {
    write: (name, text) => (writeFileSync(join(dir, name), text), join(dir, name)),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

const idsCsv = () => 'id,name\n' + Array.from({ length: IDS }, (_, i) => `id${i},"item ${i}, the ${i}th"`).join('\n') + '\n';

// POST /login answers a new token in JSON; GET /items/:id needs a token it gave (401 without).
function shopServer() {
  const tokens = new Set();
  return rawServer(({ socket, server }, req) => {
    server.ids = server.ids || new Map();
    server.unauthorized = server.unauthorized || 0;
    if (req.method === 'POST' && req.path === '/login') {
      const token = `t${tokens.size + 1}`;
      tokens.add(token);
      return socket.write(ok(JSON.stringify({ data: { token } }), 'Content-Type: application/json\r\n'));
    }
    const m = /^\/items\/(\w+)$/.exec(req.path);
    const token = (req.headers.authorization || '').replace(/^Bearer /, '');
    if (m && tokens.has(token)) {
      server.ids.set(m[1], (server.ids.get(m[1]) || 0) + 1);
      if (req.headers['x-name'] !== undefined) (server.names = server.names || new Map()).set(m[1], req.headers['x-name']);
      return socket.write(ok(`item ${m[1]}`, `X-Request-Id: r${server.requests}\r\n`));
    }
    server.unauthorized++;
    socket.write('HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n');
  });
}

const LOGIN_THEN_ITEMS = [
  { method: 'POST', path: '/login', body: { user: 'a' }, capture: { token: { json: 'data.token' } } },
  { path: '/items/{{id}}', headers: { authorization: 'Bearer {{token}}' }, check: { status: 200 } },
];

// Each id seen as often as the run says: the item requests spread over the rows in turn.
function evenly(ids, items) {
  const counts = [...ids.values()];
  assert.equal(counts.reduce((a, b) => a + b, 0), items);
  assert.equal(ids.size, Math.min(IDS, items));
  assert.ok(Math.max(...counts) - Math.min(...counts) <= 1, `uneven: ${Math.min(...counts)} to ${Math.max(...counts)}`);
}

test('login, then items/{{id}} with the captured token: ids from a 1000-row CSV, each as often as the run says, none without a token', async () => {
  const f = files();
  const server = await shopServer();
  try {
    const feed = f.write('ids.csv', idsCsv());
    const r = await loadTest({ url: server.url, requests: LOGIN_THEN_ITEMS, feed, maxRequests: 4000, concurrency: 4, agentKeepAlive: true });
    assert.equal(r.totalErrors, 0, JSON.stringify(r.errorCodes));
    assert.equal(server.unauthorized, 0);
    const items = r.entries[1].requests;
    assert.equal(r.entries[0].requests + items, 4000);
    evenly(server.ids, items);
  } finally {
    await server.close();
    f.remove();
  }
});

test('an NDJSON feed held as its bytes: items/{{id}} from every row, as often as the run says, a long value and an escaped one in a header', async () => {
  const f = files();
  const server = await shopServer();
  try {
    // Every third row's name has an escape (kept as a string), every fifth is 300 bytes long.
    const name = (i) => (i % 3 === 0 ? `item \\/ ${i}` : i % 5 === 0 ? 'n'.repeat(300) : `item ${i}`);
    const feed = f.write('ids.ndjson', Array.from({ length: IDS }, (_, i) => `{"id":"id${i}","n":${i},"name":"${name(i)}"}`).join('\n') + '\n');
    const requests = [LOGIN_THEN_ITEMS[0], { ...LOGIN_THEN_ITEMS[1], headers: { ...LOGIN_THEN_ITEMS[1].headers, 'x-name': '{{name}} {{n}}' } }];
    const r = await loadTest({ url: server.url, requests, feed, maxRequests: 3000, concurrency: 4, agentKeepAlive: true });
    assert.equal(r.totalErrors, 0, JSON.stringify(r.errorCodes));
    assert.equal(server.unauthorized, 0);
    evenly(server.ids, r.entries[1].requests);
    for (let i = 0; i < IDS; i++) assert.equal(server.names.get(`id${i}`), `${JSON.parse(`"${name(i)}"`)} ${i}`);
  } finally {
    await server.close();
    f.remove();
  }
});

test('two cores and two shards split the rows exactly', async () => {
  const f = files();
  const server = await shopServer();
  try {
    const feed = f.write('ids.csv', idsCsv());
    const seq = f.write('seq.json', JSON.stringify(LOGIN_THEN_ITEMS));
    // Two shards of two cores: four processes, one run of 4000 requests. Each walks login → items 500 times.
    const shard = (i) => spawnScript(CLI, [server.url, '--requests', seq, '--feed', feed, '-n', '4000', '-c', '4', '-k', '--cores', '2', '--shard', `${i}/2`, '--quiet', '--json']);
    const runs = await Promise.all([shard(1), shard(2)]);
    for (const run of runs) assert.equal(run.code, 0, run.stderr);
    const items = runs.map((run) => JSON.parse(run.stdout).entries[1].requests).reduce((a, b) => a + b, 0);
    assert.equal(items, 2000);
    assert.equal(server.unauthorized, 0);
    // 2000 item requests over 1000 rows: each id exactly twice.
    assert.deepEqual(new Set(server.ids.values()), new Set([2]));
    assert.equal(server.ids.size, IDS);
  } finally {
    await server.close();
    f.remove();
  }
});

test('a row with CR or LF, and a missing column, are refused before the run with the file, row and column', async () => {
  const f = files();
  const server = await shopServer();
  try {
    const bad = f.write('bad.csv', 'id,user\nid1,a\n"id2\r\nx",b\n');
    await assert.rejects(
      loadTest({ url: server.url, requests: [{ path: '/items/x', headers: { 'x-id': '{{id}}' } }], feed: bad, maxRequests: 1 }),
      { message: /^.*bad\.csv: row 3, column 1 \(id\): a value with CR, LF or NUL cannot go into the request line or a header$/ },
    );
    const good = f.write('ids.csv', idsCsv());
    await assert.rejects(loadTest({ url: server.url + 'items/{{sku}}', feed: good, maxRequests: 1 }), { message: /ids\.csv has no column 'sku'/ });
    // In the body, a line break is only a value.
    const r = await loadTest({ url: server.url + 'login', method: 'POST', body: '{"note": "{{id}}"}', feed: bad, maxRequests: 2 });
    assert.equal(r.totalRequests, 2);
    const cli = await spawnScript(CLI, [server.url + 'items/{{id}}', '--feed', bad, '-n', '1']);
    assert.equal(cli.code, 2);
    assert.match(cli.stderr, /^loadtest: .*bad\.csv: row 3, column 1 \(id\): a value with CR, LF or NUL cannot go into the request line or a header\n$/);
    const spaced = f.write('spaced.csv', 'id\nid1\n"id 2"\n');
    await assert.rejects(loadTest({ url: server.url + 'items/{{id}}', feed: spaced, maxRequests: 1 }), {
      message: /spaced\.csv: row 3, column 1 \(id\): a value with a space or a control character cannot go into the path \(percent-encode it\)$/,
    });
    // Unquoted cells, checked in the feed's bytes: a NUL in a header, a tab in the path.
    const nul = f.write('nul.csv', 'id\nid1\nid\u00002\n');
    await assert.rejects(loadTest({ url: server.url, requests: [{ path: '/items/x', headers: { 'x-id': '{{id}}' } }], feed: nul, maxRequests: 1 }), {
      message: /nul\.csv: row 3, column 1 \(id\): a value with CR, LF or NUL cannot go into the request line or a header$/,
    });
    const tab = f.write('tab.csv', 'id\nid1\nid\t2\n');
    await assert.rejects(loadTest({ url: server.url + 'items/{{id}}', feed: tab, maxRequests: 1 }), {
      message: /tab\.csv: row 3, column 1 \(id\): a value with a space or a control character cannot go into the path \(percent-encode it\)$/,
    });
    await assert.doesNotReject(loadTest({ url: server.url, requests: [{ path: '/items/x', headers: { 'x-id': '{{id}}' } }], feed: tab, maxRequests: 1 }));
    assert.equal(server.requests, 3, 'nothing sent by the refused runs');
  } finally {
    await server.close();
    f.remove();
  }
});

test('a capture that finds nothing fails that request with its reason and starts the walk again', async () => {
  const server = await shopServer();
  try {
    const requests = [
      { method: 'POST', path: '/login', body: 'x', capture: { token: { json: 'data.missing' } } },
      { path: '/items/a', headers: { authorization: 'Bearer {{token}}' } },
    ];
    const r = await loadTest({ url: server.url, requests, maxRequests: 50, concurrency: 2, agentKeepAlive: true });
    assert.deepEqual(r.errorsByReason, { 'capture token: not found': 50 });
    // Every walk went back to the login: no item request was sent without a token.
    assert.equal(server.ids === undefined ? 0 : server.ids.size, 0);
    assert.equal(server.unauthorized, 0);
  } finally {
    await server.close();
  }
});

test('captures from a header and a regex; a failed check is an error that a threshold sees', async () => {
  const server = await shopServer();
  try {
    const requests = [
      { method: 'POST', path: '/login', body: 'x', capture: { token: { regex: '"token":"([^"]+)"' } } },
      { path: '/items/b', headers: { authorization: 'Bearer {{token}}' }, capture: { rid: { header: 'x-request-id' } }, check: { body: 'item b' } },
      { path: '/items/{{rid}}', headers: { authorization: 'Bearer {{token}}' }, check: { body: 'never there' } },
    ];
    const r = await loadTest({ url: server.url, requests, maxRequests: 30, concurrency: 1, agentKeepAlive: true, thresholds: ['errors<1%'] });
    assert.deepEqual(r.errorsByReason, { "check body: 'never there' not found": 10 });
    assert.equal(r.totalErrors, 10);
    assert.equal(r.thresholds[0].passed, false);
    // The third entry used the second's captured request id.
    assert.ok([...server.ids.keys()].some((id) => /^r\d+$/.test(id)), JSON.stringify([...server.ids.keys()]));
  } finally {
    await server.close();
  }
});

test('--check on every response: a failed one is an error with its reason, and exit 3 with a threshold', async () => {
  const server = await rawServer(({ socket, server: s }) => socket.write(s.requests % 3 === 0 ? 'HTTP/1.1 503 Busy\r\nContent-Length: 0\r\n\r\n' : ok()));
  try {
    const run = await spawnScript(CLI, [server.url, '-n', '30', '-c', '1', '-k', '--check', '{"status":200,"body":"OK"}', '--threshold', 'errors<5%', '--json']);
    assert.equal(run.code, 3, run.stderr);
    const r = JSON.parse(run.stdout);
    assert.deepEqual(r.errorsByReason, { 'check status: 503, expected 200': 10 });
    const bad = await spawnScript(CLI, [server.url, '-n', '1', '--check', '{status:200}']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^loadtest: --check takes a JSON object/);
  } finally {
    await server.close();
  }
});

test('--urls with 3 lines hits each a third of the time; a URL on another origin is one line naming it', async () => {
  const f = files();
  const server = await rawServer(({ socket }) => socket.write(ok()));
  try {
    const urls = f.write('urls.txt', `# three pages\n/a\nPOST ${server.url}b?x=1\n\n${server.url}c\n`);
    const r = await loadTest({ url: server.url, urls, maxRequests: 301, concurrency: 3, agentKeepAlive: true });
    assert.equal(r.totalErrors, 0);
    const counts = {};
    for (const p of server.paths) counts[p] = (counts[p] || 0) + 1;
    assert.deepEqual(Object.keys(counts).sort(), ['/a', '/b?x=1', '/c']);
    for (const n of Object.values(counts)) assert.ok(Math.abs(n - 301 / 3) <= 1, JSON.stringify(counts));
    const other = f.write('other.txt', '/a\nhttp://example.com/x\n');
    const cli = await spawnScript(CLI, [server.url, '--urls', other, '-n', '1']);
    assert.equal(cli.code, 2);
    assert.match(cli.stderr, /other\.txt: line 2: http:\/\/example\.com\/x is not on the run's origin/);
  } finally {
    await server.close();
    f.remove();
  }
});

test('--urls alone: the first line gives the origin, on the CLI (-n 300 -c 3 -k: each of 3 lines 100 times) and in the API; a first line without one is refused', async () => {
  const f = files();
  let deletes = 0;
  const server = await rawServer(({ socket }, req) => {
    if (req.method === 'DELETE') deletes++;
    socket.write(ok());
  });
  try {
    const urls = f.write('urls.txt', `${server.url}a\n/b\nDELETE ${server.url}c\n`);
    const cli = await spawnScript(CLI, ['--urls', urls, '-n', '300', '-c', '3', '-k']);
    assert.equal(cli.code, 0, cli.stderr);
    assert.match(cli.stdout, /Completed requests:\s+300\b/);
    const counts = (paths) => paths.reduce((c, p) => ((c[p] = (c[p] || 0) + 1), c), {});
    assert.deepEqual(counts(server.paths), { '/a': 100, '/b': 100, '/c': 100 });
    assert.equal(deletes, 100);
    server.paths.length = 0;
    const r = await loadTest({ urls, maxRequests: 30, concurrency: 3, agentKeepAlive: true });
    assert.equal(r.totalRequests, 30);
    assert.deepEqual(counts(server.paths), { '/a': 10, '/b': 10, '/c': 10 });
    const pathFirst = f.write('paths.txt', '# pages\n/b\n');
    const bad = await spawnScript(CLI, ['--urls', pathFirst, '-n', '1']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^loadtest: .*paths\.txt: line 2: \/b has no origin/);
    assert.equal(bad.stderr.trim().split('\n').length, 1);
    const missing = await spawnScript(CLI, ['-n', '1']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /missing URL to load-test/);
  } finally {
    await server.close();
    f.remove();
  }
});

test('--feed-order random: every row once a pass, the same order for the same seed', async () => {
  const f = files();
  const server = await rawServer(({ socket }) => socket.write(ok()));
  try {
    const feed = f.write('ids.json', JSON.stringify(Array.from({ length: 50 }, (_, i) => ({ id: i }))));
    const paths = async (seed) => {
      server.paths.length = 0;
      await loadTest({ url: server.url + 'x/{{id}}', feed, feedOrder: 'random', seed, maxRequests: 100, concurrency: 1, agentKeepAlive: true });
      return server.paths.slice();
    };
    const a = await paths(7);
    assert.deepEqual(new Set(a.slice(0, 50)).size, 50, 'every row once in the first pass');
    assert.deepEqual(new Set(a.slice(50)).size, 50, 'and again in the second');
    assert.notDeepEqual(a.slice(0, 50), Array.from({ length: 50 }, (_, i) => `/x/${i}`));
    assert.deepEqual(await paths(7), a);
    assert.notDeepEqual(await paths(8), a);
  } finally {
    await server.close();
    f.remove();
  }
});

test("a HAR sequence captures and checks through the configuration file's entryOptions", async () => {
  const f = files();
  const server = await shopServer();
  try {
    const entry = (method, path, headers = []) => ({
      request: { method, url: server.url.replace(/\/$/, '') + path, headers, ...(method === 'POST' ? { postData: { mimeType: 'text/plain', text: 'x' } } : {}) },
    });
    // As recorded: a token from the browser's session, which the server no longer knows.
    const har = { log: { entries: [entry('POST', '/login'), entry('GET', '/items/id7', [{ name: 'Authorization', value: 'Bearer recorded' }])] } };
    f.write('visit.har', JSON.stringify(har));
    const rc = f.write('.loadtestrc', JSON.stringify({
      entryOptions: { 'POST /login': { capture: { token: { json: 'data.token' } } }, 1: { headers: { authorization: 'Bearer {{token}}' }, check: { body: 'item id7' } } },
    }));
    const run = await spawnScript(CLI, ['--har', 'visit.har', '-n', '20', '-c', '1', '-k', '--json'], { cwd: rc.replace(/\/\.loadtestrc$/, '') });
    assert.equal(run.code, 0, run.stderr);
    const r = JSON.parse(run.stdout);
    assert.equal(r.totalErrors, 0, JSON.stringify(r.errorCodes));
    assert.equal(server.unauthorized, 0);
    assert.equal(server.ids.get('id7'), 10);
    await assert.rejects(loadTest({ url: server.url, requests: LOGIN_THEN_ITEMS.slice(0, 1), entryOptions: { 'GET /nope': { check: { status: 200 } } }, maxRequests: 1 }), {
      message: "entryOptions: no entry 'GET /nope' (give an index from 0 or an entry's name)",
    });
  } finally {
    await server.close();
    f.remove();
  }
});

test('a feed over HTTP/2 streams and over a pipeline: every row once, in each protocol', async () => {
  const server = await rawServer(({ socket }) => socket.write(ok()));
  const h2 = http2.createServer();
  const paths = [];
  h2.on('stream', (stream, headers) => {
    stream.on('error', () => {});
    paths.push(headers[':path'] + ' ' + headers['x-user']);
    stream.respond({ ':status': 200 });
    stream.end('ok');
  });
  await new Promise((resolve) => h2.listen(0, '127.0.0.1', resolve));
  try {
    const feed = Array.from({ length: 40 }, (_, i) => ({ id: i, user: `u${i}` }));
    const r = await loadTest({ url: `http://127.0.0.1:${h2.address().port}/x/{{id}}`, headers: { 'x-user': '{{user}}' }, http2: true, streams: 4, feed, maxRequests: 40, concurrency: 2 });
    assert.deepEqual(r.errorCodes, {});
    assert.deepEqual(paths.sort(), feed.map((row) => `/x/${row.id} u${row.id}`).sort());
    const p = await loadTest({ url: server.url + 'y/{{id}}', feed, pipelining: 4, maxRequests: 40, concurrency: 2 });
    assert.equal(p.totalErrors, 0);
    assert.deepEqual(server.paths.slice().sort(), feed.map((row) => `/y/${row.id}`).sort());
  } finally {
    await server.close();
    await new Promise((done) => h2.close(done));
  }
});
