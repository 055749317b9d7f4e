// Basic authentication from credentials in the URL, the right ones and wrong ones (a 401, which
// counts as a failed request).
import http from 'k6/http';
import { check } from 'k6';

export const options = { iterations: 2 };

// BASE has no credentials: put them in after the scheme.
const withCredentials = (user, pass) => __ENV.BASE.replace('://', `://${user}:${pass}@`);

export default function () {
  const good = http.get(`${withCredentials('grace', 'hopper')}/basic-auth/grace/hopper`);
  check(good, {
    'right password: 200': (r) => r.status === 200,
    'right password: authenticated': (r) => r.json('authenticated') === true,
    'right password: user': (r) => r.json('user') === 'grace',
  });

  const bad = http.get(`${withCredentials('grace', 'nope')}/basic-auth/grace/hopper`);
  check(bad, {
    'wrong password: 401': (r) => r.status === 401,
    'wrong password: challenge': (r) => r.headers['Www-Authenticate'] === 'Basic realm="Fake Realm"',
  });

  const none = http.get(`${__ENV.BASE}/basic-auth/grace/hopper`);
  check(none, { 'no credentials: 401': (r) => r.status === 401 });
}
