// Which responses count as failed (http_req_failed): a response callback for the whole script
// (http.setResponseCallback with expectedStatuses), one for a request, and none at all.
import http from 'k6/http';
import { check } from 'k6';

http.setResponseCallback(http.expectedStatuses(200, { min: 400, max: 404 }));

export const options = {
  iterations: 2,
  thresholds: {
    http_req_failed: ['rate<0.5'],
    'http_reqs{expected_response:false}': ['count==4'],
    'http_reqs{expected_response:true}': ['count==6'],
    'http_req_duration{expected_response:true}': ['max<5000'],
  },
};

const BASE = __ENV.BASE;

export default function () {
  http.get(`${BASE}/status/200`);
  http.get(`${BASE}/status/404`); // expected: in 400-404
  http.get(`${BASE}/status/500`); // failed
  http.get(`${BASE}/status/201`); // failed: only 200 and 400-404 are expected
  const own = http.get(`${BASE}/status/503`, { responseCallback: http.expectedStatuses(503) });
  check(own, { 'a 503 that was expected': (r) => r.status === 503 });
  http.get(`${BASE}/status/418`, { responseCallback: null }); // neither
}
