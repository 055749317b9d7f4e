// HPACK's Huffman code (RFC 7541 section 5.2, Appendix B): the code table, the encoder run once
// per distinct request at setup, and the decoder of response header blocks.
//
// Appendix B, symbol by symbol: the code (aligned to the least significant bit) and its length.
// The code is canonical (codes of one length are consecutive in symbol order) and complete (the
// Kraft sum is exactly 1); test/hpack.test.js checks both, which catches a mistyped entry.
const CODES = [
  0x1ff8, 0x7fffd8, 0xfffffe2, 0xfffffe3, 0xfffffe4, 0xfffffe5, 0xfffffe6, 0xfffffe7,    // 0
  0xfffffe8, 0xffffea, 0x3ffffffc, 0xfffffe9, 0xfffffea, 0x3ffffffd, 0xfffffeb, 0xfffffec, // 8
  0xfffffed, 0xfffffee, 0xfffffef, 0xffffff0, 0xffffff1, 0xffffff2, 0x3ffffffe, 0xffffff3, // 16
  0xffffff4, 0xffffff5, 0xffffff6, 0xffffff7, 0xffffff8, 0xffffff9, 0xffffffa, 0xffffffb, // 24
  0x14, 0x3f8, 0x3f9, 0xffa, 0x1ff9, 0x15, 0xf8, 0x7fa,                                  // 32
  0x3fa, 0x3fb, 0xf9, 0x7fb, 0xfa, 0x16, 0x17, 0x18,                                     // 40
  0x0, 0x1, 0x2, 0x19, 0x1a, 0x1b, 0x1c, 0x1d,                                           // 48
  0x1e, 0x1f, 0x5c, 0xfb, 0x7ffc, 0x20, 0xffb, 0x3fc,                                    // 56
  0x1ffa, 0x21, 0x5d, 0x5e, 0x5f, 0x60, 0x61, 0x62,                                      // 64
  0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a,                                        // 72
  0x6b, 0x6c, 0x6d, 0x6e, 0x6f, 0x70, 0x71, 0x72,                                        // 80
  0xfc, 0x73, 0xfd, 0x1ffb, 0x7fff0, 0x1ffc, 0x3ffc, 0x22,                               // 88
  0x7ffd, 0x3, 0x23, 0x4, 0x24, 0x5, 0x25, 0x26,                                         // 96
  0x27, 0x6, 0x74, 0x75, 0x28, 0x29, 0x2a, 0x7,                                          // 104
  0x2b, 0x76, 0x2c, 0x8, 0x9, 0x2d, 0x77, 0x78,                                          // 112
  0x79, 0x7a, 0x7b, 0x7ffe, 0x7fc, 0x3ffd, 0x1ffd, 0xffffffc,                            // 120
  0xfffe6, 0x3fffd2, 0xfffe7, 0xfffe8, 0x3fffd3, 0x3fffd4, 0x3fffd5, 0x7fffd9,           // 128
  0x3fffd6, 0x7fffda, 0x7fffdb, 0x7fffdc, 0x7fffdd, 0x7fffde, 0xffffeb, 0x7fffdf,        // 136
  0xffffec, 0xffffed, 0x3fffd7, 0x7fffe0, 0xffffee, 0x7fffe1, 0x7fffe2, 0x7fffe3,        // 144
  0x7fffe4, 0x1fffdc, 0x3fffd8, 0x7fffe5, 0x3fffd9, 0x7fffe6, 0x7fffe7, 0xffffef,        // 152
  0x3fffda, 0x1fffdd, 0xfffe9, 0x3fffdb, 0x3fffdc, 0x7fffe8, 0x7fffe9, 0x1fffde,         // 160
  0x7fffea, 0x3fffdd, 0x3fffde, 0xfffff0, 0x1fffdf, 0x3fffdf, 0x7fffeb, 0x7fffec,        // 168
  0x1fffe0, 0x1fffe1, 0x3fffe0, 0x1fffe2, 0x7fffed, 0x3fffe1, 0x7fffee, 0x7fffef,        // 176
  0xfffea, 0x3fffe2, 0x3fffe3, 0x3fffe4, 0x7ffff0, 0x3fffe5, 0x3fffe6, 0x7ffff1,         // 184
  0x3ffffe0, 0x3ffffe1, 0xfffeb, 0x7fff1, 0x3fffe7, 0x7ffff2, 0x3fffe8, 0x1ffffec,       // 192
  0x3ffffe2, 0x3ffffe3, 0x3ffffe4, 0x7ffffde, 0x7ffffdf, 0x3ffffe5, 0xfffff1, 0x1ffffed, // 200
  0x7fff2, 0x1fffe3, 0x3ffffe6, 0x7ffffe0, 0x7ffffe1, 0x3ffffe7, 0x7ffffe2, 0xfffff2,    // 208
  0x1fffe4, 0x1fffe5, 0x3ffffe8, 0x3ffffe9, 0xffffffd, 0x7ffffe3, 0x7ffffe4, 0x7ffffe5,  // 216
  0xfffec, 0xfffff3, 0xfffed, 0x1fffe6, 0x3fffe9, 0x1fffe7, 0x1fffe8, 0x7ffff3,          // 224
  0x3fffea, 0x3fffeb, 0x1ffffee, 0x1ffffef, 0xfffff4, 0xfffff5, 0x3ffffea, 0x7ffff4,     // 232
  0x3ffffeb, 0x7ffffe6, 0x3ffffec, 0x3ffffed, 0x7ffffe7, 0x7ffffe8, 0x7ffffe9, 0x7ffffea, // 240
  0x7ffffeb, 0xffffffe, 0x7ffffec, 0x7ffffed, 0x7ffffee, 0x7ffffef, 0x7fffff0, 0x3ffffee, // 248
  0x3fffffff,                                                                            // 256
];

