/**
 * The verdict rules (spec §8): given two analysed texts, duplicate or not, and why.
 *
 * The pair is put in a length bucket by the SHORTER text's length (code points
 * of normalized text): simhash is only as reliable as its weaker input. Each
 * bucket's rules are tried in order and the first that holds decides:
 *   1. `<bucket>.simhash`: Hamming distance <= maxDistance;
 *   2. `<bucket>.cosine`:  TF-IDF cosine >= minCosine;
 *   3. `<bucket>.edit`:    Levenshtein similarity >= minEditSimilarity;
 *   4. `<bucket>.jaccard`: character 3-gram Jaccard >= minJaccard (catches
 *      moved clauses and sentences and several changed words that edit
 *      distance punishes); tried only when shorter / longer >= minJaccard, so
 *      that texts longer than maxLength / minJaccard never need their text.
 *   5. `<bucket>.word`: the texts differ in at most one word, between a
 *      common opening and a common ending that are both non-empty and cover
 *      at least minWordShare of the longer text ("are you a little" / "are
 *      couples a little": one word replaced is a quarter of a tiny text, too
 *      much for edit similarity and 3-grams, but the texts are one sentence).
 *   6. `<bucket>.contained`: the character 3-grams of one text are found in
 *      the other's (|A ∩ B| / min(|A|, |B|) >= minContainment), and the shorter is at
 *      least minContainedShare of the longer's length: a copy cut short
 *      (the first 80% of an article), or one with a notice or a paragraph
 *      added, which edit similarity (at most shorter / longer) cannot reach.
 * A rule whose threshold is null is off. Then two vetoes (issue 14):
 *   7. `<bucket>.middle`: a pair a rule called duplicate is NOT one when the
 *      two texts differ in a middle part present on both sides, at least
 *      `minShare` of the longer text and `minLength` code units long, whose
 *      character 3-gram Jaccard is below `maxSimilarity` (similarity/spread.ts):
 *      a shared heading, greeting, template paragraph, quoted message or footer
 *      around two different bodies. Spread-out edits leave a middle that is
 *      still alike; a truncated copy or one with a notice added leaves an empty
 *      middle on one side; neither is vetoed.
 *   8. `<bucket>.ending` (buckets with `minEndingSimilarity`; the default tiny
 *      bucket): a pair a rule called duplicate is NOT one when the texts share
 *      their opening but end differently, in more than one word on some side,
 *      and the two endings' 3-gram Jaccard is below `minEndingSimilarity`
 *      (similarity/spread.ts `differentEnding`): "the only way to insure i'd
 *      just" / "the only way to insure martin", two tiny texts that go on
 *      differently after a shared opening, too short for rule 7's 8 code
 *      units. One word replaced at the end ("...(and guido," / "...(and
 *      contained") is still a duplicate, as in the `.word` rule.
 * `searchRadius` is the Hamming radius
 * the index layer should search for texts in that bucket (a wider net for
 * short texts, whose simhash is weak; the exact measures then decide).
 */
import { NeardupError } from "./errors.js";
import { hamming } from "./fingerprint.js";
import type { Fingerprint } from "./fingerprint.js";
import { cosine, charCosine } from "./similarity/cosine.js";
import { editSimilarityAtLeast } from "./similarity/banded.js";
import { characterBound } from "./similarity/edit-bound.js";
import { editSimilarity } from "./similarity/levenshtein.js";
import { differentEnding, differingMiddle, oneWordSwap, trigramContainment, trigramJaccard } from "./similarity/spread.js";
import { vetoText } from "./similarity/veto-text.js";
import { sheetsDiffer, type Sheet } from "./sheet.js";
import type { SparseVector } from "./tfidf.js";

