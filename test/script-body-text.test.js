// A scripted response's text: a response read in one go is decoded in one call and cut where its
// head ends (src/script/net/client.js, the parser's span); what a script sees must be what the head
// and the body decoded apart give, whatever the bytes: ASCII, UTF-8 past ASCII in the body or in
// a header, a byte-order mark (kept, as k6 v1.3 keeps it), bytes that are not UTF-8, a binary
// body, a body that comes in a later read or in chunks. And Set-Cookie, which the parser now
// notes rather than k6/http searching every head for it, with res.cookies as k6 v1.3 gives them
// (its expiry Go's Expires.UnixNano() / 1e6, Max-Age 0 as -1). The script's output was the same
// under k6 v1.3.0 against this server.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { scriptLogged } from './servers.js';
const utf8 = (s) => Buffer.from(s, 'utf8');

// path → [head lines, body bytes, how it is written]
const BODIES = {
  ascii: [['X-A: b'], utf8('hello world, long enough to be sliced')],
  utf8: [[], utf8('héllo wörld € 𝄞')],
  bom: [[], Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8('{"a":1}')])],
  invalid: [[], Buffer.from([0x61, 0xff, 0x62, 0xc3])],
  headUtf8: [['X-Name: café'], utf8('ok')],
  headUtf8Body: [['X-Name: café'], utf8('déjà')],
  empty: [[], Buffer.alloc(0)],
  split: [[], utf8('later, in a read of its own'), 'split'],
  chunked: [[], utf8('hé'), 'chunked'],
  cookie: [['Set-Cookie: a=1; Path=/', 'Set-Cookie: b=2; Expires=Wed, 21 Oct 2015 07:28:00 GMT; Max-Age=0', 'Set-Cookie: c=x=y; Max-Age=60; HttpOnly; Secure; Domain=example.com', 'Set-Cookies: d=4'], utf8('c')],
};

function serve() {
  const server = net.createServer((socket) => {
    let pending = '';
    socket.on('error', () => {});
    socket.on('data', (d) => {
      pending += d.toString('latin1');
      let end;
      while ((end = pending.indexOf('\r\n\r\n')) >= 0) {
        const path = pending.slice(pending.indexOf(' ') + 2, pending.indexOf(' HTTP/'));
        pending = pending.slice(end + 4);
        // /kept?I: a body and a header of its own, for responses kept while later ones are read.
        const i = path.startsWith('kept?') ? path.slice(5) : null;
        const [lines, body, how] = i !== null ? [[`X-I: ${i}`], utf8(`${i} ${'é'.repeat(Number(i) % 50)}`)] : BODIES[path.split('?')[0]];
        const head = (framing) => utf8(`HTTP/1.1 200 OK\r\n${[...lines, framing].join('\r\n')}\r\n\r\n`);
        if (how === 'chunked') {
          socket.write(Buffer.concat([head('Transfer-Encoding: chunked'), utf8('1\r\nh\r\n'), Buffer.from([0x32, 0x0d, 0x0a]), body.subarray(1), utf8('\r\n0\r\n\r\n')]));
        } else if (how === 'split') {
          socket.write(head(`Content-Length: ${body.length}`));
          setTimeout(() => socket.write(body), 50);
        } else {
          socket.write(Buffer.concat([head(`Content-Length: ${body.length}`), body]));
        }
      }
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

// What a one-iteration script's default function logs as JSON, against serve()'s server (BASE).
async function loggedAgainstServer(body) {
  const server = await serve();
  try {
    return await scriptLogged(`import http from 'k6/http';\nexport const options = { iterations: 1 };\nexport default function () {\n${body}}\n`, ['-e', `BASE=http://127.0.0.1:${server.address().port}`]);
  } finally {
    server.close();
  }
}

test('a response decoded in one go reads as its head and body decoded apart: UTF-8, a BOM, bytes not UTF-8, binary, a later read, chunks; Set-Cookie found', async () => {
  const out = await loggedAgainstServer(`  const out = {};
  for (const name of ${JSON.stringify(Object.keys(BODIES))}) {
    const res = http.get(__ENV.BASE + '/' + name);
    out[name] = { status: res.status, body: res.body, name: res.headers['X-Name'] || null, a: res.headers['X-A'] || null };
  }
  const bin = http.get(__ENV.BASE + '/invalid', { responseType: 'binary' });
  out.binary = Array.from(new Uint8Array(bin.body));
  out.cookies = http.get(__ENV.BASE + '/cookie').cookies;
  console.log(JSON.stringify(out));
`);
  const text = (bytes) => new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes); // every byte, as Go
  for (const [name, [, body]] of Object.entries(BODIES)) {
    assert.equal(out[name].status, 200, name);
    assert.equal(out[name].body, text(body), name);
  }
  assert.equal(out.bom.body, '\ufeff{"a":1}');
  assert.equal(out.invalid.body, 'a\ufffdb\ufffd');
  assert.equal(out.headUtf8.name, 'café');
  assert.equal(out.headUtf8Body.name, 'café');
  assert.equal(out.ascii.a, 'b');
  assert.deepEqual(out.binary, [0x61, 0xff, 0x62, 0xc3]);
  const cookie = (name, value, more) => ({ name, value, domain: '', path: '', http_only: false, secure: false, max_age: 0, expires: -6795364578871, ...more });
  assert.deepEqual(out.cookies, {
    a: [cookie('a', '1', { path: '/' })],
    b: [cookie('b', '2', { max_age: -1, expires: 1445412480000 })],
    c: [cookie('c', 'x=y', { domain: 'example.com', http_only: true, secure: true, max_age: 60 })],
  });
});

// On node and Deno the adapter reads into a buffer it writes again, so a response's text is a copy
// in a slab that responses share, decoded when read (src/script/net/span-text.js): responses kept
// while a thousand later ones are read, several slabs' worth, read last, are still their own.
test('responses kept while later ones are read give their own body and headers when read last', async () => {
  const out = await loggedAgainstServer(`  const kept = [];
  for (let i = 0; i < 1200; i++) kept.push(http.get(__ENV.BASE + '/kept?' + i));
  const wrong = [];
  kept.forEach((res, i) => {
    if (res.body !== i + ' ' + 'é'.repeat(i % 50) || res.headers['X-I'] !== String(i)) wrong.push(i);
  });
  console.log(JSON.stringify({ n: kept.length, wrong }));
`);
  assert.deepEqual(out, { n: 1200, wrong: [] });
});
