import http from 'k6/http';
import { check, group, sleep } from 'k6';
import { Counter, Trend } from 'k6/metrics';
const myCounter = new Counter('my_counter');
const myTrend = new Trend('my_trend', true);
export const options = { scenarios: { s: { executor: 'shared-iterations', vus: 3, iterations: 30 } }, thresholds: { 'http_req_duration{name:items}': ['p(95)<500'] } };
export default function () {
  group('list', () => {
    const r = http.get(`${__ENV.BASE}/items/${__ITER % 3}`, { tags: { name: 'items' } });
    check(r, { 'is 200': (x) => x.status === 200 });
    myCounter.add(1, { kind: 'a' });
    myTrend.add(r.timings.duration);
  });
  http.post(`${__ENV.BASE}/login`, { user: "x" });
  sleep(0.3);
}
