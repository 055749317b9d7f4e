// Data-driven requests' parsers (src/requests/feed.js): CSV by RFC 4180, JSON and NDJSON rows, the
// --urls list, and the order in which a run takes a feed's rows.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFeed, parseUrlList, feedOrder } from '../src/requests/feed.js';

const csv = (text) => parseFeed(text, 'ids.csv');
const fails = (fn, message) =>
  assert.throws(fn, (e) => {
    assert.ok(e instanceof Error);
    assert.equal(e.message, message);
    return true;
  });

// ---- CSV ----

test('csv: a header and rows, with or without a final line break, LF or CRLF', () => {
  for (const text of ['id,name\n1,ann\n2,bob\n', 'id,name\n1,ann\n2,bob', 'id,name\r\n1,ann\r\n2,bob\r\n', 'id,name\r\n1,ann\n2,bob']) {
    const feed = csv(text);
    assert.equal(feed.format, 'csv');
    assert.deepEqual(feed.columns, ['id', 'name']);
    assert.deepEqual(feed.rows, [
      ['1', 'ann'],
      ['2', 'bob'],
    ]);
  }
});

test('csv: empty fields, spaces kept as they are', () => {
  assert.deepEqual(csv('a,b,c\n,,\n x , y ,\n').rows, [
    ['', '', ''],
    [' x ', ' y ', ''],
  ]);
  assert.deepEqual(csv('a,b\n1,').rows, [['1', '']]);
});

test('csv: quoted fields hold commas, doubled quotes, CR and LF', () => {
  const feed = csv('"a,b","say ""hi""",c\n"1,2","""","x\r\ny"\n"","line\nbreak",3\r\nplain,"q",""\n');
  assert.deepEqual(feed.columns, ['a,b', 'say "hi"', 'c']);
  assert.deepEqual(feed.rows, [
    ['1,2', '"', 'x\r\ny'],
    ['', 'line\nbreak', '3'],
    ['plain', 'q', ''],
  ]);
  assert.deepEqual(csv('a\n"x"').rows, [['x']]);
  assert.deepEqual(csv('a,b\r\n"x","y"\r\n').rows, [['x', 'y']]);
});

test('csv: a UTF-8 BOM is ignored', () => {
  const feed = csv('\ufeffid,name\n1,ann\n');
  assert.deepEqual(feed.columns, ['id', 'name']);
  assert.deepEqual(csv('\ufeff"id"\n1\n').columns, ['id']);
});

test('csv: empty lines at the end are ignored; in the middle they are an error, or an empty field in a one-column file', () => {
  assert.deepEqual(csv('id,name\n1,ann\n\n\r\n\n').rows, [['1', 'ann']]);
  assert.deepEqual(csv('id\n1\n\n2\n\n').rows, [['1'], [''], ['2']]);
  fails(() => csv('id,name\n1,ann\n\n2,bob\n'), 'ids.csv: row 3: an empty line where the header has 2 columns');
  fails(() => csv('id,name\n1,ann\r\n\r\n2,bob\n'), 'ids.csv: row 3: an empty line where the header has 2 columns');
});

test('csv: a quote inside an unquoted field, with its row and column', () => {
  fails(() => csv('id,name\n1,ann\n2,bo"b\n'), 'ids.csv: row 3, column 5: a quote inside an unquoted field');
  fails(() => csv('id,name\n1, "ann"\n'), 'ids.csv: row 2, column 4: a quote inside an unquoted field');
  fails(() => csv('\ufeffid,na"me\n'), 'ids.csv: row 1, column 6: a quote inside an unquoted field');
  // Columns count characters: the emoji (two UTF-16 units) is one.
  fails(() => csv('a,b\n🙂x,y"\n'), 'ids.csv: row 2, column 5: a quote inside an unquoted field');
  // Rows are physical lines: a quoted field's line breaks count.
  fails(() => csv('a,b\n"1\n2\n3",x\n4,y"\n'), 'ids.csv: row 5, column 4: a quote inside an unquoted field');
  fails(() => csv('a,b\n"1\n2",x"\n'), 'ids.csv: row 3, column 5: a quote inside an unquoted field');
});

