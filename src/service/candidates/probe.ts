/**
 * What one lookup reaches: every stored document within `radius` bits of the
 * simhash (found through the segment fields), or sharing at least one MinHash
 * LSH key of a comparable LSH scheme (found through `neardup.lsh`; lsh1 and
 * lsh2 of one banding, core `comparableLshSchemes`). The
 * engine query, the recent-writes window and the re-rank all use this one rule.
 */
import { lookupKeysOf, type Analysis } from "../../core/fingerprinter.js";
import { hamming, type Fingerprint } from "../../core/fingerprint.js";
import { lengthAllowed, type LengthRange } from "../../core/length-bounds.js";
import { LEGACY_LSH_SCHEME, lshSchemesComparable } from "../../core/lsh.js";
import { segmentsNeeded, sharedSegments } from "./query.js";

export interface Probe {
  simhash: Fingerprint;
  radius: number;
  /** LSH keys (band keys `BB:XXXXXXXX`, word and block keys), then the lookup-only keys (core `lookupKeysOf`); empty when the text has none. */
  lsh: readonly string[];
  /** The scheme that made `lsh`; keys of an incomparable scheme never match (core `lshSchemesComparable`). Default lsh1-16x3. */
  lshScheme?: string | undefined;
  /** Keys that reach a document alone; undefined: every key does. Other keys reach only in twos. */
  alone?: ReadonlySet<string> | undefined;
  /** Of the four 16-bit segments, how many a document within the radius must share (the engine query's rule); default 1, which any document within 3 bits does. */
  segments?: number | undefined;
  /**
   * Lengths a document reached through band keys must have, unless it shares a
   * segment (core length-bounds.ts `candidateLengths`: no verdict rule holds
   * outside them); undefined: any length. Documents of unknown length are kept.
   */
  lengths?: readonly LengthRange[] | undefined;
  /**
   * Of `lengths`, those where a document reached through band keys, sharing no
   * segment, must share two of them (core length-bounds.ts `twoKeyLengths`:
   * only the containment rule reaches that far); undefined: none.
   */
  twoKeyLengths?: readonly LengthRange[] | undefined;
}

export function probeOf(analysis: Analysis, radius: number): Probe {
  return { simhash: analysis.simhash, radius, lsh: lookupKeysOf(analysis), lshScheme: analysis.lshScheme ?? LEGACY_LSH_SCHEME };
}

/**
 * The probe of an engine lookup, exactly: within the radius only with the
 * segments its query asks for (`segmentsNeeded`: two of four when the text
 * has band keys and the radius is at most 3), and band keys under its plan
 * (`alone`). The recent-writes window uses it too, so a document is a
 * candidate or not whether it is still in the window or already in the engine.
 */
export function lookupProbe(analysis: Analysis, radius: number, alone?: ReadonlySet<string>, lengths?: readonly LengthRange[], twoKeyLengths?: readonly LengthRange[]): Probe {
  return { ...probeOf(analysis, radius), alone, segments: segmentsNeeded(radius, analysis.lsh), lengths, twoKeyLengths };
}

/** True when the two key lists share a key (lists are short: bands ≤ 64). */
export function sharesKey(a: readonly string[], b: readonly string[] | undefined): boolean {
  if (!b || a.length === 0 || b.length === 0) return false;
  for (const k of a) if (b.includes(k)) return true;
  return false;
}

export function reaches(probe: Probe, target: { simhash: Fingerprint; lsh?: readonly string[] | undefined; lshScheme?: string | undefined; sketch?: { length: number } | undefined }): boolean {
  if (hamming(probe.simhash, target.simhash) <= probe.radius && ((probe.segments ?? 1) <= 1 || sharedSegments(probe.simhash, target.simhash) >= probe.segments!)) return true;
  if (!lshSchemesComparable(target.lshScheme ?? LEGACY_LSH_SCHEME, probe.lshScheme ?? LEGACY_LSH_SCHEME)) return false;
  const length = target.sketch?.length;
  let alone = probe.alone;
  if (length !== undefined && (probe.lengths || probe.twoKeyLengths) && sharedSegments(probe.simhash, target.simhash) === 0) {
    if (probe.lengths && !lengthAllowed(probe.lengths, length)) return false;
    if (probe.twoKeyLengths && lengthAllowed(probe.twoKeyLengths, length)) alone = NO_KEY_ALONE;
  }
  if (!alone) return sharesKey(probe.lsh, target.lsh);
  const stored = target.lsh;
  if (!stored || stored.length === 0) return false;
  let shared = 0;
  for (const k of probe.lsh) {
    if (!stored.includes(k)) continue;
    if (alone.has(k) || ++shared >= 2) return true;
  }
  return false;
}

/** No key reaches alone: two shared keys are needed. */
const NO_KEY_ALONE: ReadonlySet<string> = new Set();
