// Tags: from the options (on every sample), from a request's params, from a group, from
// http.url's template, and on a check; each made visible by a threshold on its sub-metric.
import http from 'k6/http';
import { check, group } from 'k6';

export const options = {
  iterations: 3,
  tags: { suite: 'corpus' },
  thresholds: {
    'http_reqs{suite:corpus}': ['count==12'],
    'http_reqs{page:front}': ['count==3'],
    'http_reqs{group:::shop}': ['count==6'],
    'http_reqs{name:item}': ['count==6'],
    'http_reqs{name:${}/anything/user/${}}': ['count==3'],
    'checks{kind:profile}': ['rate==1'],
    'http_reqs{method:GET}': ['count==12'],
    'http_reqs{page:back}': ['count==0'],
  },
};

const BASE = __ENV.BASE;

export default function () {
  http.get(`${BASE}/get`, { tags: { page: 'front' } });
  group('shop', function () {
    for (const id of [1, 2]) http.get(`${BASE}/anything/item/${id}`, { tags: { name: 'item' } });
  });
  const res = http.get(http.url`${BASE}/anything/user/${__ITER}`);
  check(res, { 'profile answers': (r) => r.status === 200 }, { kind: 'profile' });
}
