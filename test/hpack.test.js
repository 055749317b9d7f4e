// HPACK (src/http2/hpack.js, src/http2/huffman.js): the examples of RFC 7541 Appendix C, the
// request encoder, every decoding error, :status without capture, and seeded random input.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mulberry32 } from './random.js';
import { HpackDecoder, decodeInteger, STATIC_TABLE } from '../src/http2/hpack.js';
import { encodeRequestHeaders, encodeInteger } from '../src/http2/hpack-encode.js';
import { HUFFMAN_CODES, HUFFMAN_LENGTHS, huffmanEncode, huffmanDecode, huffmanLength } from '../src/http2/huffman.js';

const utf8 = new TextEncoder();
const hex = (s) => Uint8Array.from(s.replace(/\s+/g, '').match(/../g) ?? [], (h) => parseInt(h, 16));
const bytes = (...parts) => Uint8Array.from(parts.flatMap((p) => (typeof p === 'string' ? [...utf8.encode(p)] : Array.isArray(p) || p instanceof Uint8Array ? [...p] : [p])));

// The dynamic table as RFC 7541 Appendix C prints it: [name, value, size], newest first.
function tableOf(decoder) {
  const entries = [];
  for (let k = 1; k <= decoder.tableLength; k++) {
    const [name, value] = decoder.tableEntry(k);
    entries.push([name, value, utf8.encode(name).length + utf8.encode(value).length + 32]);
  }
  return entries;
}

function decodeOk(decoder, block, capture = true) {
  const reason = decoder.decode(block, capture);
  assert.equal(reason, null);
  return decoder.headers;
}

test('the static table is Appendix A: 61 entries from index 1', () => {
  assert.equal(STATIC_TABLE.length, 62);
  assert.equal(STATIC_TABLE[0], null);
  assert.deepEqual(STATIC_TABLE[1], [':authority', '']);
  assert.deepEqual(STATIC_TABLE[2], [':method', 'GET']);
  assert.deepEqual(STATIC_TABLE[8], [':status', '200']);
  assert.deepEqual(STATIC_TABLE[14], [':status', '500']);
  assert.deepEqual(STATIC_TABLE[16], ['accept-encoding', 'gzip, deflate']);
  assert.deepEqual(STATIC_TABLE[19], ['accept', '']);
  assert.deepEqual(STATIC_TABLE[28], ['content-length', '']);
  assert.deepEqual(STATIC_TABLE[31], ['content-type', '']);
  assert.deepEqual(STATIC_TABLE[58], ['user-agent', '']);
  assert.deepEqual(STATIC_TABLE[61], ['www-authenticate', '']);
});

test('the Huffman code is Appendix B: canonical and complete, so a mistyped entry would show', () => {
  assert.equal(HUFFMAN_CODES.length, 257);
  const order = [...Array(257).keys()].sort((a, b) => HUFFMAN_LENGTHS[a] - HUFFMAN_LENGTHS[b] || a - b);
  let code = 0;
  let length = HUFFMAN_LENGTHS[order[0]];
  let kraft = 0;
  for (const sym of order) {
    code *= 2 ** (HUFFMAN_LENGTHS[sym] - length);
    length = HUFFMAN_LENGTHS[sym];
    assert.equal(HUFFMAN_CODES[sym], code, `symbol ${sym}`);
    code++;
    kraft += 2 ** -length;
  }
  assert.equal(kraft, 1);
  // A few rows as printed in Appendix B.
  assert.deepEqual([HUFFMAN_CODES[48], HUFFMAN_LENGTHS[48]], [0x0, 5]);
  assert.deepEqual([HUFFMAN_CODES[32], HUFFMAN_LENGTHS[32]], [0x14, 6]);
  assert.deepEqual([HUFFMAN_CODES[0], HUFFMAN_LENGTHS[0]], [0x1ff8, 13]);
  assert.deepEqual([HUFFMAN_CODES[10], HUFFMAN_LENGTHS[10]], [0x3ffffffc, 30]);
  assert.deepEqual([HUFFMAN_CODES[255], HUFFMAN_LENGTHS[255]], [0x3ffffee, 26]);
  assert.deepEqual([HUFFMAN_CODES[256], HUFFMAN_LENGTHS[256]], [0x3fffffff, 30]);
});