export interface VerdictBucket {
  /** Bucket name, used in rule names (`short.edit`). */
  name: string;
  /** Exclusive upper bound on the shorter text's length in code points; `Infinity` for the last bucket. */
  maxLength: number;
  /** Hamming radius for candidate search (0..64). */
  searchRadius: number;
  /** Duplicate if Hamming distance <= this (null: rule off). */
  maxDistance: number | null;
  /** Duplicate if TF-IDF cosine >= this (null: rule off). */
  minCosine: number | null;
  /** Duplicate if Levenshtein similarity >= this (null: rule off; only then is edit distance computed). */
  minEditSimilarity: number | null;
  /** Duplicate if character 3-gram Jaccard of the normalized texts >= this (null or absent: rule off). */
  minJaccard?: number | null;
  /** Duplicate if the texts differ in at most one word and their common opening and ending (both non-empty) cover >= this share of the longer text (null or absent: rule off). */
  minWordShare?: number | null;
  /** Duplicate if the distinct character 3-grams of one text are in the other's at least this share, |A ∩ B| / min(|A|, |B|) (rule 6; null or absent: off; needs `minContainedShare`). */
  minContainment?: number | null;
  /** The containment rule is tried only when shorter / longer (code points) >= this (0..1). */
  minContainedShare?: number | null;
  /** Not a duplicate when the texts share their opening but end differently (not in one word only) and the endings' 3-gram Jaccard is below this (rule 8; null or absent: off). */
  minEndingSimilarity?: number | null;
}

/** The shared-part veto (rule 7 above); all three conditions must hold. */
export interface MiddleVeto {
  /** Smallest differing middle, as a share of the longer text (0..1). Default 0.1. */
  minShare: number;
  /** Smallest differing middle, code units of normalized text. Default 8. */
  minLength: number;
  /** Vetoed when the middles' character 3-gram Jaccard is below this (0..1). Default 0.3. */
  maxSimilarity: number;
}

export interface VerdictOptions {
  /** Buckets by increasing `maxLength`; the last must have `maxLength: Infinity`. */
  buckets: VerdictBucket[];
  /** The shared-part veto; null or absent: off. */
  middleVeto?: MiddleVeto | null;
  /** The record veto (record.ts): two log records are duplicates only when they are the same record once normalized. False, null or absent: off. */
  recordVeto?: boolean | null;
  /** The sheet veto (sheet.ts): two sheets of `label: value` lines that give one label two spec values are not duplicates. False, null or absent: off. */
  sheetVeto?: boolean | null;
}

/**
 * Defaults, calibrated on real Chinese and English text (docs/quality.md,
 * issues 6 and 14: thresholds tuned on half of the labelled pairs, checked on
 * the other half), then the shared-part veto in every bucket:
 *
 * - tiny (< 50 code points): edit similarity >= 0.85, 3-gram Jaccard >= 0.45,
 *   or one word replaced inside an opening and an ending that cover >= 0.6;
 *   then vetoed when the texts share an opening and end differently in more
 *   than one word (endings' 3-gram Jaccard < 0.3, `tiny.ending`);
 * - short (< 200): cosine >= 0.95, edit similarity >= 0.8 or 3-gram Jaccard >= 0.9;
 * - medium (< 1,000): distance <= 3, edit similarity >= 0.85 or 3-gram Jaccard >= 0.9
 *   (0.9: what the quality benchmark calls one document; it catches moved sentences);
 * - long (< 5,000): distance <= 3 or edit similarity >= 0.75;
 * - short, medium and long: also the shorter text contained in the longer
 *   (>= 0.98 of its 3-grams, at shorter / longer >= 0.7): a copy cut short
 *   or with a paragraph added (an outside labelled set, docs/quality.md);
 * - huge: distance <= 3 or cosine >= 0.8. No edit rule: edit distance is
 *   quadratic (about 8 ms for a pair of 5,000 characters, 30 ms at 10,000,
 *   seconds at 100,000), so texts this long are judged on the linear measures.
 *
 * Search radius 3 in every bucket: the four exact segments (pigeonhole), one
 * value per segment field. Candidates also come from the MinHash LSH band keys
 * (`Analysis.lsh`, spec §9), which find the near-duplicates a small radius
 * misses: end to end on the quality benchmark, radius 3 + LSH scores F1 0.968,
 * the same as radii 11/11/7/3 + LSH, for 4 segment values per lookup instead of
 * up to 548 (docs/quality.md). With `lsh: false`, radii 11/11/7/3 are the better choice.
 * The distance <= 3 rules come first because they are the cheapest test; on the
 * benchmark they change no F1 but name exact and near-exact copies `*.simhash`.
 *
 * Before the shared-part veto, the record veto (record.ts): two log records
 * that differ once normalized are not duplicates (`<bucket>.record`); and the
 * sheet veto (sheet.ts): two sheets of `label: value` lines that give one
 * label two spec values are two items (`<bucket>.sheet`).
 */
