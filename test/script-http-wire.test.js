// What k6/http puts on the wire, as k6 v1.3.0 does: forms (Go's url.Values and fmt's %v),
// multipart forms and http.file(), the Cookie header (Go's quoting and dropped bytes, the
// request's cookies before the jar's), Set-Cookie values as Go reads them, and redirects (the
// method, body and headers of each hop, Referer, res.request). Each expectation is what k6
// v1.3.0 sent or printed for the same script against a server that logs its requests.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rawServer, spawnScript } from './servers.js';
import { goForm, goValue, goType } from '../src/script/k6/http/go-value.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

const respond = (status, body = '', extra = '') => `HTTP/1.1 ${status} X\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;

// Every request kept ({ method, path, headers, body }); /rNNN?to=U answers NNN to U (/to by
// default); /set answers with Set-Cookie lines; anything else 200.
function recorder() {
  const seen = [];
  const started = rawServer(({ socket }, req) => {
    seen.push(req);
    const url = new URL(req.path, 'http://x');
    const m = /^\/r(\d{3})$/.exec(url.pathname);
    if (m) return socket.write(respond(Number(m[1]), '', `Location: ${url.searchParams.get('to') || '/to'}\r\n`));
    if (url.pathname === '/set') return socket.write(respond(200, 'ok', 'Set-Cookie: q="quoted val"\r\nSet-Cookie: p="plain"\r\nSet-Cookie: bad=a\\b\r\nSet-Cookie: ok=1\r\n'));
    return socket.write(respond(200, 'ok'));
  });
  return started.then((server) => Object.assign(server, { seen }));
}

async function run(source) {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-wire-'));
  const server = await recorder();
  try {
    const path = join(dir, 'test.js');
    writeFileSync(path, source);
    const r = await spawnScript(CLI, ['run', '-q', '--iterations', '1', '-e', `BASE=${server.url.replace(/\/$/, '')}`, '-e', `PORT=${server.port}`, path], { timeoutMs: 60000 });
    assert.equal(r.code, 0, r.stderr);
    // logrus quotes a message only when it must.
    const lines = [...r.stderr.matchAll(/msg=(?:"((?:[^"\\]|\\.)*)"|(\S*)) source=console/g)].map((m) => (m[2] !== undefined ? m[2] : JSON.parse(`"${m[1]}"`)));
    return { ...r, lines, seen: server.seen, base: server.url.replace(/\/$/, '') };
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

test("a form is Go's: keys sorted, lists repeated, values as fmt's %v, Go's query escaping", () => {
  const body = { b: 'x', a: 'x y', B: '*~ é+&=/', _u: undefined, n: null, f: 1.5, big: 1234567.5, tiny: 0.00001234, small: 0.0001, i: 3, e21: 1e21, e20: 1e20, nz: -0, nan: NaN, inf: Infinity, ninf: -Infinity, t: true, obj: { z: 1, a: 'x y', n: null, arr: [1, 'z'], o: { q: 2.5 } }, arr: [1, [2, 3], { k: 1 }, null, 'w'], emp: [], es: '' };
  // k6 v1.3.0's body for the same object.
  assert.equal(
    goForm(body),
    'B=%2A~+%C3%A9%2B%26%3D%2F&_u=%3Cnil%3E&a=x+y&arr=1&arr=%5B2+3%5D&arr=map%5Bk%3A1%5D&arr=%3Cnil%3E&arr=w&b=x&big=1.2345675e%2B06&e20=1e%2B20&e21=1e%2B21&es=&f=1.5&i=3&inf=%2BInf&n=%3Cnil%3E&nan=NaN&ninf=-Inf&nz=-0&obj=map%5Ba%3Ax+y+arr%3A%5B1+z%5D+n%3A%3Cnil%3E+o%3Amap%5Bq%3A2.5%5D+z%3A1%5D&small=0.0001&t=true&tiny=1.234e-05',
  );
  assert.equal(goValue(2 ** 60), '1152921504606846976');
  assert.equal(goValue(123456.5), '123456.5');
  assert.equal(goValue(-0.00001), '-1e-05');
  assert.equal(goForm({ "!'()": "!'()" }), '%21%27%28%29=%21%27%28%29');
  assert.deepEqual([new Uint8Array(1), 1, 1.5, null, undefined, true, [], {}].map(goType), ['[]uint8', 'int64', 'float64', '<nil>', '<nil>', 'bool', '[]interface {}', 'map[string]interface {}']);
});

test('http.file() and multipart forms: k6 refuses data that is not a string or an ArrayBuffer, names a file by the time in ns, escapes quotes, formats fields as %v', async () => {
  const r = await run(`import http from 'k6/http';
