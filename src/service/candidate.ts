import type { Analysis } from "../core/fingerprinter.js";
import type { Fingerprint } from "../core/fingerprint.js";
import type { Sketch } from "../core/sketch.js";
import type { Verdict, VerdictOptions } from "../core/verdict.js";

export type Status = "original" | "duplicate";

/** A document already recorded, as the re-rank sees it. */
export interface Candidate {
  id: string;
  simhash: Fingerprint;
  /** Document time, epoch milliseconds. */
  time: number;
  status: Status;
  /** Root original when `status` is `duplicate`. */
  duplicateOf: string | undefined;
  /** Its LSH band keys, when known. */
  lsh?: readonly string[] | undefined;
  /** The scheme of `lsh` (`lsh2-16x3`); absent means lsh1-16x3 (documents from before contract v3). */
  lshScheme?: string | undefined;
  /** The concrete index holding it, when it came from the engine (reads of a time-based window go there). */
  index?: string | undefined;
  /** What the verdict rules need (core sketch.ts): read with the hit (contract v3), or made from an analysis. */
  sketch?: Sketch | undefined;
  /** The text, for documents stored without a sketch (before contract v3): analysed at re-rank time. */
  text?: string | undefined;
  /** The analysis, when a caller has one (the recent-writes window holds sketches). */
  analysis?: Analysis | undefined;
  /**
   * Its verdict against the lookup's analysis `of` under `options`, when the
   * lookup already compared the sketches while choosing which texts to read
   * (candidates/index.ts `fillTexts`); the re-rank uses it for that same pair.
   */
  verdict?: { of: Analysis; options: VerdictOptions; verdict: Verdict; decideOnly: boolean } | undefined;
  /**
   * The lookup stopped comparing before this candidate: a write's decision
   * needs only the earliest duplicate, and an earlier candidate was one. Its
   * normalized text, when the edit rule needs it, is read if the decision
   * reaches it after all (rank.ts `CompareOptions.readText`).
   */
  unread?: boolean | undefined;
}

/**
 * The verdict kept on `c` (`Candidate.verdict`) when it is against `of` under
 * `options`; undefined otherwise. One made for a caller that keeps duplicates
 * alone (`decideOnly`, core `compareSketches`) may lack a non-duplicate's
 * measures, and serves only such callers.
 */
export function keptVerdict(c: Candidate, of: Analysis, options: VerdictOptions, decideOnly: boolean): Verdict | undefined {
  const kept = c.verdict;
  return kept?.of === of && kept.options === options && (decideOnly || !kept.decideOnly) ? kept.verdict : undefined;
}

/** The `neardup` object as stored on a document (data contract v4, mappings/README.md). */
export interface NeardupSource {
  /** The document's own id, in doc values only (contract v4): candidate reads take it from there instead of the stored `_id`. */
  id?: string;
  simhash: string;
  seg0: string;
  seg1: string;
  seg2: string;
  seg3: string;
  /** MinHash LSH band keys (contract v2). */
  lsh?: string[];
  /** The same keys joined by spaces, base64, in binary doc values (contract v4, empty when there are none): what candidate reads fetch. */
  lsh_list?: string;
  /** Scheme of `lsh`, e.g. `lsh2-16x3` (contract v3). */
  lsh_scheme?: string;
  /** Re-rank sketch, base64 (core sketch.ts, contract v3; binary doc values, not indexed). */
  sketch?: string;
  /** UTF-8 normalized text, base64: written by 0.3 for texts too long for the sketch but short enough for the edit rule; still read, no longer written (the text field is read and normalized instead). */
  normalized?: string;
  status: Status;
  duplicate_of?: string;
  distance?: number;
  similarity?: number;
  reason?: string;
  length: number;
  version: string;
  /** Epoch milliseconds or an ISO date string. */
  timestamp: number | string;
}
