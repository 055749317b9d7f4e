// MD4 (RFC 1320), which k6/crypto offers and node's OpenSSL 3 no longer does (it is in the
// legacy provider): here in JavaScript, for every runtime alike. Bytes in, 16 bytes out.

const rotl = (x, n) => (x << n) | (x >>> (32 - n));

export function md4(bytes) {
  const bitLength = bytes.length * 8;
  const padded = new Uint8Array((((bytes.length + 8) >> 6) + 1) * 64);
  padded.set(bytes);
  padded[bytes.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, bitLength >>> 0, true);
  view.setUint32(padded.length - 4, Math.floor(bitLength / 2 ** 32), true);
  let a = 0x67452301;
  let b = 0xefcdab89;
  let c = 0x98badcfe;
  let d = 0x10325476;
  const x = new Int32Array(16);
  for (let block = 0; block < padded.length; block += 64) {
    for (let i = 0; i < 16; i++) x[i] = view.getInt32(block + i * 4, true);
    const [aa, bb, cc, dd] = [a, b, c, d];
    const f = (p, q, r) => (p & q) | (~p & r);
    const g = (p, q, r) => (p & q) | (p & r) | (q & r);
    const h = (p, q, r) => p ^ q ^ r;
    for (const i of [0, 4, 8, 12]) {
      a = rotl(a + f(b, c, d) + x[i], 3);
      d = rotl(d + f(a, b, c) + x[i + 1], 7);
      c = rotl(c + f(d, a, b) + x[i + 2], 11);
      b = rotl(b + f(c, d, a) + x[i + 3], 19);
    }
    for (const i of [0, 1, 2, 3]) {
      a = rotl(a + g(b, c, d) + x[i] + 0x5a827999, 3);
      d = rotl(d + g(a, b, c) + x[i + 4] + 0x5a827999, 5);
      c = rotl(c + g(d, a, b) + x[i + 8] + 0x5a827999, 9);
      b = rotl(b + g(c, d, a) + x[i + 12] + 0x5a827999, 13);
    }
    for (const i of [0, 2, 1, 3]) {
      a = rotl(a + h(b, c, d) + x[i] + 0x6ed9eba1, 3);
      d = rotl(d + h(a, b, c) + x[i + 8] + 0x6ed9eba1, 9);
      c = rotl(c + h(d, a, b) + x[i + 4] + 0x6ed9eba1, 11);
      b = rotl(b + h(c, d, a) + x[i + 12] + 0x6ed9eba1, 15);
    }
    a = (a + aa) | 0;
    b = (b + bb) | 0;
    c = (c + cc) | 0;
    d = (d + dd) | 0;
  }
  const out = new Uint8Array(16);
  const o = new DataView(out.buffer);
  [a, b, c, d].forEach((w, i) => o.setInt32(i * 4, w, true));
  return out;
}

/** HMAC (RFC 2104) over MD4: its block is 64 bytes. */
export function hmacMd4(key, bytes) {
  const k = key.length > 64 ? md4(key) : key;
  const block = new Uint8Array(64);
  block.set(k);
  const inner = new Uint8Array(64 + bytes.length);
  const outer = new Uint8Array(64 + 16);
  for (let i = 0; i < 64; i++) {
    inner[i] = block[i] ^ 0x36;
    outer[i] = block[i] ^ 0x5c;
  }
  inner.set(bytes, 64);
  outer.set(md4(inner), 64);
  return md4(outer);
}
