// The global `crypto` of a script, as k6 v2.2's WebCrypto has it: the runtime's own does the
// work, behind k6's checks, so that what k6 refuses is refused here in k6's words (an error with
// k6's name and message, not an Error: String(e) 'NotSupportedError: ...', as k6's Go error
// struct) and what k6 gives is given in k6's shape: a JWK with k6's members in the order k6's
// code sets them (its Go map gives them in any order, a rotation of that one when five or
// fewer), a key pair with the private key first and k6's methods. k6 has no Ed25519, X25519,
// HKDF, SHA-224 or SHA-3, exports no AES-KW key, derives no key by ECDH, only AES keys with
// deriveKey, and throws 'not implemented' at wrapKey and unwrapKey.

import { hostError, thrownGoError } from '../host-error.js';

const HASHES = ['SHA-1', 'SHA-256', 'SHA-384', 'SHA-512'];
const AES = ['AES-CBC', 'AES-CTR', 'AES-GCM', 'AES-KW'];
const RSA = ['RSASSA-PKCS1-v1_5', 'RSA-PSS', 'RSA-OAEP'];
const EC = ['ECDH', 'ECDSA'];
const KEYS = [...AES, 'HMAC', ...EC, ...RSA, 'PBKDF2'];

// k6's algorithms by operation (its isRegisteredAlgorithm).
const REGISTERED = {
  digest: HASHES,
  generateKey: [...AES, ...HASHES, 'HMAC', ...EC, ...RSA],
  importKey: KEYS,
  exportKey: KEYS,
  encrypt: [...AES, 'RSA-OAEP'],
  decrypt: [...AES, 'RSA-OAEP'],
  sign: ['HMAC', 'ECDSA', 'RSA-PSS', 'RSASSA-PKCS1-v1_5'],
  verify: ['HMAC', 'ECDSA', 'RSA-PSS', 'RSASSA-PKCS1-v1_5'],
  deriveBits: [...HASHES, 'PBKDF2', 'ECDH'],
  deriveKey: [...HASHES, 'PBKDF2'],
  getKeyLength: AES,
};

/** k6's WebCrypto error: `name` and `message`, its text 'name: message', not an Error. */
export function webCryptoError(name, message) {
  const e = hostError(`${name}: ${message}`);
  const { error } = e;
  delete e.error; // after name and message, as the Go struct's fields and method come
  return Object.assign(e, { name, message, error });
}

// k6 upper-cases a name, but RSASSA-PKCS1-v1_5's.
function nameOf(algorithm) {
  const name = String((typeof algorithm === 'string' ? algorithm : algorithm?.name) ?? '').toUpperCase();
  return name === 'RSASSA-PKCS1-V1_5' ? 'RSASSA-PKCS1-v1_5' : name;
}

/** k6's refusal of an algorithm for an operation, or null. */
function unregistered(algorithm, op) {
  const name = nameOf(algorithm);
  if (REGISTERED[op].includes(name)) return null;
  return webCryptoError('NotSupportedError', `algorithm "${name}" doesn't support (in implementation) operation "${op}"`);
}

const isKey = (key) => globalThis.CryptoKey !== undefined && key instanceof globalThis.CryptoKey;
const EMPTY_USAGES = () => webCryptoError('SyntaxError', 'usages cannot not be empty for a secret or private CryptoKey');

// encrypt's and sign's checks of the key against the algorithm (k6's words differ a little).
function keyRefused(op, algorithm, key, prefix) {
  if (!isKey(key)) return null;
  if (nameOf(algorithm) !== key.algorithm.name) return webCryptoError('InvalidAccessError', `${prefix}algorithm name does not match key algorithm name`);
  if (!key.usages.includes(op)) return webCryptoError('InvalidAccessError', `${prefix}key does not contain the '${op}' usage`);
  return null;
}

function lengthRefused(length) {
  if (!length) return webCryptoError('OperationError', 'length can not be 0');
  if (length % 8 !== 0) return webCryptoError('OperationError', 'currently only multiples of 8 are supported for length');
  return null;
}

// Two of k6's AES checks that scripts meet, in k6's words.
const aesLengthRefused = (algorithm) =>
  AES.includes(nameOf(algorithm)) && ![128, 192, 256].includes(Number(algorithm.length)) ? webCryptoError('OperationError', 'invalid key length') : null;