test('csv: a record with more or fewer fields than the header', () => {
  fails(() => csv('id,name\n1,ann\n2,bob,x\n'), 'ids.csv: row 3, column 1: 3 fields where the header has 2');
  fails(() => csv('id,name\n1\n'), 'ids.csv: row 2, column 1: 1 field where the header has 2');
  fails(() => csv('id,name\n"1\n2","x",y\n'), 'ids.csv: row 2, column 1: 3 fields where the header has 2');
  fails(() => csv('id,name\n"a\nb",x\n1,2,3\n'), 'ids.csv: row 4, column 1: 3 fields where the header has 2');
  fails(() => csv('id\n1,2\n'), 'ids.csv: row 2, column 1: 2 fields where the header has 1');
});

test('csv: the header names each column once', () => {
  fails(() => csv('id,,name\n1,2,3\n'), 'ids.csv: row 1: a column name is empty');
  fails(() => csv('id,name,\n1,2,3\n'), 'ids.csv: row 1: a column name is empty');
  fails(() => csv('\nid\n1\n'), 'ids.csv: row 1: a column name is empty');
  fails(() => csv('id,name,id\n1,2,3\n'), "ids.csv: row 1: column 'id' is named twice");
  fails(() => csv('"id",id\n1,2\n'), "ids.csv: row 1: column 'id' is named twice");
});

test('csv: a quoted field never closed, text after a closing quote, a CR without LF', () => {
  fails(() => csv('id,name\n1,ann\n2,"bob\n3,cy\n'), 'ids.csv: row 3, column 3: the quoted field is never closed');
  fails(() => csv('"id,name\n'), 'ids.csv: row 1, column 1: the quoted field is never closed');
  fails(() => csv('id,name\n1,"a""\n'), 'ids.csv: row 2, column 3: the quoted field is never closed');
  fails(() => csv('id,name\n1,"ann"x\n'), 'ids.csv: row 2, column 8: text after the closing quote');
  fails(() => csv('id,name\n1,"a\nnn" \n'), 'ids.csv: row 3, column 4: text after the closing quote');
  fails(() => csv('id,name\n1\r2,x\n'), 'ids.csv: row 2, column 2: a CR without LF outside quotes');
  fails(() => csv('id,name\n1,"x"\r2\n'), 'ids.csv: row 2, column 6: a CR without LF outside quotes');
  // A CR at the very end ends the last record as CRLF would.
  assert.deepEqual(csv('id,name\r\n1,x\r').rows, [['1', 'x']]);
  assert.deepEqual(csv('id,name\r\n1,"x"\r').rows, [['1', 'x']]);
});

test('csv: no rows, or nothing at all', () => {
  fails(() => csv('id,name\n'), 'ids.csv: no rows after the header');
  fails(() => csv('id,name'), 'ids.csv: no rows after the header');
  fails(() => csv('id,name\r\n\r\n\n'), 'ids.csv: no rows after the header');
  fails(() => csv(''), 'ids.csv: the file is empty');
  fails(() => csv('\ufeff'), 'ids.csv: the file is empty');
  fails(() => csv('\n\r\n'), 'ids.csv: the file is empty');
});