const LENGTHS = [
  13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28,        // 0
  28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 28,        // 16
  6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6,                // 32
  5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6, 12, 10,                     // 48
  13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,                       // 64
  7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19, 13, 14, 6,                    // 80
  15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5,                       // 96
  6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28,                   // 112
  20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23,        // 128
  24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24,        // 144
  22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23,        // 160
  21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23,        // 176
  26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25,        // 192
  19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27,        // 208
  20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23,        // 224
  26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26,        // 240
  30,                                                                    // 256
];

export const HUFFMAN_CODES = Uint32Array.from(CODES);
export const HUFFMAN_LENGTHS = Uint8Array.from(LENGTHS);

const EOS = 256;

// The decoder reads 4 bits at a time through a state machine built here, once, from the code:
// a state is an inner node of the code tree (257 leaves, so 256 inner nodes, the root is 0), and
// as no code is shorter than 5 bits a nibble completes at most one symbol. Bit by bit would take
// 8 steps a byte; a byte-wide table would need 64 Ki entries that may emit two symbols each.
// An entry: the next state in bits 0-7, the symbol completed in bits 8-15, then two flags.
const T_EMIT = 0x10000;
const T_EOS = 0x20000;
const TRANSITIONS = new Uint32Array(256 * 16);

// Why a decode that ends in each state is refused (5.2): the bits left after the last symbol
// must be a prefix of EOS (all ones) and at most 7 of them.
const END_OK = 0;
const END_NOT_ONES = 1;
const END_TOO_LONG = 2;
const ENDS = new Uint8Array(256).fill(END_NOT_ONES);

