// Unit tests for the incremental HTTP/1.1 response parser (src/http1/parser.js).
// Runs unchanged under `node --test`, `bun test` and `deno test`: only node:test's top-level
// test() and node:assert/strict. Every response is fed in one chunk, byte by byte and in 50
// seeded random splits, and all the ways must agree.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { ResponseParser, MAX_HEAD_BYTES } from '../src/http1/parser.js';
import { decodeChunks, parseHeaders, settleSpan } from '../src/http1/captured.js';
import { mulberry32 } from './random.js';

const enc = new TextEncoder();

function concat(...parts) {
  const arrays = parts.map((p) => (typeof p === 'string' ? enc.encode(p) : p));
  const out = new Uint8Array(arrays.reduce((n, a) => n + a.length, 0));
  let at = 0;
  for (const a of arrays) {
    out.set(a, at);
    at += a.length;
  }
  return out;
}


// Up to 12 pieces with distinct random cut points.
function randomPieces(len, rng) {
  const count = 1 + Math.floor(rng() * Math.min(len, 12));
  const cuts = new Set();
  while (cuts.size < count - 1) cuts.add(1 + Math.floor(rng() * (len - 1)));
  const points = [0, ...[...cuts].sort((a, b) => a - b), len];
  return points.slice(1).map((end, k) => [points[k], end]);
}

/**
 * Feeds `input` to a fresh parser piece by piece ([start, end) pairs), then closes the connection.
 * expects: one isHead flag per request; the next expect() is made from inside onResponse.
 */
function parse(input, pieces, { expects = [false], capture = true, borrow = false } = {}) {
  const u8 = concat(input);
  // borrow: each piece comes in one buffer that the "adapter" reuses, overwritten after each
  // execute(), as node's onread does; views the parser kept past it would read the garbage.
  const scratch = new Uint8Array(u8.length);
  const responses = [];
  const errors = [];
  let made = 1;
  const parser = new ResponseParser(
    (p) => {
      // A borrowing reader takes the span (the whole response, when it came in one read) as
      // views first.
      if (borrow) settleSpan(p, false);
      responses.push({
        status: p.statusCode,
        shouldClose: p.shouldClose,
        head: capture ? decodeChunks(p.headChunks) : p.headChunks,
        body: capture ? decodeChunks(p.bodyChunks) : p.bodyChunks,
        encoded: p.encoded,
        cookied: p.cookied,
      });
      if (made < expects.length) p.expect(expects[made++]);
    },
    (reason) => errors.push(reason),
    capture,
  );
  parser.borrow = borrow;
  parser.expect(expects[0]);
  let stopped = u8.length; // where execute() stopped consuming
  for (const [start, end] of pieces) {
    let at;
    if (borrow) {
      scratch.set(u8.subarray(start, end), start);
      at = parser.execute(scratch, start, end);
      scratch.fill(0xff);
    } else {
      at = parser.execute(u8, start, end);
    }
    assert.ok(at >= start && at <= end, 'execute() returns an index inside its range');
    if (errors.length > 0) break; // the caller drops the connection after onError
    if (at < end) {
      stopped = at;
      break;
    }
  }
  const beforeClose = responses.length;
  const finished = parser.finish();
  return {
    responses,
    errors,
    stopped,
    finished,
    atClose: responses.length - beforeClose, // responses that only completed at finish()
    seen: errors.length > 0 ? -1 : parser.bytesSeen,
  };
}

/** Parses in one chunk, byte by byte and in 50 random splits; all must agree. */
function feedAllWays(input, opts) {
  const u8 = concat(input);
  const whole = parse(u8, [[0, u8.length]], opts);
  assert.ok(whole.errors.length <= 1, 'onError is called at most once');
  const bytewise = Array.from({ length: u8.length }, (_, i) => [i, i + 1]);
  assert.deepEqual(parse(u8, bytewise, opts), whole, 'byte by byte differs from one chunk');
  const rng = mulberry32(0x5eed + u8.length);
  for (let t = 0; t < 50; t++) {
    const pieces = randomPieces(u8.length, rng);
    assert.deepEqual(parse(u8, pieces, opts), whole, `split ${JSON.stringify(pieces)} differs`);
  }
  return whole;
}