test("csv: where(r, c) and position(r, c) name a cell's physical row and column", () => {
  const feed = csv('\ufeffid,name,city\n1,ann,rome\n22,"b,o\nb",paris\n"3",🙂,"x"\n');
  assert.deepEqual(feed.rows, [
    ['1', 'ann', 'rome'],
    ['22', 'b,o\nb', 'paris'],
    ['3', '🙂', 'x'],
  ]);
  assert.equal(feed.where(0, 0), 'row 2, column 1 (id)');
  assert.equal(feed.where(0, 1), 'row 2, column 3 (name)');
  assert.equal(feed.where(0, 2), 'row 2, column 7 (city)');
  assert.equal(feed.where(1, 1), 'row 3, column 4 (name)');
  // The field after a quoted line break starts on the next physical line.
  assert.equal(feed.where(1, 2), 'row 4, column 4 (city)');
  assert.equal(feed.where(2, 0), 'row 5, column 1 (id)');
  assert.equal(feed.where(2, 2), 'row 5, column 7 (city)');
  assert.deepEqual(feed.position(1, 2), { row: 4, column: 4 });
  assert.deepEqual(feed.position(2, 1), { row: 5, column: 5 });
  // A one-column file's empty line in the middle is a row of its own.
  const one = csv('id\n1\n\n2\n');
  assert.equal(one.where(1, 0), 'row 3, column 1 (id)');
  assert.equal(one.where(2, 0), 'row 4, column 1 (id)');
});

test('csv: 200 000 generated rows parse to the right count and cells', () => {
  const n = 200000;
  const parts = ['id,name,email,note\r\n'];
  for (let i = 0; i < n; i++) {
    const note = i % 1000 === 7 ? `"x,""${i}""\ny"` : `n${i}`;
    parts.push(`${i},user${i},user${i}@example.com,${note}${i % 2 ? '\r\n' : '\n'}`);
  }
  const feed = csv(parts.join(''));
  assert.equal(feed.rows.length, n);
  assert.deepEqual(feed.rows[0], ['0', 'user0', 'user0@example.com', 'n0']);
  assert.deepEqual(feed.rows[7], ['7', 'user7', 'user7@example.com', 'x,"7"\ny']);
  assert.deepEqual(feed.rows[123456], ['123456', 'user123456', 'user123456@example.com', 'n123456']);
  assert.deepEqual(feed.rows[n - 1], [`${n - 1}`, `user${n - 1}`, `user${n - 1}@example.com`, `n${n - 1}`]);
  // 200 quoted notes with a line break in them before the last row.
  assert.equal(feed.where(n - 1, 1), `row ${n + 1 + 200}, column 8 (name)`);
});

// ---- JSON and NDJSON ----

test('json: an array of objects; the columns are every key in the order first met', () => {
  const feed = parseFeed('\ufeff[{"id": 1, "name": "ann"}, {"name": "bob", "age": 40}, {"id": "3", "extra": null}]', 'rows.json');
  assert.equal(feed.format, 'json');
  assert.deepEqual(feed.columns, ['id', 'name', 'age', 'extra']);
  assert.deepEqual(feed.rows, [
    ['1', 'ann', undefined, undefined],
    [undefined, 'bob', '40', undefined],
    ['3', undefined, undefined, ''],
  ]);
  assert.equal(feed.where(1, 2), 'row 2 (age)');
  assert.deepEqual(feed.position(2, 0), { row: 3 });
});

test('json and ndjson: strings stay, numbers and booleans as String(), null as empty, objects as JSON', () => {
  const row = { s: 'x y', n: 1.5, big: 1e21, t: true, f: false, z: null, o: { a: [1, 'b'] }, a: [1, 2], e: '' };
  const want = [['x y', '1.5', '1e+21', 'true', 'false', '', '{"a":[1,"b"]}', '[1,2]', '']];
  assert.deepEqual(parseFeed(JSON.stringify([row]), 'rows.json').rows, want);
  assert.deepEqual(parseFeed(JSON.stringify(row) + '\n', 'rows.ndjson').rows, want);
});

