// k6/data: SharedArray, built once by the first VU that asks for it and shared, frozen, by all.

const deepFreeze = (v) => {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const k of Object.keys(v)) deepFreeze(v[k]);
  }
  return v;
};

export function dataModule(vu) {
  const arrays = vu.shared.arrays;
  class SharedArray {
    constructor(name, fn) {
      if (vu.initDone) throw new Error(`new SharedArray('${name}'): only in the init context`);
      if (typeof fn !== 'function') throw new Error('SharedArray takes a name and a function that returns an array');
      let data = arrays.get(name);
      if (data === undefined) {
        data = fn();
        if (data instanceof Promise) throw new Error(`SharedArray '${name}': the function must return an array, not a promise (it may not make requests)`);
        if (!Array.isArray(data)) throw new Error(`SharedArray '${name}': the function must return an array`);
        data = deepFreeze(JSON.parse(JSON.stringify(data)));
        arrays.set(name, data);
      }
      return data;
    }
  }
  const api = { SharedArray };
  return { default: api, ...api };
}
