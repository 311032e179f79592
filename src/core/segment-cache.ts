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
  const codes = Array.from(separators, (c) => c.charCodeAt(0));
  const maxCode = Math.max(...codes);
  const isSeparator = new Uint8Array(maxCode + 1);
  for (const c of codes) isSeparator[c] = 1;
  const separatorToken = new Map(codes.map((c) => [c, String.fromCharCode(c)]));
  const joinCode = joiner.charCodeAt(0);
  const cache = new Map<string, readonly string[]>();

  // Scratch for one call (calls are synchronous and never nested): the pieces
  // in text order, a separator as its char code and a stretch between
  // separators as itself, with the stretch's cut (undefined until known).
  const pieces: (string | number)[] = [];
  const cuts: (readonly string[] | undefined)[] = [];
  const missed: string[] = [];

  return (text: string): string[] => {
    pieces.length = 0;
    cuts.length = 0;
    missed.length = 0;
    let from = 0;
    const n = text.length;
    for (let i = 0; i <= n; i++) {
      const c = i < n ? text.charCodeAt(i) : -1;
      if (c >= 0 && (c > maxCode || isSeparator[c] === 0)) continue;
      if (i > from) {
        const piece = from === 0 && i === n ? text : text.slice(from, i);
        const cut = cache.get(piece);
        if (cut === undefined) missed.push(piece);
        pieces.push(piece);
        cuts.push(cut);
      }
      if (c >= 0) {
        pieces.push(c);
        cuts.push(undefined);
      }
      from = i + 1;
    }

    if (missed.length > 0) {
      // One call for every missed piece of this text (a piece missed twice is cut twice: rare, and still exact).
      const tokens = segment(missed.length === 1 ? missed[0]! : missed.join(joiner));
      const fresh: string[][] = [[]];
      for (const t of tokens) {
        if (t.length === 1 && t.charCodeAt(0) === joinCode) fresh.push([]);
        else fresh[fresh.length - 1]!.push(t);
      }
      let k = 0;
      for (let i = 0; i < pieces.length; i++) {
        const piece = pieces[i]!;
        if (typeof piece === "number" || cuts[i] !== undefined) continue;
        const cut = fresh[k++]!;
        cuts[i] = cut;
        if (piece.length > maxPieceLength) continue;
        if (cache.size >= limit) cache.clear();
        cache.set(piece, cut);
      }
    }

    const out: string[] = [];
    for (let i = 0; i < pieces.length; i++) {
      const cut = cuts[i];
      if (cut === undefined) out.push(separatorToken.get(pieces[i] as number)!);
      else for (const t of cut) out.push(t);
    }
    // Do not keep a long text's pieces alive between calls.
    if (pieces.length > 4096) {
      pieces.length = 0;
      cuts.length = 0;
    }
    missed.length = 0;
    return out;
  };
}