const ivRefused = (algorithm) =>
  nameOf(algorithm) === 'AES-CBC' && algorithm.iv?.byteLength !== 16 ? webCryptoError('OperationError', 'iv length is not 16 bytes') : null;

const iterationsRefused = (algorithm) =>
  nameOf(algorithm) === 'PBKDF2' && Number(algorithm.iterations) === 0 ? webCryptoError('OperationError', "number of iterations can't be 0") : null;

// The members of a JWK k6 gives, in the order its code sets them.
const JWK_MEMBERS = {
  oct: ['k', 'kty', 'ext', 'key_ops', 'alg'],
  EC: ['kty', 'crv', 'x', 'y', 'd'],
  RSA: ['kty', 'n', 'e', 'd', 'p', 'q', 'dp', 'dq', 'qi'],
};

/** The runtime's JWK as k6 gives it: k6's members only (EC and RSA keys without ext, key_ops, alg). */
export function k6Jwk(jwk) {
  const members = JWK_MEMBERS[jwk.kty];
  if (!members) return jwk;
  const out = {};
  for (const m of members) if (jwk[m] !== undefined) out[m] = jwk[m];
  return out;
}

/** A key pair as k6's CryptoKeyPair: the private key first, then its Go methods. */
function k6Pair({ privateKey, publicKey }) {
  const pair = { privateKey, publicKey };
  return Object.assign(pair, {
    isKeyPair: () => true,
    resolveCryptoKey: () => {
      throw thrownGoError('not a CryptoKey');
    },
    resolveCryptoKeyPair: () => pair,
  });
}

// The usages of each key as the script listed them: k6 keeps their order, Bun sorts them.
const listed = new WeakMap();

/** A key's usages in the order the script gave them (k6's), else the runtime's. */
export const usagesOf = (key) => listed.get(key) ?? [...key.usages];

function keep(made, usages) {
  if (!Array.isArray(usages)) return made;
  for (const key of isPair(made) ? [made.privateKey, made.publicKey] : [made]) {
    if (isKey(key)) listed.set(key, usages.filter((u) => key.usages.includes(u)));
  }
  return made;
}

const isPair = (v) => v !== null && typeof v === 'object' && 'privateKey' in v && 'publicKey' in v;
const isBytes = (v) => v instanceof ArrayBuffer || ArrayBuffer.isView(v);
const notImplemented = () => {
  throw thrownGoError('not implemented');
};

// k6's refusal (a value) or null, then the runtime's promise.
const gate = (refusal, call) => (refusal ? Promise.reject(refusal) : call());
const first = (...checks) => {
  for (const check of checks) {
    const refusal = check();
    if (refusal) return refusal;
  }
  return null;
};

// importKey: the format, the algorithm, then what k6's importers refuse.
function importRefused(format, data, algorithm, extractable, usages) {
  if (!['raw', 'pkcs8', 'spki', 'jwk'].includes(format)) return webCryptoError('ImplementationError', `unsupported format ${format}`);
  const name = nameOf(algorithm);
  return first(
    () => unregistered(algorithm, 'importKey'),
    () => ((AES.includes(name) || name === 'HMAC') && format !== 'raw' && format !== 'jwk' ? webCryptoError('NotSupportedError', `unsupported key format ${format}`) : null),
    () => (name === 'PBKDF2' && extractable ? webCryptoError('SyntaxError', 'invalid value for param extractable ') : null),
    () => {
      const secretOrPrivate = AES.includes(name) || name === 'HMAC' || name === 'PBKDF2' || format === 'pkcs8' || (format === 'jwk' && data?.d !== undefined);
      return secretOrPrivate && Array.isArray(usages) && usages.length === 0 ? EMPTY_USAGES() : null;
    },
  );
}

function exportRefused(key) {
  if (!isKey(key)) return null;
  const name = key.algorithm.name;
  if (!REGISTERED.exportKey.includes(name)) return webCryptoError('NotSupportedError', `unsupported algorithm ${name}`);
  if (!key.extractable) return webCryptoError('InvalidAccessError', 'the key is not extractable');
  if (name === 'AES-KW' || name === 'PBKDF2') return webCryptoError('NotSupportedError', `unsupported algorithm ${name}`);
  return null;
}

