/**
 * Re-ranking in TypeScript: the reach rule first (cheap, on the stored
 * simhash and keys), then the core's verdict rules for the candidates it
 * keeps, from their stored sketches (core sketch.ts: TF-IDF cosine from the
 * sketch, edit distance and character cosine only when the cheaper rules
 * cannot decide). Candidates without a sketch (stored before contract v3)
 * are analysed from their text; recent-window entries bring their analysis.
 */
import type { Analysis, Fingerprinter } from "../core/fingerprinter.js";
import { compareSketches, sketchOf, type Sketched } from "../core/sketch.js";
import { reportedSimilarity, type Verdict } from "../core/verdict.js";
import type { Candidate } from "./candidate.js";
import { probeOf, reaches } from "./candidates/probe.js";
import { byTimeThenId, chooseRoot } from "../core/original.js";

export interface Match {
  candidate: Candidate;
  verdict: Verdict;
  /** The headline similarity: the measure of the rule that fired (core `reportedSimilarity`). */
  similarity: number;
}

/** Oldest first, ties by id (core/original.ts, shared with `neardup dedup`). */
export { byTimeThenId };

/**
 * Every candidate the lookup reaches (within `radius` bits, or sharing an LSH
 * band key), compared with the verdict rules.
 * Candidates are unique by id; the first seen wins (callers put recent-window
 * entries before engine hits, as they are newer information).
 */
export function compareCandidates(fingerprinter: Fingerprinter, query: Analysis, candidates: Iterable<Candidate>, radius: number): Match[] {
  const seen = new Set<string>();
  const probe = probeOf(query, radius);
  const matches: Match[] = [];
  let sketched: Sketched | undefined;
  for (const candidate of candidates) {
    if (seen.has(candidate.id)) continue;
    seen.add(candidate.id);
    if (!reaches(probe, candidate)) continue;
    let verdict: Verdict | undefined;
    if (candidate.analysis) verdict = fingerprinter.compare(query, candidate.analysis);
    else if (candidate.sketch) {
      sketched ??= { simhash: query.simhash, sketch: sketchOf(query, Infinity) };
      // undefined: the edit rule needed a text that could not be read (the document is gone).
      verdict = compareSketches(sketched, { simhash: candidate.simhash, sketch: candidate.sketch }, fingerprinter.verdictOptions);
    } else if (candidate.text !== undefined) {
      const other = safeAnalyze(fingerprinter, candidate.text);
      if (other) verdict = fingerprinter.compare(query, other);
    }
    if (!verdict) continue;
    matches.push({ candidate, verdict, similarity: reportedSimilarity(verdict) });
  }
  return matches;
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
