// Captures and checks on a response (src/requests/checks.js): specs validated with one-line errors,
// values taken from the JSON body, a header or a regex, checks with short stable reasons, any
// split of the head and body bytes, and the body parsed once however many read it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  parseCaptures,
  parseChecks,
  responseNeeds,
  responseView,
  ResponseView,
  applyCaptures,
  runCaptures,
  runChecks,
  checkAndCapture,
} from '../src/requests/checks.js';

const encoder = new TextEncoder();
const bytes = (s) => encoder.encode(s);

// The bytes of s cut at the given byte offsets.
function split(s, ...cuts) {
  const all = bytes(s);
  const out = [];
  let at = 0;
  for (const c of [...cuts, all.length]) {
    out.push(all.slice(at, c));
    at = c;
  }
  return out;
}

// Every cut into one-byte chunks: the harshest split.
const bytewise = (s) => Array.from(bytes(s), (b) => Uint8Array.of(b));

const HEAD = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Request-Id: abc-123\r\nSet-Cookie: a=1\r\nset-cookie: b=2\r\n\r\n';
const BODY = JSON.stringify({ data: { token: 'T0K', count: 3, ok: true, none: null, items: [{ id: 7 }, { id: 8, tags: ['x', 'y'] }], obj: { a: 1 } } });

function capture(spec, head = HEAD, body = BODY, status = 200) {
  const vars = {};
  const reason = applyCaptures(parseCaptures(spec, 'requests[0].capture'), status, [bytes(head)], [bytes(body)], vars);
  return { reason, vars };
}

function check(spec, { status = 200, head = HEAD, body = BODY } = {}) {
  return runChecks(parseChecks(spec, 'requests[0].check'), responseView(status, [bytes(head)], [bytes(body)]));
}

const throwsMessage = (fn, message) => assert.throws(fn, (e) => e instanceof Error && e.message === message && !e.message.includes('\n'));
const regexMessage = (source, flags) => {
  try {
    new RegExp(source, flags);
  } catch (e) {
    return e.message;
  }
  throw new Error(`/${source}/ compiles`);
};

test('json captures: keys, array indexes in both forms, strings as they are, other values as text', () => {
  const { reason, vars } = capture({
    token: { json: 'data.token' },
    id: { json: 'data.items.0.id' },
    id2: { json: 'data.items[1].id' },
    tag: { json: 'data.items[1].tags[1]' },
    count: { json: 'data.count' },
    ok: { json: 'data.ok' },
    none: { json: 'data.none' },
    obj: { json: 'data.obj' },
    tags: { json: 'data.items.1.tags' },
  });
  assert.equal(reason, null);
  assert.deepEqual(vars, { token: 'T0K', id: '7', id2: '8', tag: 'y', count: '3', ok: 'true', none: 'null', obj: '{"a":1}', tags: '["x","y"]' });
  // A body that is an array.
  assert.deepEqual(capture({ first: { json: '[0].id' } }, HEAD, '[{"id":"a"}]'), { reason: null, vars: { first: 'a' } });
});

test('json captures: a missing path, a path through a scalar, prototype keys and a body that is not JSON fail', () => {
  assert.deepEqual(capture({ token: { json: 'data.nope' } }), { reason: 'capture token: not found', vars: {} });
  assert.equal(capture({ token: { json: 'data.items.5.id' } }).reason, 'capture token: not found');
  assert.equal(capture({ token: { json: 'data.token.length' } }).reason, 'capture token: not found');
  assert.equal(capture({ token: { json: 'data.constructor' } }).reason, 'capture token: not found');
  assert.equal(capture({ token: { json: 'data.items.length' } }).reason, 'capture token: not found');
  assert.equal(capture({ token: { json: 'data.__proto__' } }).reason, 'capture token: not found');
  assert.equal(capture({ token: { json: 'data.items.01.id' } }).reason, 'capture token: not found');
  // Digits name an object's key as well as an array's index.
  assert.deepEqual(capture({ k: { json: 'm.0' }, z: { json: 'm.01' } }, HEAD, '{"m":{"0":"zero","01":"one"}}').vars, { k: 'zero', z: 'one' });
  assert.deepEqual(capture({ token: { json: 'data.token' } }, HEAD, '<html>nope</html>'), {
    reason: 'capture token: not found (the body is not JSON)',
    vars: {},
  });
  assert.equal(capture({ token: { json: 'data.token' } }, HEAD, '').reason, 'capture token: not found (the body is not JSON)');
});

