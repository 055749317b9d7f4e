// bench/scripts.sh, arrival rate: iterations started at a fixed rate whatever the server does
// (the open model), each an http.get, on VUs allocated beforehand.
import http from 'k6/http';

export const options = {
  scenarios: {
    arrival: { executor: 'constant-arrival-rate', rate: Number(__ENV.RATE || 5000), timeUnit: '1s', duration: '10s', preAllocatedVUs: 100, maxVUs: 400 },
  },
  summaryTrendStats: ['avg', 'p(99)'],
};

export default function () {
  http.get(__ENV.URL);
}