test('json: errors', () => {
  assert.throws(
    () => parseFeed('[{"id": 1},\n {"id": }]', 'rows.json'),
    (e) => /^rows\.json: not JSON \(.+\)$/.test(e.message) && !e.message.includes('\n'),
  );
  assert.throws(() => parseFeed('', 'rows.json'), /^Error: rows\.json: not JSON \(.+\)$/);
  fails(() => parseFeed('{"id": 1}', 'rows.json'), 'rows.json: not a JSON array of objects');
  fails(() => parseFeed('[]', 'rows.json'), 'rows.json: no rows');
  fails(() => parseFeed('[{"a":1},{"a":2},null]', 'rows.json'), 'rows.json: row 3 is not an object');
  fails(() => parseFeed('[{"a":1},[1,2]]', 'rows.json'), 'rows.json: row 2 is not an object');
  fails(() => parseFeed('["a"]', 'rows.json'), 'rows.json: row 1 is not an object');
});

test('ndjson and jsonl: one object a line; blank lines skipped; CRLF', () => {
  for (const name of ['rows.ndjson', 'rows.jsonl', 'ROWS.JSONL']) {
    const feed = parseFeed('\ufeff{"id":1,"name":"ann"}\r\n\r\n  \n{"name":"bob","x":true}\n\n{"id":3}', name);
    assert.equal(feed.format, 'ndjson');
    assert.deepEqual(feed.columns, ['id', 'name', 'x']);
    assert.deepEqual(feed.rows, [
      ['1', 'ann', undefined],
      [undefined, 'bob', 'true'],
      ['3', undefined, undefined],
    ]);
    assert.equal(feed.where(1, 2), 'line 4 (x)');
    assert.equal(feed.where(2, 0), 'line 6 (id)');
    assert.deepEqual(feed.position(2, 0), { line: 6 });
  }
});

test('ndjson: errors name the line', () => {
  assert.throws(
    () => parseFeed('{"a":1}\n\n{"a":2}\n\n{"a":\n', 'rows.ndjson'),
    (e) => /^rows\.ndjson: line 5: not JSON \(.+\)$/.test(e.message) && !e.message.includes('\n'),
  );
  fails(() => parseFeed('{"a":1}\n[1]\n', 'rows.ndjson'), 'rows.ndjson: line 2: not an object');
  fails(() => parseFeed('{"a":1}\nnull\n', 'rows.ndjson'), 'rows.ndjson: line 2: not an object');
  fails(() => parseFeed('\n \n', 'rows.ndjson'), 'rows.ndjson: no rows');
});

test('any other extension is sniffed: [ is JSON, { is NDJSON, else CSV', () => {
  assert.equal(parseFeed(' \n[{"a":1}]', 'data.txt').format, 'json');
  assert.equal(parseFeed('\ufeff{"a":1}\n{"a":2}', 'data').format, 'ndjson');
  assert.deepEqual(parseFeed('{"a":1}\n{"a":2}', 'dir.v2/data').rows, [['1'], ['2']]);
  const feed = parseFeed('a,b\n1,2\n', 'data.dat');
  assert.equal(feed.format, 'csv');
  assert.deepEqual(feed.rows, [['1', '2']]);
  assert.equal(parseFeed('a\n1\n', 'DATA.CSV').format, 'csv');
  // The extension decides: a .csv is CSV even when it starts with a brace.
  assert.deepEqual(parseFeed('{a}\n1\n', 'x.csv').columns, ['{a}']);
});

// ---- --urls FILE ----

const ORIGIN = 'http://127.0.0.1:8080';
const urls = (text) => parseUrlList(text, 'urls.txt', ORIGIN);