test('header captures: any case, the first occurrence, trimmed, the final response after a 100 Continue', () => {
  assert.deepEqual(capture({ rid: { header: 'x-request-id' }, ct: { header: 'CONTENT-TYPE' }, cookie: { header: 'Set-Cookie' } }).vars, {
    rid: 'abc-123',
    ct: 'application/json',
    cookie: 'a=1',
  });
  assert.deepEqual(capture({ rid: { header: 'x-missing' } }), { reason: 'capture rid: not found', vars: {} });
  const interim = 'HTTP/1.1 100 Continue\r\nX-Early: 1\r\n\r\nHTTP/1.1 200 OK\r\nX-Late:   spaced value \t\r\n\r\n';
  assert.deepEqual(capture({ late: { header: 'x-late' } }, interim).vars, { late: 'spaced value' });
  assert.equal(capture({ early: { header: 'x-early' } }, interim).reason, 'capture early: not found');
  // An empty value is a value; an obs-fold line goes on with the previous one.
  assert.deepEqual(capture({ e: { header: 'x-empty' } }, 'HTTP/1.1 200 OK\r\nX-Empty:\r\n\r\n').vars, { e: '' });
  assert.deepEqual(capture({ f: { header: 'x-fold' } }, 'HTTP/1.1 200 OK\r\nX-Fold: one\r\n  two\r\nX-B: 1\r\n\r\n').vars, { f: 'one two' });
  // Bare LF line ends; the HTTP/2 driver's text head.
  assert.deepEqual(capture({ a: { header: 'x-a' } }, 'HTTP/1.1 200 OK\nX-A: 1\n\n').vars, { a: '1' });
  assert.deepEqual(capture({ a: { header: 'x-a' } }, 'HTTP/2 200\r\nx-a: 2\r\n').vars, { a: '2' });
});

test('regex captures: group 1 when there is a group, else the whole match; flags; an optional group that did not match', () => {
  const html = '<form><input name="csrf" value="s3cr3t"><input name="Other" value="x"></form>';
  assert.deepEqual(capture({ csrf: { regex: 'name="csrf" value="([^"]+)"' } }, HEAD, html).vars, { csrf: 's3cr3t' });
  assert.deepEqual(capture({ whole: { regex: 'value="[a-z0-9]+"' } }, HEAD, html).vars, { whole: 'value="s3cr3t"' });
  assert.deepEqual(capture({ named: { regex: 'name="(?<n>other)"', flags: 'i' } }, HEAD, html).vars, { named: 'Other' });
  assert.deepEqual(capture({ nogroup: { regex: '(?:name)="csrf"' } }, HEAD, html).vars, { nogroup: 'name="csrf"' });
  assert.equal(capture({ named: { regex: 'name="(other)"' } }, HEAD, html).reason, 'capture named: not found');
  assert.equal(capture({ opt: { regex: 'form>(x)?' } }, HEAD, html).reason, 'capture opt: not found');
  // A 'g' or 'y' flag does not carry lastIndex from one response to the next.
  const compiled = parseCaptures({ v: { regex: 'value="([^"]+)"', flags: 'gy' } }, 'c');
  for (let i = 0; i < 3; i++) {
    const vars = {};
    assert.equal(applyCaptures(compiled, 200, [], [bytes('value="v1" value="v2"')], vars), null);
    assert.deepEqual(vars, { v: 'v1' });
  }
});