test('Huffman encoding gives the strings of Appendix C.4 and C.6, and every byte value decodes back', () => {
  const cases = {
    'www.example.com': 'f1e3 c2e5 f23a 6ba0 ab90 f4ff',
    'no-cache': 'a8eb 1064 9cbf',
    'custom-key': '25a8 49e9 5ba9 7d7f',
    'custom-value': '25a8 49e9 5bb8 e8b4 bf',
    302: '6402',
    private: 'aec3 771a 4b',
    'Mon, 21 Oct 2013 20:13:21 GMT': 'd07a be94 1054 d444 a820 0595 040b 8166 e082 a62d 1bff',
    'https://www.example.com': '9d29 ad17 1863 c78f 0b97 c8e9 ae82 ae43 d3',
  };
  for (const [text, expected] of Object.entries(cases)) {
    const encoded = huffmanEncode(utf8.encode(text), []);
    assert.deepEqual(Uint8Array.from(encoded), hex(expected), text);
    assert.equal(huffmanLength(utf8.encode(text)), encoded.length);
  }
  const all = Uint8Array.from({ length: 256 }, (_, i) => 255 - i);
  const encoded = Uint8Array.from(huffmanEncode(all, []));
  const out = new Uint8Array(256);
  assert.equal(huffmanDecode(encoded, 0, encoded.length, out, 0, 256), 256);
  assert.deepEqual(out, all);
});

test('integers (C.1): 10 and 1337 with a 5-bit prefix, 42 with 8 bits, and back', () => {
  assert.deepEqual(encodeInteger(10, 5), hex('0a'));
  assert.deepEqual(encodeInteger(1337, 5), hex('1f9a0a'));
  assert.deepEqual(encodeInteger(42, 8), hex('2a'));
  assert.deepEqual(encodeInteger(31, 5, 0x20), hex('3f00'));
  assert.deepEqual(decodeInteger(hex('1f9a0a'), 0, 5), { value: 1337, next: 3 });
  assert.deepEqual(decodeInteger(hex('ff 2a'), 1, 8), { value: 42, next: 2 });
  for (const n of [0, 1, 126, 127, 128, 255, 16383, 16384, 2 ** 21, 2 ** 31 - 1]) {
    for (const prefix of [4, 5, 6, 7, 8]) assert.equal(decodeInteger(encodeInteger(n, prefix), 0, prefix).value, n);
  }
  assert.deepEqual(decodeInteger(hex('1f9a'), 0, 5), { error: 'hpack: truncated integer' });
  assert.deepEqual(decodeInteger(encodeInteger(2 ** 31, 5), 0, 5), { error: 'hpack: integer overflow' });
});

test('C.2: a literal with indexing enters the dynamic table; without indexing, never indexed and indexed do not', () => {
  let d = new HpackDecoder();
  assert.deepEqual(decodeOk(d, hex('400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572')), [['custom-key', 'custom-header']]);
  assert.deepEqual(tableOf(d), [['custom-key', 'custom-header', 55]]);
  assert.equal(d.tableSize, 55);
  d = new HpackDecoder();
  assert.deepEqual(decodeOk(d, hex('040c 2f73 616d 706c 652f 7061 7468')), [[':path', '/sample/path']]);
  assert.equal(d.tableLength, 0);
  assert.deepEqual(decodeOk(d, hex('1008 7061 7373 776f 7264 0673 6563 7265 74')), [['password', 'secret']]);
  assert.equal(d.tableLength, 0);
  assert.deepEqual(decodeOk(d, hex('82')), [[':method', 'GET']]);
  assert.equal(d.tableLength, 0);
  assert.equal(d.tableSize, 0);
  assert.equal(d.status, -1);
});

const REQUESTS = [
  [[':method', 'GET'], [':scheme', 'http'], [':path', '/'], [':authority', 'www.example.com']],
  [[':method', 'GET'], [':scheme', 'http'], [':path', '/'], [':authority', 'www.example.com'], ['cache-control', 'no-cache']],
  [[':method', 'GET'], [':scheme', 'https'], [':path', '/index.html'], [':authority', 'www.example.com'], ['custom-key', 'custom-value']],
];
const REQUEST_TABLES = [
  [[':authority', 'www.example.com', 57]],
  [['cache-control', 'no-cache', 53], [':authority', 'www.example.com', 57]],
  [['custom-key', 'custom-value', 54], ['cache-control', 'no-cache', 53], [':authority', 'www.example.com', 57]],
];
const REQUEST_SIZES = [57, 110, 164];

function requestSequence(blocks) {
  const d = new HpackDecoder();
  blocks.forEach((block, k) => {
    assert.deepEqual(decodeOk(d, hex(block)), REQUESTS[k], `request ${k + 1}`);
    assert.deepEqual(tableOf(d), REQUEST_TABLES[k], `table after request ${k + 1}`);
    assert.equal(d.tableSize, REQUEST_SIZES[k]);
    assert.equal(d.status, -1);
  });
}

