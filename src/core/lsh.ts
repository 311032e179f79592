/**
 * MinHash LSH band keys (docs/fingerprint-spec.md §9, scheme `lsh3` with the word
 * keys of word-keys.ts and the block keys of block-keys.ts; the band keys are
 * those of `lsh1`): a second
 * retrieval key beside the simhash segments. Two texts whose shingle sets have
 * Jaccard similarity J share at least one of `bands` keys with probability
 * 1 - (1 - J^rows)^bands, so an exact `terms` lookup on the keys finds
 * near-duplicates that simhash puts many bits apart.
 *
 * 1. Shingles: the set of character 4-grams of the normalized text with every
 *    U+0020 removed (code points, overlapping: a text of n >= 4 code points has
 *    n - 3 of them); a text of fewer than 4 code points is one shingle, itself.
 * 2. Shingle hash x = MurmurHash3_x86_32 (seed 0) of the shingle's UTF-8 bytes.
 * 3. Permutation i (0 .. bands*rows-1): h_i(x) = fmix32(x XOR s_i), where fmix32
 *    is MurmurHash3's 32-bit finalizer (a bijection) and s_i = fmix32((i + 1) *
 *    0x9E3779B9 mod 2^32). m_i = min over the shingles of h_i(x) (unsigned).
 * 4. Band j (0 .. bands-1) covers m_{j*rows} .. m_{j*rows+rows-1}; its key is
 *    MurmurHash3_x86_32 with seed j of those minimums as 4-byte little-endian
 *    words, rendered `BB:XXXXXXXX`: the band index as 2 lowercase hex digits, a
 *    colon, the hash as 8 lowercase hex digits. The band index in the key keeps
 *    equal hashes of different bands apart.
 *
 * Pure int arithmetic on uint32 values (Math.imul), no BigInt, no allocation
 * per shingle: the text is UTF-8 encoded once into a scratch buffer and each
 * shingle is hashed in place. The signature (step 3) runs eight permutations
 * at a time in WebAssembly SIMD where available (minhash-simd.ts), with the
 * same values as `minhashSignature`.
 */
import { NeardupError } from "./errors.js";
import { createSimdMinhasher } from "./minhash-simd.js";
import { C1, C2, fmix32, murmur3 } from "./murmur3.js";
import { blockKeysOfUnits, lookupBlockKeys } from "./block-keys.js";
import { shortTextUnits, wordKeysOfUnits } from "./word-keys.js";

export { fmix32, murmur3 };

/**
 * Version of the LSH key scheme (spec §9); keys of different versions are not
 * comparable. `lsh2` (issue 14) = the band keys of `lsh1` plus the word keys
 * of short texts (word-keys.ts, spec §9.1); `lsh3` = `lsh2` plus the block keys
 * of short texts (block-keys.ts, spec §9.2).
 */
export const LSH_VERSION = "lsh3";

/**
 * The LSH scheme a key set was made with: version, bands and rows
 * (`lsh3-16x3`). Stored beside the keys (`neardup.lsh_scheme`, contract v3);
 * keys of different schemes are never compared.
 */
export function lshSchemeOf(options: LshOptions): string {
  return `${LSH_VERSION}-${options.bands}x${options.rows}`;
}

/** The scheme of documents stored before contract v3 (no `neardup.lsh_scheme`): lsh1 at its default banding. */
export const LEGACY_LSH_SCHEME = "lsh1-16x3";

const BANDED = /^lsh([123])-(\d+x\d+)$/;

/**
 * The stored LSH schemes whose keys a lookup of `scheme` may match, its own
 * first, then the others newest first. lsh2 is lsh1 plus word keys and lsh3 is
 * lsh2 plus block keys: the band keys of one banding are defined alike (spec
 * §9 steps 1-4), and a word key (`w:...`) or block key (`p:...`) never equals a
 * band key (`BB:...`) or each other, so lsh1, lsh2 and lsh3 documents of one
 * banding are compared on the keys they have in common, and a scheme rollout
 * leaves no gap on them. Any other scheme matches only itself.
 */
export function comparableLshSchemes(scheme: string): string[] {
  const m = BANDED.exec(scheme);
  if (!m) return [scheme];
  return [scheme, ...["3", "2", "1"].filter((v) => v !== m[1]).map((v) => `lsh${v}-${m[2]}`)];
}