/** k6's SubtleCrypto over the runtime's `subtle`: its methods in k6's (alphabetical) order. */
export function k6Subtle(subtle) {
  return {
    decrypt: (algorithm, key, data) => gate(first(() => unregistered(algorithm, 'decrypt'), () => keyRefused('decrypt', algorithm, key, "decrypt's "), () => ivRefused(algorithm)), () => subtle.decrypt(algorithm, key, data)),
    deriveBits: (algorithm, key, length) =>
      gate(first(() => unregistered(algorithm, 'deriveBits'), () => lengthRefused(length), () => iterationsRefused(algorithm)), () => subtle.deriveBits(algorithm, key, length)),
    deriveKey: (algorithm, key, derived, extractable, usages) =>
      gate(
        first(
          () => unregistered(algorithm, 'deriveKey'),
          () => unregistered(derived, 'importKey'),
          () => unregistered(derived, 'getKeyLength'),
          () => iterationsRefused(algorithm),
          () => (Array.isArray(usages) && usages.length === 0 ? EMPTY_USAGES() : null),
        ),
        async () => keep(await subtle.deriveKey(algorithm, key, derived, extractable, usages), usages),
      ),
    digest: (algorithm, data) =>
      gate(first(() => (isBytes(data) ? null : hostError('data must be an ArrayBuffer, TypedArray, or DataView')), () => unregistered(algorithm, 'digest')), () => subtle.digest(algorithm, data)),
    encrypt: (algorithm, key, data) => gate(first(() => unregistered(algorithm, 'encrypt'), () => keyRefused('encrypt', algorithm, key, "encrypt's "), () => ivRefused(algorithm)), () => subtle.encrypt(algorithm, key, data)),
    exportKey: (format, key) => gate(exportRefused(key), async () => {
      const out = await subtle.exportKey(format, key);
      return format === 'jwk' ? k6Jwk(out) : out;
    }),
    generateKey: (algorithm, extractable, usages) => {
      const name = nameOf(algorithm);
      const secret = AES.includes(name) || name === 'HMAC';
      return gate(first(() => unregistered(algorithm, 'generateKey'), () => aesLengthRefused(algorithm), () => (secret && Array.isArray(usages) && usages.length === 0 ? EMPTY_USAGES() : null)), async () => {
        const made = keep(await subtle.generateKey(algorithm, extractable, usages), usages);
        return isPair(made) ? k6Pair(made) : made;
      });
    },
    importKey: (format, data, algorithm, extractable, usages) =>
      gate(importRefused(format, data, algorithm, extractable, usages), async () => keep(await subtle.importKey(format, data, algorithm, extractable, usages), usages)),
    sign: (algorithm, key, data) => gate(first(() => unregistered(algorithm, 'sign'), () => keyRefused('sign', algorithm, key, '')), () => subtle.sign(algorithm, key, data)),
    unwrapKey: notImplemented,
    verify: (algorithm, key, signature, data) =>
      gate(first(() => unregistered(algorithm, 'verify'), () => keyRefused('verify', algorithm, key, '')), () => subtle.verify(algorithm, key, signature, data)),
    wrapKey: notImplemented,
  };
}

const RANDOM_TYPES = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array];
const MAX_RANDOM = 65536;

/**
 * k6's getRandomValues: an integer typed array of 8 to 32 bits (BigInt64Array refused) of up to
 * 65536 elements (not bytes), each element set to a random byte, as k6 sets them.
 */
function getRandomValues(host, array) {
  if (!RANDOM_TYPES.some((T) => array instanceof T)) throw thrownGoError("TypeMismatchError: typedArray parameter isn't a TypedArray instance");
  if (array.length > MAX_RANDOM) throw thrownGoError(`QuotaExceededError: typedArray parameter is too big; maximum length is ${MAX_RANDOM}`);
  const bytes = host.getRandomValues(new Uint8Array(array.length));
  for (let i = 0; i < bytes.length; i++) array[i] = bytes[i];
  return array;
}

/** The `crypto` global k6 gives a script, over the runtime's `host`. */
export function k6Crypto(host = globalThis.crypto) {
  return {
    getRandomValues: (array) => getRandomValues(host, array),
    randomUUID: () => host.randomUUID(),
    subtle: k6Subtle(host.subtle),
  };
}

let installed = false;

/**
 * Makes the global `crypto` k6's, once in a process that runs a script (its VUs run in this
 * realm and read the global; loadtest's own code takes only random bytes of it).
 */
export function installK6Crypto() {
  if (installed) return;
  installed = true;
  Object.defineProperty(globalThis, 'crypto', { value: k6Crypto(globalThis.crypto), configurable: true, writable: true, enumerable: false });
}
