/**
 * Stop words: terms dropped from the feature set (they still count in the
 * document length that term frequency divides by).
 *
 * Lists are normalized like text (NFKC, lower case) so that they match tokens.
 */
import { normalize } from "./normalize.js";

export type StopWords = ReadonlySet<string>;

/** Parses a list with one word per line (jieba's `stop_words.utf8` format); blank lines are skipped. */
export function parseStopWordList(content: string): string[] {
  const out: string[] = [];
  for (const line of content.split(/\r?\n/)) {
    const w = normalize(line);
    if (w !== "") out.push(w);
  }
  return out;
}

/** Builds one stop-word set from several lists. */
export function createStopWords(...lists: Iterable<string>[]): StopWords {
  const set = new Set<string>();
  for (const list of lists) {
    for (const w of list) {
      const n = normalize(w);
      if (n !== "") set.add(n);
    }
  }
  return set;
}