test('C.3: three requests without Huffman share the dynamic table from one block to the next', () => {
  requestSequence([
    '8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d',
    '8286 84be 5808 6e6f 2d63 6163 6865',
    '8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65',
  ]);
});

test('C.4: the same three requests with Huffman-coded strings', () => {
  requestSequence([
    '8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff',
    '8286 84be 5886 a8eb 1064 9cbf',
    '8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf',
  ]);
});

const DATE1 = 'Mon, 21 Oct 2013 20:13:21 GMT';
const DATE2 = 'Mon, 21 Oct 2013 20:13:22 GMT';
const LOCATION = 'https://www.example.com';
const COOKIE = 'foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1';
const RESPONSES = [
  [[':status', '302'], ['cache-control', 'private'], ['date', DATE1], ['location', LOCATION]],
  [[':status', '307'], ['cache-control', 'private'], ['date', DATE1], ['location', LOCATION]],
  [[':status', '200'], ['cache-control', 'private'], ['date', DATE2], ['location', LOCATION], ['content-encoding', 'gzip'], ['set-cookie', COOKIE]],
];
const RESPONSE_TABLES = [
  [['location', LOCATION, 63], ['date', DATE1, 65], ['cache-control', 'private', 52], [':status', '302', 42]],
  [[':status', '307', 42], ['location', LOCATION, 63], ['date', DATE1, 65], ['cache-control', 'private', 52]],
  [['set-cookie', COOKIE, 98], ['content-encoding', 'gzip', 52], ['date', DATE2, 65]],
];
const RESPONSE_SIZES = [222, 222, 215];
const STATUSES = [302, 307, 200];

function responseSequence(blocks) {
  const d = new HpackDecoder({ maxTableSize: 256 });
  const bare = new HpackDecoder({ maxTableSize: 256 }); // the same blocks, without capture
  blocks.forEach((block, k) => {
    assert.deepEqual(decodeOk(d, hex(block)), RESPONSES[k], `response ${k + 1}`);
    assert.equal(d.status, STATUSES[k]);
    assert.deepEqual(tableOf(d), RESPONSE_TABLES[k], `table after response ${k + 1}`);
    assert.equal(d.tableSize, RESPONSE_SIZES[k]);
    assert.equal(decodeOk(bare, hex(block), false), null);
    assert.equal(bare.status, STATUSES[k]);
    assert.equal(bare.tableSize, RESPONSE_SIZES[k]);
  });
  assert.deepEqual(tableOf(bare), RESPONSE_TABLES[2]);
}

const C5 = [
  '4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70 6c65 2e63 6f6d',
  '4803 3330 37c1 c0bf',
  '88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d 54c0 5a04 677a 6970 7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049 5541 5851 5745 4f49 553b 206d 6178 2d61 6765 3d33 3630 303b 2076 6572 7369 6f6e 3d31',
];
const C6 = [
  '4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3',
  '4883 640e ffc1 c0bf',
  '88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07',
];

test('C.5: three responses evict from a 256-byte table; status 302, 307, 200, with or without capture', () => {
  responseSequence(C5);
});

test('C.6: the same three responses with Huffman-coded strings', () => {
  responseSequence(C6);
});

test('status without capture: static index 8, a literal 503, a Huffman-coded 503; headers stay null', () => {
  const d = new HpackDecoder();
  assert.equal(d.decode(hex('88'), false), null);
  assert.equal(d.status, 200);
  assert.equal(d.headers, null);
  for (const [index, status] of [[9, 204], [10, 206], [11, 304], [12, 400], [13, 404], [14, 500]]) {
    const type = huffmanEncode(utf8.encode('text/plain'), []);
    assert.equal(d.decode(bytes(0x80 | index, 0x0f, 0x10, 0x80 | type.length, type), false), null);
    assert.equal(d.status, status);
  }
  // Literal without indexing, name :status (index 8), value '503'.
  assert.equal(d.decode(bytes(0x08, 0x03, '503', 0x0f, 0x10, 0x02, '42'), false), null);
  assert.equal(d.status, 503);
  assert.equal(d.headers, null);
  const huffman = huffmanEncode(utf8.encode('503'), []);
  assert.equal(d.decode(bytes(0x08, 0x80 | huffman.length, huffman), false), null);
  assert.equal(d.status, 503);
  // A literal name ':status' (not indexed), and one from the dynamic table.
  assert.equal(d.decode(bytes(0x00, 0x07, ':status', 0x03, '418'), false), null);
  assert.equal(d.status, 418);
  assert.equal(d.decode(bytes(0x48, 0x03, '429'), false), null); // adds :status 429 as entry 62
  assert.equal(d.status, 429);
  assert.equal(d.decode(bytes(0xbe), false), null);
  assert.equal(d.status, 429);
  assert.equal(d.decode(bytes(0x7e, 0x03, '201'), false), null); // name from entry 62
  assert.equal(d.status, 201);
  assert.equal(d.headers, null);
  // No string was made for the entries: they are kept as bytes until a capture asks.
  assert.ok(d.names.every((s) => s === null || s === ':status'));
  assert.ok(d.values.every((s) => s === null));
  assert.deepEqual(tableOf(d), [[':status', '201', 42], [':status', '429', 42]]);
});