export default function () {
  const f = http.file('abc');
  console.log(f.filename.length, /^\\d+$/.test(f.filename), f.content_type, JSON.stringify(Object.keys(f)));
  console.log(JSON.stringify(http.file('x', '').filename), http.file('x', 'a"b\\\\c').filename);
  for (const d of [new Uint8Array(3), 123, new Uint8Array(3).buffer, null]) {
    try { http.file(d, 'n'); console.log('ok'); } catch (e) { console.log('ERR', e.message); }
  }
  http.post(__ENV.BASE + '/up', { 'fi"eld': 'v', f: http.file('DATA', 'q"t.txt', 'text/plain'), arr: [1, 2], n: null });
}`);
  assert.deepEqual(r.lines, [
    '19 true application/octet-stream ["data","filename","content_type"]',
    '"" a"b\\c',
    'ERR invalid type []uint8, expected string or ArrayBuffer',
    'ERR invalid type int64, expected string or ArrayBuffer',
    'ok',
    'ERR invalid type <nil>, expected string or ArrayBuffer',
  ]);
  const [req] = r.seen;
  const boundary = /^multipart\/form-data; boundary=([0-9a-f]{60})$/.exec(req.headers['content-type'])[1];
  // k6 writes the parts in its map's order, any from run to run; these are its bytes of each.
  const part = (head, value) => `--${boundary}\r\n${head}\r\n\r\n${value}\r\n`;
  assert.equal(
    req.body,
    part('Content-Disposition: form-data; name="fi\\"eld"', 'v') +
      part('Content-Disposition: form-data; name="f"; filename="q\\"t.txt"\r\nContent-Type: text/plain', 'DATA') +
      part('Content-Disposition: form-data; name="arr"', '[1 2]') +
      part('Content-Disposition: form-data; name="n"', '<nil>') +
      `--${boundary}--\r\n`,
  );
});

test("the Cookie header: the request's cookies first, then the jar's but those replaced; values with a space or comma quoted, bytes a cookie may not hold dropped with Go's log line", async () => {
  const r = await run(`import http from 'k6/http';
export default function () {
  const jar = http.cookieJar();
  jar.set(__ENV.BASE + '/', 'a', 'hello world');
  jar.set(__ENV.BASE + '/', 'z', 'ba"d;x\\\\y');
  jar.set(__ENV.BASE + '/', 'r', 'jar');
  const res = http.get(__ENV.BASE + '/', { cookies: { b: 'x y', r: { value: 'own', replace: true } } });
  console.log(JSON.stringify(res.request.cookies));
  console.log(JSON.stringify(jar.cookiesForURL(__ENV.BASE + '/')));
}`);
  assert.equal(r.seen[0].headers.cookie, 'b="x y"; r=own; a="hello world"; z=badxy');
  assert.match(r.stderr, /level=info msg="\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d net\/http: invalid byte '\\"' in Cookie\.Value; dropping invalid bytes"\n/);
  const entry = (name, value) => [{ name, value, replace: false }];
  assert.deepEqual(JSON.parse(r.lines[0]), { b: entry('b', 'x y'), r: entry('r', 'own'), a: entry('a', 'hello world'), z: entry('z', 'badxy') });
  assert.deepEqual(JSON.parse(r.lines[1]), { a: ['hello world'], z: ['ba"d;x\\y'], r: ['jar'] });
});

test('Set-Cookie as Go reads it: a value out of its quotes, a cookie with a byte it may not hold dropped, in res.cookies and in the jar', async () => {
  const r = await run(`import http from 'k6/http';
export default function () {
  const res = http.get(__ENV.BASE + '/set');
  console.log(JSON.stringify(Object.fromEntries(Object.entries(res.cookies).map(([k, v]) => [k, v.map((c) => c.value)]))));
  console.log(JSON.stringify(http.cookieJar().cookiesForURL(__ENV.BASE + '/')));
  http.get(__ENV.BASE + '/echo');
}`);
  assert.deepEqual(JSON.parse(r.lines[0]), { q: ['quoted val'], p: ['plain'], ok: ['1'] });
  assert.deepEqual(JSON.parse(r.lines[1]), { q: ['quoted val'], p: ['plain'], ok: ['1'] });
  assert.equal(r.seen[1].headers.cookie, 'q="quoted val"; p=plain; ok=1');
});

test("redirects as Go's client: 301 to 303 go on as a GET without the body, 307 and 308 as they were; the call's headers again with a Referer; res.request the first request", async () => {
  const r = await run(`import http from 'k6/http';
