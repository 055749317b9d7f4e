// A response's head and text body read in one go (the parser's span), decoded in one call and cut
// where the head ends (src/script/net/span-text.js): now, or, in a read the runtime never writes
// again (Bun's), when the script first reads the Response's head or body. Whatever the bytes,
// each must be what the head and the body decoded apart give (the body every byte, a byte-order
// mark kept, as Go keeps it); and a Response whose text waits must show the same fields as one
// given its text.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SpanText, copiedSpan, spanInto } from '../src/script/net/span-text.js';
import { Response } from '../src/script/k6/http/http-response.js';
import { mulberry32 } from './random.js';
import { NO_PEER } from '../src/script/net/peer.js';

const encoder = new TextEncoder();
const apart = { head: new TextDecoder(), body: new TextDecoder('utf-8', { ignoreBOM: true }) };


// Bytes that reach every branch of a decoder: ASCII, whole UTF-8 sequences, a BOM, a lone
// continuation byte, a cut sequence, bytes never valid in UTF-8.
const PIECES = [[0x61], [0x0d, 0x0a], [0xc3, 0xa9], [0xe2, 0x82, 0xac], [0xf0, 0x9d, 0x84, 0x9e], [0xef, 0xbb, 0xbf], [0x80], [0xe2, 0x82], [0xff], [0xc0, 0xaf], [0x00]];

function bytesOf(rnd, n, asciiOnly) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const p = asciiOnly ? [0x20 + Math.floor(rnd() * 95)] : PIECES[Math.floor(rnd() * PIECES.length)];
    out.push(...p);
  }
  return out;
}

test('a span decoded in one call gives the head and body decoded apart, 5000 random reads; a head not ASCII is told', () => {
  const rnd = mulberry32(43); // the same cases on every runtime and every run
  for (let k = 0; k < 5000; k++) {
    const asciiHead = rnd() < 0.7;
    const head = [...encoder.encode('HTTP/1.1 200 OK\r\nX-A: '), ...bytesOf(rnd, Math.floor(rnd() * 6), asciiHead), 0x0d, 0x0a, 0x0d, 0x0a];
    const body = bytesOf(rnd, Math.floor(rnd() * 12), rnd() < 0.3);
    const before = bytesOf(rnd, Math.floor(rnd() * 3), false);
    const after = rnd() < 0.5 ? bytesOf(rnd, Math.floor(rnd() * 3), false) : [];
    const buf = new Uint8Array([...before, ...head, ...body, ...after]);
    const from = before.length;
    const headAt = from + head.length;
    const to = headAt + body.length;
    const want = { head: apart.head.decode(buf.subarray(from, headAt)), body: apart.body.decode(buf.subarray(headAt, to)) };
    const now = { head: null, body: null };
    const whole = spanInto(now, buf, from, headAt, to);
    const headIsAscii = head.every((b) => b < 128);
    if (whole) assert.deepEqual(now, want, `case ${k}`);
    else assert.ok(!headIsAscii, `case ${k}: an ASCII head is always cut in the text`);
    assert.ok(whole || now.head === null, `case ${k}: nothing set when false`);
    const later = new SpanText(buf, from, headAt, to).decode();
    assert.deepEqual({ head: later.head, body: later.body }, want, `case ${k}`);
  }
});

test('a copied span (a read the adapter writes again) decodes as the read did, after the read is overwritten: 3000 spans over several slabs, large ones apart', () => {
  const rnd = mulberry32(44);
  const kept = [];
  const buf = new Uint8Array(65536); // the adapter's read buffer, written again for each read
  for (let k = 0; k < 3000; k++) {
    const head = [...encoder.encode('HTTP/1.1 200 OK\r\nX-A: '), ...bytesOf(rnd, Math.floor(rnd() * 8), true), 0x0d, 0x0a, 0x0d, 0x0a];
    // Now and then a body of 4 KiB or more: a quarter of the slab, copied apart.
    const body = bytesOf(rnd, rnd() < 0.02 ? 4096 + Math.floor(rnd() * 8000) : Math.floor(rnd() * 300), rnd() < 0.5);
    const from = Math.floor(rnd() * 4);
    buf.set(head, from);
    buf.set(body, from + head.length);
    const headAt = from + head.length;
    const to = headAt + body.length;
    const whole = rnd() < 0.3; // the span is the whole read
    const read = whole ? buf.subarray(0, to) : buf;
    const want = { head: apart.head.decode(buf.subarray(from, headAt)), body: apart.body.decode(buf.subarray(headAt, to)) };
    kept.push([copiedSpan(read, from, headAt, to), want]);
    buf.fill(0x5a); // the next read
  }
  for (const [span, want] of kept) {
    const t = span.decode();
    assert.deepEqual({ head: t.head, body: t.body }, want);
  }
});

test("a Response whose text waits shows what one given its text shows: status_text, headers, body, json(), a body the script sets, JSON.stringify", () => {
  const headText = 'HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nx-thing: é\r\n\r\n';
  const bodyText = '{"a":[1,2],"b":"ü"}';
  const bytes = new Uint8Array([0x20, ...encoder.encode(headText), ...encoder.encode(bodyText), 0x20]);
  const from = 1;
  const headAt = from + encoder.encode(headText).length;
  const to = bytes.length - 1;
  const make = (head, body) => new Response(null, 404, 'HTTP/1.1', head, body, 'http://127.0.0.1/x', {}, '', null, [], NO_PEER);
  const given = make(headText, bodyText);
  const fields = (res) => ({ status: res.status, status_text: res.status_text, headers: res.headers, body: res.body, json: res.body.length > 1 ? res.json('a.1') : null, text: JSON.stringify(res) });
  const want = fields(given);
  assert.equal(want.status_text, '404 Not Found');
  assert.equal(want.headers['X-Thing'], 'é');
  assert.equal(want.json, 2);
  // Each field read first, as a script may: the text is decoded by whichever comes first.
  for (const first of ['status_text', 'headers', 'body', 'text']) {
    const res = make(null, new SpanText(bytes, from, headAt, to));
    if (first === 'text') JSON.stringify(res);
    else void res[first];
    assert.deepEqual(fields(res), want, `${first} read first`);
  }
  const set = make(null, new SpanText(bytes, from, headAt, to));
  set.body = 'changed';
  assert.equal(set.body, 'changed');
  assert.equal(set.headers['Content-Type'], 'application/json');
});