test('decode reads block[start, end) of a larger buffer, as a HEADERS frame lies in a read buffer', () => {
  const d = new HpackDecoder({ maxTableSize: 256 });
  const inner = hex(C6[0]);
  const buffer = bytes(0xff, 0xff, 0xff, inner, 0x80, 0x80);
  assert.equal(d.decode(buffer, true, 3, 3 + inner.length), null);
  assert.deepEqual(d.headers, RESPONSES[0]);
  assert.equal(d.status, 302);
  assert.equal(d.decode(buffer, false, 3, 3 + inner.length - 1), 'hpack: truncated string'); // end is the end
});

test('status is -1 in a trailer block, for a value that is not three digits, and for two :status', () => {
  const d = new HpackDecoder();
  assert.equal(d.decode(bytes(0x00, 0x0b, 'grpc-status', 0x01, '0'), true), null);
  assert.equal(d.status, -1);
  assert.deepEqual(d.headers, [['grpc-status', '0']]);
  for (const value of ['20', '2000', '20x', '099', '']) {
    assert.equal(d.decode(bytes(0x08, value.length, value), false), null);
    assert.equal(d.status, -1, value);
  }
  assert.equal(d.decode(bytes(0x88, 0x8d), false), null);
  assert.equal(d.status, -1);
  assert.equal(d.decode(hex(''), true), null);
  assert.equal(d.status, -1);
  assert.deepEqual(d.headers, []);
});

test('size updates at the start of a block shrink and evict, and may come twice', () => {
  const d = new HpackDecoder({ maxTableSize: 256 });
  for (const block of C5) decodeOk(d, hex(block));
  assert.equal(d.decode(bytes(encodeInteger(100, 5, 0x20), 0x88), false), null);
  assert.equal(d.tableMaxSize, 100);
  assert.deepEqual(tableOf(d), [['set-cookie', COOKIE, 98]]); // the oldest go first
  assert.equal(d.decode(bytes(0x20, encodeInteger(256, 5, 0x20)), false), null);
  assert.equal(d.tableLength, 0);
  assert.equal(d.tableMaxSize, 256);
  // A zero-size table takes no entry, but the field is still decoded.
  assert.equal(d.decode(bytes(0x20, 0x40, 0x01, 'a', 0x01, 'b'), true), null);
  assert.deepEqual(d.headers, [['a', 'b']]);
  assert.equal(d.tableLength, 0);
  // An entry larger than the table empties it (4.4).
  assert.equal(d.decode(bytes(encodeInteger(40, 5, 0x20), 0x40, 0x01, 'a', 0x01, 'b'), true), null);
  assert.equal(d.tableLength, 1);
  assert.equal(d.decode(bytes(0x40, 0x01, 'a', 0x0a, 'x'.repeat(10)), true), null);
  assert.equal(d.tableLength, 0);
  assert.equal(d.tableSize, 0);
});

