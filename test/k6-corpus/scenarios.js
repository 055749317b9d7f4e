// Two scenarios side by side: per-vu-iterations (each VU its own count) and shared-iterations
// (one count for all VUs), each with its own function, tags and environment, and one starting
// later. Paths carry iteration numbers, so the server's counts show which ran.
import http from 'k6/http';
import { check } from 'k6';
import exec from 'k6/execution';

export const options = {
  scenarios: {
    browse: { executor: 'per-vu-iterations', vus: 2, iterations: 3, exec: 'browse', tags: { flow: 'browse' } },
    buy: { executor: 'shared-iterations', vus: 3, iterations: 5, exec: 'buy', startTime: '100ms', env: { ITEM: 'lamp' } },
  },
  thresholds: {
    'http_reqs{scenario:browse}': ['count==6'],
    'http_reqs{flow:browse}': ['count==6'],
    'http_reqs{scenario:buy}': ['count==5'],
    'iterations{scenario:buy}': ['count==5'],
    checks: ['rate==1'],
  },
};

const BASE = __ENV.BASE;

export function browse() {
  const res = http.get(`${BASE}/anything/browse/${exec.vu.iterationInScenario}`);
  check(res, { 'browse is its scenario': () => exec.scenario.name === 'browse' && exec.scenario.executor === 'per-vu-iterations' });
}

export function buy() {
  const res = http.post(`${BASE}/anything/buy/${__ENV.ITEM}/${exec.scenario.iterationInTest}`);
  check(res, { 'buy is its scenario': () => exec.scenario.name === 'buy' && exec.scenario.executor === 'shared-iterations' });
}
