// A CommonJS module that requires k6's modules.
const http = require('k6/http');
const { check } = require('k6');

let count = 0;

function tally(base) {
  count++;
  const res = http.post(`${base}/post`, JSON.stringify({ vu: __VU, count }));
  check(res, { 'tally posted': (r) => r.status === 200 });
  return count;
}

module.exports = { tally };