test('every malformed block returns its reason and nothing throws', () => {
  const cases = [
    ['index 0', bytes(0x80), 'hpack: index 0'],
    ['an index past the empty dynamic table', bytes(0xbe), 'hpack: index 62 out of range'],
    ['a multi-byte index past the table', bytes(0xff, 0x07), 'hpack: index 134 out of range'],
    ['a name index past the table', bytes(0x7f, 0x01, 0x01, 'x'), 'hpack: index 64 out of range'],
    ['a truncated integer', bytes(0xff), 'hpack: truncated integer'],
    ['a truncated multi-byte integer', bytes(0x82, 0xff, 0x80, 0x80), 'hpack: truncated integer'],
    ['an integer overflow (0x7f then ten 0xff)', bytes(0x7f, Array(10).fill(0xff)), 'hpack: integer overflow'],
    ['an endless run of zero continuation bytes', bytes(0xff, Array(10).fill(0x80), 0x00), 'hpack: integer overflow'],
    ['a missing string', bytes(0x40), 'hpack: truncated string'],
    ['a missing value', bytes(0x40, 0x01, 'a'), 'hpack: truncated string'],
    ['a truncated string', bytes(0x40, 0x0a, 'ab'), 'hpack: truncated string'],
    ['a truncated Huffman string', bytes(0x01, 0x85, 0x1f), 'hpack: truncated string'],
    ['Huffman padding of 8 bits', bytes(0x01, 0x81, 0xff), 'hpack: huffman padding over 7 bits'],
    ['Huffman padding of 11 bits', bytes(0x01, 0x82, 0x1f, 0xff), 'hpack: huffman padding over 7 bits'],
    ['Huffman padding not ones', bytes(0x01, 0x81, 0x18), 'hpack: huffman padding not all ones'],
    ['Huffman padding with a zero last', bytes(0x01, 0x81, 0x1e), 'hpack: huffman padding not all ones'],
    ['EOS inside a Huffman string', bytes(0x01, 0x84, 0xff, 0xff, 0xff, 0xff), 'hpack: huffman EOS in a string'],
    ['EOS after a symbol', bytes(0x01, 0x85, 0x1f, 0xff, 0xff, 0xff, 0xfc), 'hpack: huffman EOS in a string'],
    ['a size update above maxTableSize', bytes(encodeInteger(4097, 5, 0x20)), 'hpack: dynamic table size update over the limit'],
    ['a size update after a field', bytes(0x82, 0x20), 'hpack: size update not at the start of a block'],
    ['a size update after a literal', bytes(0x01, 0x01, 'a', 0x3f, 0x00), 'hpack: size update not at the start of a block'],
  ];
  for (const [what, block, reason] of cases) {
    const d = new HpackDecoder();
    for (const capture of [false, true]) {
      let result;
      assert.doesNotThrow(() => (result = d.decode(block, capture)), what);
      assert.equal(result, reason, what);
    }
  }
  assert.equal(new HpackDecoder().decode(bytes(encodeInteger(4096, 5, 0x20), 0x82)), null);
});

test('a header list over maxHeaderListSize is an error: indexed, literal, Huffman or in the table', () => {
  const reason = 'hpack: header list over 100 bytes';
  const small = () => new HpackDecoder({ maxHeaderListSize: 100 });
  // :method GET is 7 + 3 + 32 = 42: two fit, three do not.
  assert.equal(small().decode(bytes(0x82, 0x82)), null);
  assert.equal(small().decode(bytes(0x82, 0x82, 0x82)), reason);
  assert.equal(small().decode(bytes(0x00, 0x01, 'a', 0x40, 'x'.repeat(64))), null); // 1 + 64 + 32 = 97
  assert.equal(small().decode(bytes(0x00, 0x01, 'a', 0x44, 'x'.repeat(68))), reason);
  const long = huffmanEncode(utf8.encode('0'.repeat(300)), []);
  assert.equal(small().decode(bytes(0x0f, 0x10, encodeInteger(long.length, 7, 0x80), long)), reason);
  const name = huffmanEncode(utf8.encode('n'.repeat(120)), []);
  assert.equal(small().decode(bytes(0x00, 0x80 | name.length, name, 0x00)), reason);
  // A table entry referenced again counts again.
  const d = small();
  assert.equal(d.decode(bytes(0x40, 0x01, 'a', 0x0f, 'x'.repeat(15))), null); // 48
  assert.equal(d.decode(bytes(0xbe, 0xbe)), null);
  assert.equal(d.decode(bytes(0xbe, 0xbe, 0x82)), reason);
});

