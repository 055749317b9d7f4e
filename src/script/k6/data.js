// k6/data: SharedArray, built once by the first VU that asks for it and shared, frozen, by all.

import { thrownGoError } from './host-error.js';

const deepFreeze = (v) => {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const k of Object.keys(v)) deepFreeze(v[k]);
  }
  return v;
};

// As k6's: setting an index or the length (push too) is a TypeError of its own words, where a
// frozen array's would be the engine's.
const IMMUTABLE = {
  set() {
    throw new TypeError('SharedArray is immutable');
  },
  defineProperty() {
    throw new TypeError('SharedArray is immutable');
  },
  deleteProperty() {
    throw new TypeError('SharedArray is immutable');
  },
};

export function dataModule(vu) {
  const arrays = vu.shared.arrays;
  class SharedArray {
    constructor(name, fn) {
      // k6's errors, in its order (a Go error thrown: a GoError).
      if (vu.initDone) throw thrownGoError('new SharedArray must be called in the init context');
      if (String(name) === '') throw thrownGoError("empty name provided to SharedArray's constructor");
      if (typeof fn !== 'function') throw thrownGoError("a function is expected as the second argument of SharedArray's constructor");
      let data = arrays.get(name);
      if (data === undefined) {
        data = fn();
        if (!Array.isArray(data)) throw thrownGoError('only arrays can be made into SharedArray');
        data = new Proxy(deepFreeze(JSON.parse(JSON.stringify(data))), IMMUTABLE);
        arrays.set(name, data);
      }
      return data;
    }
  }
  const api = { SharedArray };
  return { default: api, ...api };
}