export const DEFAULT_VERDICT_OPTIONS: VerdictOptions = Object.freeze({
  middleVeto: { minShare: 0.1, minLength: 8, maxSimilarity: 0.3 },
  recordVeto: true,
  sheetVeto: true,
  buckets: [
    { name: "tiny", maxLength: 50, searchRadius: 3, maxDistance: null, minCosine: null, minEditSimilarity: 0.85, minJaccard: 0.45, minWordShare: 0.6, minEndingSimilarity: 0.3 },
    { name: "short", maxLength: 200, searchRadius: 3, maxDistance: null, minCosine: 0.95, minEditSimilarity: 0.8, minJaccard: 0.9, minContainment: 0.98, minContainedShare: 0.7 },
    { name: "medium", maxLength: 1000, searchRadius: 3, maxDistance: 3, minCosine: null, minEditSimilarity: 0.85, minJaccard: 0.9, minContainment: 0.98, minContainedShare: 0.7 },
    { name: "long", maxLength: 5000, searchRadius: 3, maxDistance: 3, minCosine: null, minEditSimilarity: 0.75, minContainment: 0.98, minContainedShare: 0.7 },
    { name: "huge", maxLength: Infinity, searchRadius: 3, maxDistance: 3, minCosine: 0.8, minEditSimilarity: null },
  ],
});

/** What `compare` needs from an analysed text. */
export interface Comparable {
  normalized: string;
  length: number;
  vector: SparseVector;
  simhash: Fingerprint;
  /** A log record (record.ts). */
  record?: boolean | undefined;
  /** A sheet's fields (sheet.ts). */
  sheet?: Sheet | undefined;
}

export interface Verdict {
  duplicate: boolean;
  /** The rule that fired, e.g. `long.simhash`; null when not a duplicate. */
  rule: string | null;
  /** The bucket the pair fell in. */
  bucket: string;
  /** Hamming distance of the 64-bit simhashes. */
  distance: number;
  /** Cosine of the TF-IDF word vectors, in [0, 1]. */
  cosine: number;
  /** Levenshtein similarity in [0, 1]; null when the edit rule cannot apply to the pair (`editRuleApplies`: no edit rule, lengths too far apart, over the budget). */
  editSimilarity: number | null;
  /** Character-level cosine; null when `editSimilarity` is. */
  charCosine: number | null;
  /** Character 3-gram Jaccard; null when the bucket has no Jaccard rule or the lengths rule it out (always set by `decide`). */
  jaccard?: number | null;
  /** 3-gram containment, |A ∩ B| / min(|A|, |B|); null when the containment rule was not tried. */
  containment?: number | null;
  /** Share of the longer text outside a one-word difference (`oneWordSwap`); null when the rule was not tried or the texts differ in more than one word. */
  wordShare?: number | null;
  /** The veto that overruled a duplicate rule, e.g. `long.middle`; null when none did (always set by `decide`). */
  vetoed?: string | null;
}

function checkThreshold(v: unknown, field: string, max: number): void {
  if (v !== null && (typeof v !== "number" || !(v >= 0 && v <= max))) {
    throw new NeardupError("INVALID_CONFIG", `${field} must be null or a number in 0..${max}, got ${JSON.stringify(v)}`, { field });
  }
}