{
  // child[2 * node + bit]: an inner node (> 0), a leaf as -(symbol + 1), or 0 (none yet).
  const child = new Int16Array(512);
  let nodes = 1;
  for (let sym = 0; sym <= EOS; sym++) {
    const code = HUFFMAN_CODES[sym];
    let node = 0;
    for (let b = HUFFMAN_LENGTHS[sym] - 1; b > 0; b--) {
      const k = 2 * node + ((code >>> b) & 1);
      if (child[k] === 0) child[k] = nodes++;
      node = child[k];
    }
    child[2 * node + (code & 1)] = -(sym + 1);
  }
  ENDS[0] = END_OK;
  for (let node = 0, depth = 1; depth < HUFFMAN_LENGTHS[EOS]; depth++) {
    node = child[2 * node + 1];
    ENDS[node] = depth <= 7 ? END_OK : END_TOO_LONG;
  }
  for (let state = 0; state < 256; state++) {
    for (let nibble = 0; nibble < 16; nibble++) {
      let node = state;
      let out = 0;
      for (let b = 3; b >= 0; b--) {
        const c = child[2 * node + ((nibble >> b) & 1)];
        if (c > 0) {
          node = c;
        } else if (-c - 1 === EOS) {
          out = T_EOS;
          break;
        } else {
          out = T_EMIT | ((-c - 1) << 8);
          node = 0;
        }
      }
      TRANSITIONS[(state << 4) | nibble] = out | node;
    }
  }
}

// What huffmanDecode returns for a string it refuses.
export const HUFFMAN_EOS = -100;
export const HUFFMAN_PADDING_TOO_LONG = -101;
export const HUFFMAN_PADDING_NOT_ONES = -102;
export const HUFFMAN_OVER_LIMIT = -103;

/**
 * Decodes src[at, end) into out from outAt (out null: only checks and counts, nothing is
 * written). Returns the decoded length, or one of the negative HUFFMAN_ codes above; more than
 * `limit` bytes is HUFFMAN_OVER_LIMIT. out must have room for min(limit, 8 * (end - at) / 5).
 */
export function huffmanDecode(src, at, end, out, outAt, limit) {
  let state = 0;
  let n = 0;
  for (let i = at; i < end; i++) {
    const b = src[i];
    let t = TRANSITIONS[(state << 4) | (b >> 4)];
    if (t >= T_EMIT) {
      if (t & T_EOS) return HUFFMAN_EOS;
      if (n >= limit) return HUFFMAN_OVER_LIMIT;
      if (out !== null) out[outAt + n] = t >> 8;
      n++;
    }
    t = TRANSITIONS[((t & 0xff) << 4) | (b & 0x0f)];
    if (t >= T_EMIT) {
      if (t & T_EOS) return HUFFMAN_EOS;
      if (n >= limit) return HUFFMAN_OVER_LIMIT;
      if (out !== null) out[outAt + n] = t >> 8;
      n++;
    }
    state = t & 0xff;
  }
  const why = ENDS[state];
  return why === END_OK ? n : why === END_TOO_LONG ? HUFFMAN_PADDING_TOO_LONG : HUFFMAN_PADDING_NOT_ONES;
}

/** The length in bytes of `bytes` Huffman-encoded. */
export function huffmanLength(bytes) {
  let bits = 0;
  for (let i = 0; i < bytes.length; i++) bits += HUFFMAN_LENGTHS[bytes[i]];
  return (bits + 7) >>> 3;
}

/** Appends `bytes` Huffman-encoded to `out` (an array of byte values): setup time, not per request. */
export function huffmanEncode(bytes, out) {
  // A double holds the pending bits exactly: fewer than 8 left over plus a code of at most 30.
  let acc = 0;
  let bits = 0;
  for (let i = 0; i < bytes.length; i++) {
    const len = HUFFMAN_LENGTHS[bytes[i]];
    acc = acc * 2 ** len + HUFFMAN_CODES[bytes[i]];
    bits += len;
    while (bits >= 8) {
      bits -= 8;
      const unit = 2 ** bits;
      const byte = Math.floor(acc / unit);
      out.push(byte);
      acc -= byte * unit;
    }
  }
  // Padding is the most significant bits of EOS, that is ones (5.2).
  if (bits > 0) out.push(((acc << (8 - bits)) | (0xff >> bits)) & 0xff);
  return out;
}
