// A run's check counts (src/script/metrics/run-state.js): in their group and by name, as the summary and a
// --cores parent read them, whatever order checks, groups and merged children come in. The
// records of the check counted last are kept at hand; these sequences switch names, groups and
// results at random so that a record kept too long would count in the wrong place.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RunState } from '../src/script/metrics/run-state.js';
import { Registry } from '../src/script/metrics/metrics.js';
import { mulberry32 } from './random.js';

const GROUPS = ['', '::a', '::a::b', '::c'];
const NAMES = ['status is 200', 'body ok', 'status is 200 ', 'x'];

function naive() {
  return { groups: new Map(), byName: new Map(), checks: [0, 0] };
}

function count(map, key, ok) {
  const c = map.get(key) || [0, 0];
  c[ok ? 0 : 1]++;
  map.set(key, c);
}

// A seeded sequence of checks into `state`, tallied apart in `expected`.
function play(state, expected, random, n) {
  for (let i = 0; i < n; i++) {
    const path = GROUPS[Math.floor(random() * GROUPS.length)];
    if (path !== '') {
      // As vu.enterGroup: each group on the way is made before a check in it.
      const parts = path.split('::').slice(1);
      for (let k = 1; k <= parts.length; k++) state.group('::' + parts.slice(0, k).join('::'), parts[k - 1]);
    }
    // A run of the same check now and then, as most iterations make.
    const repeat = 1 + Math.floor(random() * 3);
    const name = NAMES[Math.floor(random() * NAMES.length)];
    for (let r = 0; r < repeat; r++) {
      const ok = random() < 0.7;
      state.check(path, name, ok, {});
      count(expected.groups, `${path}|${name}`, ok);
      count(expected.byName, name, ok);
      expected.checks[ok ? 0 : 1]++;
    }
  }
}

function assertCounts(state, expected) {
  const j = state.toJSON();
  const inGroups = new Map();
  for (const g of j.groups) for (const [name, passes, fails] of g.checks) inGroups.set(`${g.path}|${name}`, [passes, fails]);
  assert.deepEqual(inGroups, expected.groups);
  assert.deepEqual(new Map(j.byName.map(([name, passes, fails]) => [name, [passes, fails]])), expected.byName);
  const sink = state.checks.sink;
  assert.deepEqual([sink.passes, sink.count - sink.passes], expected.checks);
}

test('check counts: in their group and by name, for 200 seeded random sequences', () => {
  for (let seed = 1; seed <= 200; seed++) {
    const state = new RunState(new Registry());
    const expected = naive();
    play(state, expected, mulberry32(seed), 1 + (seed % 40));
    assertCounts(state, expected);
  }
});

test('check counts: a --cores parent that merges children and counts checks of its own', () => {
  for (let seed = 1; seed <= 50; seed++) {
    const random = mulberry32(seed);
    const parent = new RunState(new Registry());
    const expected = naive();
    play(parent, expected, random, 10); // setup()'s checks, before the children's come
    for (let c = 0; c < 3; c++) {
      const child = new RunState(new Registry());
      play(child, expected, random, 20);
      parent.merge(child.toJSON());
      parent.registry.merge(child.registry.toJSON());
    }
    play(parent, expected, random, 10); // teardown()'s, after
    assertCounts(parent, expected);
  }
});