test('a failed capture leaves the variables as they were; several found are all stored', () => {
  const vars = { token: 'old', keep: 'k' };
  const compiled = parseCaptures({ token: { json: 'data.token' }, rid: { header: 'x-nope' } }, 'c');
  assert.equal(applyCaptures(compiled, 200, [bytes(HEAD)], [bytes(BODY)], vars), 'capture rid: not found');
  assert.deepEqual(vars, { token: 'old', keep: 'k' });
  const ok = parseCaptures({ token: { json: 'data.token' }, rid: { header: 'x-request-id' } }, 'c');
  assert.equal(applyCaptures(ok, 200, [bytes(HEAD)], [bytes(BODY)], vars), null);
  assert.deepEqual(vars, { token: 'T0K', keep: 'k', rid: 'abc-123' });
  assert.equal(applyCaptures(null, 200, [], [], vars), null);
});

test('chunks split anywhere: inside a UTF-8 character, inside a header line, one byte each', () => {
  const body = JSON.stringify({ name: 'Zoë ☃ 𝄞', id: 42 });
  const head = 'HTTP/1.1 200 OK\r\nX-Request-Id: abc-123\r\nContent-Type: application/json\r\n\r\n';
  const snow = bytes(body).indexOf(0xe2); // ☃ is E2 98 83
  const clef = bytes(body).indexOf(0xf0); // 𝄞 is four bytes
  const headCut = head.indexOf('Request-Id') + 3;
  const spec = { name: { json: 'name' }, id: { json: 'id' }, rid: { header: 'x-request-id' }, word: { regex: '"(Zo. ☃ 𝄞)"' } };
  const want = { name: 'Zoë ☃ 𝄞', id: '42', rid: 'abc-123', word: 'Zoë ☃ 𝄞' };
  const splits = [
    [split(head, headCut), split(body, snow + 1, clef + 2, clef + 3)],
    [split(head, head.indexOf('\r\n') + 1, head.indexOf(': abc') + 1), split(body, 1)],
    [bytewise(head), bytewise(body)],
    [[bytes(head)], [bytes(body)]],
  ];
  for (const [headChunks, bodyChunks] of splits) {
    const vars = {};
    assert.equal(applyCaptures(parseCaptures(spec, 'c'), 200, headChunks, bodyChunks, vars), null);
    assert.deepEqual(vars, want);
    const checks = parseChecks({ header: { 'x-request-id': 'abc-123' }, body: '☃ 𝄞', json: { name: 'Zoë ☃ 𝄞' } }, 'k');
    assert.equal(runChecks(checks, responseView(200, headChunks, bodyChunks)), null);
  }
});

