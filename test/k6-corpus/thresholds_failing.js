// A run whose thresholds do not all hold: failed requests and a failed check cross theirs, the
// others hold. k6 ends such a run with exit code 99.
import http from 'k6/http';
import { check } from 'k6';

export const options = {
  iterations: 5,
  thresholds: {
    http_req_failed: ['rate<0.1'],
    'checks{part:body}': ['rate==1'],
    'checks{part:status}': ['rate==1'],
    'http_req_duration{status:503}': ['max<5000'],
    iterations: ['count==5'],
    http_reqs: ['count>5'],
  },
};

export default function () {
  const res = http.get(`${__ENV.BASE}/status/503`);
  check(res, { 'is 503': (r) => r.status === 503 }, { part: 'status' });
  check(res, { 'has a body': (r) => r.body.length > 0 }, { part: 'body' });
}
