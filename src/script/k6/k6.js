// The k6 module: check, group, sleep, fail, randomSeed, for one VU.

import { isWait, waiting } from '../wait.js';

/**
 * Each check's name → its function (or a value) over `value`; true when all pass. Every function
 * runs before any is recorded (one that throws fails the iteration with nothing recorded, as in
 * k6). A check is in most iterations of most scripts: one check makes no array and no closure.
 */
function check(vu, value, sets, tags) {
  let count = 0;
  let firstName;
  let first;
  let names = null;
  let results = null;
  let waited = false;
  for (const name in sets) {
    if (!Object.hasOwn(sets, name)) continue;
    const c = sets[name];
    const r = typeof c === 'function' ? c(value) : c;
    if (!waited && isWait(r)) waited = true;
    if (count === 0) {
      firstName = name;
      first = r;
    } else {
      if (names === null) {
        names = [firstName];
        results = [first];
      }
      names.push(name);
      results.push(r);
    }
    count++;
  }
  if (count === 0) return true;
  if (names === null) {
    if (!waited) return recordOne(vu, firstName, first, tags);
    names = [firstName];
    results = [first];
  }
  // A check function that waited (it made a request) returns a marked promise; one the script
  // made async returns a promise, which is a true value, as in k6.
  if (waited) return waiting(Promise.all(results).then((values) => recordAll(vu, names, values, tags)));
  return recordAll(vu, names, results, tags);
}

function recordOne(vu, name, result, tags) {
  const ok = Boolean(result);
  vu.recordCheck(name, ok, tags);
  return ok;
}

function recordAll(vu, names, values, tags) {
  let all = true;
  for (let i = 0; i < names.length; i++) if (!recordOne(vu, names[i], values[i], tags)) all = false;
  return all;
}

function group(vu, name, fn) {
  if (typeof fn !== 'function') throw new Error('group() takes a name and a function');
  if (name.includes('::')) throw new Error(`group name '${name}' may not contain '::'`);
  const outer = vu.groupPath;
  const path = `${outer}::${name}`;
  vu.enterGroup(path, name);
  const start = performance.now();
  const end = () => {
    vu.groupPath = outer;
    vu.emitGroupDuration(path, performance.now() - start);
  };
  let r;
  try {
    r = fn();
  } catch (err) {
    end();
    throw err;
  }
  // k6 has no async groups; a promise the script's function returns is awaited all the same.
  if (r instanceof Promise) {
    return waiting(r.then(
      (v) => (end(), v),
      (err) => {
        end();
        throw err;
      },
    ));
  }
  end();
  return r;
}

function sleep(vu, seconds) {
  const ms = Number(seconds) * 1000;
  if (!(ms > 0)) return undefined;
  return waiting(vu.sleep(ms));
}

// mulberry32, seeded: randomSeed(n) makes Math.random repeatable (for every VU of this process:
// they share one JavaScript realm).
function randomSeed(seed) {
  let a = Number(seed) >>> 0;
  Math.random = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function k6Module(vu) {
  const api = {
    check: (value, sets, tags) => check(vu, value, sets, tags),
    group: (name, fn) => group(vu, name, fn),
    sleep: (seconds) => sleep(vu, seconds),
    fail: (message) => {
      throw new Error(message === undefined ? 'fail' : String(message));
    },
    randomSeed,
  };
  return { default: api, ...api };
}
