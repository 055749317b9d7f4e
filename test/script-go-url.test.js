// k6 shows a URL as Go's url.Parse(text).String() (res.url, res.request.url; masked, the url and
// name tags), not as a WHATWG href: what k6 v1.3.0 gave for each text below, and, over random
// URLs, the text itself wherever a WHATWG href would have left it as written.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { goURLString, maskedURL, bareURL } from '../src/script/k6/http/url/go-url.js';
import { rawServer, spawnScript, ok } from './servers.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

// [text, k6's res.url, k6's url tag], from k6 v1.3.0 (a script that logged res.url, --out json).
const K6 = [
  ['http://127.0.0.1:43669', 'http://127.0.0.1:43669', 'http://127.0.0.1:43669'],
  ['http://127.0.0.1:43669/a/../b', 'http://127.0.0.1:43669/a/../b', 'http://127.0.0.1:43669/a/../b'],
  ['HTTP://127.0.0.1:43669/X', 'http://127.0.0.1:43669/X', 'http://127.0.0.1:43669/X'],
  ['http://127.0.0.1:43669/sp ace?q=a b', 'http://127.0.0.1:43669/sp%20ace?q=a b', 'http://127.0.0.1:43669/sp%20ace?q=a b'],
  ['http://127.0.0.1:43669?x=1', 'http://127.0.0.1:43669?x=1', 'http://127.0.0.1:43669?x=1'],
  ['http://127.0.0.1:43669/%7Efoo', 'http://127.0.0.1:43669/%7Efoo', 'http://127.0.0.1:43669/%7Efoo'],
  ['http://user:pw@127.0.0.1:43669/auth', 'http://user:pw@127.0.0.1:43669/auth', 'http://****:****@127.0.0.1:43669/auth'],
  ['http://127.0.0.1:43669#frag', 'http://127.0.0.1:43669#frag', 'http://127.0.0.1:43669#frag'],
];

test('k6 v1.3.0\'s res.url and url tag for URLs a WHATWG href would change', () => {
  for (const [text, shown, tag] of K6) {
    assert.equal(goURLString(text), shown, text);
    assert.equal(maskedURL(goURLString(text)), tag, text);
  }
  assert.equal(maskedURL('https://user@h.test/p?a=b@c'), 'https://****@h.test/p?a=b@c');
  assert.equal(maskedURL('https://h.test/p?a=b@c'), 'https://h.test/p?a=b@c');
  // Go: the path unescaped, then escaped again, byte by byte of its UTF-8.
  assert.equal(goURLString('http://h.test/é x/%41(b)'), 'http://h.test/%C3%A9%20x/A%28b%29');
  assert.equal(goURLString('not a url'), null);
  assert.equal(bareURL('http://u:p@h.test/x@y'), 'http://h.test/x@y');
  assert.equal(bareURL('http://h.test/x@y'), 'http://h.test/x@y');
});

test('random URLs: where the href is the text, Go\'s String() is too', () => {
  let seed = 7;
  const rand = (n) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const pick = (xs) => xs[rand(xs.length)];
  const SEGMENT = ['items', 'a-b', 'x_y', '~u', '%7E', 'A.b', 'q=1', '', '7', 'with:colon', 'at@', '!$&\'()*+,;='];
  let same = 0;
  for (let i = 0; i < 3000; i++) {
    const host = pick(['127.0.0.1', 'localhost', 'h.test', '[::1]']) + pick(['', ':8080', ':1']);
    const path = rand(3) === 0 ? '' : Array.from({ length: 1 + rand(3) }, () => '/' + pick(SEGMENT)).join('');
    const query = rand(2) ? '' : '?' + pick(['a=1', 'a=1&b=2', 'x', 'q=%20']);
    const text = `${pick(['http', 'https'])}://${rand(5) === 0 ? 'u:p@' : ''}${host}${path}${query}`;
    const go = goURLString(text);
    assert.notEqual(go, null, text);
    if (new URL(text).href === text) {
      same++;
      assert.equal(go, text, text);
    }
    // A path only Go would show otherwise differs from the text where a WHATWG href's also does.
    if (go !== text) assert.notEqual(new URL(text).href, text, text);
  }
  assert.ok(same > 1000, `${same} URLs a WHATWG href kept`);
});