const OK = (headers, body = '') => `HTTP/1.1 200 OK\r\n${headers}\r\n${body}`;

/** Asserts a single complete keep-alive-or-not response with the given body. */
function assertOne(r, { status = 200, body, shouldClose = false }) {
  assert.deepEqual(r.errors, []);
  assert.equal(r.responses.length, 1);
  assert.equal(r.responses[0].status, status);
  assert.equal(r.responses[0].body, body);
  assert.equal(r.responses[0].shouldClose, shouldClose);
  assert.equal(r.finished, true);
}

// ---- bodies and framing ----

test('Content-Length body is read exactly and the connection is kept alive', () => {
  const input = OK('Content-Length: 5\r\n', 'hello');
  const r = feedAllWays(input);
  assertOne(r, { body: 'hello' });
  assert.equal(r.responses[0].head, 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n');
  assert.equal(r.stopped, input.length);
  assert.equal(r.atClose, 0);
  assert.equal(r.seen, input.length);
});

// What the parser noted (`field` of each response) of a response with `headers`, fed every way.
const notedOf = (field) => (headers) => feedAllWays(OK(`${headers}Content-Length: 2\r\n`, 'xy')).responses.map((x) => x[field]);

test('a Content-Encoding header is noted (any case, split anywhere), a name of its length that is not it is not', () => {
  const said = notedOf('encoded');
  assert.deepEqual(said('Content-Encoding: gzip\r\n'), [true]);
  assert.deepEqual(said('content-ENCODING:br\r\n'), [true]);
  assert.deepEqual(said('Content-Language: en\r\nX-Frame-Options: DENY\r\nTransfer-Encodin: x\r\n'), [false]);
  assert.deepEqual(said(''), [false]);
  // Noted per response: an interim 100 before it says nothing of the final one, nor the other way.
  const r = feedAllWays('HTTP/1.1 100 Continue\r\nContent-Encoding: gzip\r\n\r\n' + OK('Content-Length: 0\r\n'));
  assert.deepEqual(r.responses.map((x) => x.encoded), [false]);
});

test('a Set-Cookie header is noted (any case, split anywhere), Connection and other names of its length are not', () => {
  const said = notedOf('cookied');
  assert.deepEqual(said('Set-Cookie: a=1\r\n'), [true]);
  assert.deepEqual(said('Connection: keep-alive\r\nset-COOKIE:b=2; Path=/\r\n'), [true]);
  assert.deepEqual(said('Connection: keep-alive\r\nSet-Cookies: x\r\nSet-Cooki: y\r\nX-Set-Cookie: z\r\nSet-Cookie2: w\r\n'), [false]);
  assert.deepEqual(said(''), [false]);
  // Connection, the other 10-byte name, still acts.
  const r = feedAllWays(OK('Connection: close\r\nSet-Cookie: a=1\r\nContent-Length: 0\r\n'));
  assert.deepEqual(r.responses.map((x) => [x.cookied, x.shouldClose]), [[true, true]]);
});

test('Content-Length 0 completes at the end of the head with an empty body', () => {
  const r = feedAllWays(OK('Content-Length: 0\r\n'));
  assertOne(r, { body: '' });
  assert.equal(r.atClose, 0);
});

test('chunked body with extensions, uppercase hex sizes and trailers is de-chunked', () => {
  const input = OK(
    'Transfer-Encoding: chunked\r\n',
    '5;foo=bar\r\nhello\r\nA\r\n0123456789\r\n1A; name="x y"\r\nabcdefghijklmnopqrstuvwxyz\r\n' +
      '0\r\nX-Trailer: 1\r\nX-Other: two\r\n\r\n',
  );
  const r = feedAllWays(input);
  assertOne(r, { body: 'hello0123456789abcdefghijklmnopqrstuvwxyz' });
  assert.equal(r.stopped, input.length);
  assert.equal(r.seen, input.length);
});

test('"gzip, chunked" is chunked: chunked is the final coding', () => {
  const r = feedAllWays(OK('Transfer-Encoding: gzip, chunked\r\n', '3\r\nabc\r\n0\r\n\r\n'));
  assertOne(r, { body: 'abc' });
  assert.equal(r.atClose, 0);
});

test('"chunked, gzip" is not chunked: the body runs until the connection closes', () => {
  const r = feedAllWays(OK('Transfer-Encoding: chunked, gzip\r\n', '3\r\nabc\r\n0\r\n\r\n'));
  assertOne(r, { body: '3\r\nabc\r\n0\r\n\r\n', shouldClose: true });
  assert.equal(r.atClose, 1);
});

test('Transfer-Encoding tokens tolerate surrounding whitespace but not inner whitespace', () => {
  const spaced = feedAllWays(OK('Transfer-Encoding:  chunked \t\r\n', '1\r\nx\r\n0\r\n\r\n'));
  assertOne(spaced, { body: 'x' });
  const inner = feedAllWays(OK('Transfer-Encoding: chun ked\r\n', '1\r\nx\r\n0\r\n\r\n'));
  assertOne(inner, { body: '1\r\nx\r\n0\r\n\r\n', shouldClose: true });
  assert.equal(inner.atClose, 1);
});

test('Transfer-Encoding wins over Content-Length and the connection must close', () => {
  const r = feedAllWays(OK('Content-Length: 100\r\nTransfer-Encoding: chunked\r\n', '2\r\nhi\r\n0\r\n\r\n'));
  assertOne(r, { body: 'hi', shouldClose: true });
  assert.equal(r.atClose, 0);
});

test('without a length the body is close-delimited: completes only at finish(), shouldClose', () => {
  const r = feedAllWays(OK('Server: x\r\n', 'all of this\r\nuntil the end'));
  assertOne(r, { body: 'all of this\r\nuntil the end', shouldClose: true });
  assert.equal(r.atClose, 1);
});

// ---- connection persistence ----

test('HTTP/1.0 without keep-alive must close', () => {
  const r = feedAllWays('HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nhi');
  assertOne(r, { body: 'hi', shouldClose: true });
});

test('HTTP/1.0 with Connection: keep-alive and a Content-Length stays open', () => {
  const r = feedAllWays('HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nhi');
  assertOne(r, { body: 'hi', shouldClose: false });
});

test('HTTP/1.0 with keep-alive but no length is close-delimited', () => {
  const r = feedAllWays('HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n\r\nhi');
  assertOne(r, { body: 'hi', shouldClose: true });
  assert.equal(r.atClose, 1);
});

test('Connection: close on HTTP/1.1 must close, in any case and among other tokens', () => {
  for (const value of ['close', 'Keep-Alive, Close', 'CLOSE', 'upgrade,close', 'close \t']) {
    const r = feedAllWays(OK(`Connection: ${value}\r\nContent-Length: 1\r\n`, 'x'));
    assertOne(r, { body: 'x', shouldClose: true });
  }
  for (const value of ['keep-alive', 'closed', 'x-close', 'clo se']) {
    const r = feedAllWays(OK(`Connection: ${value}\r\nContent-Length: 1\r\n`, 'x'));
    assertOne(r, { body: 'x', shouldClose: false });
  }
});

// ---- status codes without bodies, interim responses ----

test('100 Continue and 103 Early Hints are skipped: the 200 is reported once with its own head', () => {
  const final = 'HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\n';
  const input =
    'HTTP/1.1 100 Continue\r\n\r\n' + 'HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n' + final + 'done';
  const r = feedAllWays(input);
  assertOne(r, { body: 'done' });
  assert.equal(r.responses[0].head, final);
  assert.deepEqual(parseHeaders(r.responses[0].head), { 'content-length': '4' });
  assert.equal(r.seen, input.length);
});

test('101 Switching Protocols is final, must close, and the bytes after it are not parsed', () => {
  const head = 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n';
  const r = feedAllWays(head + '\x81\x05hello', { expects: [false, false] });
  assertOne(r, { status: 101, body: '', shouldClose: true });
  assert.equal(r.stopped, head.length);
});

test('204 and 304 with a Content-Length have no body; the next pipelined response follows', () => {
  for (const status of ['204 No Content', '304 Not Modified']) {
    const input = `HTTP/1.1 ${status}\r\nContent-Length: 10\r\n\r\n` + OK('Content-Length: 2\r\n', 'ok');
    const r = feedAllWays(input, { expects: [false, false] });
    assert.deepEqual(r.errors, []);
    assert.deepEqual(
      r.responses.map((x) => [x.status, x.body]),
      [[Number(status.slice(0, 3)), ''], [200, 'ok']],
    );
    assert.equal(r.stopped, input.length);
  }
});

test('a reply to HEAD has no body whatever its Content-Length', () => {
  const head = OK('Content-Length: 1000\r\n');
  const r = feedAllWays(head, { expects: [true] });
  assertOne(r, { body: '' });
  assert.equal(r.atClose, 0);
  const next = feedAllWays(head + OK('Content-Length: 3\r\n', 'GET'), { expects: [true, false] });
  assert.deepEqual(next.responses.map((x) => x.body), ['', 'GET']);
});

// ---- pipelining and splitting ----

test('several pipelined responses in one chunk are all reported in order', () => {
  const input =
    OK('Content-Length: 3\r\n', 'one') +
    OK('Transfer-Encoding: chunked\r\n', '3\r\ntwo\r\n0\r\n\r\n') +
    'HTTP/1.1 204 No Content\r\n\r\n' +
    'HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n' +
    'HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 4\r\n\r\nlast';
  const r = feedAllWays(input, { expects: [false, false, false, false, false] });
  assert.deepEqual(r.errors, []);
  assert.deepEqual(
    r.responses.map((x) => [x.status, x.body, x.shouldClose]),
    [
      [200, 'one', false],
      [200, 'two', false],
      [204, '', false],
      [404, '', false],
      [200, 'last', true],
    ],
  );
  assert.equal(r.stopped, input.length);
  assert.equal(r.atClose, 0);
});

test('headers split in two at every position give the same result', () => {
  const input = concat(
    'HTTP/1.1 200 OK\r\nDate: today\r\nConnection: keep-alive, close\r\nX-Folded: a\r\n b\r\n',
    'Transfer-Encoding: chunked\r\nContent-Type: text/plain\r\n\r\n4;ext\r\nbody\r\n0\r\nT: 1\r\n\r\n',
  );
  const whole = parse(input, [[0, input.length]]);
  assertOne(whole, { body: 'body', shouldClose: true });
  for (let i = 1; i < input.length; i++) {
    assert.deepEqual(parse(input, [[0, i], [i, input.length]]), whole, `split at ${i}`);
  }
});

test('obs-fold continuation lines extend the previous header value', () => {
  const ignored = feedAllWays(OK('X-Long: a\r\n b\r\n\tc\r\nContent-Length: 2\r\n', 'ok'));
  assertOne(ignored, { body: 'ok' });
  assert.equal(ignored.responses[0].head, OK('X-Long: a\r\n b\r\n\tc\r\nContent-Length: 2\r\n'));
  const length = feedAllWays(OK('Content-Length:\r\n 2\r\n', 'ok'));
  assertOne(length, { body: 'ok' });
  const conn = feedAllWays(OK('Connection: keep-alive,\r\n close\r\nContent-Length: 2\r\n', 'ok'));
  assertOne(conn, { body: 'ok', shouldClose: true });
  const te = feedAllWays(OK('Transfer-Encoding: gzip,\r\n\tchunked\r\n', '2\r\nok\r\n0\r\n\r\n'));
  assertOne(te, { body: 'ok' });
});

test('bare LF line endings are accepted in the head and in chunked framing', () => {
  const r = feedAllWays('HTTP/1.1 200 OK\nContent-Length: 3\n\nabc');
  assertOne(r, { body: 'abc' });
  const c = feedAllWays('HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n3\nabc\n2;x\nde\n0\nT: 1\n\n');
  assertOne(c, { body: 'abcde' });
});

test('a status line with an empty reason phrase, with or without the space, is accepted', () => {
  for (const line of ['HTTP/1.1 200 \r\n', 'HTTP/1.1 200\r\n', 'HTTP/1.1 200\n', 'HTTP/1.1 201 \n']) {
    const r = feedAllWays(line + 'Content-Length: 1\r\n\r\nx');
    assertOne(r, { status: Number(line.slice(9, 12)), body: 'x' });
  }
});

// ---- errors ----

function assertError(input, pattern, opts) {
  const r = feedAllWays(input, opts);
  assert.equal(r.errors.length, 1, `one error for ${JSON.stringify(String(input).slice(0, 60))}`);
  assert.match(r.errors[0], pattern);
  assert.deepEqual(r.responses, []);
}

test('a head of exactly 64 KiB is accepted; one byte more is an error mentioning 64 KiB', () => {
  const prefix = 'HTTP/1.1 200 OK\r\nContent-Length: 0\r\nX-Big: ';
  const fill = MAX_HEAD_BYTES - prefix.length - 4;
  assert.equal(MAX_HEAD_BYTES, 64 * 1024);
  assertOne(feedAllWays(prefix + 'a'.repeat(fill) + '\r\n\r\n'), { body: '' });
  assertError(prefix + 'a'.repeat(fill + 1) + '\r\n\r\n', /64 KiB/);
  assertError(OK('Transfer-Encoding: chunked\r\n', `0\r\nX: ${'a'.repeat(MAX_HEAD_BYTES)}\r\n\r\n`), /64 KiB/);
});

test('malformed status lines are errors', () => {
  for (const line of ['HTTX/1.1 200 OK', 'HTTP/1.1 2x0 OK', 'garbage', 'HTTP/2 200 OK', 'HTTP/1.1 099 Low', 'HTTP/1.1 200X']) {
    assertError(`${line}\r\nContent-Length: 0\r\n\r\n`, /status line/);
  }
});

test('status lines read whole (the fast path) or byte by byte agree: version, code, empty or missing reason', () => {
  for (const [line, status, shouldClose] of [
    ['HTTP/1.0 404 Not Found', 404, true],
    ['HTTP/1.1 599 ', 599, false],
    ['HTTP/1.1 100', 100, false],
    ['HTTP/1.1 204', 204, false],
    ['HTTP/1.9 200 OK', 200, false],
  ]) {
    const input = status === 100 ? `${line}\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n` : `${line}\r\nContent-Length: 0\r\n\r\n`;
    assertOne(feedAllWays(input), { status: status === 100 ? 200 : status, body: '', shouldClose });
  }
  for (const line of ['HTTP/1.1 20 OK ', 'HTTP/1.1  200 OK', 'HTTP/1.x 200 OK', 'HTTP/1.1 200\tOK']) {
    assertError(`${line}\r\nContent-Length: 0\r\n\r\n`, /status line/);
  }
});

test('a header line without a colon or a bad blank line is an error', () => {
  assertError('HTTP/1.1 200 OK\r\nNoColon\r\n\r\n', /header/);
  assertError('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\rX', /header/);
});

test('invalid Content-Length values are errors', () => {
  for (const headers of [
    'Content-Length: abc\r\n',
    'Content-Length: 1 2\r\n',
    'Content-Length: -1\r\n',
    'Content-Length: \r\n',
    'Content-Length: 5, 6\r\n',
    'Content-Length: 5\r\nContent-Length: 6\r\n',
    'Content-Length: 99999999999999999999\r\n',
  ]) {
    assertError(OK(headers, 'hello'), /content-length/);
  }
});

test('a list of identical Content-Length values is accepted', () => {
  assertOne(feedAllWays(OK('Content-Length: 5, 5\r\n', 'hello')), { body: 'hello' });
  assertOne(feedAllWays(OK('Content-Length: 5\r\ncontent-length:  5 \r\n', 'hello')), { body: 'hello' });
});

test('invalid chunk sizes and missing CRLF after chunk data are errors', () => {
  const chunked = (body) => OK('Transfer-Encoding: chunked\r\n', body);
  assertError(chunked('zz\r\nhello\r\n0\r\n\r\n'), /chunk size/);
  assertError(chunked('\r\n'), /chunk size/);
  assertError(chunked('-5\r\nhello\r\n0\r\n\r\n'), /chunk size/);
  assertError(chunked('5x\r\nhello\r\n0\r\n\r\n'), /chunk size/);
  assertError(chunked('FFFFFFFFFFFFFF\r\n'), /chunk size too large/);
  assertError(chunked('5\r\nhelloXX\r\n0\r\n\r\n'), /CRLF/);
  assertError(chunked('0\r\n\rX'), /trailers/);
});

// ---- connection close, execute() return value, capture ----

test('finish() returns false when the response was cut mid-head or mid-body', () => {
  for (const input of [
    OK('Content-Length: 10\r\n', 'hello'),
    'HTTP/1.1 200 OK\r\nContent-Le',
    OK('Transfer-Encoding: chunked\r\n', '5\r\nhel'),
    OK('Transfer-Encoding: chunked\r\n', '5\r\nhello\r\n0\r\nTrailer: x\r\n'),
  ]) {
    const r = feedAllWays(input);
    assert.deepEqual(r.responses, []);
    assert.deepEqual(r.errors, []);
    assert.equal(r.finished, false);
    assert.equal(r.seen, input.length);
  }
});

test('finish() before any byte returns false with bytesSeen 0', () => {
  const r = parse('', []);
  assert.equal(r.finished, false);
  assert.equal(r.seen, 0);
});

test('execute() stops after a response when no new expect() was made, and resumes after one', () => {
  const first = OK('Content-Length: 2\r\n', 'ok');
  const u8 = concat(first, OK('Content-Length: 3\r\n', 'two'));
  const seen = [];
  const parser = new ResponseParser((p) => seen.push(p.statusCode), assert.fail);
  parser.expect(false);
  assert.equal(parser.execute(u8, 0, u8.length), first.length);
  assert.equal(parser.busy, false);
  assert.equal(parser.execute(u8, first.length, u8.length), first.length, 'idle: consumes nothing');
  parser.expect(false);
  assert.equal(parser.execute(u8, first.length, u8.length), u8.length);
  assert.deepEqual(seen, [200, 200]);
  assert.equal(parser.bytesSeen, u8.length - first.length);
  assert.equal(feedAllWays(u8).stopped, first.length);
});

test('with capture off nothing is copied: headChunks and bodyChunks stay null', () => {
  const input =
    OK('Content-Length: 3\r\n', 'one') + OK('Transfer-Encoding: chunked\r\n', '3\r\ntwo\r\n0\r\n\r\n') + OK('', 'three');
  const expects = [false, false, false];
  const off = feedAllWays(input, { expects, capture: false });
  assert.deepEqual(off.errors, []);
  for (const r of off.responses) {
    assert.equal(r.head, null);
    assert.equal(r.body, null);
  }
  const on = feedAllWays(input, { expects, capture: true });
  const strip = (rs) => rs.map((r) => [r.status, r.shouldClose]);
  assert.deepEqual(strip(off.responses), strip(on.responses));
  assert.deepEqual(on.responses.map((r) => r.body), ['one', 'two', 'three']);
});

test('with capture on the body is the de-chunked payload, multi-byte UTF-8 split across chunks', () => {
  const text = 'héllo wörld — €5 😀!';
  const body = enc.encode(text);
  const mid = (ch) => enc.encode(text.slice(0, text.indexOf(ch))).length + 1; // inside ch
  const cuts = [0, mid('é'), mid('—') + 1, mid('€'), mid('😀'), mid('😀') + 2, body.length];
  const parts = [OK('Transfer-Encoding: chunked\r\n')];
  for (let k = 1; k < cuts.length; k++) {
    parts.push(`${(cuts[k] - cuts[k - 1]).toString(16).toUpperCase()}\r\n`, body.subarray(cuts[k - 1], cuts[k]), '\r\n');
  }
  parts.push('0\r\n\r\n');
  const r = feedAllWays(concat(...parts));
  assertOne(r, { body: text });
  assert.equal(r.responses[0].head, OK('Transfer-Encoding: chunked\r\n'));
  const plain = feedAllWays(concat(OK(`Content-Length: ${body.length}\r\n`), body));
  assertOne(plain, { body: text });
});

test('captured chunks are copies even from a node Buffer (whose slice() is a view)', () => {
  const buf = Buffer.from(OK('Content-Length: 5\r\n', 'hello'));
  let got;
  const parser = new ResponseParser((p) => (got = p), assert.fail, true);
  parser.expect(false);
  parser.execute(buf, 0, buf.length);
  buf.fill(0);
  assert.equal(decodeChunks(got.bodyChunks), 'hello');
  assert.deepEqual(parseHeaders(decodeChunks(got.headChunks)), { 'content-length': '5' });
});

test('captured chunks are copies: reusing the read buffer does not change them', () => {
  const u8 = enc.encode(OK('Content-Length: 5\r\n', 'hello'));
  let got;
  const parser = new ResponseParser((p) => (got = p), assert.fail, true);
  parser.expect(false);
  parser.execute(u8, 0, u8.length);
  u8.fill(0);
  assert.equal(decodeChunks(got.bodyChunks), 'hello');
  assert.deepEqual(parseHeaders(decodeChunks(got.headChunks)), { 'content-length': '5' });
});

test('borrowing, a response read in one go is a span of the read: head and the body after it, no view made', () => {
  const input = new TextEncoder().encode(OK('Content-Length: 11\r\nX-A: b\r\n', 'hello world'));
  const headLength = input.length - 11;
  const seen = [];
  const parser = new ResponseParser((p) => seen.push([p.spanBuf, p.spanFrom, p.spanHead, p.spanTo, p.headChunks.length, p.bodyChunks.length]), () => {}, true);
  parser.borrow = true;
  parser.expect(false);
  parser.execute(input, 0, input.length);
  assert.deepEqual(seen, [[input, 0, headLength, input.length, 0, 0]]);
  // A chunked body is no span past its head: its framing sits between.
  const chunked = new TextEncoder().encode(OK('Transfer-Encoding: chunked\r\n', '5\r\nhello\r\n0\r\n\r\n'));
  const parts = [];
  const p2 = new ResponseParser((p) => parts.push([p.spanBuf, decodeChunks(p.headChunks), decodeChunks(p.bodyChunks)]), () => {}, true);
  p2.borrow = true;
  p2.expect(false);
  p2.execute(chunked, 0, chunked.length);
  assert.deepEqual(parts, [[null, 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n', 'hello']]);
});

test('borrowing (views of the read buffer, copied only for an unfinished response) reads what copying reads, however the bytes are split', () => {
  const inputs = [
    OK('Content-Length: 11\r\nX-A: b\r\n', 'hello world'),
    OK('Transfer-Encoding: chunked\r\n', '5\r\nhello\r\n6\r\n world\r\n0\r\nX-T: 1\r\n\r\n'),
    OK('Connection: close\r\n', 'to the end'),
    `HTTP/1.1 100 Continue\r\n\r\n${OK('Content-Length: 2\r\n', 'ok')}`,
  ];
  for (const input of inputs) {
    const copied = feedAllWays(input);
    const borrowed = feedAllWays(input, { borrow: true });
    assert.deepEqual(borrowed, copied, input);
  }
  // Pipelined: each response read as it completes.
  const two = OK('Content-Length: 3\r\n', 'one') + OK('Content-Length: 3\r\n', 'two');
  assert.deepEqual(feedAllWays(two, { expects: [false, false], borrow: true }), feedAllWays(two, { expects: [false, false] }));
});