/** Whether keys of the two LSH schemes may be compared (`comparableLshSchemes`). */
export function lshSchemesComparable(a: string, b: string): boolean {
  return a === b || comparableLshSchemes(a).includes(b);
}

/** Banding of the MinHash signature: `bands * rows` permutations, `bands` keys per text. */
export interface LshOptions {
  /** Number of bands = keys per text, 1..256. */
  bands: number;
  /** MinHash values per band, 1..16. */
  rows: number;
}

/**
 * Shingle length of the band keys (lsh1, lsh2, lsh3): character 4-grams. Chosen on the quality benchmark
 * (docs/quality.md): 3-grams recall a little more but unrelated long English
 * texts share many of them (Jaccard ~0.14 above 1,000 characters, against
 * ~0.05 for 4-grams), which makes band collisions between unrelated texts
 * frequent; 5-grams and word shingles lose recall on texts under 50 characters.
 */
export const LSH_SHINGLE_LENGTH = 4;

/** Default banding, chosen on the quality benchmark (docs/quality.md). */
export const DEFAULT_LSH_OPTIONS: Readonly<LshOptions> = Object.freeze({ bands: 16, rows: 3 });
// 16 x 3: a pair with shingle Jaccard J shares a key with probability
// 1 - (1 - J^3)^16: 0.0004 at J = 0.03, 0.002 at 0.05, 0.35 at 0.3, 0.65 at 0.4,
// 0.88 at 0.5, 0.98 at 0.6, 0.999 at 0.7.

