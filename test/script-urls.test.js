// k6/http's URLs parsed once (src/script/k6/http/url/request-url.js parsedURL): a table of recent URLs by a hash
// of a few characters sits before the map, so strings that share a slot, or that differ only
// where the hash does not look, must still each get their own URL.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsedURL, unsendableReason } from '../src/script/k6/http/url/request-url.js';

test('each URL string gets its own parsed URL, template-made or not, however their slots fall', () => {
  // A seeded generator: the same strings each run. Ids in the middle and at the end, equal
  // lengths and endings (the hash reads the length, the last four characters and two more), many
  // more strings than the table's slots, each asked for several times in turn.
  let seed = 7;
  const rand = (n) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  const base = 'http://127.0.0.1:8089';
  const texts = [];
  for (let i = 0; i < 3000; i++) {
    const id = rand(5000);
    const shape = i % 4;
    texts.push(shape === 0 ? `${base}/items/${id}` : shape === 1 ? `${base}/users/${id}/profile` : shape === 2 ? `${base}/q?a=${id}&b=1` : `https://h${rand(9)}.test/${'x'.repeat(rand(40))}/${id}`);
  }
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < texts.length; i++) {
      const text = texts[(i * 7 + round * 131) % texts.length];
      // A fresh string each time, as a template literal makes.
      const fresh = `${text.slice(0, 10)}${text.slice(10)}`;
      const url = parsedURL(fresh);
      assert.equal(url.href, new URL(text).href, text);
      assert.equal(parsedURL(text), url, 'the same URL object for the same text');
    }
  }
});

test('a string that is not an http(s) URL is refused or unsendable as Go reads it, whatever its slot holds', () => {
  parsedURL('http://a.test/abcd');
  // Go parses them, its client cannot send them: a request that fails (k6 v2.2.0's words).
  assert.equal(unsendableReason(parsedURL('ftp://a.test/abcd')), 'unsupported protocol scheme "ftp"');
  assert.equal(unsendableReason(parsedURL('no url')), 'unsupported protocol scheme ""');
  assert.equal(unsendableReason(parsedURL('')), 'unsupported protocol scheme ""');
  assert.equal(unsendableReason(parsedURL('http://a.test/abcd')), undefined);
  // Go does not parse it: refused.
  assert.throws(() => parsedURL('http://[::1'), /missing '\]' in host/);
});
