// bench/scripts.sh, memory: 5000 VUs each doing http.get + check + sleep(1) for 15 s.
import http from 'k6/http';
import { check, sleep } from 'k6';

export const options = { vus: 5000, duration: '15s' };

export default function () {
  const res = http.get(__ENV.URL);
  check(res, { 'status is 200': (r) => r.status === 200 });
  sleep(1);
}
