// Redirects: the script-wide limit (maxRedirects), a per-request { redirects: n } over it, none
// at all with { redirects: 0 }, and what a redirected POST becomes (303: a GET, 307: still a POST).
import http from 'k6/http';
import { check } from 'k6';

export const options = { iterations: 2, maxRedirects: 2 };

const BASE = __ENV.BASE;

export default function () {
  // Three hops would be needed; two are allowed, so the third redirect is what comes back.
  let res = http.get(`${BASE}/redirect/3`);
  check(res, {
    'limit reached: a 302': (r) => r.status === 302,
    'limit reached: its url': (r) => r.url === `${BASE}/relative-redirect/1`,
  });

  res = http.get(`${BASE}/redirect/2`);
  check(res, { 'two hops: landed on /get': (r) => r.status === 200 && r.url === `${BASE}/get` });

  res = http.get(`${BASE}/redirect/4`, { redirects: 5 });
  check(res, { 'per-request limit wins': (r) => r.status === 200 });

  res = http.get(`${BASE}/redirect/1`, { redirects: 0 });
  check(res, {
    'not followed': (r) => r.status === 302,
    'location visible': (r) => r.headers['Location'] === '/get',
  });

  res = http.post(`${BASE}/redirect-to?url=/get&status_code=303`, { a: '1' });
  check(res, { '303 turns a POST into a GET': (r) => r.status === 200 && r.json('method') === 'GET' });

  res = http.post(`${BASE}/redirect-to?url=/post&status_code=307`, { a: '2' });
  check(res, { '307 keeps the POST and its body': (r) => r.status === 200 && r.json('form.a') === '2' });
}
