// res.timings as k6 gives it (its keys in the order of k6's, `looking_up` among them, found
// logging the timings of an http.batch in Larsdotpy/Get-started-with-K6's
// 05-Parallel-requests-in-k6.js), and a Trend's samples of 0 kept as 0: the connecting time of
// every request on a kept connection, whose median k6 shows as 0s.
import http from 'k6/http';
import { Trend } from 'k6/metrics';

const queued = new Trend('queued', true);

export const options = {
  iterations: 5,
  thresholds: {
    http_req_connecting: ['med==0', 'p(75)==0'],
    queued: ['med==0', 'min==0', 'max==4'],
  },
};

export default function () {
  const [res] = http.batch([['GET', `${__ENV.BASE}/get`]]);
  if (__ITER === 0) {
    console.log(Object.keys(res.timings).join(' '));
    console.log(`looking_up ${res.timings.looking_up}`);
    const failed = http.get('http://127.0.0.1:1/');
    console.log(`failed: ${Object.keys(failed.timings).join(' ')}`);
  }
  queued.add(__ITER === 4 ? 4 : 0);
}