test('encodeRequestHeaders uses static indexes, static names and no dynamic table', () => {
  const block = encodeRequestHeaders({ method: 'GET', scheme: 'http', authority: 'www.example.com', path: '/' });
  // :method GET, :scheme http, then :authority as a literal without indexing naming index 1
  // (Huffman, shorter), :path /.
  assert.deepEqual(block, hex('8286 018c f1e3 c2e5 f23a 6ba0 ab90 f4ff 84'));
  const post = encodeRequestHeaders({
    method: 'POST', scheme: 'https', authority: 'a.b', path: '/x?y=1',
    headers: [['user-agent', 'loadtest/9'], ['accept', '*/*'], ['content-type', 'application/json'], ['content-length', '17'], ['accept-encoding', 'gzip, deflate'], ['x-id', '1']],
  });
  assert.deepEqual([...post.subarray(0, 2)], [0x83, 0x87]);
  const d = new HpackDecoder();
  for (let k = 0; k < 3; k++) {
    assert.deepEqual(decodeOk(d, post), [
      [':method', 'POST'], [':scheme', 'https'], [':authority', 'a.b'], [':path', '/x?y=1'],
      ['user-agent', 'loadtest/9'], ['accept', '*/*'], ['content-type', 'application/json'], ['content-length', '17'],
      ['accept-encoding', 'gzip, deflate'], ['x-id', '1'],
    ]);
    assert.equal(d.tableLength, 0);
  }
  // Names by static index: user-agent 58, accept 19, content-type 31, content-length 28 (4-bit
  // prefix: 15 then the rest), accept-encoding with its value as index 16.
  const fields = [...post];
  for (const prefix of [[0x0f, 58 - 15], [0x0f, 19 - 15], [0x0f, 31 - 15], [0x0f, 28 - 15], [0x80 | 16]]) {
    const at = fields.findIndex((b, i) => prefix.every((p, k) => fields[i + k] === p));
    assert.ok(at > 0, `field ${prefix}`);
  }
  // Without pseudo-headers given (CONNECT has no :scheme or :path) they are left out.
  assert.deepEqual(decodeOk(d, encodeRequestHeaders({ method: 'CONNECT', authority: 'h:443' })), [[':method', 'CONNECT'], [':authority', 'h:443']]);
  // sizeUpdate: a size update to 0 first, valid whatever the peer's table size.
  const first = encodeRequestHeaders({ method: 'GET', scheme: 'https', authority: 'h', path: '/', sizeUpdate: true });
  assert.equal(first[0], 0x20);
  assert.equal(new HpackDecoder({ maxTableSize: 0 }).decode(first), null);
});

test('encodeRequestHeaders output decodes back: odd values, empty values, values over 127 bytes', () => {
  const headers = [
    ['accept', ''],
    ['x-empty', ''],
    ['x-odd', ' spaces  inside, "quotes", %20, \\back\\slash, {braces}, <angle>, ~tilde~ `tick` | pipe ^'],
    ['x-tab', 'a\tb'],
    ['x-long', 'v'.repeat(127)],
    ['x-longer', 'abcdefghijklmnopqrstuvwxyz0123456789'.repeat(10)],
    ['x-binaryish', '\x01\x02\x7f'],
    ['y'.repeat(130), 'long name'],
    ['cookie', 'a=1; b=2'],
    ['authorization', 'Bearer ' + 'Z'.repeat(300)],
    ['x-utf8', 'h\u00e9llo \u2603'],
  ];
  const request = { method: 'DELETE', scheme: 'https', authority: 'example.org:8443', path: '/a/' + 'p'.repeat(200) + '?q=%F0', headers };
  const block = encodeRequestHeaders(request);
  const d = new HpackDecoder({ maxHeaderListSize: 1 << 20 });
  assert.deepEqual(decodeOk(d, block), [
    [':method', request.method], [':scheme', request.scheme], [':authority', request.authority], [':path', request.path], ...headers,
  ]);
  assert.equal(d.status, -1);
  // Huffman only where shorter: a value of rare bytes stays a plain literal.
  const rare = encodeRequestHeaders({ headers: [['x', '\x01\x01\x01']] });
  assert.deepEqual(rare, bytes(0x00, 0x01, 'x', 0x03, 1, 1, 1));
});

test('encodeRequestHeaders refuses uppercase names, connection-specific headers, te other than trailers, CR/LF', () => {
  const base = { method: 'GET', scheme: 'https', authority: 'h', path: '/' };
  const refuse = (headers, pattern) => assert.throws(() => encodeRequestHeaders({ ...base, headers }), pattern);
  refuse([['Content-Type', 'text/plain']], /must be lowercase.*Content-Type/);
  for (const name of ['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade']) {
    refuse([[name, 'x']], new RegExp(`Connection-specific header '${name}'`));
  }
  refuse([['te', 'gzip']], /te header only as 'trailers'/);
  refuse([['x', 'a\r\nb: c']], /NUL, CR or LF/);
  refuse([['bad name', 'x']], /Invalid HTTP\/2 header name/);
  refuse([[':path', '/']], /Invalid HTTP\/2 header name/);
  assert.throws(() => encodeRequestHeaders({ ...base, path: '/\n' }), /NUL, CR or LF/);
  assert.ok(encodeRequestHeaders({ ...base, headers: [['te', 'trailers']] }) instanceof Uint8Array);
});