test('capture spec errors: one line each, naming the place', () => {
  const at = 'requests[0].capture';
  throwsMessage(() => parseCaptures({ token: {} }, at), `${at}.token: give one of json, header or regex`);
  throwsMessage(() => parseCaptures({ token: 'data.token' }, at), `${at}.token: give one of json, header or regex`);
  throwsMessage(() => parseCaptures({ token: null }, at), `${at}.token: give one of json, header or regex`);
  throwsMessage(() => parseCaptures({ token: { json: 'a', header: 'b' } }, at), `${at}.token: give only one of json, header or regex, not json and header`);
  throwsMessage(() => parseCaptures({ token: { jsonn: 'a' } }, at), `${at}.token: unknown key 'jsonn' (give one of json, header or regex)`);
  throwsMessage(() => parseCaptures({ token: { json: 'a', flags: 'i' } }, at), `${at}.token: flags go with regex only`);
  throwsMessage(() => parseCaptures({ '1x': { json: 'a' } }, at), `${at}: '1x' is not a variable name`);
  throwsMessage(() => parseCaptures({ 'a-b': { json: 'a' } }, at), `${at}: 'a-b' is not a variable name`);
  throwsMessage(() => parseCaptures(JSON.parse('{"__proto__": {"json": "a"}}'), at), `${at}: '__proto__' is not a variable name`);
  throwsMessage(() => parseCaptures([], at), `${at} must be an object of name: { json, header or regex }`);
  throwsMessage(() => parseCaptures('token', at), `${at} must be an object of name: { json, header or regex }`);
  const path = (p) => `${at}.t: '${p}' is not a json path (keys and indexes, such as data.items.0.id or data.items[0].id)`;
  for (const p of ['', 'a..b', '.a', 'a.', 'a[x]', 'a[0', 'a.[0]', 'a[0]b']) throwsMessage(() => parseCaptures({ t: { json: p } }, at), path(p));
  throwsMessage(() => parseCaptures({ t: { json: 3 } }, at), path(3));
  throwsMessage(() => parseCaptures({ t: { header: 'x id' } }, at), `${at}.t: 'x id' is not a header name`);
  throwsMessage(() => parseCaptures({ t: { header: '' } }, at), `${at}.t: '' is not a header name`);
  throwsMessage(() => parseCaptures({ csrf: { regex: 'value="([^"]+"' } }, at), `${at}.csrf: the regex does not compile (${regexMessage('value="([^"]+"')})`);
  assert.match(regexMessage('('), /^Invalid regular expression/);
  throwsMessage(() => parseCaptures({ csrf: { regex: 'a', flags: 'zz' } }, at), `${at}.csrf: the regex does not compile (${regexMessage('a', 'zz')})`);
  throwsMessage(() => parseCaptures({ csrf: { regex: 5 } }, at), `${at}.csrf: the regex must be a string`);
  throwsMessage(() => parseCaptures({ csrf: { regex: 'a', flags: 1 } }, at), `${at}.csrf: flags must be a string such as 'i'`);
  throwsMessage(() => parseCaptures({ ok: { json: 'a' }, bad: {} }, at), `${at}.bad: give one of json, header or regex`);
  assert.equal(parseCaptures(undefined, at), null);
  assert.equal(parseCaptures(null, at), null);
  assert.equal(parseCaptures({}, at), null);
});

test('status checks: a code, a list, a class, as numbers or strings', () => {
  assert.equal(check({ status: 200 }), null);
  assert.equal(check({ status: 200 }, { status: 503 }), 'check status: 503, expected 200');
  assert.equal(check({ status: [200, 201] }, { status: 201 }), null);
  assert.equal(check({ status: [200, 201] }, { status: 204 }), 'check status: 204, expected 200 or 201');
  assert.equal(check({ status: '2xx' }, { status: 299 }), null);
  assert.equal(check({ status: '2XX' }, { status: 404 }), 'check status: 404, expected 2xx');
  assert.equal(check({ status: ['2xx', 304, '404'] }, { status: 304 }), null);
  assert.equal(check({ status: ['2xx', 304, '404'] }, { status: 404 }), null);
  assert.equal(check({ status: ['2xx', 304] }, { status: 500 }), 'check status: 500, expected 2xx or 304');
  assert.equal(check({ status: '5xx' }, { status: 999 }), 'check status: 999, expected 5xx');
});

