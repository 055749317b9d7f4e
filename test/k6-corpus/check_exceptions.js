// check() when a check's function throws, and when one is written async, as k6 v1.3 has them:
// each check is recorded as it runs, one that throws is recorded as failed and its exception
// ends the check (the checks after it are not run); an async function is refused. Found on
// steve-nickerson/k6-play's cookies/cookie-attributes.js, whose check reads res.cookies of a
// response that set none.
import http from 'k6/http';
import { check } from 'k6';

export const options = { iterations: 3 };

export default function () {
  const res = http.get(`${__ENV.BASE}/cookies`);
  try {
    check(res, {
      'status is 200': (r) => r.status === 200,
      'has a session cookie': (r) => r.cookies.session[0].value !== '',
      'never run': () => true,
    });
  } catch (e) {
    console.log(`caught a TypeError: ${e instanceof TypeError}`);
  }
  try {
    check(res, { 'plain before': (r) => r.status === 200, 'async check': async (r) => r.status === 200, 'plain after': () => true });
  } catch (e) {
    console.log(`refused: ${e.message.split('.')[0]}`);
  }
  if (__ITER === 2) check(res, { 'uncaught': (r) => r.json().cookies.session.length > 0 });
  console.log(`iteration ${__ITER} ended`);
}