test('urls: paths, absolute URLs on the origin, METHOD URL; blank lines and # comments skipped', () => {
  const text = '# a comment\n/a\r\n\n  http://127.0.0.1:8080/b?x=1&y=2#frag  \npost /c\nDelete\thttp://127.0.0.1:8080\n   # indented comment\n/d%20e?q\n/ü\n';
  assert.deepEqual(urls(text), [
    { method: null, path: '/a', line: 2 },
    { method: null, path: '/b?x=1&y=2', line: 4 },
    { method: 'POST', path: '/c', line: 5 },
    { method: 'DELETE', path: '/', line: 6 },
    { method: null, path: '/d%20e?q', line: 8 },
    { method: null, path: '/%C3%BC', line: 9 },
  ]);
  // The default port is the same origin written or not.
  assert.deepEqual(parseUrlList('http://localhost:80/x\n', 'urls.txt', 'http://localhost'), [{ method: null, path: '/x', line: 1 }]);
  assert.deepEqual(parseUrlList('\ufeffHTTPS://Example.COM/x', 'urls.txt', 'https://example.com:443/'), [{ method: null, path: '/x', line: 1 }]);
});

test('urls: errors name the file and the line', () => {
  fails(() => urls('/a\n/b\n\n# c\nhttp://other/\n'), "urls.txt: line 5: http://other/ is not on the run's origin http://127.0.0.1:8080");
  fails(() => urls('https://127.0.0.1:8080/a'), "urls.txt: line 1: https://127.0.0.1:8080/a is not on the run's origin http://127.0.0.1:8080");
  fails(() => urls('http://127.0.0.1:8081/a'), "urls.txt: line 1: http://127.0.0.1:8081/a is not on the run's origin http://127.0.0.1:8080");
  fails(() => urls('//other/x'), "urls.txt: line 1: //other/x is not on the run's origin http://127.0.0.1:8080");
  fails(() => urls('/a\nfoo/bar'), 'urls.txt: line 2: foo/bar is not a URL (an absolute URL or a path starting with /)');
  fails(() => urls('http://[::1/x'), 'urls.txt: line 1: http://[::1/x is not a URL (an absolute URL or a path starting with /)');
  fails(() => urls('GE-T /a'), 'urls.txt: line 1: GE-T is not a method (letters only)');
  fails(() => urls('GET /a b'), 'urls.txt: line 1: expected a URL or METHOD URL, not 3 words');
  fails(() => urls(''), 'urls.txt: no URLs');
  fails(() => urls('# only\n\n  \n#comments\n'), 'urls.txt: no URLs');
});

// ---- the order of rows ----

const isPermutation = (values, count) => values.length === count && [...values].sort((a, b) => a - b).every((v, i) => v === i);

test('feedOrder: in order, the rows again and again', () => {
  const rowOf = feedOrder(3);
  assert.deepEqual(
    Array.from({ length: 8 }, (_, i) => rowOf(i)),
    [0, 1, 2, 0, 1, 2, 0, 1],
  );
  assert.equal(feedOrder(1)(12345), 0);
  assert.equal(feedOrder(1000, { random: false, seed: 9 })(123456789), 789);
  assert.throws(() => feedOrder(0), /at least one row/);
});

test('feedOrder random: every cycle a permutation, the same for a seed, another for another seed', () => {
  const count = 50;
  const cycles = 6;
  const sequence = (options) => {
    const rowOf = feedOrder(count, options);
    return Array.from({ length: count * cycles }, (_, i) => rowOf(i));
  };
  const a = sequence({ random: true, seed: 42 });
  const perms = [];
  for (let c = 0; c < cycles; c++) {
    const perm = a.slice(c * count, (c + 1) * count);
    assert.ok(isPermutation(perm, count), `cycle ${c}: ${perm}`);
    perms.push(perm.join(','));
  }
  assert.notDeepEqual(perms[0].split(',').map(Number), [...Array(count).keys()], 'shuffled');
  assert.equal(new Set(perms).size, cycles, 'each cycle has its own order');
  assert.deepEqual(sequence({ random: true, seed: 42 }), a);
  assert.notDeepEqual(sequence({ random: true, seed: 43 }), a);
  assert.notDeepEqual(sequence({ random: true }), a);
  assert.deepEqual(sequence({ random: true }), sequence({ random: true, seed: 0 }));
  // Seeds above 2^32 count too.
  assert.notDeepEqual(sequence({ random: true, seed: 2 ** 32 + 42 }), a);
  // Visited out of order, or from a later cycle back to an earlier one, the answers stay the same.
  const rowOf = feedOrder(count, { random: true, seed: 42 });
  for (const i of [250, 3, 299, 0, 100, 51, 51, 149]) assert.equal(rowOf(i), a[i]);
  // Small counts: each of 1 and 2 rows.
  const one = feedOrder(1, { random: true, seed: 5 });
  assert.deepEqual([one(0), one(1), one(7)], [0, 0, 0]);
  const two = feedOrder(2, { random: true, seed: 5 });
  for (let c = 0; c < 20; c++) assert.ok(isPermutation([two(2 * c), two(2 * c + 1)], 2));
});

