// setup() fetches a token once; each VU gets a copy of its data, which that VU's iterations
// share (a change made in one is seen by the next); teardown() sees the data as setup returned it.
import http from 'k6/http';
import { check } from 'k6';

export const options = {
  scenarios: { main: { executor: 'per-vu-iterations', vus: 2, iterations: 2 } },
};

const BASE = __ENV.BASE;

export function setup() {
  const res = http.post(`${BASE}/post`, JSON.stringify({ user: 'setup-user' }), { headers: { 'Content-Type': 'application/json' } });
  check(res, { 'setup logged in': (r) => r.status === 200 });
  return { token: `tok-${res.json('json.user')}`, uses: 0 };
}

export default function (data) {
  const res = http.get(`${BASE}/bearer`, { headers: { Authorization: `Bearer ${data.token}` } });
  check(res, {
    'token accepted': (r) => r.status === 200 && r.json('token') === 'tok-setup-user',
    'first iteration of its VU': () => data.uses === 0,
  });
  data.uses++;
}

export function teardown(data) {
  const res = http.del(`${BASE}/delete?token=${data.token}`);
  check(res, { 'teardown logged out': (r) => r.status === 200 });
  check(data, { 'teardown sees setup data': (d) => d.token === 'tok-setup-user' && d.uses === 0 });
}