test('a run shows the URL as k6: res.url, res.request.url and the url and name tags of http.get(BASE) with no path, with credentials, with digest auth', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-go-url-'));
  const server = await rawServer(({ socket }) => socket.write(ok()));
  try {
    const path = join(dir, 'test.js');
    writeFileSync(path, `import http from 'k6/http';
export const options = { iterations: 1 };
export default function () {
  const r = http.get(__ENV.BASE);
  console.log('urls ' + r.url + ' ' + r.request.url);
  http.get(__ENV.BASE.replace('//', '//u:p@') + '/in');
  const d = http.get(__ENV.BASE.replace('//', '//u:p@') + '/digest', { auth: 'digest' });
  console.log('digest ' + d.url + ' ' + d.request.url);
}
`);
    const base = server.url.replace(/\/$/, '');
    const out = join(dir, 'out.json');
    const r = await spawnScript(CLI, ['run', '-q', '-e', `BASE=${base}`, '--out', `json=${out}`, path], { timeoutMs: 60000 });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, new RegExp(`urls ${base} ${base}"`));
    const tags = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((l) => l.type === 'Point' && l.metric === 'http_reqs').map((l) => [l.data.tags.url, l.data.tags.name]);
    const masked = base.replace('//', '//****:****@') + '/in';
    // Digest auth: k6 takes the credentials off the request's URL (res.request.url keeps them).
    assert.deepEqual(tags, [[base, base], [masked, masked], [`${base}/digest`, `${base}/digest`]]);
    assert.match(r.stderr, new RegExp(`digest ${base}/digest ${base.replace('//', '//u:p@')}/digest"`));
    assert.deepEqual(server.paths, ['/', '/in', '/digest']);
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

// k6 v2.2.0's answer for each text (status 0 throughout): the Response's error and error_code,
// and whether the request is counted (a text Go's url.Parse refuses is not; one it takes but its
// transport cannot send is, in http_reqs and http_req_failed, with Go's words for it).
const UNSENDABLE = [
  ['', 'unsupported protocol scheme ""', 1000, true, ''],
  ['foo', 'unsupported protocol scheme ""', 1000, true, 'foo'],
  ['/path', 'unsupported protocol scheme ""', 1000, true, '/path'],
  ['ftp://127.0.0.1/', 'unsupported protocol scheme "ftp"', 1000, true, 'ftp://127.0.0.1/'],
  ['http://', 'http: no Host in request URL', 1000, true, 'http:'],
  ['http:///x', 'http: no Host in request URL', 1000, true, 'http:///x'],
  ['http://127.0.0.1:99999/', 'dial tcp: address 99999: invalid port', 1210, true, 'http://127.0.0.1:99999/'],
  ['http://[::1', 'invalid URL: parse "http://[::1": missing \']\' in host', 1020, false],
  ['127.0.0.1:8080/x', 'invalid URL: parse "127.0.0.1:8080/x": first path segment in URL cannot contain colon', 1020, false],
  ['http://a b/', 'invalid URL: parse "http://a b/": invalid character " " in host name', 1020, false],
  [' http://127.0.0.1:1/', 'invalid URL: parse " http://127.0.0.1:1/": first path segment in URL cannot contain colon', 1020, false],
];

test('a URL Go cannot send is a failed request, counted, with Go\'s words; one it cannot parse is refused uncounted, as k6 v2.2.0', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-go-url-'));
  try {
    const path = join(dir, 'test.js');
    writeFileSync(path, `import http from 'k6/http';
export const options = { iterations: 1, thresholds: { http_req_failed: ['rate<0.5'] } };
export default function () {
  for (const u of ${JSON.stringify(UNSENDABLE.map(([u]) => u))}) {
    const r = http.get(u);
    console.log(JSON.stringify([u, r.status, r.error, r.error_code]));
  }
  try {
    http.get('foo', { throw: true });
  } catch (e) {
    console.log(JSON.stringify(['thrown', String(e)]));
  }
}
`);
    const out = join(dir, 'out.json');
    const r = await spawnScript(CLI, ['run', '-q', '--out', `json=${out}`, path], { timeoutMs: 60000 });
    // Seven counted requests failed: the threshold on http_req_failed is crossed.
    assert.equal(r.code, 99, r.stderr);
    const logged = [...r.stderr.matchAll(/msg="(.*)" source=console/g)].map((m) => JSON.parse(JSON.parse(`"${m[1]}"`)));
    assert.deepEqual(logged.slice(0, -1), UNSENDABLE.map(([u, error, code]) => [u, 0, error, code]));
    assert.deepEqual(logged.at(-1), ['thrown', 'GoError: Get "foo": unsupported protocol scheme ""']);
    const points = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((l) => l.type === 'Point');
    const counted = UNSENDABLE.filter(([, , , c]) => c);
    const failed = points.filter((p) => p.metric === 'http_req_failed').map((p) => [p.data.value, p.data.tags.url, p.data.tags.error, p.data.tags.error_code]);
    assert.deepEqual(failed, [...counted.map(([, error, code, , tag]) => [1, tag, error, String(code)]), [1, 'foo', 'unsupported protocol scheme ""', '1000']]);
    assert.equal(points.filter((p) => p.metric === 'http_reqs').length, counted.length + 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('random URLs: the common URL goVerdict takes at once is one Go takes and sends', async () => {
  const { goVerdict, fullVerdict } = await import('../src/script/k6/http/url/go-url-parse.js');
  let seed = 5;
  const rand = (n) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const pick = (xs) => xs[rand(xs.length)];
  let fast = 0;
  for (let i = 0; i < 5000; i++) {
    const text = pick(['http://', 'https://', 'HTTP://', 'ftp://', '', ' http://']) + pick(['127.0.0.1', 'a.test', 'a_b', '[::1]', '', 'a b']) + pick(['', ':80', ':65535', ':65536', ':09999', ':99999', ':', ':x']) + pick(['', '/', '/p?q=1', '/%zz', '/a#f', '?x', '/é']);
    const verdict = goVerdict(text);
    if (verdict === null && fullVerdict(text) === null) fast++;
    assert.deepEqual(verdict, fullVerdict(text), text);
  }
  assert.ok(fast > 500, `${fast} URLs sendable`);
});
