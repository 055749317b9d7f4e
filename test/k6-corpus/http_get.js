// The smallest useful script: one VU fetches a page three times, with a header of its own.
import http from 'k6/http';

export const options = { iterations: 3 };

export default function () {
  http.get(`${__ENV.BASE}/get?q=plain`, { headers: { Accept: 'application/json' } });
}
