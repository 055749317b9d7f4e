// src/script/k6/: k6's modules, one file or folder per import path.
// The k6 module: check, group, sleep, fail, randomSeed, for one VU.

import { isWait, waiting, MADE } from '../eventloop/wait.js';
import { goFloat64 } from './go-rand.js';

// A function the script wrote `async`; k6 v1.3 refuses it in check() (a function of the script
// that the transform made async for a loop or a group is marked MADE, and is never a check's).
const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor;
const ASYNC_CHECK =
  'the built-in check() does not support async functions as arguments. Use the JavaScript utils library as a replacement. Refer to https://grafana.com/docs/k6/latest/javascript-api/jslib/utils/check/ for more info';

/**
 * Each check's name → its function (or a value) over `value`; true when all pass. As k6 does,
 * each is recorded as it is run, in order: one that throws is recorded as failed and its
 * exception ends the check (the checks after it are not run). A check function that waited (it
 * made a request) returns a marked promise: it and the checks after it are recorded once it has
 * settled (checkLater). A check is in most iterations of most scripts: no array and no closure
 * unless one waits, and the rare cases out of this function, which every script's loop runs.
 */
function check(vu, value, sets, tags) {
  let all = true;
  for (const name in sets) {
    if (!Object.hasOwn(sets, name)) continue;
    const c = sets[name];
    const r = typeof c === 'function' ? checkResult(vu, c, value, name, tags) : c;
    if (isWait(r)) return checkLater(vu, value, sets, tags, name, r, all);
    if (!recordOne(vu, name, r, tags)) all = false;
  }
  return all;
}

// A check function's result; one that throws is recorded as failed, and its exception goes on.
function checkResult(vu, c, value, name, tags) {
  refuseAsync(c);
  try {
    return c(value);
  } catch (err) {
    vu.recordCheck(name, false, tags);
    throw err;
  }
}

// From the check `first` on, whose function waited (`r`): the results gathered, and recorded in
// order once all have settled; `all`: whether the checks before it passed.
function checkLater(vu, value, sets, tags, first, r, all) {
  const names = [first];
  const results = [r];
  let started = false;
  for (const name in sets) {
    if (!started) {
      started = name === first;
      continue;
    }
    if (!Object.hasOwn(sets, name)) continue;
    const c = sets[name];
    let v = c;
    if (typeof c === 'function') {
      refuseAsync(c);
      try {
        v = c(value);
      } catch (err) {
        return waiting(Promise.all(results).then((values) => {
          recordAll(vu, names, values, tags);
          vu.recordCheck(name, false, tags);
          throw err;
        }));
      }
    }
    names.push(name);
    results.push(v);
  }
  return waiting(Promise.all(results).then((values) => recordAll(vu, names, values, tags) && all));
}

function refuseAsync(c) {
  if (c instanceof AsyncFunction && c[MADE] !== true) throw new Error(ASYNC_CHECK);
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

// A VU's Math: the engine's, but for a random of the VU's own (the script's modules see it as
// Math: src/script/transform/transform.js), since in k6 each VU is a runtime of its own and
// randomSeed() seeds one VU's.
const ENGINE_RANDOM = Math.random;

export function vuMath() {
  return Object.create(Math, { random: { value: ENGINE_RANDOM, writable: true, configurable: true } });
}

// k6 unseeds a VU as its init code ends (internal/js/bundle.go): a seed given there holds only
// for the rest of the init code.
export function unseed(vu) {
  vu.math.random = ENGINE_RANDOM;
}

// Go's rand.New(rand.NewSource(seed)).Float64, as k6's; the seed as Sobek makes a Go int64 of
// what the script gives: a Number truncated (NaN and ±Infinity 0, what lies outside int64 its
// least, as Go's conversion on amd64), a BigInt or Symbol a TypeError in Sobek's words (bun's
// engine has others).
function randomSeed(vu, seed) {
  const type = typeof seed;
  if (type === 'bigint' || type === 'symbol') throw new TypeError(`Cannot convert a ${type === 'bigint' ? 'BigInt' : 'Symbol'} value to a number`);
  const n = +seed;
  let int64 = Number.isFinite(n) ? Math.trunc(n) : 0;
  if (int64 >= 2 ** 63 || int64 < -(2 ** 63)) int64 = -(2 ** 63);
  vu.math.random = goFloat64(int64);
}

export function k6Module(vu) {
  const api = {
    check: (value, sets, tags) => check(vu, value, sets, tags),
    group: (name, fn) => group(vu, name, fn),
    sleep: (seconds) => sleep(vu, seconds),
    fail: (message) => {
      throw new Error(message === undefined ? 'fail' : String(message));
    },
    randomSeed: (seed) => randomSeed(vu, seed),
  };
  return { default: api, ...api };
}
