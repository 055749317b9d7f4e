// exec.test.options as k6 gives it: the options consolidated, the shortcuts (vus, iterations,
// duration) turned into the scenario named 'default' that they make, each of its executor's
// keys there (null where not given, durations in Go's form), frozen. Found on
// authgear/authgear-server's k6/login.js, whose setup() reads
// exec.test.options.scenarios.default.vus to sign up one user for each VU (here it was
// undefined: the options were the script's own, with no scenarios).
import http from 'k6/http';
import exec from 'k6/execution';

export const options = { vus: 2, iterations: 4, duration: '1m', tags: { team: 'auth' } };

export function setup() {
  const vus = exec.test.options.scenarios.default.vus;
  for (let i = 1; i <= vus; ++i) http.post(`${__ENV.BASE}/post`, { signup: `user${i}` });
  console.log(JSON.stringify(exec.test.options.scenarios));
  console.log(`shortcuts left: ${['vus', 'iterations', 'duration', 'stages'].filter((k) => k in exec.test.options).join(',')}`);
  console.log(`frozen: ${Object.isFrozen(exec.test.options.scenarios.default)}, tags ${JSON.stringify(exec.test.options.tags)}`);
}

export default function () {
  http.get(`${__ENV.BASE}/get?vu=${exec.vu.idInTest <= exec.test.options.scenarios[exec.scenario.name].vus}`);
}
