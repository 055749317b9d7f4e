// k6/crypto: hashes and HMACs, given as k6 gives them ('hex', 'base64', 'base64url', 'binary'),
// on the runtime's own implementation (`hash` from runtimes/: node:crypto, which node, Bun and
// Deno all have); md4 in JavaScript (./md4.js), which node's OpenSSL 3 has no more.

import { b64encode } from '../encoding.js';
import { md4, hmacMd4 } from './md4.js';
import { joinChunks } from '../../../http1/captured.js';

const ALGORITHMS = { md4: 'md4', md5: 'md5', sha1: 'sha1', sha256: 'sha256', sha384: 'sha384', sha512: 'sha512', sha512_224: 'sha512-224', sha512_256: 'sha512-256', ripemd160: 'ripemd160' };

function output(bytes, enc) {
  if (enc === 'hex') return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  if (enc === 'base64') return b64encode(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  if (enc === 'base64url') return b64encode(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength), 'url');
  if (enc === 'base64rawurl') return b64encode(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength), 'rawurl');
  if (enc === 'binary' || enc === undefined) return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  throw new Error(`unknown output encoding '${enc}' (hex, base64, base64url, binary)`);
}

const encoder = new TextEncoder();

// Strings (as UTF-8) and bytes, one after the other, as one Uint8Array.
const joined = (parts) => joinChunks(parts.map((p) => (typeof p === 'string' ? encoder.encode(p) : p instanceof ArrayBuffer ? new Uint8Array(p) : new Uint8Array(p.buffer, p.byteOffset, p.byteLength))));

const algorithm = (name) => {
  const a = ALGORITHMS[String(name).toLowerCase()];
  if (!a) throw new Error(`unknown hash algorithm '${name}'`);
  return a;
};

export function cryptoModule(vu) {
  const { hash, hmac, randomBytes } = vu.shared.facilities;
  const hasher = (alg, key) => {
    const chunks = [];
    return {
      update(data) {
        chunks.push(data);
        return this;
      },
      digest(enc) {
        const all = chunks.map((c) => (typeof c === 'string' ? c : new Uint8Array(c instanceof ArrayBuffer ? c : c.buffer)));
        const a = algorithm(alg);
        if (a === 'md4') return output(key === undefined ? md4(joined(all)) : hmacMd4(joined([key]), joined(all)), enc);
        return output(key === undefined ? hash(a, all) : hmac(a, key, all), enc);
      },
    };
  };
  const api = {
    createHash: (alg) => hasher(alg),
    createHMAC: (alg, key) => hasher(alg, key),
    hmac: (alg, key, data, enc) => hasher(alg, key).update(data).digest(enc),
    randomBytes: (n) => randomBytes(n).buffer,
  };
  for (const name of Object.keys(ALGORITHMS)) api[name] = (data, enc) => hasher(name).update(data).digest(enc);
  return { default: api, ...api };
}
