// http.setResponseCallback() in the init code is the VU's own, as each VU runs the init code for
// itself: found on deniskv/k6's samples/http_2.js, which expects 200 on VU 1 and 300 on the
// others (k6 counts half its requests failed; one callback for the whole run, the last VU's to
// be set, counted them all alike). It logs JSON.stringify(http) too: the module's constants, as
// k6 lists them (its TLS versions and OCSP answers).
import http from 'k6/http';

if (__VU == 1) {
  http.setResponseCallback(http.expectedStatuses(200));
} else {
  http.setResponseCallback(http.expectedStatuses(300));
}

export const options = {
  scenarios: {
    both: { executor: 'per-vu-iterations', vus: 2, iterations: 2 },
  },
  thresholds: {
    'http_reqs{expected_response:true}': ['count==6'],
    'http_reqs{expected_response:false}': ['count==6'],
  },
};

export default function () {
  if (__VU == 1 && __ITER == 0) console.log(JSON.stringify(http));
  http.get(`${__ENV.BASE}/get`);
  http.get(`${__ENV.BASE}/get`);
  http.get(`${__ENV.BASE}/status/300`);
}