export default function () {
  for (const s of [301, 302, 303, 307, 308]) {
    for (const m of ['POST', 'PUT', 'GET']) {
      const r = http.request(m, __ENV.BASE + '/r' + s, m === 'GET' ? null : { f: 'v' }, { headers: { 'X-Custom': 'c' } });
      console.log(s, m, r.status, r.url.replace(__ENV.BASE, ''), r.request.method, r.request.url.replace(__ENV.BASE, ''), JSON.stringify(r.request.body));
    }
  }
}`);
  const hops = r.seen.map((q) => [q.method, q.path, q.headers['content-type'] || '', q.headers.referer || '', q.body, q.headers['x-custom']]);
  const form = 'application/x-www-form-urlencoded';
  const expected = [];
  for (const s of [301, 302, 303, 307, 308]) {
    for (const m of ['POST', 'PUT', 'GET']) {
      const type = m === 'GET' ? '' : form;
      const body = m === 'GET' ? '' : 'f=v';
      expected.push([m, `/r${s}`, type, '', body, 'c']);
      const kept = s >= 307;
      expected.push([kept ? m : 'GET', '/to', type, `http://127.0.0.1:${r.seen[0].headers.host.split(':')[1]}/r${s}`, kept ? body : '', 'c']);
      assert.ok(r.lines.includes(`${s} ${m} 200 /to ${m} /r${s} ${JSON.stringify(body)}`), r.lines.join('\n'));
    }
  }
  assert.deepEqual(hops, expected);
});

test("a redirect to another host drops the call's Authorization for good (back on the first host too), keeps a Referer the call gave; digest auth's first request has the URL's credentials as Basic", async () => {
  const r = await run(`import http from 'k6/http';
export default function () {
  const back = 'http://127.0.0.1:' + __ENV.PORT + '/back';
  http.get(__ENV.BASE + '/r302?to=' + encodeURIComponent('http://localhost:' + __ENV.PORT + '/r302?to=' + encodeURIComponent(back)), { headers: { Authorization: 'Bearer t', Referer: 'http://mine/' } });
  http.get('http://u:p@127.0.0.1:' + __ENV.PORT + '/d', { auth: 'digest' });
}`);
  assert.deepEqual(
    r.seen.slice(0, 3).map((q) => [q.path.replace(/\?.*/, ''), q.headers.authorization || '', q.headers.referer]),
    [
      ['/r302', 'Bearer t', 'http://mine/'],
      ['/r302', '', 'http://mine/'],
      ['/back', '', 'http://mine/'],
    ],
  );
  assert.equal(r.seen[3].headers.authorization, `Basic ${btoa('u:p')}`);
});

test("a URL is a string or http.url's, whose JSON is k6's (name, url, clean_url); anything else fails as k6's invalid URL, shown as Go prints it", async () => {
  const r = await run(`import http from 'k6/http';
export default function () {
  for (const u of [{ href: __ENV.BASE + '/get' }, 123, null]) { const res = http.get(u); console.log(res.status, res.error, res.error_code); }
  console.log(JSON.stringify(http.url\`http://u:p@127.0.0.1:1/x\`), JSON.stringify(http.url\`http://127.0.0.1:1/items/\${5}\`), String(http.url\`http://127.0.0.1:1/\`));
  http.get(http.url\`\${__ENV.BASE}/items/\${7}\`);
}`);
  // k6 v1.3.0's lines.
  assert.deepEqual(r.lines.slice(0, 3), [
    `0 invalid URL: '#map[href:${r.base}/get]' 1020`,
    "0 invalid URL: '#123' 1020",
    "0 invalid URL: '#<nil>' 1020",
  ]);
  assert.equal(
    r.lines[3],
    '{"name":"http://****:****@127.0.0.1:1/x","url":"http://u:p@127.0.0.1:1/x","clean_url":"http://****:****@127.0.0.1:1/x"} {"name":"http://127.0.0.1:1/items/${}","url":"http://127.0.0.1:1/items/5","clean_url":"http://127.0.0.1:1/items/5"} [object Object]',
  );
  assert.deepEqual(r.seen.map((q) => q.path), ['/items/7']);
});

test("init code: http.cookieJar() refused with k6's GoError (exit 107); open() takes a file: URL, as import.meta.resolve() gives one", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-init-'));
  try {
    writeFileSync(join(dir, 'x.csv'), 'a,b\n1,2\n');
    const jar = join(dir, 'jar.js');
    writeFileSync(jar, `import http from 'k6/http';\nconst jar = http.cookieJar();\nexport default function () {}\n`);
    const r = await spawnScript(CLI, ['run', '-q', '--iterations', '1', jar], { timeoutMs: 60000 });
    assert.equal(r.code, 107);
    assert.match(r.stderr, /Making cookie jars in the init context is not supported at jar\.js:2:/);
    const opened = join(dir, 'open.js');
    writeFileSync(opened, `const text = open(import.meta.resolve('./x.csv'));\nexport default function () { console.log('len ' + text.length); }\n`);
    const o = await spawnScript(CLI, ['run', '-q', '--iterations', '1', opened], { timeoutMs: 60000 });
    assert.equal(o.code, 0, o.stderr);
    assert.match(o.stderr, /msg="len 8" source=console/); // k6 v1.3.0's
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
