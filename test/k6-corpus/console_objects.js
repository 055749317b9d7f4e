// console.log of every kind of value, as k6 v2.2 writes it (since v1.5 a walk of the value, no
// longer JSON): nested objects and arrays, strings in quotes, Map, Set, Date, functions, class
// instances, null-prototype objects, circular references, Errors inside objects, typed arrays
// and ArrayBuffers, symbols, bigints, a long array (k6 cuts nothing).
export const options = { iterations: 1 };

class Point {
  constructor() {
    this.x = 1;
    this.label = 'p';
  }
}

export default function () {
  console.log({ a: { b: { c: { d: { e: [1, [2, [3]]] } } } } });
  console.log({ s: 'say "hi"', empty: '' }, ['x', "it's"], {}, []);
  console.log(new Map([['k', 1]]), new Set([1]), { m: new Map(), s: new Set() });
  console.log(new Date(0), { d: new Date(86400000) }, new Date(NaN));
  console.log(function named() {}, () => 1, class K {}, { f() {}, g: async () => {} });
  console.log(new Point(), { p: new Point() });
  const bare = Object.create(null);
  bare.k = 1;
  console.log(bare, Object.create(null));
  const loop = { name: 'loop' };
  loop.self = loop;
  loop.list = [loop];
  const shared = { v: 1 };
  console.log(loop, { a: shared, b: shared });
  console.log({ e: new Error('inner') }, [new TypeError('t')], new RangeError('r'));
  console.log(new Uint8Array([1, 2, 255]), new Int32Array(0), new Float64Array([1.5, -0]), new Uint8ClampedArray([3]), { v: new Int16Array([-1]) });
  console.log(new Uint8Array([4, 0, 0, 0, 2]).buffer, { b: new ArrayBuffer(0) }, new DataView(new ArrayBuffer(2)));
  console.log(Symbol('s'), { s: Symbol('t') }, [Symbol()], Symbol.iterator);
  console.log(10n, { b: -3n }, { n: NaN, i: -Infinity, z: -0, big: 1e21, small: 1e-7 });
  console.log({ u: undefined, n: null }, [undefined, null, , 3], /re/g, { 'a-b': 1, 2: 'two' });
  console.log(Array.from({ length: 120 }, (_, i) => i));
}
