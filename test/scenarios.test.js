// A script's scenarios and options (src/script/scenarios/scenarios.js, options.js), as k6 v1.3 reads them.

// The options' checks are the core's pure logic: under node (scope.js).
import { oneRuntimeTest as test } from './scope.js';
import assert from 'node:assert/strict';
import { scenariosOf } from '../src/script/scenarios/scenarios.js';
import { checkOptions } from '../src/script/scenarios/options.js';

test('whole numbers given as strings of digits are numbers, as k6 parses them (every __ENV value is a string)', () => {
  const [open] = scenariosOf({ scenarios: { a: { executor: 'constant-arrival-rate', rate: '20', timeUnit: '1s', duration: '1s', preAllocatedVUs: '2', maxVUs: '+4' } } });
  assert.deepEqual([open.rate, open.preAllocatedVUs, open.maxVUs], [20, 2, 4]);
  const [shared] = scenariosOf({ vus: '3', iterations: '7' });
  assert.deepEqual([shared.executor, shared.vus, shared.iterations], ['shared-iterations', 3, 7]);
  const [ramp] = scenariosOf({ scenarios: { r: { executor: 'ramping-arrival-rate', startRate: '5', stages: [{ duration: '1s', target: '10' }], preAllocatedVUs: 1 } } });
  assert.deepEqual([ramp.startRate, ramp.stages[0].target], [5, 10]);
  // k6 v1.3: strconv.ParseInt: parsing "5.5": invalid syntax; json: cannot unmarshal number 5.5.
  const rate = (value) => () => scenariosOf({ scenarios: { a: { executor: 'constant-arrival-rate', rate: value, duration: '1s', preAllocatedVUs: 1 } } });
  assert.throws(rate('5.5'), /scenario 'a': rate must be a whole number of at least 1, not "5.5"/);
  assert.throws(rate(5.5), /rate must be a whole number of at least 1, not 5.5/);
  assert.throws(rate('x'), /rate must be a whole number/);
  assert.throws(rate(0), /rate must be a whole number of at least 1, not 0/);
  assert.throws(() => scenariosOf({ vus: 'x', iterations: 7 }), /vus must be a whole number of at least 1, not "x"/);
});

test("k6's options: each honored or refused in one line; at the value that asks for what happens here anyway, taken; unknown names warned of", () => {
  const warned = [];
  const check = (options) => checkOptions(options, (line) => warned.push(line));
  // As public scripts write them: defaults spelled out, k6 Cloud's metadata.
  check({ vus: 2, duration: '1s', noConnectionReuse: false, noVUConnectionReuse: false, hosts: {}, throw: false, httpDebug: '', minIterationDuration: '0s', ext: { loadimpact: { name: 'x' } }, setupTimeout: '2m', discardResponseBodies: true });
  assert.deepEqual(warned, []);
  for (const [options, message] of [
    [{ dns: { ttl: '1m', select: 'random' } }, /the option 'dns' is not supported by loadtest run \(the runtime's resolver is used\): leave it out$/],
    [{ paused: true }, /'paused'/],
  ]) {
    assert.throws(() => check(options), message);
  }
  // Honored now: taken at any value of the right type.
  check({ hosts: { 'test.local': '127.0.0.1' }, noConnectionReuse: true, httpDebug: 'full', rps: '100', batchPerHost: 6, minIterationDuration: '1s', throw: true, blockHostnames: ['*.x'], blacklistIPs: ['10.0.0.0/8'], systemTags: ['status'] });
  check({ iterations: 1, myThing: 3, other: 'x' });
  assert.deepEqual(warned, ['there were unknown fields in the options exported in the script: myThing, other (not k6 options: nothing uses them)']);
});

test("option names whatever their case, as k6 reads them (Go's encoding/json); a stage without duration or target is 0", async () => {
  const { k6Names } = await import('../src/script/scenarios/options.js');
  assert.deepEqual(k6Names({ VUs: 2, Iterations: 4, myThing: 1 }), { vus: 2, iterations: 4, myThing: 1 });
  assert.deepEqual(k6Names({ vus: 3, VUs: 2 }), { vus: 3 }, 'the exact name wins');
  const [c] = scenariosOf({ scenarios: { c: { Executor: 'constant-arrival-rate', rate: 2, TimeUnit: '1s', duration: '1s', preAllocatedVus: 2, maxVus: 3 } } });
  assert.deepEqual([c.executor, c.preAllocatedVUs, c.maxVUs], ['constant-arrival-rate', 2, 3]);
  assert.throws(() => scenariosOf({ scenarios: { c: { executor: 'constant-vus', vus: 1, duration: '1s', fooBar: 1 } } }), /'fooBar' is not an option of constant-vus/);
  const [ramp] = scenariosOf({ stages: [{ Duration: '1s', Target: 2 }, { thresholds: {} }] });
  assert.deepEqual(ramp.stages, [{ ms: 1000, target: 2 }, { ms: 0, target: 0 }]);
});

test("as k6 v2.2.0 (lib/executor's minDuration): a duration or maxDuration under a second is refused, said in Go's form", () => {
  const one = (scenario) => () => scenariosOf({ scenarios: { a: scenario } });
  assert.throws(one({ executor: 'constant-vus', vus: 1, duration: '300ms' }), /^Error: scenario 'a': the duration must be at least 1s, but is 300ms$/);
  assert.throws(one({ executor: 'constant-arrival-rate', rate: 1, duration: '0.5s', preAllocatedVUs: 1 }), /the duration must be at least 1s, but is 500ms$/);
  assert.throws(one({ executor: 'shared-iterations', maxDuration: '999ms' }), /the maxDuration must be at least 1s, but is 999ms$/);
  // A number is milliseconds.
  assert.throws(one({ executor: 'per-vu-iterations', maxDuration: 0.5 }), /the maxDuration must be at least 1s, but is 500µs$/);
  assert.throws(one({ executor: 'constant-vus', duration: '0s' }), /the duration must be at least 1s, but is 0s$/);
  for (const scenario of [{ executor: 'constant-vus', duration: '1s' }, { executor: 'shared-iterations', maxDuration: '1000ms' }, { executor: 'constant-arrival-rate', rate: 1, duration: 1000, preAllocatedVUs: 1 }]) one(scenario)();
});
