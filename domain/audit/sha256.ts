/**
 * SHA-256 (FIPS 180-4) in plain TypeScript, for verify's hot loop only. node:crypto costs about
 * 2 µs per call whatever the length (a native object, a Buffer out), which was most of verify's
 * CPU for small events: an HMAC and two hashes per event. Here an HMAC starts from the key's
 * precomputed inner and outer states (`hmacKey`), so one seal is four compressions and no
 * allocation but the result. The sealer keeps node:crypto (sealChain.ts): the two implementations
 * check each other on every verify, and test/domain/audit/sha256.test.ts compares them.
 */

const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be,
  0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa,
  0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85,
  0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3,
  0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f,
  0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

const INITIAL = new Int32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);

const w = new Int32Array(64);

/** Mixes the 64-byte block at `bytes[at]` into `state`. */
const compress = (state: Int32Array, bytes: Uint8Array, at: number): void => {
  for (let i = 0; i < 16; i++, at += 4) w[i] = (bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!;
  for (let i = 16; i < 64; i++) {
    const a = w[i - 15]!;
    const b = w[i - 2]!;
    const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
    const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
    w[i] = (w[i - 16]! + s0 + w[i - 7]! + s1) | 0;
  }
  let a = state[0]!;
  let b = state[1]!;
  let c = state[2]!;
  let d = state[3]!;
  let e = state[4]!;
  let f = state[5]!;
  let g = state[6]!;
  let h = state[7]!;
  for (let i = 0; i < 64; i++) {
    const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (h + s1 + ((e & f) ^ (~e & g)) + K[i]! + w[i]!) | 0;
    const s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (s0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  state[0] = (state[0]! + a) | 0;
  state[1] = (state[1]! + b) | 0;
  state[2] = (state[2]! + c) | 0;
  state[3] = (state[3]! + d) | 0;
  state[4] = (state[4]! + e) | 0;
  state[5] = (state[5]! + f) | 0;
  state[6] = (state[6]! + g) | 0;
  state[7] = (state[7]! + h) | 0;
};

const tail = new Uint8Array(128);
const state = new Int32Array(8);

/**
 * Finishes a hash whose state has taken `done` bytes (a multiple of 64) and still has to take
 * `bytes[at, end)`; writes the digest into `out[outAt]`. Copies by hand: a subarray or a fill per
 * call cost as much as a compression.
 */
const finish = (start: Int32Array, done: number, bytes: Uint8Array, at: number, end: number, out: Uint8Array, outAt: number): void => {
  for (let i = 0; i < 8; i++) state[i] = start[i]!;
  for (; end - at >= 64; at += 64, done += 64) compress(state, bytes, at);
  const rest = end - at;
  for (let i = 0; i < rest; i++) tail[i] = bytes[at + i]!;
  tail[rest] = 0x80;
  const last = rest + 9 > 64 ? 128 : 64;
  for (let i = rest + 1; i < last - 5; i++) tail[i] = 0;
  // Lengths here stay far below 2^32 bytes: the bit count's high word is bits / 2^32, under 256.
  const bits = (done + rest) * 8;
  tail[last - 5] = Math.floor(bits / 2 ** 32);
  tail[last - 4] = bits >>> 24;
  tail[last - 3] = bits >>> 16;
  tail[last - 2] = bits >>> 8;
  tail[last - 1] = bits;
  compress(state, tail, 0);
  if (last === 128) compress(state, tail, 64);
  for (let i = 0; i < 8; i++) {
    const v = state[i]!;
    out[outAt + i * 4] = v >>> 24;
    out[outAt + i * 4 + 1] = v >>> 16;
    out[outAt + i * 4 + 2] = v >>> 8;
    out[outAt + i * 4 + 3] = v;
  }
};

/** sha256(bytes[at, end)) into `out[outAt]` (32 bytes). */
export const sha256Into = (bytes: Uint8Array, at: number, end: number, out: Uint8Array, outAt = 0): void =>
  finish(INITIAL, 0, bytes, at, end, out, outAt);

/** An HMAC-SHA256 key as the states after its inner and outer pad blocks. */
export type HmacKey = { readonly inner: Int32Array; readonly outer: Int32Array };

export const hmacKey = (key: Uint8Array): HmacKey => {
  const block = new Uint8Array(64);
  if (key.length > 64) sha256Into(key, 0, key.length, block);
  else block.set(key);
  const pad = (byte: number) => {
    const padded = block.map((b) => b ^ byte);
    const s = new Int32Array(INITIAL);
    compress(s, padded, 0);
    return s;
  };
  return { inner: pad(0x36), outer: pad(0x5c) };
};

const innerHash = new Uint8Array(32);

/** HMAC-SHA256(key, bytes[at, end)) into `out[outAt]` (32 bytes). */
export const hmacInto = (key: HmacKey, bytes: Uint8Array, at: number, end: number, out: Uint8Array, outAt = 0): void => {
  finish(key.inner, 64, bytes, at, end, innerHash, 0);
  finish(key.outer, 64, innerHash, 0, 32, out, outAt);
};
