/**
 * Features for short texts (spec §4.3).
 *
 * Simhash over a few dozen words is unstable: one changed word moves many
 * bits. Below `shortTextLength` code points (default 300) the simhash features
 * are the word TF-IDF features plus character bigrams of the normalized text
 * with spaces removed. A bigram feature's key is a U+0020 space followed by
 * the bigram (no word token contains a space, so the keys never collide) and
 * its weight is `count / number of bigrams * bigramIdf`, where `bigramIdf` is
 * the unknown-term IDF of the table (the median for jieba's table), so a
 * bigram weighs like an ordinary word.
 */

/** Default length (code points of normalized text) below which a text is short: 300. */
export const DEFAULT_SHORT_TEXT_LENGTH = 300;

/** Prefix of bigram feature keys. */
export const BIGRAM_PREFIX = " ";

/** Character bigram counts of `normalized` with spaces removed (a 1-character text has its single character). */
export function charBigramCounts(normalized: string): Map<string, number> {
  const counts = new Map<string, number>();
  let prev = "";
  let chars = 0;
  for (const ch of normalized) {
    if (ch === " ") continue;
    chars++;
    if (prev !== "") {
      const g = prev + ch;
      counts.set(g, (counts.get(g) ?? 0) + 1);
    }
    prev = ch;
  }
  if (chars === 1) counts.set(prev, 1);
  return counts;
}

/** Adds bigram features (key = BIGRAM_PREFIX + bigram) to a copy of the word features. */
export function addBigramFeatures(words: ReadonlyMap<string, number>, normalized: string, bigramIdf: number): Map<string, number> {
  const out = new Map(words);
  const counts = charBigramCounts(normalized);
  let total = 0;
  for (const c of counts.values()) total += c;
  // Exactly (count / total) * bigramIdf, the spec's order of operations.
  for (const [g, c] of counts) out.set(BIGRAM_PREFIX + g, (c / total) * bigramIdf);
  return out;
}
