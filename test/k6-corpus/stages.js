// ramping-vus through stages: up to three VUs, held, then down to none. Each iteration outlasts
// the stages (with 400 ms to spare either way), so each VU runs exactly one, finished while
// ramping down (within gracefulRampDown): the counts come out the same on a slow machine too.
import http from 'k6/http';
import { check, sleep } from 'k6';

export const options = {
  stages: [
    { duration: '200ms', target: 3 },
    { duration: '400ms', target: 3 },
    { duration: '200ms', target: 0 },
  ],
  thresholds: { vus_max: ['value==3'] },
};

export default function () {
  const res = http.get(`${__ENV.BASE}/anything/vu/${__VU}`);
  check(res, { 'ramped VU answered': (r) => r.status === 200 });
  sleep(1.2);
}
