// Property tests of the HTTP/1.1 response parser, the WebSocket and HTTP/2 frame parsers and the
// HPACK decoder on seeded random
// input (test/fuzz-cases.js): valid exchanges of every framing parse as their model says and
// identically in any split; mutated and random bytes end in a response, an error or a wait for
// more, never an exception; endless input keeps the parser's state bounded. `npm run fuzz`
// runs the same cases for as long as asked (test/fuzz.js).

// The parsers are the core's pure logic: under node (scope.js).
import { oneRuntimeTest as test } from './scope.js';
import assert from 'node:assert/strict';
import { fuzzCase } from './fuzz-cases.js';
import { mulberry32 } from './random.js';
import { ResponseParser, MAX_HEAD_BYTES } from '../src/http1/parser.js';

// Seeds 1..n of each kind: a failure names its seed, and `node test/fuzz.js --kind K --seed S`
// replays it.
function runCases(kind, n) {
  for (let seed = 1; seed <= n; seed++) {
    try {
      fuzzCase(kind, mulberry32(seed));
    } catch (err) {
      assert.fail(`${kind} case, seed ${seed}: ${err.message}`);
    }
  }
}

test('valid responses of every framing (length, chunked, close, 1xx, 204/304/HEAD) parse as built, in any split', () => runCases('valid', 1500));
test('mutated responses end in a response, an error or a wait, never an exception, and alike in any split', () => runCases('mutated', 1500));
test('random bytes end in an error or a wait, never an exception', () => runCases('random', 3000));
test('valid WebSocket frames parse identically in any split', () => runCases('frames', 1000));
test('mutated WebSocket frames end in messages or an error, never an exception, alike in any split', () => runCases('frames-mutated', 1500));
test('HTTP/2 frames of every type and length up to the limit parse identically in any split', () => runCases('h2-frames', 400));
test('mutated HTTP/2 frames end in frames or an error (a length over the limit), never an exception, alike in any split', () => runCases('h2-mutated', 600));
test('HPACK blocks, ours and mutated, decode or fail with a reason, never an exception, alike with capture or not', () => runCases('hpack', 3000));

const enc = new TextEncoder();

/**
 * Feeds `start` then `piece` repeatedly (up to 8 MiB) to a parser, as an endless server would.
 * Returns { error, fed, kept }: kept is the most bytes the parser ever held in captured chunks.
 */
function feedEndless(start, piece, { capture = true, maxBody = 0, isHead = false } = {}) {
  let error = null;
  let responses = 0;
  const parser = new ResponseParser(() => responses++, (reason) => (error = reason), capture, maxBody);
  parser.expect(isHead);
  const held = () => [...(parser.headChunks || []), ...(parser.bodyChunks || [])].reduce((n, c) => n + c.length, 0);
  parser.execute(enc.encode(start));
  const bytes = enc.encode(piece.repeat(Math.ceil(65536 / piece.length)));
  let fed = 0;
  let kept = 0;
  while (error === null && fed < 8 * 1024 * 1024) {
    parser.execute(bytes);
    fed += bytes.length;
    kept = Math.max(kept, held());
  }
  return { error, fed, kept, responses };
}

test('an endless status line, header name, header value or folded header fails at the 64 KiB head limit', () => {
  const cases = [
    ['HTTP/1.1 200 ', 'reason '],
    ['HTTP/1.1 200 OK\r\n', 'X-Long-Name-'],
    ['HTTP/1.1 200 OK\r\nX-A: ', 'value '],
    ['HTTP/1.1 200 OK\r\nX-A: b\r\n', ' folded\r\n'],
    ['HTTP/1.1 200 OK\r\n', 'X-Many: headers\r\n'],
  ];
  for (const [start, piece] of cases) {
    const r = feedEndless(start, piece);
    assert.equal(r.error, 'response head over 64 KiB', JSON.stringify(piece));
    assert.ok(r.fed <= 2 * 65536, `${JSON.stringify(piece)}: read ${r.fed} bytes before failing`);
    assert.ok(r.kept <= MAX_HEAD_BYTES + 65536, `${JSON.stringify(piece)}: held ${r.kept} bytes`);
  }
});

test('endless chunk extensions and endless trailers fail at 64 KiB', () => {
  const head = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n';
  const ext = feedEndless(head + '5', ';a=b');
  assert.equal(ext.error, 'chunk extensions over 64 KiB');
  assert.ok(ext.fed <= 2 * 65536);
  const trailers = feedEndless(head + '0\r\n', 'X-Trailer: t\r\n');
  assert.equal(trailers.error, 'trailers over 64 KiB');
});

test('an endless stream of 1xx interim responses holds one head at a time', () => {
  const r = feedEndless('', 'HTTP/1.1 100 Continue\r\n\r\n');
  assert.equal(r.error, null);
  assert.equal(r.responses, 0);
  assert.ok(r.kept <= 65536, `held ${r.kept} bytes`);
});

test('an endless body without capture holds nothing; with maxBody it fails with the limit as its reason', () => {
  const chunked = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n';
  const free = feedEndless(chunked, '10\r\n0123456789abcdef\r\n', { capture: false });
  assert.equal(free.error, null);
  assert.equal(free.kept, 0);
  const limited = feedEndless(chunked, '10\r\n0123456789abcdef\r\n', { maxBody: 100000 });
  assert.equal(limited.error, 'response body over 100000 bytes');
  assert.ok(limited.kept <= 100000 + 65536 * 2, `held ${limited.kept} bytes`);
  const toClose = feedEndless('HTTP/1.1 200 OK\r\n\r\n', 'x', { maxBody: 1000 });
  assert.equal(toClose.error, 'response body over 1000 bytes');
  assert.ok(toClose.kept < 100);
  // A Content-Length over the limit fails at once, before any of the body is read.
  const declared = feedEndless('HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n', 'x', { maxBody: 1000 });
  assert.equal(declared.error, 'response body over 1000 bytes');
  assert.equal(declared.kept, 0);
  // A HEAD reply's Content-Length describes no body here.
  const head = new ResponseParser(() => {}, (reason) => assert.fail(reason), false, 10);
  head.expect(true);
  head.execute(enc.encode('HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n'));
  assert.equal(head.busy, false);
});
