import { rng } from "../unit/index/random.js";
/**
 * Many short log-like texts, fast and deterministic, with near-duplicates
 * made by documented edits: about 30% of the documents copy one of the last
 * 500 texts and change one word (substitute, insert or delete). Used by the
 * backfill test and bench/proxy.ts.
 */

const LETTERS = "abcdefghijklmnopqrstuvwxyz";

export interface ShortDoc {
  id: string;
  message: string;
  /** Epoch ms; unique and increasing with the ordinal. */
  time: number;
}

export function shortTexts(count: number, seed = 12, start = Date.UTC(2026, 11, 1)): ShortDoc[] {
  const next = rng(seed);
  const rnd = () => next() / 4294967296; // mulberry32 as a float in [0, 1)
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  // Random letter words (3-9 letters): as varied in characters as real words, so
  // character shingles (the LSH keys) of unrelated texts rarely collide.
  const word = () => Array.from({ length: 3 + Math.floor(rnd() * 7) }, () => pick([...LETTERS])).join("");
  const vocabulary = Array.from({ length: 5000 }, word);
  const recent: string[][] = [];
  const docs: ShortDoc[] = [];
  for (let i = 0; i < count; i++) {
    let words: string[];
    if (recent.length > 0 && rnd() < 0.3) {
      words = [...pick(recent)];
      const at = Math.floor(rnd() * words.length);
      const edit = rnd();
      if (edit < 0.4) words[at] = pick(vocabulary);
      else if (edit < 0.7) words.splice(at, 0, pick(vocabulary));
      else if (words.length > 4) words.splice(at, 1);
    } else {
      words = Array.from({ length: 8 + Math.floor(rnd() * 7) }, () => pick(vocabulary));
    }
    recent.push(words);
    if (recent.length > 500) recent.shift();
    docs.push({ id: `doc-${i}`, message: words.join(" "), time: start + i * 1000 });
  }
  return docs;
}