// A reference encoder for the model test: literal fields with incremental indexing.
function literal(out, rand, nameIndex, name, value) {
  out.push(...encodeInteger(nameIndex, 6, 0x40));
  const str = (s) => {
    const raw = utf8.encode(s);
    if (rand() < 0.5) {
      const h = huffmanEncode(raw, []);
      out.push(...encodeInteger(h.length, 7, 0x80), ...h);
    } else {
      out.push(...encodeInteger(raw.length, 7, 0), ...raw);
    }
  };
  if (nameIndex === 0) str(name);
  str(value);
}

test('the dynamic table wraps around its byte ring and matches a model over 3000 random fields', () => {
  const rand = mulberry32(7541);
  const pick = (n) => Math.floor(rand() * n);
  const word = () => Array.from({ length: pick(40) }, () => String.fromCharCode(32 + pick(95))).join('');
  for (const maxTableSize of [100, 256, 4096]) {
    const d = new HpackDecoder({ maxTableSize });
    const model = []; // [name, value], newest first
    let size = 0;
    let maxSize = maxTableSize;
    for (let block = 0; block < 300; block++) {
      const out = [];
      const expected = [];
      if (rand() < 0.1) {
        maxSize = pick(maxTableSize + 1);
        out.push(...encodeInteger(maxSize, 5, 0x20));
        while (size > maxSize) size -= model.pop().reduce((n, s) => n + s.length, 32);
      }
      for (let f = pick(5) + 1; f > 0; f--) {
        let name;
        let nameIndex = 0;
        if (model.length > 0 && rand() < 0.5) {
          // Often the oldest entry: the one this insertion is likeliest to evict (4.4).
          const k = rand() < 0.5 ? model.length : pick(model.length) + 1;
          name = model[k - 1][0];
          nameIndex = 61 + k;
        } else {
          name = 'n-' + word();
        }
        const value = word();
        literal(out, rand, nameIndex, name, value);
        expected.push([name, value]);
        const entry = name.length + value.length + 32;
        while (model.length > 0 && size + entry > maxSize) size -= model.pop().reduce((n, s) => n + s.length, 32);
        if (entry <= maxSize) {
          model.unshift([name, value]);
          size += entry;
        }
        if (model.length > 0 && rand() < 0.3) {
          const k = pick(model.length) + 1;
          out.push(...encodeInteger(61 + k, 7, 0x80));
          expected.push(model[k - 1]);
        }
      }
      const capture = rand() < 0.7;
      assert.equal(d.decode(Uint8Array.from(out), capture), null);
      if (capture) assert.deepEqual(d.headers, expected);
      assert.equal(d.tableSize, size);
      assert.deepEqual(tableOf(d).map(([n, v]) => [n, v]), model);
    }
  }
});

// nginx 1.22's block for `return 200 "OK"`: :status 200 indexed, then server, date, content-type
// and content-length as literals with incremental indexing (three Huffman-coded).
const NGINX_BLOCK = hex('887689aa6355e580ae212e1f6197dd6d5f4a09f5349fba82009c5002b8db37197d4c5a37ff5f87497ca58ae819aa5c0132');

test('a block decoded again as the last one repeats its decode: the same status and the same entries added', () => {
  const d = new HpackDecoder();
  let repeats = 0;
  const repeat = d.repeat;
  d.repeat = function () {
    repeats++;
    return repeat.call(this);
  };
  const added = [['server', 'nginx/1.22.1'], ['date', 'Sun, 29 Nov 2026 02:53:39 GMT'], ['content-type', 'text/plain'], ['content-length', '2']];
  const model = []; // newest first, evicted from the end (RFC 7541 4.4)
  const sizeOf = (entries) => entries.reduce((n, [name, value]) => n + name.length + value.length + 32, 0);
  for (let n = 1; n <= 100; n++) {
    assert.equal(d.decode(NGINX_BLOCK), null);
    assert.equal(d.status, 200);
    for (const entry of added) {
      model.unshift(entry);
      while (sizeOf(model) > 4096) model.pop();
    }
    assert.equal(d.tableSize, sizeOf(model));
    assert.deepEqual(tableOf(d).map(([name, value]) => [name, value]), model);
  }
  assert.equal(repeats, 99);
  // Its entries are there to be named: content-length (62) and server (65) of the last response.
  assert.equal(decodeOk(d, hex('be c1'), false), null);
  assert.deepEqual(decodeOk(d, hex('be c1')), [['content-length', '2'], ['server', 'nginx/1.22.1']]);
});

