/**
 * A memo for a segmenter that cuts at fixed separator characters (issue 10).
 *
 * cppjieba (the spec's segmenter, §3) first splits its input at the separators
 * U+0020, TAB, LF, `，` and `。`: every separator is a token of its own and the
 * stretches between them are segmented independently. So the cut of a text is
 * the concatenation of the cuts of its pieces, and a piece seen before (the
 * same sentence in a copy, a signature, boilerplate) can be answered from a
 * cache with exactly the tokens the segmenter would give.
 *
 * Misses of one text are joined by a separator (`joiner`) and cut in one call,
 * because the cost of a native segmenter is largely per call; the joiner's
 * tokens in the result mark where each piece ends. The cache holds at most
 * `limit` pieces and is cleared when full; pieces longer than `maxPieceLength`
 * are cut but not kept.
 */
import type { HanSegmenter } from "./tokenize.js";

export interface SegmentCacheOptions {
  /** Characters at which the segmenter always cuts, each one a token of its own. */
  separators: string;
  /** One of `separators` to join missed pieces with (never inside a piece, so its tokens are markers). */
  joiner: string;
  /** Most pieces kept. Default 65,536. */
  limit?: number;
  /** Longest piece kept, in UTF-16 code units. Default 256. */
  maxPieceLength?: number;
}

/** cppjieba's `SPECIAL_SEPARATORS` (SegmentBase.hpp): space, TAB, LF, `，`, `。`. */
export const CPPJIEBA_SEPARATORS = " \t\n\uff0c\u3002";

/**
 * Wraps `segment` with a piece cache. The result equals `segment(text)` for
 * every text as long as `segment` cuts at `separators` as described above (a
 * property test checks it for the bundled jieba).
 */
export function cachedSegmenter(segment: HanSegmenter, options: SegmentCacheOptions): HanSegmenter {
  const { separators, joiner } = options;
  const limit = options.limit ?? 65_536;
  const maxPieceLength = options.maxPieceLength ?? 256;
  if (joiner.length !== 1 || !separators.includes(joiner)) throw new Error("joiner must be one of the separators");
  const codes = new Set(Array.from(separators, (c) => c.charCodeAt(0)));
  const cache = new Map<string, readonly string[]>();

  const keep = (found: Map<string, readonly string[]>, piece: string, cut: string[]): void => {
    found.set(piece, cut);
    if (piece.length > maxPieceLength) return;
    if (cache.size >= limit) cache.clear();
    cache.set(piece, cut);
  };

  return (text: string): string[] => {
    // Pieces in text order: separators as themselves, stretches between them as keys.
    const pieces: string[] = [];
    let from = 0;
    for (let i = 0; i < text.length; i++) {
      if (!codes.has(text.charCodeAt(i))) continue;
      if (i > from) pieces.push(text.slice(from, i));
      pieces.push(text[i]!);
      from = i + 1;
    }
    if (from < text.length) pieces.push(from === 0 ? text : text.slice(from));

    const found = new Map<string, readonly string[]>();
    const missing = new Set<string>();
    for (const p of pieces) {
      if (p.length === 1 && codes.has(p.charCodeAt(0))) continue;
      if (found.has(p) || missing.has(p)) continue;
      const hit = cache.get(p);
      if (hit !== undefined) found.set(p, hit);
      else missing.add(p);
    }
    if (missing.size > 0) {
      const missed = [...missing];
      const tokens = segment(missed.length === 1 ? missed[0]! : missed.join(joiner));
      let k = 0;
      let current: string[] = [];
      for (const t of tokens) {
        if (t === joiner) {
          keep(found, missed[k++]!, current);
          current = [];
        } else {
          current.push(t);
        }
      }
      keep(found, missed[k]!, current);
    }

    const out: string[] = [];
    for (const p of pieces) {
      const cut = found.get(p);
      if (cut === undefined) out.push(p); // a separator
      else for (const t of cut) out.push(t);
    }
    return out;
  };
}
