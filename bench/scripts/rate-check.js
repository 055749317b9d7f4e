// bench/scripts.sh, rate with a check: the shape of most real scripts, a request to a URL made
// from a template literal and a check of its status (10 VUs for 5 s unless flags say otherwise).
import http from 'k6/http';
import { check } from 'k6';

export const options = { vus: 10, duration: '5s' };

const BASE = __ENV.BASE || __ENV.URL.replace(/\/$/, '');

export default function () {
  const id = __ITER % 100;
  const res = http.get(`${BASE}/items/${id}`);
  check(res, { 'status is 200': (r) => r.status === 200 });
}