const BUCKET_KEYS = ["name", "maxLength", "searchRadius", "maxDistance", "minCosine", "minEditSimilarity", "minJaccard", "minWordShare", "minContainment", "minContainedShare", "minEndingSimilarity"];

/** Validates verdict options; @throws NeardupError INVALID_CONFIG naming the field. */
export function validateVerdictOptions(o: VerdictOptions, path = "verdict"): VerdictOptions {
  for (const k of Object.keys(o)) {
    if (k !== "buckets" && k !== "middleVeto" && k !== "recordVeto" && k !== "sheetVeto") throw new NeardupError("INVALID_CONFIG", `unknown option ${path}.${k}`, { field: `${path}.${k}` });
  }
  if (!Array.isArray(o.buckets) || o.buckets.length === 0) {
    throw new NeardupError("INVALID_CONFIG", `${path}.buckets must be a non-empty array`, { field: `${path}.buckets` });
  }
  let last = 0;
  const names = new Set<string>();
  o.buckets.forEach((b, i) => {
    const p = `${path}.buckets[${i}]`;
    if (typeof b !== "object" || b === null || Array.isArray(b)) throw new NeardupError("INVALID_CONFIG", `${p} must be an object, got ${b === null ? "null" : Array.isArray(b) ? "an array" : typeof b}`, { field: p });
    for (const k of Object.keys(b)) {
      if (!BUCKET_KEYS.includes(k)) throw new NeardupError("INVALID_CONFIG", `unknown option ${p}.${k}`, { field: `${p}.${k}` });
    }
    if (typeof b.name !== "string" || b.name === "") throw new NeardupError("INVALID_CONFIG", `${p}.name must be a non-empty string`, { field: `${p}.name` });
    // A rule is named `<bucket>.<rule>` in every answer: two buckets of one name would make it ambiguous.
    if (names.has(b.name)) throw new NeardupError("INVALID_CONFIG", `${p}.name ${JSON.stringify(b.name)} is the name of an earlier bucket; bucket names must differ`, { field: `${p}.name` });
    names.add(b.name);
    if (typeof b.maxLength !== "number" || !(b.maxLength > last)) {
      throw new NeardupError("INVALID_CONFIG", `${p}.maxLength must be greater than ${last}, got ${JSON.stringify(b.maxLength)}`, { field: `${p}.maxLength` });
    }
    last = b.maxLength;
    if (!Number.isInteger(b.searchRadius) || b.searchRadius < 0 || b.searchRadius > 64) {
      throw new NeardupError("INVALID_CONFIG", `${p}.searchRadius must be an integer in 0..64, got ${JSON.stringify(b.searchRadius)}`, { field: `${p}.searchRadius` });
    }
    checkThreshold(b.maxDistance, `${p}.maxDistance`, 64);
    checkThreshold(b.minCosine, `${p}.minCosine`, 1);
    checkThreshold(b.minEditSimilarity, `${p}.minEditSimilarity`, 1);
    if (b.minJaccard !== undefined) checkThreshold(b.minJaccard, `${p}.minJaccard`, 1);
    if (b.minWordShare !== undefined) checkThreshold(b.minWordShare, `${p}.minWordShare`, 1);
    if (b.minEndingSimilarity !== undefined) checkThreshold(b.minEndingSimilarity, `${p}.minEndingSimilarity`, 1);
    if (b.minContainment !== undefined) checkThreshold(b.minContainment, `${p}.minContainment`, 1);
    if (b.minContainedShare !== undefined) checkThreshold(b.minContainedShare, `${p}.minContainedShare`, 1);
    if (b.minContainment != null && b.minContainedShare == null) {
      throw new NeardupError("INVALID_CONFIG", `${p}.minContainedShare must be a number in 0..1 when ${p}.minContainment is set (the shortest shorter / longer length ratio the rule is tried at)`, { field: `${p}.minContainedShare` });
    }
  });
  if (last !== Infinity) throw new NeardupError("INVALID_CONFIG", `${path}.buckets: the last bucket must have maxLength Infinity`, { field: `${path}.buckets` });
  if (o.recordVeto !== undefined && o.recordVeto !== null && typeof o.recordVeto !== "boolean") {
    throw new NeardupError("INVALID_CONFIG", `${path}.recordVeto must be true, false or null, got ${JSON.stringify(o.recordVeto)}`, { field: `${path}.recordVeto` });
  }
  if (o.sheetVeto !== undefined && o.sheetVeto !== null && typeof o.sheetVeto !== "boolean") {
    throw new NeardupError("INVALID_CONFIG", `${path}.sheetVeto must be true, false or null, got ${JSON.stringify(o.sheetVeto)}`, { field: `${path}.sheetVeto` });
  }
  const veto = o.middleVeto;
  if (veto !== undefined && veto !== null) {
    const p = `${path}.middleVeto`;
    if (typeof veto !== "object") throw new NeardupError("INVALID_CONFIG", `${p} must be null or an object`, { field: p });
    for (const k of Object.keys(veto)) {
      if (!["minShare", "minLength", "maxSimilarity"].includes(k)) throw new NeardupError("INVALID_CONFIG", `unknown option ${p}.${k}`, { field: `${p}.${k}` });
    }
    for (const k of ["minShare", "maxSimilarity"] as const) {
      if (typeof veto[k] !== "number" || !(veto[k] >= 0 && veto[k] <= 1)) {
        throw new NeardupError("INVALID_CONFIG", `${p}.${k} must be a number in 0..1, got ${JSON.stringify(veto[k])}`, { field: `${p}.${k}` });
      }
    }
    if (!Number.isInteger(veto.minLength) || veto.minLength < 0) {
      throw new NeardupError("INVALID_CONFIG", `${p}.minLength must be a non-negative integer, got ${JSON.stringify(veto.minLength)}`, { field: `${p}.minLength` });
    }
  }
  return o;
}

