// One request of each verb, in a group of its name, each checked against what the server saw.
import http from 'k6/http';
import { check, group } from 'k6';

export const options = { iterations: 2 };

const BASE = __ENV.BASE;
const asJson = { headers: { 'Content-Type': 'application/json' } };

export default function () {
  group('GET', function () {
    const res = http.get(`${BASE}/get?verb=get`);
    check(res, { 'GET echoed': (r) => r.json('args.verb') === 'get' });
  });
  group('POST', function () {
    const res = http.post(`${BASE}/post`, { verb: 'post' });
    check(res, { 'POST form echoed': (r) => r.json('form.verb') === 'post' });
  });
  group('PUT', function () {
    const res = http.put(`${BASE}/put`, JSON.stringify({ verb: 'put' }), asJson);
    check(res, { 'PUT json echoed': (r) => r.json('json.verb') === 'put' });
  });
  group('PATCH', function () {
    const res = http.patch(`${BASE}/patch`, JSON.stringify({ verb: 'patch' }), asJson);
    check(res, { 'PATCH json echoed': (r) => r.json('json.verb') === 'patch' });
  });
  group('DELETE', function () {
    const res = http.del(`${BASE}/delete?verb=delete`);
    check(res, { 'DELETE echoed': (r) => r.json('args.verb') === 'delete' && r.json('method') === 'DELETE' });
  });
  group('OPTIONS', function () {
    const res = http.options(`${BASE}/get`);
    check(res, {
      'OPTIONS answered': (r) => r.status === 200,
      'Allow lists GET': (r) => r.headers['Allow'].indexOf('GET') >= 0,
    });
  });
  group('HEAD', function () {
    const res = http.head(`${BASE}/get`);
    check(res, {
      'HEAD answered': (r) => r.status === 200,
      'HEAD has no body': (r) => !r.body,
      'HEAD has the length': (r) => Number(r.headers['Content-Length']) > 0,
    });
  });
  group('request()', function () {
    const res = http.request('PUT', `${BASE}/anything/thing`, 'raw text');
    check(res, { 'generic request': (r) => r.json('method') === 'PUT' && r.json('data') === 'raw text' });
  });
}
