// Copyright 2009 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style license, Go's, which follows.
//
// Redistribution and use in source and binary forms, with or without
// modification, are permitted provided that the following conditions are
// met:
//
//    * Redistributions of source code must retain the above copyright
// notice, this list of conditions and the following disclaimer.
//    * Redistributions in binary form must reproduce the above
// copyright notice, this list of conditions and the following disclaimer
// in the documentation and/or other materials provided with the
// distribution.
//    * Neither the name of Google Inc. nor the names of its
// contributors may be used to endorse or promote products derived from
// this software without specific prior written permission.
//
// THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS
// "AS IS" AND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT
// LIMITED TO, THE IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR
// A PARTICULAR PURPOSE ARE DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT
// OWNER OR CONTRIBUTORS BE LIABLE FOR ANY DIRECT, INDIRECT, INCIDENTAL,
// SPECIAL, EXEMPLARY, OR CONSEQUENTIAL DAMAGES (INCLUDING, BUT NOT
// LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS OR SERVICES; LOSS OF USE,
// DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER CAUSED AND ON ANY
// THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY, OR TORT
// (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE
// OF THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
//
// Go's math/rand (v1) generator, ported from its src/math/rand/rng.go and rand.go (Go 1.26):
// `rand.New(rand.NewSource(seed)).Float64`, what k6's randomSeed(seed) makes a VU's
// Math.random, so that a seeded script draws k6's numbers. Each int64 of the state is two
// 32-bit halves, so that a draw adds numbers and no BigInt.

import { RNG_COOKED } from './go-rand-cooked.js';

const LEN = 607;
const TAP = 273;
const INT32_MAX = 2147483647;
const TWO_32 = 4294967296;
const TWO_63 = 9223372036854775808;

// rngCooked's halves, made at the first seeding.
let cookedHi = null;
let cookedLo = null;

function cooked() {
  cookedHi = new Int32Array(LEN);
  cookedLo = new Uint32Array(LEN);
  for (let i = 0; i < LEN; i++) {
    const v = BigInt.asUintN(64, RNG_COOKED[i]);
    cookedHi[i] = Number(v >> 32n);
    cookedLo[i] = Number(v & 0xffffffffn);
  }
}

// Go's seedrand: x·48271 mod (2³¹ − 1) by Schrage's method, in int32 (no product overflows).
function seedrand(x) {
  const hi = Math.trunc(x / 44488);
  const lo = x % 44488;
  x = 48271 * lo - 3399 * hi;
  return x < 0 ? x + INT32_MAX : x;
}

/**
 * Go's rand.New(rand.NewSource(seed)).Float64: numbers in [0, 1). `seed` is Go's int64: an
 * integer Number in [-2⁶³, 2⁶³), exact as any such double is (JavaScript's % is exact too).
 */
export function goFloat64(seed) {
  if (cookedHi === null) cooked();
  const hi = new Int32Array(LEN);
  const lo = new Uint32Array(LEN);
  let s = seed % INT32_MAX;
  if (s < 0) s += INT32_MAX;
  if (s === 0) s = 89482311;
  let x = s;
  for (let i = -20; i < LEN; i++) {
    x = seedrand(x);
    if (i < 0) continue;
    // u = x<<40 ^ x'<<20 ^ x'' ^ rngCooked[i], each x below 2³¹.
    let uHi = x << 8;
    x = seedrand(x);
    uHi ^= x >>> 12;
    let uLo = x << 20;
    x = seedrand(x);
    uLo ^= x;
    hi[i] = uHi ^ cookedHi[i];
    lo[i] = uLo ^ cookedLo[i];
  }
  let tap = 0;
  let feed = LEN - TAP;
  return function float64() {
    for (;;) {
      // Uint64: vec[feed] += vec[tap], the carry of the low halves into the high.
      if (--tap < 0) tap += LEN;
      if (--feed < 0) feed += LEN;
      const l = lo[feed] + lo[tap];
      const h = (hi[feed] + hi[tap] + (l >= TWO_32 ? 1 : 0)) | 0;
      lo[feed] = l;
      hi[feed] = h;
      // Int63 / 2⁶³: the sum is rounded once, as Go's float64(int64); Go draws again for 1.
      const f = ((h & 0x7fffffff) * TWO_32 + (l >>> 0)) / TWO_63;
      if (f !== 1) return f;
    }
  };
}
