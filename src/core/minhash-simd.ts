/**
 * The MinHash signature of spec §9 step 3 in WebAssembly SIMD: four
 * permutations at once in the lanes of one 128-bit vector (i32x4), which does
 * the same uint32 arithmetic as `minhashSignature` in lsh.ts:
 *
 *   for each group of 4 permutations i..i+3 (seeds s, one lane each):
 *     m = [0xFFFFFFFF] x 4
 *     for each shingle hash x: h = fmix32(splat(x) ^ s) lane-wise; m = min_u(m, h)
 *
 * fmix32's steps (xor, logical shift right, 32-bit multiply keeping the low
 * half) are exact lane-wise operations, and min_u is the unsigned minimum, so
 * every lane holds exactly the value the scalar loop computes. A test
 * compares both on random and real shingle sets; lsh.ts falls back to the
 * scalar loop where WebAssembly SIMD is not available.
 *
 * The module is a few hundred bytes written out below (no toolchain): one
 * exported function `minhash(hashes, n, seeds, k, out)` over byte offsets in
 * its exported memory, `k` a multiple of 8.
 */

/** Unsigned LEB128. */
function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

/** Signed LEB128 of a 32-bit integer. */
function sleb(n: number): number[] {
  const out: number[] = [];
  n |= 0;
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

function section(id: number, body: number[]): number[] {
  return [id, ...uleb(body.length), ...body];
}

function vec(items: number[][]): number[] {
  return [...uleb(items.length), ...items.flat()];
}

/** A name: its length, then its (ASCII) bytes. */
function name(s: string): number[] {
  return [...uleb(s.length), ...Array.from(s, (c) => c.charCodeAt(0))];
}

/** i32x4 with all four lanes `x` as a v128.const. */
function splatConst(x: number): number[] {
  const lane = [x & 0xff, (x >>> 8) & 0xff, (x >>> 16) & 0xff, (x >>> 24) & 0xff];
  return [0xfd, ...uleb(12), ...lane, ...lane, ...lane, ...lane];
}

// Opcodes used below.
const I32 = 0x7f;
const V128 = 0x7b;
const LOCAL_GET = 0x20;
const LOCAL_SET = 0x21;
const LOCAL_TEE = 0x22;
const I32_CONST = 0x41;
const I32_LOAD = [0x28, 2, 0];
const I32_ADD = 0x6a;
const I32_SHL = 0x74;
const I32_GE_U = 0x4f;
const BLOCK = [0x02, 0x40];
const LOOP = [0x03, 0x40];
const BR = 0x0c;
const BR_IF = 0x0d;
const END = 0x0b;
const V128_LOAD = [0xfd, ...uleb(0), 2, 0];
const V128_STORE = [0xfd, ...uleb(11), 2, 0];
const I32X4_SPLAT = [0xfd, ...uleb(17)];
const V128_XOR = [0xfd, ...uleb(81)];
const I32X4_SHR_U = [0xfd, ...uleb(173)];
const I32X4_MUL = [0xfd, ...uleb(181)];
const I32X4_MIN_U = [0xfd, ...uleb(183)];

// Parameters and locals of minhash.
const HASHES = 0;
const N = 1;
const SEEDS = 2;
const K = 3;
const OUT = 4;
const I = 5;
const P = 6;
const END_P = 7;
const X = 8; // splat(hashes[p])
const S = [9, 10]; // seeds of the two vectors of a group
const M = [11, 12]; // their running minimums
const V = [13, 14]; // scratch

/** `v ^= v >>> shift` on the vector on the stack, leaving it there (and in `v`). */
function xorShift(v: number, shift: number): number[] {
  return [LOCAL_TEE, v, LOCAL_GET, v, I32_CONST, ...sleb(shift), ...I32X4_SHR_U, ...V128_XOR];
}

/** m[g] = min_u(m[g], fmix32(x ^ s[g])). */
function lane(g: number): number[] {
  return [
    LOCAL_GET, X, LOCAL_GET, S[g]!, ...V128_XOR,
    ...xorShift(V[g]!, 16), ...splatConst(0x85ebca6b), ...I32X4_MUL,
    ...xorShift(V[g]!, 13), ...splatConst(0xc2b2ae35), ...I32X4_MUL,
    ...xorShift(V[g]!, 16),
    LOCAL_GET, M[g]!, ...I32X4_MIN_U, LOCAL_SET, M[g]!,
  ];
}

/** Byte offset `base + 4 * i + bytes` on the stack. */
function at(base: number, bytes: number): number[] {
  return [LOCAL_GET, base, LOCAL_GET, I, I32_CONST, 2, I32_SHL, I32_ADD, I32_CONST, ...sleb(bytes), I32_ADD];
}

/**
 * Groups of 8 permutations (two vectors, so the two multiply chains overlap
 * in the pipeline and each shingle hash is loaded once per 8): `k` must be a
 * multiple of 8.
 */
function minhashBody(): number[] {
  const code = [
    // block $done / loop $groups: while i < k
    ...BLOCK, ...LOOP,
    LOCAL_GET, I, LOCAL_GET, K, I32_GE_U, BR_IF, 1,
    // s = seeds[i..i+7]; m = all ones
    ...at(SEEDS, 0), ...V128_LOAD, LOCAL_SET, S[0]!,
    ...at(SEEDS, 16), ...V128_LOAD, LOCAL_SET, S[1]!,
    ...splatConst(0xffffffff), LOCAL_TEE, M[0]!, LOCAL_SET, M[1]!,
    // p = hashes; end = hashes + 4n
    LOCAL_GET, HASHES, LOCAL_SET, P,
    LOCAL_GET, HASHES, LOCAL_GET, N, I32_CONST, 2, I32_SHL, I32_ADD, LOCAL_SET, END_P,
    // block $shingles_done / loop $shingles: while p < end
    ...BLOCK, ...LOOP,
    LOCAL_GET, P, LOCAL_GET, END_P, I32_GE_U, BR_IF, 1,
    LOCAL_GET, P, ...I32_LOAD, ...I32X4_SPLAT, LOCAL_SET, X,
    ...lane(0), ...lane(1),
    LOCAL_GET, P, I32_CONST, 4, I32_ADD, LOCAL_SET, P,
    BR, 0, END, END,
    // out[i..i+7] = m; i += 8
    ...at(OUT, 0), LOCAL_GET, M[0]!, ...V128_STORE,
    ...at(OUT, 16), LOCAL_GET, M[1]!, ...V128_STORE,
    LOCAL_GET, I, I32_CONST, 8, I32_ADD, LOCAL_SET, I,
    BR, 0, END, END,
    END,
  ];
  // Locals after the 5 parameters: 3 i32 (i, p, end), 7 v128 (x, s0, s1, m0, m1, v0, v1).
  const locals = vec([[3, I32], [7, V128]]);
  const body = [...locals, ...code];
  return [...uleb(body.length), ...body];
}

function moduleBytes(): Uint8Array {
  const bytes = [
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    // type 0: (i32 i32 i32 i32 i32) -> ()
    ...section(1, vec([[0x60, ...vec([[I32], [I32], [I32], [I32], [I32]]), 0]])),
    // function 0 has type 0
    ...section(3, vec([[0]])),
    // memory 0: 1 page minimum
    ...section(5, vec([[0x00, 1]])),
    // exports: "minhash" = func 0, "memory" = memory 0
    ...section(7, vec([
      [...name("minhash"), 0x00, 0],
      [...name("memory"), 0x02, 0],
    ])),
    ...section(10, vec([minhashBody()])),
  ];
  return Uint8Array.from(bytes);
}

/** MinHash signatures with fixed seeds, in WebAssembly SIMD. */
export interface SimdMinhasher {
  /** The signature of `hashes` under the seeds, written to `out` (length = seeds). */
  signature(hashes: Uint32Array, out: Uint32Array): Uint32Array;
}

const PAGE = 65_536;

/** The parts of the WebAssembly API used here (the project's TypeScript libs do not declare it). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: Record<string, unknown> };
}
const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;

/**
 * A SIMD minhasher for `seeds`, or null where WebAssembly SIMD is not
 * available (the caller then uses the scalar loop).
 */
export function createSimdMinhasher(seeds: Uint32Array): SimdMinhasher | null {
  if (wasm === undefined) return null;
  let instance: { exports: Record<string, unknown> };
  try {
    instance = new wasm.Instance(new wasm.Module(moduleBytes()));
  } catch {
    return null; // no SIMD in this runtime: the module does not validate
  }
  const memory = instance.exports.memory as WasmMemory;
  const minhash = instance.exports.minhash as (hashes: number, n: number, seeds: number, k: number, out: number) => void;
  const k = seeds.length;
  const padded = (k + 7) & ~7; // whole groups of 8; the extra lanes are computed and ignored
  const seedsAt = 0;
  const outAt = padded * 4;
  const hashesAt = outAt + padded * 4;
  let view = new Uint32Array(memory.buffer);
  const ensure = (n: number): void => {
    const needed = hashesAt + n * 4;
    if (needed > memory.buffer.byteLength) memory.grow(Math.ceil((needed - memory.buffer.byteLength) / PAGE));
    if (view.buffer !== memory.buffer) view = new Uint32Array(memory.buffer);
  };
  ensure(0);
  view.set(seeds, seedsAt / 4);
  return {
    signature(hashes, out) {
      ensure(hashes.length);
      view.set(hashes, hashesAt / 4);
      minhash(hashesAt, hashes.length, seedsAt, padded, outAt);
      out.set(view.subarray(outAt / 4, outAt / 4 + k));
      return out;
    },
  };
}