/** Whether shorter / longer >= min: the length precondition of the Jaccard rule (and the bound on edit similarity). */
export function lengthsAllow(x: number, y: number, min: number): boolean {
  const longer = Math.max(x, y);
  return longer === 0 || Math.min(x, y) / longer >= min;
}

/** Whether the bucket's containment rule is tried for texts of these lengths (code points): on, and shorter / longer >= minContainedShare. */
export function containmentApplies(bucket: VerdictBucket, x: number, y: number): boolean {
  return bucket.minContainment != null && bucket.minContainedShare != null && lengthsAllow(x, y, bucket.minContainedShare);
}

/** The bucket for a text (or pair) of the given length. */
export function bucketFor(options: VerdictOptions, length: number): VerdictBucket {
  for (const b of options.buckets) if (length < b.maxLength) return b;
  return options.buckets[options.buckets.length - 1]!;
}

/**
 * The edit rule's character budget: edit distance is computed for a pair only
 * when the product of the two lengths (code points) is at most this. Myers'
 * bit-parallel algorithm over the whole matrix costs about shorter x longer /
 * 32 word steps (the rule now runs it only inside the threshold's band,
 * similarity/banded.ts, so this is the worst case): 5-6 ms on a busy 2-core
 * machine for the largest pair the default rules ever compare (shorter under 5,000 code points, longer under 5,000 / 0.75 = 6,667:
 * see `editRuleApplies`). Past the budget, which only custom buckets can
 * reach, the pair is judged on the linear rules (simhash, cosine, Jaccard),
 * like the huge bucket.
 */
export const EDIT_MAX_CELLS = 5000 * 6667;

/**
 * Whether the bucket's edit rule can hold for texts of these lengths (code
 * points), so edit distance is worth computing: the rule is on, the length
 * ratio does not already bound edit similarity below its threshold (edit
 * similarity <= shorter / longer), and the pair is within `EDIT_MAX_CELLS`.
 */
