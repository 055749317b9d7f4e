// console in a script: k6 writes each call as a line of its log on stderr, with the level
// (console.log and info: info, warn: warning, error: error; console.debug only with -v), the
// arguments joined by spaces and anything but a string as JSON. Logged from the init code (its
// messages begin with 'init': k6 runs it once per VU and for a few instances of its own), from
// setup() and from iterations.
import http from 'k6/http';

export const options = { iterations: 2 };

console.log('init code runs');

export function setup() {
  console.info('setup', 'starts');
  return { run: 7 };
}

export default function (data) {
  const res = http.get(`${__ENV.BASE}/get`);
  console.log('status', res.status, 'run', data.run);
  console.info('info line');
  console.warn('warn line');
  console.error('error line');
  console.debug('debug line');
  console.log({ answer: 42, list: [1, 'two'] }, [null], null, undefined, 2.5, false);
  console.log('single_word');
  console.log('say "hi"\tthen\nleave');
  console.log(new Error('oops'));
}
