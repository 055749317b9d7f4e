// WebCrypto as k6 v2.2 has it (k6 v1.6 added PBKDF2): digests, HMAC, AES, PBKDF2's deriveBits
// and deriveKey, ECDH's deriveBits, the members of an exported JWK (k6 gives them in any order:
// sorted here), a CryptoKey and a key pair on the console, the algorithms and calls k6 refuses
// (by its error's name and message), getRandomValues and randomUUID.
import { check } from 'k6';

export const options = { iterations: 1 };

const S = crypto.subtle;
const hex = (b) => Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, '0')).join('');
const bytes = (s) => new TextEncoder().encode(s);
const EC_PRIVATE = { kty: 'EC', crv: 'P-256', x: 'Z38hMQtChrHU2BHay-a3sYp-hbgfZ7IwpIrZj5EAaDg', y: 'lOi9i9dT4Hl-dH6FgZVwKF-XoZxA1Pld_0ie71DGc1w', d: 's3740FAvYRif0ffUxEiBV4ehkrXl5bWuv8Ogu8WDi1M' };

async function refusal(label, call) {
  try {
    await call();
    console.log(label, 'not refused');
  } catch (e) {
    console.log(label, e.name, '|', e.message, '|', String(e));
  }
}

export default async function () {
  console.log('sha-256', hex(await S.digest('SHA-256', bytes('abc'))));
  console.log('sha-1', hex(await S.digest({ name: 'sha-1' }, bytes('abc'))));

  const hmac = await S.importKey('raw', bytes('secret-key-0123456789'), { name: 'HMAC', hash: 'SHA-256' }, true, ['sign', 'verify']);
  const mac = await S.sign('HMAC', hmac, bytes('msg'));
  console.log('hmac', hex(mac), await S.verify('HMAC', hmac, mac, bytes('msg')));
  console.log(hmac);
  const jwk = await S.exportKey('jwk', hmac);
  console.log('hmac jwk', Object.keys(jwk).sort().join(), jwk.alg, jwk.k);

  const aes = await S.importKey('raw', new Uint8Array(16).map((_, i) => i), 'AES-CBC', true, ['encrypt', 'decrypt']);
  const iv = new Uint8Array(16).fill(7);
  const sealed = await S.encrypt({ name: 'AES-CBC', iv }, aes, bytes('hello world'));
  console.log('aes-cbc', hex(sealed), new TextDecoder().decode(await S.decrypt({ name: 'AES-CBC', iv }, aes, sealed)));
  console.log({ key: aes });
  const gcm = await S.importKey('raw', new Uint8Array(24).fill(2), 'AES-GCM', true, ['encrypt']);
  console.log('aes-gcm', hex(await S.encrypt({ name: 'AES-GCM', iv: new Uint8Array(12), additionalData: bytes('x') }, gcm, bytes('hello'))));

  const password = await S.importKey('raw', bytes('password'), 'PBKDF2', false, ['deriveBits', 'deriveKey']);
  const params = { name: 'PBKDF2', salt: bytes('salt'), iterations: 1000, hash: 'SHA-256' };
  console.log('pbkdf2 bits', hex(await S.deriveBits(params, password, 256)));
  const derived = await S.deriveKey(params, password, { name: 'AES-GCM', length: 256 }, true, ['encrypt']);
  console.log('pbkdf2 key', hex(await S.exportKey('raw', derived)));
  console.log(password, derived);

  const { d, ...pub } = EC_PRIVATE;
  const ecdh = await S.importKey('jwk', EC_PRIVATE, { name: 'ECDH', namedCurve: 'P-256' }, true, ['deriveBits']);
  const ecdhPublic = await S.importKey('jwk', pub, { name: 'ECDH', namedCurve: 'P-256' }, true, []);
  console.log('ecdh bits', hex(await S.deriveBits({ name: 'ECDH', public: ecdhPublic }, ecdh, 256)));
  const ecJwk = await S.exportKey('jwk', ecdh);
  console.log('ec jwk', Object.keys(ecJwk).sort().join(), ecJwk.d === d);

  const pair = await S.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
  console.log(Object.keys(pair).join(), pair.privateKey.usages.join(), pair.publicKey.usages.join());
  const signature = await S.sign({ name: 'ECDSA', hash: 'SHA-256' }, pair.privateKey, bytes('m'));
  const verified = await S.verify({ name: 'ECDSA', hash: 'SHA-256' }, pair.publicKey, signature, bytes('m'));
  check(verified, { 'ecdsa verifies': (v) => v === true });
  console.log(pair);
  console.log('ec public jwk', Object.keys(await S.exportKey('jwk', pair.publicKey)).sort().join());

  await refusal('ed25519', () => S.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify']));
  await refusal('x25519', () => S.generateKey({ name: 'X25519' }, true, ['deriveBits']));
  await refusal('hkdf', () => S.importKey('raw', bytes('k'), 'HKDF', false, ['deriveBits']));
  await refusal('sha-224', () => S.digest('SHA-224', bytes('abc')));
  await refusal('aes-kw export', async () => S.exportKey('raw', await S.importKey('raw', new Uint8Array(16), 'AES-KW', true, ['wrapKey'])));
  await refusal('ecdh deriveKey', () => S.deriveKey({ name: 'ECDH', public: ecdhPublic }, ecdh, { name: 'AES-GCM', length: 128 }, true, ['encrypt']));
  await refusal('pbkdf2 to hmac', () => S.deriveKey(params, password, { name: 'HMAC', hash: 'SHA-256' }, true, ['sign']));
  await refusal('pbkdf2 0 bits', () => S.deriveBits(params, password, 0));
  await refusal('pbkdf2 7 bits', () => S.deriveBits(params, password, 7));
  await refusal('pbkdf2 extractable', () => S.importKey('raw', bytes('pw'), 'PBKDF2', true, ['deriveBits']));
  await refusal('not extractable', () => S.exportKey('raw', password));
  await refusal('wrong key', () => S.encrypt({ name: 'AES-GCM', iv: new Uint8Array(12) }, aes, bytes('x')));
  await refusal('no usage', () => S.sign('HMAC', hmac, bytes('x')).then(() => S.encrypt({ name: 'AES-GCM', iv: new Uint8Array(12) }, gcm, bytes('x'))).then(() => S.decrypt({ name: 'AES-GCM', iv: new Uint8Array(12) }, gcm, bytes('x'))));
  await refusal('empty usages', () => S.generateKey({ name: 'AES-GCM', length: 128 }, true, []));
  await refusal('aes length', () => S.generateKey({ name: 'AES-GCM', length: 100 }, true, ['encrypt']));
  await refusal('short iv', () => S.encrypt({ name: 'AES-CBC', iv: new Uint8Array(8) }, aes, bytes('x')));
  await refusal('wrapKey', async () => S.wrapKey('raw', aes, aes, 'AES-KW'));

  console.log('random', crypto.getRandomValues(new Uint8Array(8)).length, crypto.getRandomValues(new Uint32Array(65536)).every((v) => v < 256));
  for (const make of [() => new Float32Array(2), () => new BigInt64Array(2), () => new Uint8Array(65537)]) {
    try {
      crypto.getRandomValues(make());
    } catch (e) {
      console.log('getRandomValues', String(e));
    }
  }
  console.log('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(crypto.randomUUID()));
}