export function editRuleApplies(bucket: VerdictBucket, shorter: number, longer: number): boolean {
  const minEdit = bucket.minEditSimilarity;
  if (minEdit === null) return false;
  if (longer > 0 && shorter / longer < minEdit) return false;
  return shorter * longer <= EDIT_MAX_CELLS;
}

/**
 * The edit rule's measure of `a` and `b` when it may reach `min`; undefined
 * when it cannot: the code-point count bound shows it first
 * (`characterBound`, linear), else the distance computed only
 * inside Ukkonen's band of the threshold (similarity/banded.ts), which stops
 * as soon as no path within the threshold is left. When it is a number, it
 * is `editSimilarity(a, b)` exactly.
 */
export function editSimilarityReaching(a: string, b: string, min: number): number | undefined {
  if (a === b) return 1;
  const { distance, longer } = characterBound(a, b);
  if (longer > 0 && 1 - distance / longer < min) return undefined;
  return editSimilarityAtLeast(a, b, min, distance);
}

/**
 * `fields` with the two character measures of texts `a` and `b`, which the
 * rules never need beyond `editSimilarityReaching` and the reports may read:
 * `editSimilarity` (the value the rule computed, else computed on first read)
 * and `charCosine` (computed on first read). Both null when not `reported`
 * (the edit rule did not apply). Values are the same whenever they are read.
 */
export function withCharMeasures(fields: Omit<Verdict, "editSimilarity" | "charCosine">, a: string, b: string, reported: boolean, edit: number | undefined): Verdict {
  if (!reported) return { ...fields, editSimilarity: null, charCosine: null };
  let e = edit;
  let c: number | undefined;
  return {
    ...fields,
    get editSimilarity(): number {
      return (e ??= editSimilarity(a, b));
    },
    get charCosine(): number {
      return (c ??= charCosine(a, b));
    },
  };
}

/** Applies the rules of the pair's bucket. */
export function decide(a: Comparable, b: Comparable, options: VerdictOptions = DEFAULT_VERDICT_OPTIONS): Verdict {
  const shorter = Math.min(a.length, b.length);
  const bucket = bucketFor(options, shorter);
  const distance = hamming(a.simhash, b.simhash);
  const cos = cosine(a.vector, b.vector);
  const withEdit = editRuleApplies(bucket, shorter, Math.max(a.length, b.length));
  const minJaccard = bucket.minJaccard ?? null;
  const jac = minJaccard === null || !lengthsAllow(a.length, b.length, minJaccard) ? null : trigramJaccard(a.normalized, b.normalized);
  let rule: string | null = null;
  if (bucket.maxDistance !== null && distance <= bucket.maxDistance) rule = `${bucket.name}.simhash`;
  else if (bucket.minCosine !== null && cos >= bucket.minCosine) rule = `${bucket.name}.cosine`;
  let edit: number | undefined;
  if (rule === null && withEdit) {
    edit = editSimilarityReaching(a.normalized, b.normalized, bucket.minEditSimilarity!);
    if (edit !== undefined && edit >= bucket.minEditSimilarity!) rule = `${bucket.name}.edit`;
  }
  if (rule === null && jac !== null && jac >= minJaccard!) rule = `${bucket.name}.jaccard`;
  const minWord = bucket.minWordShare ?? null;
  let wordShare: number | null = null;
  if (rule === null && minWord !== null) {
    wordShare = oneWordSwap(a.normalized, b.normalized);
    if (wordShare !== null && wordShare >= minWord) rule = `${bucket.name}.word`;
  }
  let containment: number | null = null;
  if (rule === null && containmentApplies(bucket, a.length, b.length)) {
    containment = trigramContainment(a.normalized, b.normalized);
    if (containment >= bucket.minContainment!) rule = `${bucket.name}.contained`;
  }
  const vetoed = rule === null ? null : recordVetoOf(a, a.normalized, b, b.normalized, bucket, options) ?? sheetVetoOf(a, b, bucket, options) ?? vetoOf(a.normalized, b.normalized, bucket, options);
  if (vetoed !== null) rule = null;
  return withCharMeasures({ duplicate: rule !== null, rule, bucket: bucket.name, distance, cosine: cos, jaccard: jac, wordShare, containment, vetoed }, a.normalized, b.normalized, withEdit, edit);
}

