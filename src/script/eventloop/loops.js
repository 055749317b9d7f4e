// Array callbacks that may wait: `xs.forEach(fn)` in a script becomes loops.forEach(xs, fn)
// (src/script/transform/transform.js). A callback that returns at once runs as the built-in runs it, and
// the loop returns its value at once; one that waits (it returns a marked promise:
// src/script/eventloop/wait.js) is awaited before the next element, as k6 would have run it, one element
// after the other, and the loop returns a marked promise. A promise the script makes itself (an
// async callback) is a value, as to the built-in. Not an array (a Map, a k6/html Selection): its
// own method, as written.

import { isWait, waiting, MADE } from './wait.js';

// What a callback's result is to wait for: a marked promise, or any promise of a callback the
// transform made async (src/script/transform/suspend.js).
const isPromise = (r) => r instanceof Promise;
const waitsOf = (fn) => (fn[MADE] === true ? isPromise : isWait);

async function rest(xs, fn, thisArg, from, first, each, waits) {
  let r = await first;
  if (each(from, r) === false) return;
  for (let i = from + 1; i < xs.length; i++) {
    r = fn.call(thisArg, xs[i], i, xs);
    if (waits(r)) r = await r;
    if (each(i, r) === false) return;
  }
}

function run(xs, fn, thisArg, each, done) {
  const waits = waitsOf(fn);
  for (let i = 0; i < xs.length; i++) {
    const r = fn.call(thisArg, xs[i], i, xs);
    if (waits(r)) return waiting(rest(xs, fn, thisArg, i, r, each, waits).then(done));
    if (each(i, r) === false) break;
  }
  return done();
}

const isArray = (xs) => Array.isArray(xs);

export const loops = {
  forEach(xs, fn, thisArg) {
    if (!isArray(xs)) return xs.forEach(fn, thisArg);
    return run(xs, fn, thisArg, () => true, () => undefined);
  },
  map(xs, fn, thisArg) {
    if (!isArray(xs)) return xs.map(fn, thisArg);
    const out = new Array(xs.length);
    return run(xs, fn, thisArg, (i, r) => void (out[i] = r), () => out);
  },
  flatMap(xs, fn, thisArg) {
    if (!isArray(xs)) return xs.flatMap(fn, thisArg);
    const out = [];
    return run(xs, fn, thisArg, (i, r) => void (Array.isArray(r) ? out.push(...r) : out.push(r)), () => out);
  },
  filter(xs, fn, thisArg) {
    if (!isArray(xs)) return xs.filter(fn, thisArg);
    const out = [];
    return run(xs, fn, thisArg, (i, r) => void (r && out.push(xs[i])), () => out);
  },
  some(xs, fn, thisArg) {
    if (!isArray(xs)) return xs.some(fn, thisArg);
    let found = false;
    return run(xs, fn, thisArg, (i, r) => (r ? ((found = true), false) : true), () => found);
  },
  every(xs, fn, thisArg) {
    if (!isArray(xs)) return xs.every(fn, thisArg);
    let all = true;
    return run(xs, fn, thisArg, (i, r) => (r ? true : ((all = false), false)), () => all);
  },
  find(xs, fn, thisArg) {
    if (!isArray(xs)) return xs.find(fn, thisArg);
    let found;
    return run(xs, fn, thisArg, (i, r) => (r ? ((found = xs[i]), false) : true), () => found);
  },
  findIndex(xs, fn, thisArg) {
    if (!isArray(xs)) return xs.findIndex(fn, thisArg);
    let at = -1;
    return run(xs, fn, thisArg, (i, r) => (r ? ((at = i), false) : true), () => at);
  },
  findLast(xs, fn, thisArg) {
    return isArray(xs) ? loops.find(xs.slice().reverse(), fn, thisArg) : xs.findLast(fn, thisArg);
  },
  findLastIndex(xs, fn, thisArg) {
    if (!isArray(xs)) return xs.findLastIndex(fn, thisArg);
    const r = loops.findIndex(xs.slice().reverse(), fn, thisArg);
    const flip = (k) => (k < 0 ? -1 : xs.length - 1 - k);
    return isWait(r) ? waiting(r.then(flip)) : flip(r);
  },
  reduce(xs, fn, ...init) {
    if (!isArray(xs)) return xs.reduce(fn, ...init);
    let i = 0;
    let acc;
    if (init.length) acc = init[0];
    else {
      if (xs.length === 0) throw new TypeError('Reduce of empty array with no initial value');
      acc = xs[0];
      i = 1;
    }
    const waits = waitsOf(fn);
    for (; i < xs.length; i++) {
      acc = fn(acc, xs[i], i, xs);
      if (waits(acc)) return waiting(reduceFrom(xs, fn, i, acc, waits));
    }
    return acc;
  },
};

async function reduceFrom(xs, fn, i, pending, waits) {
  let acc = await pending;
  for (i++; i < xs.length; i++) {
    acc = fn(acc, xs[i], i, xs);
    if (waits(acc)) acc = await acc;
  }
  return acc;
}