test('header checks: exact value, regex, present; any case in the spec and the response', () => {
  assert.equal(check({ header: { 'content-type': 'application/json', 'X-REQUEST-ID': true, 'x-request-id': { regex: '^[a-z]+-\\d+$' } } }), null);
  assert.equal(check({ header: { 'Content-Type': 'text/html' } }), "check header content-type: 'application/json', expected 'text/html'");
  const html = HEAD.replace('application/json', 'text/html');
  assert.equal(
    check({ header: { 'content-type': 'application/json' } }, { head: html }),
    "check header content-type: 'text/html', expected 'application/json'",
  );
  assert.equal(check({ header: { 'x-id': true } }), 'check header x-id: missing');
  assert.equal(check({ header: { 'x-id': 'a' } }), 'check header x-id: missing');
  assert.equal(check({ header: { 'x-id': { regex: 'a' } } }), 'check header x-id: missing');
  assert.equal(check({ header: { 'x-request-id': { regex: '^\\d+$' } } }), 'check header x-request-id: /^\\d+$/ did not match');
  assert.equal(check({ header: { 'x-request-id': { regex: '^ABC', flags: 'i' } } }), null);
  assert.equal(check({ header: { 'content-length': 5 } }, { head: 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n' }), null);
  // Long values are cut, so that a reason stays one short line.
  const long = 'x'.repeat(100);
  const longHead = `HTTP/1.1 200 OK\r\nX-A: ${long}\r\n\r\n`;
  assert.equal(check({ header: { 'x-a': 'b' } }, { head: longHead }), `check header x-a: '${'x'.repeat(60)}…', expected 'b'`);
});

test('body and bodyRegex checks', () => {
  assert.equal(check({ body: '"ok":true' }), null);
  assert.equal(check({ body: 'ok' }, { body: 'nope' }), "check body: 'ok' not found");
  assert.equal(check({ bodyRegex: '^\\{' }), null);
  assert.equal(check({ bodyRegex: '^\\{' }, { body: '<html>' }), 'check bodyRegex: /^\\{/ did not match');
  assert.equal(check({ bodyRegex: { regex: 'T0k', flags: 'i' } }), null);
  assert.equal(check({ bodyRegex: { regex: 'T0k' } }), 'check bodyRegex: /T0k/ did not match');
  assert.equal(check({ bodyRegex: { regex: 'a/b', flags: 'g' } }, { body: 'x' }), 'check bodyRegex: /a\\/b/g did not match');
  // A 'g' flag does not carry over to the next response.
  const checks = parseChecks({ bodyRegex: { regex: 'a', flags: 'g' } }, 'k');
  for (let i = 0; i < 3; i++) assert.equal(runChecks(checks, responseView(200, [], [bytes('a')])), null);
});

test('json checks: deep-equal at a path; reasons show only values from a small set', () => {
  const all = { 'data.ok': true, 'data.count': 3, 'data.items[1].tags': ['x', 'y'], 'data.obj': { a: 1 }, 'data.none': null, 'data.token': 'T0K' };
  assert.equal(check({ json: all }), null);
  assert.equal(check({ json: { 'data.ok': false } }), 'check json data.ok: true, expected false');
  assert.equal(check({ json: { 'data.none': 1 } }), 'check json data.none: null, expected 1');
  assert.equal(check({ json: { 'data.count': 4 } }), 'check json data.count: expected 4');
  assert.equal(check({ json: { 'data.token': 'other' } }), 'check json data.token: expected "other"');
  assert.equal(check({ json: { 'data.token': 3 } }), 'check json data.token: a string, expected 3');
  assert.equal(check({ json: { 'data.items': 3 } }), 'check json data.items: an array, expected 3');
  assert.equal(check({ json: { 'data.obj': [1] } }), 'check json data.obj: an object, expected [1]');
  assert.equal(check({ json: { 'data.obj': { a: 2 } } }), 'check json data.obj: expected {"a":2}');
  assert.equal(check({ json: { 'data.obj': { a: 1, b: 2 } } }), 'check json data.obj: expected {"a":1,"b":2}');
  assert.equal(check({ json: { 'data.items[1].tags': ['y', 'x'] } }), 'check json data.items[1].tags: expected ["y","x"]');
  assert.equal(check({ json: { 'data.missing': true } }), 'check json data.missing: missing, expected true');
  assert.equal(check({ json: { 'data.ok': true } }, { body: 'not json' }), 'check json data.ok: the body is not JSON');
  assert.equal(check({ json: { 'data.ok': 'x'.repeat(100) } }), `check json data.ok: true, expected "${'x'.repeat(59)}…`);
});

test('checks run in order and report the first failure', () => {
  const spec = { status: 200, header: { 'x-id': true }, body: 'zzz', json: { 'data.ok': false } };
  assert.equal(check(spec, { status: 500 }), 'check status: 500, expected 200');
  assert.equal(check(spec), 'check header x-id: missing');
  assert.equal(check({ body: 'zzz', json: { 'data.ok': false } }), "check body: 'zzz' not found");
  assert.equal(runChecks(null, responseView(500, [], [])), null);
});

test('check spec errors: one line each, naming the place', () => {
  const at = 'requests[0].check';
  throwsMessage(() => parseChecks({ stauts: 200 }, at), `${at}: unknown check 'stauts' (give status, header, body, bodyRegex or json)`);
  throwsMessage(() => parseChecks(200, at), `${at} must be an object of { status, header, body, bodyRegex, json }`);
  const status = (v) => `${at}.status: '${v}' is not a status (give a code such as 200, a class such as '2xx', or a list of them)`;
  for (const v of [99, 600, 200.5, '20x', '6xx', 'ok', '2xxx', true]) throwsMessage(() => parseChecks({ status: v }, at), status(v));
  throwsMessage(() => parseChecks({ status: [200, '7xx'] }, at), status('7xx'));
  throwsMessage(() => parseChecks({ status: [] }, at), `${at}.status: give at least one status`);
  throwsMessage(() => parseChecks({ header: 'content-type' }, at), `${at}.header must be an object of name: value`);
  throwsMessage(() => parseChecks({ header: { 'bad name': 'x' } }, at), `${at}.header: 'bad name' is not a header name`);
  for (const v of [false, null, {}, { regex: 'a', x: 1 }, ['a']]) {
    throwsMessage(() => parseChecks({ header: { 'x-a': v } }, at), `${at}.header.x-a: give the exact value, { regex } or true (present)`);
  }
  throwsMessage(() => parseChecks({ header: { 'x-a': { regex: '(' } } }, at), `${at}.header.x-a: the regex does not compile (${regexMessage('(')})`);
  throwsMessage(() => parseChecks({ body: 3 }, at), `${at}.body must be a string to find in the body`);
  throwsMessage(() => parseChecks({ body: '' }, at), `${at}.body must be a string to find in the body`);
  throwsMessage(() => parseChecks({ bodyRegex: '[' }, at), `${at}.bodyRegex: the regex does not compile (${regexMessage('[')})`);
  throwsMessage(() => parseChecks({ bodyRegex: { regex: 'a', flags: 'q' } }, at), `${at}.bodyRegex: the regex does not compile (${regexMessage('a', 'q')})`);
  throwsMessage(() => parseChecks({ bodyRegex: 5 }, at), `${at}.bodyRegex must be a regex source string or { regex, flags }`);
  throwsMessage(() => parseChecks({ bodyRegex: { source: 'a' } }, at), `${at}.bodyRegex must be a regex source string or { regex, flags }`);
  throwsMessage(() => parseChecks({ json: ['a'] }, at), `${at}.json must be an object of path: expected value`);
  const notPath = `${at}.json: 'a..b' is not a json path (keys and indexes, such as data.items.0.id or data.items[0].id)`;
  throwsMessage(() => parseChecks({ json: { 'a..b': 1 } }, at), notPath);
  for (const v of [undefined, NaN, () => 1, new Date(0), [1, undefined]]) {
    throwsMessage(() => parseChecks({ json: { 'a.b': v } }, at), `${at}.json.a.b: the expected value is not a JSON value`);
  }
  assert.equal(parseChecks(undefined, at), null);
  assert.equal(parseChecks({}, at), null);
  assert.equal(parseChecks({ header: {}, json: {} }, at), null);
});

test('responseNeeds: the head and the body are kept only when something reads them', () => {
  const c = (spec) => parseCaptures(spec, 'c');
  const k = (spec) => parseChecks(spec, 'k');
  assert.deepEqual(responseNeeds(null, null), { head: false, body: false });
  assert.deepEqual(responseNeeds(null, k({ status: 200 })), { head: false, body: false });
  assert.deepEqual(responseNeeds(c({ a: { header: 'x' } }), k({ status: 200 })), { head: true, body: false });
  assert.deepEqual(responseNeeds(c({ a: { json: 'x' } }), null), { head: false, body: true });
  assert.deepEqual(responseNeeds(c({ a: { regex: 'x' } }), null), { head: false, body: true });
  assert.deepEqual(responseNeeds(null, k({ header: { a: true } })), { head: true, body: false });
  assert.deepEqual(responseNeeds(null, k({ body: 'a' })), { head: false, body: true });
  assert.deepEqual(responseNeeds(null, k({ bodyRegex: 'a' })), { head: false, body: true });
  assert.deepEqual(responseNeeds(null, k({ json: { a: 1 } })), { head: false, body: true });
  assert.deepEqual(responseNeeds(c({ a: { header: 'x' } }), k({ json: { a: 1 } })), { head: true, body: true });
});

test('the view decodes the body and parses its JSON once for all the checks and captures', () => {
  const parse = JSON.parse;
  let parses = 0;
  JSON.parse = function (...args) {
    parses++;
    return parse.apply(this, args);
  };
  try {
    const checks = parseChecks({ status: 200, json: { 'data.ok': true, 'data.count': 3 }, body: 'T0K', bodyRegex: 'items' }, 'k');
    const captures = parseCaptures(
      { a: { json: 'data.token' }, b: { json: 'data.items.0.id' }, c: { regex: '"token":"([^"]+)"' }, d: { header: 'x-request-id' } },
      'c',
    );
    const view = responseView(200, split(HEAD, 20), split(BODY, 10, 30));
    assert.ok(view instanceof ResponseView);
    assert.equal(runChecks(checks, view), null);
    const vars = {};
    assert.equal(runCaptures(captures, view, vars), null);
    assert.deepEqual(vars, { a: 'T0K', b: '7', c: 'T0K', d: 'abc-123' });
    assert.equal(parses, 1);
    assert.equal(view.text, view.text);
    assert.equal(view.json, view.json);
    assert.equal(parses, 1);
    // Not JSON is found out once, too.
    parses = 0;
    const bad = responseView(200, [], [bytes('<html>')]);
    assert.equal(runChecks(parseChecks({ json: { a: 1, b: 2 } }, 'k'), bad), 'check json a: the body is not JSON');
    assert.equal(runCaptures(parseCaptures({ a: { json: 'a' }, b: { json: 'b' } }, 'c'), bad, {}), 'capture a: not found (the body is not JSON)');
    assert.equal(bad.json, undefined);
    assert.equal(parses, 1);
    // checkAndCapture shares one view too.
    parses = 0;
    const both = {};
    assert.equal(checkAndCapture(checks, captures, 200, [bytes(HEAD)], [bytes(BODY)], both), null);
    assert.deepEqual(both, vars);
    assert.equal(parses, 1);
  } finally {
    JSON.parse = parse;
  }
});

test('the view: header() in any case, text and json; JSON null is a value, an empty body is not JSON', () => {
  const view = responseView(201, split(HEAD, 3, 40), [bytes('null')]);
  assert.equal(view.status, 201);
  assert.equal(view.header('X-Request-ID'), 'abc-123');
  assert.equal(view.header('set-cookie'), 'a=1');
  assert.equal(view.header('x-nope'), undefined);
  assert.equal(view.text, 'null');
  assert.equal(view.json, null);
  assert.equal(responseView(200, [], []).json, undefined);
  assert.equal(responseView(200, [], []).header('a'), undefined);
});

test('checkAndCapture: checks first, and a failed check captures nothing', () => {
  const checks = parseChecks({ status: 200 }, 'k');
  const captures = parseCaptures({ token: { json: 'data.token' } }, 'c');
  const vars = {};
  assert.equal(checkAndCapture(checks, captures, 500, [], [bytes(BODY)], vars), 'check status: 500, expected 200');
  assert.deepEqual(vars, {});
  assert.equal(checkAndCapture(checks, captures, 200, [], [bytes(BODY)], vars), null);
  assert.deepEqual(vars, { token: 'T0K' });
  assert.equal(checkAndCapture(null, null, 200, null, null, vars), null);
  assert.equal(checkAndCapture(checks, null, 200, null, null, vars), null);
  assert.equal(checkAndCapture(null, captures, 200, [], [bytes('{}')], vars), 'capture token: not found');
});
