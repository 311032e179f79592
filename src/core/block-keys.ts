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
 * unit moves the blocks after it; the word keys cover one.)
 *
 * A key is `p:` and 16 lowercase hex digits: MurmurHash3_x86_32 with seed 0,
 * then with seed 1, of the UTF-8 bytes of `n`, U+0020, `i`, U+0020 and the
 * block's units joined by one U+0020 (n and i in decimal). `p` is not a hex
 * digit, and a word key starts `w:`, so block keys never equal another key.
 */
import { hashedKey, shortTextUnits } from "./word-keys.js";

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
