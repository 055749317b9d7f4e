// A script with no scenario and no shortcut runs one iteration of one VU, as k6 v1.3 runs it: a
// per-vu-iterations scenario named 'default', as exec.scenario.executor and exec.test.options
// tell.
import http from 'k6/http';
import exec from 'k6/execution';

export default function () {
  http.get(`${__ENV.BASE}/get`);
  console.log(`${exec.scenario.name} ${exec.scenario.executor}`);
  console.log(JSON.stringify(exec.test.options.scenarios));
}
