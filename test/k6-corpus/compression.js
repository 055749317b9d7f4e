// Compressed bodies both ways: a response whose Content-Encoding is gzip, deflate or br is read
// decompressed whatever the request asked (as text, as binary, or not at all); one that does not
// decompress fails the request (1701); a request's `compression` param compresses its body and
// says so in Content-Encoding, unless the script's own header says otherwise. Params k6 cannot
// parse (a coding, a timeout, a responseType) fail the call with no request sent. zstd is left
// out: node 20 has no zstd (test/script-compression.test.js covers it where the runtime has it).
import http from 'k6/http';
import { check } from 'k6';
import { Counter } from 'k6/metrics';

export const options = { iterations: 2 };

const refusals = new Counter('refused_calls');

export default function () {
  const B = __ENV.BASE;
  for (const [path, key, coding] of [['/gzip', 'gzipped', 'gzip'], ['/deflate', 'deflated', 'deflate'], ['/brotli', 'brotli', 'br']]) {
    const r = http.get(`${B}${path}`);
    check(r, {
      [`${coding}: decompressed`]: (x) => x.json(key) === true && x.json('method') === 'GET',
      [`${coding}: the header kept`]: (x) => x.headers['Content-Encoding'] === coding,
      [`${coding}: nothing asked`]: (x) => x.json('headers.Accept-Encoding') === undefined,
    });
  }
  const asked = http.get(`${B}/gzip-if-asked`, { headers: { 'Accept-Encoding': 'gzip, deflate, br' } });
  check(asked, {
    'asked: compressed': (x) => x.headers['Content-Encoding'] === 'gzip',
    'asked: decompressed': (x) => x.json('gzipped') === true,
  });
  const plain = http.get(`${B}/gzip-if-asked`);
  check(plain, { 'not asked: not compressed': (x) => x.headers['Content-Encoding'] === undefined && x.json('gzipped') === false });

  const bin = http.get(`${B}/gzip`, { responseType: 'binary' });
  check(bin, {
    'binary: an ArrayBuffer': (x) => x.body instanceof ArrayBuffer,
    'binary: decompressed': (x) => new Uint8Array(x.body)[0] === 0x7b && JSON.parse(String.fromCharCode(...new Uint8Array(x.body))).gzipped === true,
  });
  const none = http.get(`${B}/gzip`, { responseType: 'none' });
  check(none, { 'none: no body': (x) => x.body === null && x.status === 200 });

  const bad = http.get(`${B}/bad-gzip`);
  check(bad, {
    'bad gzip: failed': (x) => x.status === 0 && x.error_code === 1701,
    'bad gzip: in k6 words': (x) => x.error === 'error decompressing response body (error decompressing response body (gzip: invalid header))',
    'bad gzip: no headers': (x) => Object.keys(x.headers).length === 0 && x.body === null,
  });

  const payload = JSON.stringify({ hello: 'world', list: [1, 2, 3] });
  for (const compression of ['gzip', 'deflate', 'br', 'gzip, br', ' deflate ']) {
    const r = http.post(`${B}/post`, payload, { headers: { 'Content-Type': 'application/json' }, compression });
    const said = compression.trim();
    check(r, {
      [`compression '${compression}': the body arrives`]: (x) => x.json('data') === payload,
      [`compression '${compression}': said`]: (x) => x.json('headers.Content-Encoding') === said,
      [`compression '${compression}': res.request as given`]: (x) => x.request.body === payload && x.request.headers['Content-Encoding'][0] === said,
    });
  }
  const empty = http.post(`${B}/post`, payload, { compression: '' });
  check(empty, { "compression '': none": (x) => x.json('data') === payload && x.json('headers.Content-Encoding') === undefined });
  const same = http.post(`${B}/post`, 'abc', { headers: { 'Content-Encoding': 'gzip' }, compression: 'gzip' });
  check(same, { 'own header, the same coding': (x) => x.json('data') === 'abc' });
  const form = http.post(`${B}/post`, { a: 1, b: 'two' }, { compression: 'gzip' });
  check(form, { 'a form compressed': (x) => x.json('form.b') === 'two' && x.json('headers.Content-Type') === 'application/x-www-form-urlencoded' });
  const get = http.get(`${B}/get`, { compression: 'gzip' });
  check(get, { 'no body, nothing to compress': (x) => x.json('headers.Content-Encoding') === undefined });

  for (const [what, params] of [['coding', { compression: 'lzw' }], ['timeout', { timeout: 'soon' }], ['responseType', { responseType: 'json' }]]) {
    const r = http.post(`${B}/post`, 'x', params);
    if (r.status === 0 && r.error_code === 0 && r.error !== '') refusals.add(1, { what });
  }
  const refused = http.post(`${B}/post`, 'x', { compression: 'lzw' });
  check(refused, { 'unknown coding: k6 words': (x) => x.error === 'unknown compression algorithm lzw, supported algorithms are [gzip deflate zstd br]' });
  const timeout = http.get(`${B}/get`, { timeout: '1m30s' });
  check(timeout, { 'a timeout of two units': (x) => x.status === 200 });
}
