// Thresholds that all hold: on counts, on rates, on a tagged sub-metric, and latency bounds so
// loose that any machine meets them. The run exits 0.
import http from 'k6/http';
import { check } from 'k6';

export const options = {
  vus: 2,
  iterations: 6,
  thresholds: {
    http_reqs: ['count==12'],
    'http_reqs{name:front}': ['count==6'],
    http_req_duration: ['p(95)<5000', 'max<10000'],
    'http_req_duration{status:200}': ['p(90)<5000'],
    'http_req_duration{status:404}': ['avg<5000'],
    http_req_failed: ['rate<0.6'],
    checks: [{ threshold: 'rate==1', abortOnFail: true }],
    iterations: ['count>=6'],
  },
};

export default function () {
  const res = http.get(`${__ENV.BASE}/get`, { tags: { name: 'front' } });
  check(res, { 'front page answers': (r) => r.status === 200 });
  http.get(`${__ENV.BASE}/status/404`);
}