test('feedOrder random: the same global sequence when the indexes are split across 2 processes', () => {
  const count = 37;
  const total = count * 5 + 11;
  const single = feedOrder(count, { random: true, seed: 7 });
  const whole = Array.from({ length: total }, (_, i) => single(i));
  // Two processes, each with its own rowOf, take every other index (stride 2, offsets 0 and 1).
  const merged = new Array(total);
  for (const offset of [0, 1]) {
    const rowOf = feedOrder(count, { random: true, seed: 7 });
    for (let i = offset; i < total; i += 2) merged[i] = rowOf(i);
  }
  assert.deepEqual(merged, whole);
  // And split in halves, the second process starting mid-cycle.
  const second = feedOrder(count, { random: true, seed: 7 });
  for (let i = Math.floor(total / 2); i < total; i++) assert.equal(second(i), whole[i]);
});

test('feedOrder random: rows are used evenly over many cycles', () => {
  const count = 10;
  const rowOf = feedOrder(count, { random: true, seed: 1 });
  const firsts = new Array(count).fill(0);
  for (let c = 0; c < 2000; c++) firsts[rowOf(c * count)]++;
  // Each row comes first in about a tenth of the cycles (200 ± a wide margin).
  for (const n of firsts) assert.ok(n > 120 && n < 280, `${firsts}`);
});

test('ndjson and csv held as bytes: sourceInto gives each cell as cell() does (escapes, numbers, null, nested, non-ASCII, a key twice)', () => {
  const text = '\ufeff{"a":"x\\"y","b":1.0,"c":null,"d":{"e":[1,"}"]},"é":"ü€😀"}\r\n\n  {"b":true,"a":"plain", "f": -2e3}\n{"2":"two","a":"","a":"last"}\n';
  const nd = parseFeed(text, 'x.ndjson');
  assert.deepEqual(nd.columns, ['a', 'b', 'c', 'd', 'é', 'f', '2']);
  assert.deepEqual(nd.rows, [
    ['x"y', '1', '', '{"e":[1,"}"]}', 'ü€😀', undefined, undefined],
    ['plain', 'true', undefined, undefined, undefined, '-2000', undefined],
    ['last', undefined, undefined, undefined, undefined, undefined, 'two'],
  ]);
  assert.equal(nd.where(2, 0), 'line 4 (a)');
  const csv = parseFeed(new TextEncoder().encode('id,name\n1,"é, ü"\n2,😀x\n'), 'x.csv');
  assert.deepEqual(csv.rows, [['1', 'é, ü'], ['2', '😀x']]);
  const spans = new Int32Array(2);
  for (const feed of [nd, csv]) {
    for (let r = 0; r < feed.count; r++) {
      for (let c = 0; c < feed.columns.length; c++) {
        const source = feed.sourceInto(r, c, spans, 0);
        const value = spans[0] < 0 ? source : new TextDecoder().decode(source.subarray(spans[0], spans[1]));
        assert.equal(value, feed.cell(r, c));
      }
    }
  }
});