test('repeated blocks among others: the same status and table as a decoder that decodes each one in full', () => {
  const rand = mulberry32(9113);
  const pick = (n) => Math.floor(rand() * n);
  const word = () => Array.from({ length: pick(30) }, () => String.fromCharCode(32 + pick(95))).join('');
  for (const maxTableSize of [100, 256, 4096]) {
    // Decoding with capture never repeats: `full` is the reference.
    const full = new HpackDecoder({ maxTableSize });
    const d = new HpackDecoder({ maxTableSize });
    let block = null;
    for (let n = 0; n < 2000; n++) {
      if (block === null || rand() < 0.4) {
        const out = [];
        if (rand() < 0.05) out.push(...encodeInteger(pick(maxTableSize + 1), 5, 0x20));
        out.push(...encodeInteger([8, 13, 14][pick(3)], 7, 0x80));
        for (let f = pick(5); f > 0; f--) {
          const kind = pick(4);
          if (kind === 0 && full.tableLength > 0) out.push(...encodeInteger(62 + pick(full.tableLength), 7, 0x80));
          else if (kind === 1) {
            const name = full.tableLength > 0 && rand() < 0.3 ? 62 + pick(full.tableLength) : 0;
            literal(out, rand, name, 'n-' + word(), word());
          } else if (kind === 2) out.push(...encodeInteger(pick(61) + 1, 7, 0x80));
          else out.push(0x00, ...encodeInteger(1, 7, 0), 120, ...encodeInteger(1, 7, 0), 121); // without indexing
        }
        block = Uint8Array.from(out);
      }
      // The same block now and then after a capture's decode, which repeats nothing.
      const capture = rand() < 0.1;
      // A block that names an entry gone since (a smaller table) fails alike in both.
      const reason = full.decode(block, true);
      assert.equal(d.decode(block, capture), reason);
      if (reason === null) assert.equal(d.status, full.status);
      else block = null;
      assert.equal(d.tableSize, full.tableSize);
      assert.equal(d.tableMaxSize, full.tableMaxSize);
      assert.deepEqual(tableOf(d), tableOf(full));
    }
  }
});

// Valid blocks to mutate: Appendix C and encoded requests.
const SEEDS = [...C5, ...C6].map(hex).concat([
  hex('8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d'),
  hex('8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf'),
  encodeRequestHeaders({ method: 'GET', scheme: 'https', authority: 'example.com', path: '/x', headers: [['x-a', 'b'.repeat(140)], ['accept', '*/*']] }),
]);

function decodeChecked(decoders, block) {
  // The same input to a capturing and a non-capturing decoder: same answer, same table.
  const results = decoders.map((d, k) => {
    let result;
    assert.doesNotThrow(() => (result = d.decode(block, k === 0)));
    assert.ok(result === null || (typeof result === 'string' && result.startsWith('hpack: ')), String(result));
    assert.ok(d.tableSize <= d.tableMaxSize && d.tableMaxSize <= d.limit, 'table within its limit');
    assert.ok(d.tableLength * 32 <= d.tableSize);
    return result;
  });
  assert.equal(results[0], results[1]);
  assert.equal(decoders[0].tableSize, decoders[1].tableSize);
  if (results[0] === null) assert.equal(decoders[0].status, decoders[1].status);
}

test('2000 random blocks and 2000 mutated valid blocks: never a throw, null or a reason, the table in bounds', () => {
  const rand = mulberry32(20);
  const pick = (n) => Math.floor(rand() * n);
  const fresh = () => {
    const options = { maxTableSize: [0, 64, 256, 4096][pick(4)], maxHeaderListSize: [200, 65536][pick(2)] };
    return [new HpackDecoder(options), new HpackDecoder(options)];
  };
  let decoders = fresh();
  for (let n = 0; n < 2000; n++) {
    if (n % 50 === 0) decoders = fresh();
    const block = Uint8Array.from({ length: pick(64) }, () => (rand() < 0.3 ? [0x80, 0xff, 0x7f, 0x3f, 0x40, 0x00][pick(6)] : pick(256)));
    decodeChecked(decoders, block);
  }
  let errors = 0;
  for (let n = 0; n < 2000; n++) {
    if (n % 20 === 0) decoders = fresh();
    const block = SEEDS[pick(SEEDS.length)].slice();
    for (let m = pick(4) + 1; m > 0; m--) {
      const at = pick(block.length);
      const kind = pick(3);
      if (kind === 0) block[at] = pick(256);
      else if (kind === 1) block[at] ^= 1 << pick(8);
      else block[at] = [0x00, 0xff, 0x80, 0x7f][pick(4)];
    }
    const cut = rand() < 0.2 ? block.subarray(0, pick(block.length + 1)) : block;
    decodeChecked(decoders, cut);
    if (decoders[0].decode(new Uint8Array(0)) !== null) errors++;
  }
  assert.equal(errors, 0);
});
