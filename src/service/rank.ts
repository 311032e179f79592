/**
 * Re-ranking in TypeScript: the reach rule first (cheap, on the stored
 * simhash and keys), then the core's verdict rules for the candidates it
 * keeps, from their stored sketches (core sketch.ts: TF-IDF cosine from the
 * sketch, edit distance and character cosine only when the cheaper rules
 * cannot decide). Candidates without a sketch (stored before contract v3)
 * are analysed from their text (long ones off the event loop when the
 * caller can); recent-window entries bring their sketch. The comparisons run
 * in time slices (slicer.ts).
 */
import type { Analysis, Fingerprinter } from "../core/fingerprinter.js";
import { compareSketches, sketchOf, type Sketched } from "../core/sketch.js";
import { reportedSimilarity, type Verdict } from "../core/verdict.js";
import { keptVerdict, type Candidate } from "./candidate.js";
import { probeOf, reaches, type Probe } from "./candidates/probe.js";
import { byTimeThenId, chooseRoot } from "../core/original.js";
import { Slicer } from "./slicer.js";

export interface Match {
  candidate: Candidate;
  verdict: Verdict;
  /** The headline similarity: the measure of the rule that fired (core `reportedSimilarity`). */
  similarity: number;
}

/** Oldest first, ties by id (core/original.ts, shared with `neardup dedup`). */
export { byTimeThenId };

/** How `compareCandidates` keeps the event loop free. */
export interface CompareOptions {
  /** Time slices for the comparisons (one per request). Default: a new one. */
  slicer?: Slicer;
  /**
   * Analyses a stored text off the event loop (the analysis worker); used for
   * candidates stored without a sketch whose text is longer than
   * `INLINE_TEXT_CHARS`. Resolves undefined when the text cannot be analysed.
   * Without it such texts are analysed on the event loop.
   */
  analyze?: (text: string) => Promise<Analysis | undefined>;
  /**
   * Only the original matters (a write's decision, `chooseOriginal`): the
   * candidates are compared oldest first (time, then id) and the comparisons
   * stop at the first duplicate, which is the earliest one. The matches then
   * hold that one and the non-duplicates before it.
   */
  untilDuplicate?: boolean;
  /**
   * Reads the normalized text of a candidate the lookup left `unread`, when
   * its comparison needs it (candidates/index.ts `readNormalizedTexts`).
   * Without it such a candidate is compared without its text (no edit rule).
   */
  readText?: (candidate: Candidate) => Promise<void>;
  /** The caller keeps duplicates alone: a non-duplicate may be settled without its text (core `compareSketches`). */
  decideOnly?: boolean;
}

/** A stored text up to this many characters is analysed on the event loop (a few ms), longer ones by `CompareOptions.analyze`. */
export const INLINE_TEXT_CHARS = 3000;

/**
 * Every candidate the lookup reaches (within `radius` bits, or sharing an LSH
 * band key), compared with the verdict rules.
 * Candidates are unique by id; the first seen wins (callers put recent-window
 * entries before engine hits, as they are newer information).
 *
 * Each comparison is bounded (the edit rule runs only within core
 * `EDIT_MAX_CELLS`), and the loop yields to the event loop between
 * comparisons whenever its slice has run out, so a lookup with many costly
 * candidates never holds the event loop for more than a slice and one comparison.
 */
export async function compareCandidates(fingerprinter: Fingerprinter, query: Analysis, candidates: Iterable<Candidate>, radius: number, options: CompareOptions = {}): Promise<Match[]> {
  const slicer = options.slicer ?? new Slicer();
  const probe = probeOf(query, radius);
  const matches: Match[] = [];
  const decideOnly = options.decideOnly === true;
  let sketched: Sketched | undefined;
  for (const candidate of reachedOnce(candidates, probe, options.untilDuplicate === true)) {
    if (slicer.due) await slicer.yield();
    let verdict: Verdict | undefined;
    const kept = keptVerdict(candidate, query, fingerprinter.verdictOptions, decideOnly); // compared during the lookup
    if (candidate.analysis) verdict = fingerprinter.compare(query, candidate.analysis);
    else if (kept) verdict = kept;
    else if (candidate.sketch) {
      sketched ??= { simhash: query.simhash, sketch: sketchOf(query, Infinity) };
      // undefined: the edit rule needed a text that could not be read (the document is gone), or that the lookup left unread.
      verdict = compareSketches(sketched, { simhash: candidate.simhash, sketch: candidate.sketch }, fingerprinter.verdictOptions, decideOnly);
      if (verdict === undefined && candidate.unread && options.readText) {
        await options.readText(candidate);
        verdict = compareSketches(sketched, { simhash: candidate.simhash, sketch: candidate.sketch }, fingerprinter.verdictOptions, decideOnly);
      }
    } else if (candidate.text !== undefined) {
      const other = options.analyze && candidate.text.length > INLINE_TEXT_CHARS ? await options.analyze(candidate.text) : safeAnalyze(fingerprinter, candidate.text);
      if (other) {
        if (slicer.due) await slicer.yield();
        verdict = fingerprinter.compare(query, other);
      }
    }
    if (!verdict) continue;
    matches.push(matchOf(candidate, verdict));
    if (options.untilDuplicate && verdict.duplicate) break;
  }
  return matches;
}

/** The candidates the probe reaches, each id once (the first seen wins); oldest first when `oldestFirst`. */
function reachedOnce(candidates: Iterable<Candidate>, probe: Probe, oldestFirst: boolean): Candidate[] {
  const seen = new Set<string>();
  const out: Candidate[] = [];
  for (const candidate of candidates) {
    if (seen.has(candidate.id)) continue;
    seen.add(candidate.id);
    if (reaches(probe, candidate)) out.push(candidate);
  }
  return oldestFirst ? out.sort(byTimeThenId) : out;
}

/** A match whose similarity is worked out when first read: a non-duplicate's may need the exact edit distance, which only reports read. */
function matchOf(candidate: Candidate, verdict: Verdict): Match {
  let similarity: number | undefined;
  return {
    candidate,
    verdict,
    get similarity(): number {
      return (similarity ??= reportedSimilarity(verdict));
    },
  };
}

function safeAnalyze(fingerprinter: Fingerprinter, text: string): Analysis | undefined {
  try {
    return fingerprinter.analyze(text);
  } catch {
    return undefined; // a stored text the current limits refuse cannot be a match
  }
}

/** Best first: duplicates before non-duplicates, then higher similarity, then smaller distance, then older. */
export function rankMatches(matches: Match[]): Match[] {
  return [...matches].sort(
    (a, b) =>
      Number(b.verdict.duplicate) - Number(a.verdict.duplicate) ||
      b.similarity - a.similarity ||
      a.verdict.distance - b.verdict.distance ||
      byTimeThenId(a.candidate, b.candidate),
  );
}

/**
 * The original a new document duplicates: among the matches the rules call
 * duplicates, the earliest by time (ties by id), resolved to its own original
 * when it is itself a duplicate. `undefined` when nothing matches.
 */
export function chooseOriginal(matches: Match[]): { match: Match; originalId: string } | undefined {
  const dups = matches.filter((m) => m.verdict.duplicate).map((m) => ({ id: m.candidate.id, time: m.candidate.time, match: m }));
  const chosen = chooseRoot(dups, (d) => (d.match.candidate.status === "duplicate" ? d.match.candidate.duplicateOf : null));
  return chosen && { match: chosen.earliest.match, originalId: chosen.originalId };
}