// What an NDJSON feed was before it was read in its bytes: each line trimmed and given to
// JSON.parse, its keys the columns in Object.keys' order.
function ndjsonByParse(text) {
  const columns = [];
  const rows = [];
  for (const source of text.replace(/^\ufeff/, '').split('\n').map((l) => l.trim())) {
    if (source === '') continue;
    const value = JSON.parse(source);
    for (const key of Object.keys(value)) if (!columns.includes(key)) columns.push(key);
    rows.push(value);
  }
  const cell = (v) => (typeof v === 'string' ? v : v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));
  return { columns, rows: rows.map((o) => columns.map((k) => (Object.hasOwn(o, k) ? cell(o[k]) : undefined))) };
}

test('ndjson: lines read in their bytes give the rows and columns JSON.parse gives, and lines left to it too', () => {
  const lines = [
    '{"id":1,"name":"ann","ok":true,"no":false,"z":null}',
    ' \t{ "id" : -0 , "name" : "b\\u00e9\\n" ,"ok":1.50, "no":1e21, "z":123456789012345678 }\r',
    '\u000b{"id":123456789012345,"name":"x","big":-9007199254740993,"e":2E-7,"f":0.1}\u000c',
    '{}',
    '{"name":"nested","id":{"a":[1,{"b":"}"}]},"list":[1,"2"]}',
    '{"b":"first","3":"index","a\\u0062":"escaped key","ab":"plain key"}',
    '{"ab":"again","b":"twice","b":"last"}',
    '\u00a0{"nbsp":"around"}\u00a0',
    '\u00a0',
    '{"é":"ü€😀","id":0,"neg":-12,"frac":-0.5}',
    '{"__proto__":"p","constructor":"c","id":"\\"q\\""}',
    '{"id":"slash\\/","name":"\\\\"}',
    // Cells of 254, 255 and 400 bytes: a cell's size is kept up to 254, a longer one found again.
    `{"id":"${'x'.repeat(254)}","name":"${'y'.repeat(255)}","ok":"${'é'.repeat(200)}","no":${'9'.repeat(300)}}`,
  ];
  const text = lines.join('\n') + '\n';
  const want = ndjsonByParse(text);
  const feed = parseFeed(text, 'x.ndjson');
  assert.deepEqual(feed.columns, want.columns);
  assert.deepEqual(feed.rows, want.rows);
  const spans = new Int32Array(2);
  for (let r = 0; r < feed.count; r++) {
    for (let c = 0; c < feed.columns.length; c++) {
      const source = feed.sourceInto(r, c, spans, 0);
      assert.equal(spans[0] < 0 ? source : new TextDecoder().decode(source.subarray(spans[0], spans[1])), feed.cell(r, c));
    }
  }
  // The same lines in every order: the columns met in another order, the guesses wrong.
  for (let shift = 1; shift < lines.length; shift++) {
    const turned = [...lines.slice(shift), ...lines.slice(0, shift)].join('\n');
    const w = ndjsonByParse(turned);
    const f = parseFeed(turned, 'x.ndjson');
    assert.deepEqual(f.columns, w.columns);
    assert.deepEqual(f.rows, w.rows);
  }
});

test('ndjson: a line that is not JSON is refused as JSON.parse refuses it, though it starts as a plain one', () => {
  for (const bad of ['{"a":1,}', '{"a":tru}', '{"a":1}x', '{"a":"x\ty"}', '{"a":01}', '{"a":1.}', '{"a":-}', '{"a" 1}', '{"a":"\\x"}', '{"a":1', '{"a":"x']) {
    let message;
    try {
      JSON.parse(bad);
    } catch (e) {
      message = String(e.message).replace(/\s*[\r\n]+\s*/g, ' ');
    }
    assert.ok(message, bad);
    fails(() => parseFeed(`{"a":0}\n${bad}\n`, 'x.ndjson'), `x.ndjson: line 2: not JSON (${message})`);
  }
});
