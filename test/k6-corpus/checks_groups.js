// check() with passing and failing checks, values instead of functions, its return value; nested
// groups and what group() returns; an exception in a group ending one iteration early.
import http from 'k6/http';
import { check, group, fail } from 'k6';
import exec from 'k6/execution';

export const options = {
  vus: 2,
  iterations: 4,
  thresholds: {
    checks: ['rate>0.5'],
    'checks{group:::cart::pay}': ['rate==1'],
    'group_duration{group:::cart}': ['max<5000'],
  },
};

const BASE = __ENV.BASE;

export default function () {
  const res = http.get(`${BASE}/json`);
  const all = check(res, {
    'status 200': (r) => r.status === 200,
    'json content type': (r) => r.headers['Content-Type'] === 'application/json',
    'claims to be xml': (r) => r.headers['Content-Type'].indexOf('xml') >= 0,
  });
  check(all, { 'check() is false when one fails': (v) => v === false });
  check(null, { 'a true value': true, 'a zero value': 0 });

  const total = group('cart', function () {
    http.get(`${BASE}/anything/cart`);
    const paid = group('pay', function () {
      const r = http.post(`${BASE}/anything/pay`, { amount: '12' });
      check(r, { 'paid': (x) => x.json('form.amount') === '12' });
      return 12;
    });
    return paid + 1;
  });
  check(total, { 'group returns its function value': (v) => v === 13 });

  group('risky', function () {
    if (exec.scenario.iterationInTest === 3) fail('gave up on the last iteration');
    http.get(`${BASE}/anything/risky`);
  });
  check(null, { 'after risky': () => true });
}
