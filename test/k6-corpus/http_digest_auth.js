// Digest authentication ({ auth: 'digest' } with the credentials in the URL): a first request
// draws the 401 challenge, a second answers it. The challenge's 401 is not a failed request.
import http from 'k6/http';
import { check } from 'k6';

export const options = { iterations: 2 };

const withCredentials = (user, pass) => __ENV.BASE.replace('://', `://${user}:${pass}@`);

export default function () {
  const res = http.get(`${withCredentials('user', 'passwd')}/digest-auth/auth/user/passwd`, { auth: 'digest' });
  check(res, {
    'digest: 200': (r) => r.status === 200,
    'digest: authenticated': (r) => r.json('authenticated') === true,
    'digest: user': (r) => r.json('user') === 'user',
  });

  const wrong = http.get(`${withCredentials('user', 'wrong')}/digest-auth/auth/user/passwd`, { auth: 'digest' });
  check(wrong, { 'digest, wrong password: 401': (r) => r.status === 401 });
}