/** `<bucket>.record` when the record veto (record.ts) overrules a duplicate rule: both sides are records and their texts differ; else null. */
export function recordVetoOf(a: { record?: boolean | undefined }, textA: string | undefined, b: { record?: boolean | undefined }, textB: string | undefined, bucket: VerdictBucket, options: VerdictOptions): string | null {
  if (!options.recordVeto || a.record !== true || b.record !== true || textA === undefined || textB === undefined) return null;
  return textA !== textB ? `${bucket.name}.record` : null;
}

/** `<bucket>.sheet` when the sheet veto (sheet.ts) overrules a duplicate rule: both sides are sheets that give one label two spec values; else null. */
export function sheetVetoOf(a: { sheet?: Sheet | undefined }, b: { sheet?: Sheet | undefined }, bucket: VerdictBucket, options: VerdictOptions): string | null {
  if (!options.sheetVeto || a.sheet === undefined || b.sheet === undefined) return null;
  return sheetsDiffer(a.sheet, b.sheet) ? `${bucket.name}.sheet` : null;
}

/** The veto (rules 7 and 8, in that order) that overrules a duplicate rule for these texts, e.g. `short.middle`; null when none does. */
export function vetoOf(a: string, b: string, bucket: VerdictBucket, options: VerdictOptions): string | null {
  if (!options.middleVeto && (bucket.minEndingSimilarity ?? null) === null) return null;
  // Without truncation markers and line-wrapping spaces between CJK characters (similarity/veto-text.ts).
  const x = vetoText(a);
  const y = vetoText(b);
  if (options.middleVeto && vetoedByMiddle(x, y, options.middleVeto)) return `${bucket.name}.middle`;
  if (vetoedByEnding(x, y, bucket)) return `${bucket.name}.ending`;
  return null;
}

/** Rule 7: a long differing middle on both sides that is not alike. Linear; the 3-grams only when the lengths qualify. */
export function vetoedByMiddle(a: string, b: string, veto: MiddleVeto): boolean {
  const m = differingMiddle(a, b, veto.minLength, veto.minShare);
  return m !== null && m.similarity < veto.maxSimilarity;
}

/** Rule 8: a shared opening, then different endings (not one word each) that are not alike. Linear. */
export function vetoedByEnding(a: string, b: string, bucket: VerdictBucket): boolean {
  const min = bucket.minEndingSimilarity ?? null;
  if (min === null) return false;
  const similarity = differentEnding(a, b);
  return similarity !== null && similarity < min;
}

/**
 * The similarity reported for a verdict: edit similarity when the edit rule
 * fired, 3-gram Jaccard when the Jaccard rule fired, TF-IDF cosine when the
 * cosine or simhash rule fired; for a non-duplicate, edit similarity where
 * the bucket computes it, else cosine. The `.word` rule reports the share of
 * the longer text outside the replaced word, the `.contained` rule its 3-gram
 * containment.
 */
export function reportedSimilarity(verdict: Verdict): number {
  if (verdict.rule?.endsWith(".contained") && verdict.containment != null) return verdict.containment;
  if (verdict.rule?.endsWith(".word") && verdict.wordShare != null) return verdict.wordShare;
  if (verdict.rule?.endsWith(".edit") && verdict.editSimilarity !== null) return verdict.editSimilarity;
  if (verdict.rule?.endsWith(".jaccard") && verdict.jaccard != null) return verdict.jaccard;
  if (verdict.rule !== null) return verdict.cosine;
  return verdict.editSimilarity ?? verdict.cosine;
}