/** MurmurHash3_x86_32 of `words[start .. start+count)` as little-endian 4-byte blocks (no tail). */
function murmur3Words(words: Uint32Array, start: number, count: number, seed: number): number {
  let h = seed | 0;
  for (let p = start; p < start + count; p++) {
    let k = Math.imul(words[p]!, C1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, C2);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  return fmix32(h ^ (count * 4));
}

/** s_i = fmix32((i + 1) * 0x9E3779B9 mod 2^32), the permutation seeds (step 3). */
export function permutationSeeds(count: number): Uint32Array {
  const s = new Uint32Array(count);
  for (let i = 0; i < count; i++) s[i] = fmix32(Math.imul(i + 1, 0x9e3779b9));
  return s;
}

const encoder = new TextEncoder();
let scratch = new Uint8Array(1024);
let starts = new Int32Array(256);
let shingles = new Uint32Array(256);

/**
 * Hashes (step 2) of the character k-grams of `normalized` with U+0020 removed,
 * in text order, duplicates included (MinHash is a set function, so they
 * change nothing). The returned array is a view of a scratch buffer, valid
 * until the next call. Empty text: no shingles.
 */
export function shingleHashes(normalized: string, k: number = LSH_SHINGLE_LENGTH): Uint32Array {
  const text = normalized.includes(" ") ? normalized.replaceAll(" ", "") : normalized;
  if (scratch.length < text.length * 3) scratch = new Uint8Array(text.length * 3 + 64);
  const { written } = encoder.encodeInto(text, scratch);
  // Code point starts: every byte that is not a UTF-8 continuation byte.
  if (starts.length < written + 1) starts = new Int32Array(written + 64);
  let n = 0;
  for (let p = 0; p < written; p++) if ((scratch[p]! & 0xc0) !== 0x80) starts[n++] = p;
  starts[n] = written;
  if (n === 0) return shingles.subarray(0, 0);
  const count = n < k ? 1 : n - k + 1;
  if (shingles.length < count) shingles = new Uint32Array(count + 64);
  if (n < k) shingles[0] = murmur3(scratch, 0, written, 0);
  else for (let i = 0; i < count; i++) shingles[i] = murmur3(scratch, starts[i]!, starts[i + k]! - starts[i]!, 0);
  return shingles.subarray(0, count);
}

/**
 * MinHash signature (step 3) of a set of shingle hashes under the first
 * `seeds.length` permutations, written to `out` (all 0xFFFFFFFF for an empty set).
 */
export function minhashSignature(hashes: Uint32Array, seeds: Uint32Array, out: Uint32Array = new Uint32Array(seeds.length)): Uint32Array {
  const k = seeds.length;
  const n = hashes.length;
  // One permutation at a time: its minimum stays in a register over the shingles.
  for (let i = 0; i < k; i++) {
    const s = seeds[i]!;
    let min = 0xffffffff;
    for (let j = 0; j < n; j++) {
      // fmix32(x ^ s_i), inlined.
      let h = hashes[j]! ^ s;
      h ^= h >>> 16;
      h = Math.imul(h, 0x85ebca6b);
      h ^= h >>> 13;
      h = Math.imul(h, 0xc2b2ae35);
      h ^= h >>> 16;
      h >>>= 0;
      if (h < min) min = h;
    }
    out[i] = min;
  }
  return out;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** Band keys (step 4) of a signature: `bands` strings `BB:XXXXXXXX`. */
export function bandKeys(signature: Uint32Array, bands: number, rows: number): string[] {
  const keys: string[] = new Array<string>(bands);
  for (let b = 0; b < bands; b++) {
    const h = murmur3Words(signature, b * rows, rows, b);
    keys[b] = HEX[b]! + ":" + HEX[h >>> 24]! + HEX[(h >>> 16) & 0xff]! + HEX[(h >>> 8) & 0xff]! + HEX[h & 0xff]!;
  }
  return keys;
}

/** Estimated Jaccard similarity: the share of equal signature positions. */
export function estimateJaccard(a: Uint32Array, b: Uint32Array): number {
  const n = Math.min(a.length, b.length);
  let same = 0;
  for (let i = 0; i < n; i++) if (a[i] === b[i]) same++;
  return n === 0 ? 0 : same / n;
}

/** Validates LSH options; @throws NeardupError INVALID_CONFIG naming the field (`lsh.bands`, `lsh.rows`). */
export function validateLshOptions(o: unknown, path = "lsh"): LshOptions {
  if (o === null || typeof o !== "object" || Array.isArray(o)) {
    throw new NeardupError("INVALID_CONFIG", `${path} must be false or an object {bands, rows}, got ${JSON.stringify(o)}`, { field: path });
  }
  for (const k of Object.keys(o)) {
    if (k !== "bands" && k !== "rows") throw new NeardupError("INVALID_CONFIG", `unknown option ${path}.${k}`, { field: `${path}.${k}` });
  }
  const { bands, rows } = o as Partial<LshOptions>;
  if (!Number.isInteger(bands) || (bands as number) < 1 || (bands as number) > 256) {
    throw new NeardupError("INVALID_CONFIG", `${path}.bands must be an integer in 1..256, got ${JSON.stringify(bands)}`, { field: `${path}.bands` });
  }
  if (!Number.isInteger(rows) || (rows as number) < 1 || (rows as number) > 16) {
    throw new NeardupError("INVALID_CONFIG", `${path}.rows must be an integer in 1..16, got ${JSON.stringify(rows)}`, { field: `${path}.rows` });
  }
  return { bands: bands as number, rows: rows as number };
}

/** Computes band keys for normalized texts with fixed options; reuses its buffers. */
export interface LshKeyer {
  readonly options: LshOptions;
  /** `lshSchemeOf(options)`. */
  readonly scheme: string;
  /** The `bands` band keys of a normalized text, then its word keys and block keys (short texts, word-keys.ts, block-keys.ts); [] when it has no shingles. */
  keys(normalized: string): string[];
  /** The lookup-only keys of a normalized text (block-keys.ts `lookupBlockKeys`, spec §9.2): matched against stored keys, never stored; [] for most texts. */
  lookupKeys(normalized: string): string[];
}

export function createLshKeyer(options: LshOptions = DEFAULT_LSH_OPTIONS): LshKeyer {
  const { bands, rows } = validateLshOptions(options);
  const seeds = permutationSeeds(bands * rows);
  const signature = new Uint32Array(bands * rows);
  // Eight permutations at a time in WebAssembly SIMD (same values; minhash-simd.ts), else the scalar loop.
  const simd = createSimdMinhasher(seeds);
  return {
    options: { bands, rows },
    scheme: lshSchemeOf({ bands, rows }),
    keys(normalized) {
      const hashes = shingleHashes(normalized);
      if (hashes.length === 0) return [];
      const keys = bandKeys(simd === null ? minhashSignature(hashes, seeds, signature) : simd.signature(hashes, signature), bands, rows);
      // A short text's units, read once for its word keys and its block keys.
      const units = shortTextUnits(normalized);
      for (const k of wordKeysOfUnits(units)) keys.push(k);
      for (const k of blockKeysOfUnits(units)) keys.push(k);
      return keys;
    },
    lookupKeys: lookupBlockKeys,
  };
}
