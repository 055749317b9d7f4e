// Request sequences: a list of requests each connection walks in order, or picks by weight, from
// the API, a JSON file or a HAR file; results broken down per entry.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadTest } from '../src/index.js';
import { parseSequence, entryPicker } from '../src/requests/sequence.js';
import { harRequests } from '../src/requests/har.js';
import { rawServer, ok, spawnScript } from './servers.js';

const perPath = (server) => {
  const counts = {};
  for (const p of server.paths) counts[p] = (counts[p] || 0) + 1;
  return counts;
};

test('parseSequence: paths, same-origin URLs, methods, weights; clear errors', () => {
  const url = new URL('http://127.0.0.1:8080/base?x=1');
  const entries = parseSequence([{ path: '/a' }, { url: 'http://127.0.0.1:8080/b?q=2', method: 'post', headers: { 'X-T': 1 } }, {}], url);
  assert.deepEqual(entries.map((e) => [e.name, e.method, e.path, e.weight]), [['GET /a', 'GET', '/a', null], ['POST /b?q=2', 'POST', '/b?q=2', null], ['GET /', 'GET', '/', null]]);
  assert.deepEqual(entries[1].headers, { 'x-t': '1' });
  assert.deepEqual(parseSequence([{ path: '/a', weight: 2 }, { path: '/b' }], url).map((e) => e.weight), [2, 1]);
  assert.throws(() => parseSequence([], url), /non-empty list/);
  assert.throws(() => parseSequence([{ url: 'http://other:8080/' }], url), /requests\[0\]\.url 'http:\/\/other:8080\/' is not on the run's origin http:\/\/127\.0\.0\.1:8080/);
  assert.throws(() => parseSequence([{ path: 'a' }], url), /requests\[0\]\.path 'a' must start with \//);
  assert.throws(() => parseSequence([{ path: '/a', weight: 0 }], url), /requests\[0\]\.weight must be a number above zero/);
  assert.throws(() => parseSequence([{ path: '/a', headers: ['x'] }], url), /headers must be an object/);
});

test('entryPicker: in order per connection; smooth weighted round robin is exact per cycle', () => {
  const inOrder = entryPicker([{ weight: null }, { weight: null }, { weight: null }]);
  const a = { step: 0 };
  const b = { step: 0 };
  assert.deepEqual([inOrder(a), inOrder(a), inOrder(b), inOrder(a), inOrder(a)], [0, 1, 0, 2, 0]);
  const weighted = entryPicker([{ weight: 5 }, { weight: 1 }, { weight: 1 }]);
  const picks = Array.from({ length: 7 }, () => weighted());
  assert.deepEqual(picks.filter((i) => i === 0).length, 5);
  assert.notDeepEqual(picks.slice(0, 5), [0, 0, 0, 0, 0]); // spread out, not in a block
});

test('a 3-entry sequence hits each path the expected number of times, per-entry results', async () => {
  const server = await rawServer(({ socket }, req) => socket.write(req.path === '/b' ? ok('nope').replace('200 OK', '404 Not Found') : ok()));
  try {
    const result = await loadTest({
      url: server.url,
      requests: [{ path: '/a' }, { path: '/b', method: 'POST', body: { n: 1 } }, { url: `${server.url}c?q=1`, headers: { 'x-step': 'three' } }],
      maxRequests: 300,
      concurrency: 1,
      agentKeepAlive: true,
      quiet: true,
    });
    // One connection walks a, b, c in order 100 times. (With several, each walks on its own,
    // and how many requests each one gets is up to the race between them.)
    assert.deepEqual(perPath(server), { '/a': 100, '/b': 100, '/c?q=1': 100 });
    assert.equal(server.bodies.filter((b) => b === '{"n":1}').length, 100);
    assert.deepEqual(result.entries.map((e) => [e.name, e.requests, e.errors]), [['GET /a', 100, 0], ['POST /b', 100, 100], ['GET /c?q=1', 100, 0]]);
    for (const e of result.entries) assert.ok(e.percentiles[99] >= e.percentiles[50] && e.maxLatencyMs >= e.percentiles[99]);
    assert.equal(result.totalErrors, 100);
    assert.deepEqual(JSON.parse(JSON.stringify(result)).entries, result.entries);
  } finally {
    await server.close();
  }
});

test('weights hold to ±5 % over 2 000 requests, on one core and on two', async () => {
  const server = await rawServer(({ socket }) => socket.write(ok()));
  try {
    for (const cores of [1, 2]) {
      const before = perPath(server);
      const result = await loadTest({ url: server.url, requests: [{ path: '/a', weight: 1 }, { path: '/b', weight: 3 }, { path: '/c', weight: 6 }], maxRequests: 2000, concurrency: 4, cores, agentKeepAlive: true, quiet: true });
      assert.equal(result.totalRequests, 2000);
      const now = perPath(server);
      const got = ['/a', '/b', '/c'].map((p) => (now[p] || 0) - (before[p] || 0));
      [200, 600, 1200].forEach((want, i) => assert.ok(Math.abs(got[i] - want) <= want * 0.05, `cores ${cores}: ${got}`));
      assert.deepEqual(result.entries.map((e) => e.requests), got);
    }
  } finally {
    await server.close();
  }
});

test('a sequence over pipelined connections keeps each response with its entry', async () => {
  const server = await rawServer(({ socket }, req) => socket.write(req.path === '/bad' ? ok('x').replace('200 OK', '500 Oops') : ok()));
  try {
    const result = await loadTest({ url: server.url, requests: [{ path: '/ok' }, { path: '/bad' }], pipelining: 4, maxRequests: 200, concurrency: 1, quiet: true });
    assert.equal(result.totalRequests, 200);
    assert.deepEqual(result.entries.map((e) => [e.path, e.requests, e.errors]), [['/ok', 100, 0], ['/bad', 100, 100]]);
    assert.deepEqual(perPath(server), { '/ok': 100, '/bad': 100 });
  } finally {
    await server.close();
  }
});

test('harRequests: the run\'s origin only, headers cleaned, bodies kept', () => {
  const har = { log: { entries: [
    { request: { method: 'GET', url: 'http://app.test:8080/', headers: [{ name: ':authority', value: 'x' }, { name: 'Host', value: 'app.test' }, { name: 'Accept', value: 'text/html' }, { name: 'Cookie', value: 'a=1' }, { name: 'cookie', value: 'b=2' }] } },
    { request: { method: 'GET', url: 'https://cdn.test/font.woff', headers: [] } },
    { request: { method: 'post', url: 'http://app.test:8080/api?x=1', headers: [{ name: 'Content-Length', value: '7' }], postData: { mimeType: 'application/json', text: '{"a":1}' } } },
  ] } };
  const { url, requests, skipped } = harRequests(har, null);
  assert.equal(url, 'http://app.test:8080/');
  assert.equal(skipped, 1);
  assert.deepEqual(requests, [
    { method: 'GET', url: 'http://app.test:8080/', headers: { accept: 'text/html', cookie: 'a=1; b=2' } },
    { method: 'POST', url: 'http://app.test:8080/api?x=1', headers: { 'content-type': 'application/json' }, body: '{"a":1}' },
  ]);
  assert.equal(harRequests(har, 'https://cdn.test/').requests.length, 1);
  assert.throws(() => harRequests({}, null), /not a HAR file/);
  assert.throws(() => harRequests(har, 'http://elsewhere/'), /no HAR entry is on http:\/\/elsewhere/);
});

test('CLI: --har replays its entries; --requests from a file; per-entry table; bad files are one line', async () => {
  const server = await rawServer(({ socket }) => socket.write(ok()));
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-seq-'));
  try {
    const origin = server.url.slice(0, -1);
    const har = { log: { version: '1.2', entries: [
      { request: { method: 'GET', url: `${origin}/home`, headers: [{ name: 'Accept', value: 'text/html' }] } },
      { request: { method: 'POST', url: `${origin}/login`, headers: [], postData: { mimeType: 'application/x-www-form-urlencoded', text: 'u=a&p=b' } } },
      { request: { method: 'GET', url: 'https://fonts.example/f.woff2', headers: [] } },
      { request: { method: 'GET', url: `${origin}/items?page=1`, headers: [] } },
    ] } };
    writeFileSync(join(dir, 'visit.har'), JSON.stringify(har));
    const run = await spawnScript('src/cli.js', ['--har', join(dir, 'visit.har'), '-n', '60', '-c', '1', '-k', '--quiet']);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(perPath(server), { '/home': 20, '/login': 20, '/items?page=1': 20 });
    assert.equal(server.bodies.filter((b) => b === 'u=a&p=b').length, 20);
    assert.match(run.stderr, /--har: 1 entries on other origins left out/);
    assert.match(run.stdout, /Requests by entry\n\s+entry\s+requests\s+errors\s+mean\s+p50\s+p90\s+p99\s+max\n\s+GET \/home\s+20\s+0 /);
    writeFileSync(join(dir, 'seq.json'), JSON.stringify({ requests: [{ path: '/x' }, { path: '/y', weight: 3 }] }));
    const json = await spawnScript('src/cli.js', ['--requests', join(dir, 'seq.json'), '-n', '40', '--json', server.url]);
    assert.equal(json.code, 0, json.stderr);
    assert.deepEqual(JSON.parse(json.stdout).entries.map((e) => [e.path, e.requests]), [['/x', 10], ['/y', 30]]);
    writeFileSync(join(dir, 'bad.json'), '{"requests": 3}');
    for (const [args, message] of [
      [['--requests', join(dir, 'bad.json'), server.url], `loadtest: --requests: '${join(dir, 'bad.json')}' must hold a list of requests, or { "requests": [...] }`],
      [['--requests', join(dir, 'missing.json'), server.url], `loadtest: --requests: cannot read '${join(dir, 'missing.json')}' (ENOENT)`],
      [['--har', join(dir, 'seq.json'), server.url], 'loadtest: --har: not a HAR file (no log.entries)'],
      [['--requests', join(dir, 'seq.json')], 'loadtest: --requests: no URL given, and no entry has a full url to take the origin from'],
    ]) {
      const bad = await spawnScript('src/cli.js', args);
      assert.equal(bad.code, 2, args.join(' '));
      assert.equal(bad.stderr.trim(), message);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.close();
  }
});

test('requests refuse what cannot go with them', async () => {
  const base = { url: 'http://127.0.0.1:9/', requests: [{ path: '/a' }], maxRequests: 1 };
  await assert.rejects(loadTest({ ...base, url: 'ws://127.0.0.1:9/' }), /does not apply to ws:\/\/ URLs/);
  await assert.rejects(loadTest({ ...base, indexParam: 'X' }), /requests and indexParam do not go together/);
  await assert.rejects(loadTest({ ...base, requestGenerator: () => ({}) }), /requests and requestGenerator both make the requests/);
});
