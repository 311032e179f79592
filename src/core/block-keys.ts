/**
 * Block keys of short texts (docs/fingerprint-spec.md §9.2, new in LSH scheme
 * `lsh3`): exact keys that make a short text with a few units replaced
 * findable, where the word keys (one unit, word-keys.ts) and the band keys
 * are not.
 *
 * Why: the tiny bucket's edit rule calls two texts of n characters duplicates
 * at an edit similarity of 0.85, that is up to floor(0.15 n) characters
 * replaced: 2 in 14 characters, 3 in 20. Each replaced character changes up
 * to 4 of the text's character 4-grams, so two replaced characters in 15
 * leave a shingle Jaccard near 0.3, where the 16 x 3 band keys share a key
 * with probability 0.35, and the word keys need all but one unit equal. An
 * outside audit measured 20-23 misses in 40 such pairs that `/v1/compare`
 * called duplicates (audit 22, F1).
 *
 * The rule: the units of the text (§9.1: a Han character, or a run of other
 * non-space characters) are cut into `blocks(n)` = floor(3 n / 20) + 1
 * consecutive blocks of near-equal size, block i holding units
 * [floor(i n / b), floor((i + 1) n / b)). A text of at most
 * `WORD_KEYS_MAX_LENGTH` code points with at least 3 blocks (n >= 14 units)
 * has one key per block. By the pigeonhole principle two texts of n units
 * that differ in at most b - 1 units, each replaced in place, leave some
 * block whole in both, and so share its key: every replacement the edit rule
 * accepts between texts of single-character units. (An inserted or deleted
 * unit moves the blocks after it; the word keys cover one, and the lookup block keys below up to two with replacements.)
 *
 * A key is `p:` and 16 lowercase hex digits: MurmurHash3_x86_32 with seed 0,
 * then with seed 1, of the UTF-8 bytes of `n`, U+0020, `i`, U+0020 and the
 * block's units joined by one U+0020 (n and i in decimal). `p` is not a hex
 * digit, and a word key starts `w:`, so block keys never equal another key.
 *
 * Lookup block keys (spec §9.2, "Lookup-only keys"; not stored, not part of
 * the scheme): the block keys a stored text of n' = m - 2 .. m + 2 units would
 * have, read off a query of m units with each block where it lands after up to
 * two units inserted or deleted. They make up to two inserted or deleted units
 * plus replacements findable with the stored keys unchanged (PassJoin's
 * position-aware substring selection, Li et al. 2011).
 */
import { murmur3 } from "./murmur3.js";
import { hashedKey, shortTextUnits, WORD_KEYS_MAX_LENGTH, wordUnits } from "./word-keys.js";

/** Fewest blocks for which a text gets block keys (one replaced unit is the word keys' case). */
export const BLOCK_KEYS_MIN_BLOCKS = 3;

/** Blocks of a text of `units` units: floor(3 n / 20) + 1, one more than the replaced characters the edit rule accepts at 0.85. */
export function blockCount(units: number): number {
  return Math.floor((3 * units) / 20) + 1;
}

/** The key of block `i` of a text of `n` units. */
export function blockKey(n: number, i: number, block: readonly string[]): string {
  return hashedKey("p:", `${n} ${i} ${block.join(" ")}`);
}

/** The block keys of a normalized text (rule above), duplicates once; [] for a longer or shorter text. */
export function blockKeys(normalized: string): string[] {
  return blockKeysOfUnits(shortTextUnits(normalized));
}

/** The block keys of a short text's units (word-keys.ts `shortTextUnits`). */
export function blockKeysOfUnits(units: readonly string[]): string[] {
  const n = units.length;
  const b = blockCount(n);
  if (b < BLOCK_KEYS_MIN_BLOCKS) return [];
  const keys = new Set<string>();
  for (let i = 0; i < b; i++) keys.add(blockKey(n, i, units.slice(Math.floor((i * n) / b), Math.floor(((i + 1) * n) / b))));
  return [...keys];
}

/**
 * Most units inserted or deleted that the lookup block keys find (with replacements, within the stored text's
 * blocks - 1 edits in all): d in PassJoin's terms. 1 would cover audit 22a's pairs (one replaced, one inserted)
 * with 4 to 40 keys a text; 2 covers two inserted or deleted as well (a quarter of the pairs with one replaced and
 * two inserted that the tiny edit rule accepts were missed), with 3 to 109 keys (spec §9.2, "Cost").
 */
export const LOOKUP_BLOCK_KEYS_MAX_INDELS = 2;

/**
 * Most code points of a query text with lookup block keys: `LOOKUP_BLOCK_KEYS_MAX_INDELS` units more than the
 * longest stored text with block keys, which a query with that many units inserted can still find.
 */
export const LOOKUP_BLOCK_KEYS_MAX_LENGTH = WORD_KEYS_MAX_LENGTH + LOOKUP_BLOCK_KEYS_MAX_INDELS;

