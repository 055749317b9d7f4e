// How k6 v2.2 writes a console argument (k6 v1.5 and v1.6 replaced the JSON of sobek's value by
// a walk of it): a string as it is, another primitive as its text, a function as
// `[object Function]`, an Error (or a Go error of k6's) as its text, and an object walked:
// `{ key: value, ... }` by its own enumerable keys (key bare, string values in double quotes and
// nothing escaped), arrays `[ a, b ]` (holes and undefined as null), `{}` and `[]` when empty, a
// Date as its ISO text in quotes, typed arrays as `Int32Array(2) [ 4, 2 ]`, an ArrayBuffer as
// its bytes in hex, an object already on the path as `[Circular]`. Nothing is truncated. Map,
// Set, RegExp and class instances have only their own keys, as k6 has no case for them.

import { isHostError } from './host-error.js';
import { usagesOf } from './crypto/webcrypto.js';

const FUNCTION = '[object Function]';

/**
 * Objects that show k6's view of themselves on the console rather than their own keys (a
 * CryptoKey, whose fields are getters here and a Go struct's fields and methods in k6): the
 * method under this symbol gives the plain object to walk.
 */
export const CONSOLE_VIEW = Symbol('loadtest.consoleView');

/** An argument of console.log as k6 v2.2 writes it. */
export function shown(v) {
  if (typeof v === 'function') return FUNCTION;
  if (isHostError(v) || v instanceof Error) return String(v);
  if (v === null || typeof v !== 'object') return primitive(v);
  return walk(v, new Set());
}

// sobek's text of a primitive: a symbol's is its description.
function primitive(v) {
  return typeof v === 'symbol' ? (v.description ?? '') : String(v);
}

function walk(v, path) {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'function') return FUNCTION;
  if (typeof v !== 'object') return typeof v === 'string' || typeof v === 'symbol' ? `"${primitive(v)}"` : primitive(v);
  if (path.has(v)) return '[Circular]';
  path.add(v);
  try {
    return objectText(v, path);
  } finally {
    path.delete(v);
  }
}

// Whether a value is a Proxy: the runtime's to tell (runtimes/scripts/host.js), set once a run.
let isProxy = () => false;
export const useProxyCheck = (check) => (isProxy = check);

function objectText(v, path) {
  if (v instanceof Error) return String(v);
  if (typeof v[CONSOLE_VIEW] === 'function') return walk(v[CONSOLE_VIEW](), path);
  if (globalThis.CryptoKey && v instanceof globalThis.CryptoKey) return walk(cryptoKeyView(v), path);
  if (v instanceof ArrayBuffer) return bufferText(v);
  if (ArrayBuffer.isView(v) && !(v instanceof DataView)) return typedText(v);
  // sobek's Proxy of an array is no Array: its keys, as any object's.
  if (Array.isArray(v) && !isProxy(v)) {
    if (v.length === 0) return '[]';
    return `[ ${Array.from({ length: v.length }, (_, i) => walk(v[i], path)).join(', ')} ]`;
  }
  const keys = Object.keys(v);
  if (keys.length === 0) return v instanceof Date ? dateText(v) : '{}';
  return `{ ${keys.map((k) => `${k}: ${walk(v[k], path)}`).join(', ')} }`;
}

function dateText(d) {
  try {
    return `"${d.toISOString()}"`;
  } catch {
    return '{}'; // an invalid Date
  }
}

const hex = (b) => b.toString(16).padStart(2, '0');
function bufferText(buf) {
  const bytes = new Uint8Array(buf);
  return `ArrayBuffer { [Uint8Contents]: <${Array.from(bytes, hex).join(' ')}>, byteLength: ${bytes.length} }`;
}

// k6 names a typed array by its Go element type: a Uint8ClampedArray is a Uint8Array.
function typedText(a) {
  const name = a instanceof Uint8ClampedArray ? 'Uint8Array' : a.constructor.name;
  if (a.length === 0) return `${name}(0) []`;
  return `${name}(${a.length}) [ ${Array.from(a, primitive).join(', ')} ]`;
}

const fn = () => {};
const named = (name) => ({ algorithm: { name }, name });

// k6's algorithm of a key as its Go structs show it: AES and PBKDF2 keys the name twice, the
// others a key_algorithm too; an HMAC hash a struct, an RSA one a name, an EC curve a Go
// string type with its method.
function algorithmView(alg) {
  const name = alg.name;
  if (name.startsWith('AES-')) return { ...named(name), length: alg.length };
  if (name === 'PBKDF2') return named(name);
  const base = { key_algorithm: named(name), ...named(name) };
  if (name === 'HMAC') return { ...base, hash: named(alg.hash.name), length: alg.length, hashFn: fn };
  if (name === 'ECDSA' || name === 'ECDH') return { ...base, namedCurve: { string: fn } };
  if (name.startsWith('RSA')) return { ...base, modulusLength: alg.modulusLength, hash: { name: alg.hash.name } };
  return named(name);
}

/** A CryptoKey as k6 v2.2 shows it: its fields, then the Go methods of k6's CryptoKey. */
export function cryptoKeyView(key) {
  return {
    type: key.type,
    extractable: key.extractable,
    algorithm: algorithmView(key.algorithm),
    usages: usagesOf(key),
    containsUsage: fn,
    isKeyPair: fn,
    resolveCryptoKey: fn,
    resolveCryptoKeyPair: fn,
    validate: fn,
  };
}
