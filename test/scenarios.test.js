// A script's scenarios from its options (src/script/scenarios.js), as k6 v1.3 reads them.

// The options' checks are the core's pure logic: under node (scope.js).
import { oneRuntimeTest as test } from './scope.js';
import assert from 'node:assert/strict';
import { scenariosOf } from '../src/script/scenarios.js';

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
