// A CommonJS module with a `return` at its top level, imported by name and required, as k6 runs
// it: found on wk-j/k6-upload's k6/upload.js, which imports jslib's formdata/0.0.2 (a module
// that begins `if (exports.FormData) return;`) for a multipart upload.
import http from 'k6/http';
import { check } from 'k6';
import { Multipart, loaded } from './lib/guarded.js';

const required = require('./lib/guarded.js');

export const options = { iterations: 2 };

export default function () {
  const fd = new Multipart();
  fd.append('Id', 'someValue');
  fd.append('note', 'hello');
  const res = http.post(`${__ENV.BASE}/post`, fd.body(), { headers: { 'Content-Type': `multipart/form-data; boundary=${fd.boundary}` } });
  check(res, {
    'is status 200': (r) => r.status === 200,
    'sent whole': (r) => r.json('headers.Content-Length') === String(fd.body().length),
  });
  console.log(`loaded ${loaded}, the same exports required: ${required.Multipart === Multipart}`);
}