/**
 * The lookup block keys of a normalized query text (spec §9.2, "Lookup-only keys"); [] for a text of more than
 * `LOOKUP_BLOCK_KEYS_MAX_LENGTH` code points. Never stored: a lookup matches them, with its own keys, against the
 * stored keys.
 */
export function lookupBlockKeys(normalized: string): string[] {
  if (normalized.length === 0 || normalized.length > 2 * LOOKUP_BLOCK_KEYS_MAX_LENGTH) return [];
  if (normalized.length > LOOKUP_BLOCK_KEYS_MAX_LENGTH && [...normalized].length > LOOKUP_BLOCK_KEYS_MAX_LENGTH) return [];
  return lookupBlockKeysOfUnits(wordUnits(normalized));
}

/**
 * The lookup block keys of a query's m units, for at most `indels` units inserted or deleted (PassJoin's
 * position-aware selection, Li et al. 2011): for each stored length n' in m - indels .. m + indels with block keys
 * (b' = `blockCount(n')` >= 3, n' <= `WORD_KEYS_MAX_LENGTH`), with D = m - n', each block i of n' (units [s, e))
 * and each shift t with |t| <= i, |D - t| <= b' - 1 - i and |t| + |D - t| <= indels, the key
 * `blockKey(n', i, ...)` of the query's units [s + t, e + t); but not D = t = 0, the query's own block key.
 * Duplicates once.
 *
 * Guarantee: a stored text S of n' units with block keys, and a query Q made from S by at most `indels` units
 * inserted or deleted and r replaced, E = indels used + r <= b' - 1 = floor(3 n' / 20) edits in all, share a key:
 * one of these and one of `blockKeysOfUnits(S)`; with no unit inserted or deleted, Q's own block keys do. Why: give
 * every edit to one block of S (a replacement or deletion to the block of its unit, an insertion to the block of
 * the unit before it, the first block at the start). With E <= b' - 1 edits in b' blocks, let c(i) = (edits in
 * blocks before i) - i; c(0) = 0 and c(b') = E - b' < 0, each step adds (edits in the block) - 1 >= -1, so at the
 * last i with c(i) >= 0 block i holds no edit, with exactly i edits before it and E - i <= b' - 1 - i after. It
 * appears whole in Q shifted by t = (insertions - deletions before it): |t| <= i, |D - t| <= E - i, and |t| +
 * |D - t| is at most the units inserted and deleted.
 */
export function lookupBlockKeysOfUnits(units: readonly string[], indels: number = LOOKUP_BLOCK_KEYS_MAX_INDELS): string[] {
  const m = units.length;
  const keys = new Set<string>();
  if (m + indels < 14) return []; // no n' with 3 blocks
  const key = blockKeyer(units);
  for (let n = Math.max(1, m - indels); n <= Math.min(m + indels, WORD_KEYS_MAX_LENGTH); n++) {
    const b = blockCount(n);
    if (b < BLOCK_KEYS_MIN_BLOCKS) continue;
    const D = m - n;
    for (let i = 0; i < b; i++) {
      const s = Math.floor((i * n) / b);
      const e = Math.floor(((i + 1) * n) / b);
      for (let t = Math.max(-i, D - (b - 1 - i)); t <= Math.min(i, D + (b - 1 - i)); t++) {
        if (Math.abs(t) + Math.abs(D - t) > indels || (D === 0 && t === 0) || s + t < 0 || e + t > m) continue;
        keys.add(key(n, i, s + t, e + t));
      }
    }
  }
  return [...keys];
}

const encoder = new TextEncoder();
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));
const hex32 = (h: number): string => HEX[h >>> 24]! + HEX[(h >>> 16) & 0xff]! + HEX[(h >>> 8) & 0xff]! + HEX[h & 0xff]!;
let scratch = new Uint8Array(1024);

/**
 * `blockKey(n, i, units.slice(from, to))`, for many blocks of one unit list: the units are UTF-8 encoded once,
 * joined by spaces, and each key hashes its `n i ` prefix and a range of them copied after it (a sixth of the time
 * of `blockKey`). Valid until the next call.
 */
function blockKeyer(units: readonly string[]): (n: number, i: number, from: number, to: number) => string {
  const joined = units.join(" ");
  if (scratch.length < joined.length * 6 + 64) scratch = new Uint8Array(joined.length * 6 + 64);
  const { written } = encoder.encodeInto(joined, scratch);
  // Unit u is bytes [starts[u], starts[u + 1] - 1).
  const starts: number[] = [0];
  for (let p = 0; p < written; p++) if (scratch[p] === 0x20) starts.push(p + 1);
  starts.push(written + 1);
  const out = written;
  return (n, i, from, to) => {
    let at = out;
    for (const c of `${n} ${i} `) scratch[at++] = c.charCodeAt(0);
    const length = starts[to]! - 1 - starts[from]!;
    scratch.copyWithin(at, starts[from]!, starts[from]! + length);
    at += length;
    return "p:" + hex32(murmur3(scratch, out, at - out, 0)) + hex32(murmur3(scratch, out, at - out, 1));
  };
}
