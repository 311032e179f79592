/**
 * Re-rank sketches (spec §10, scheme `sk1`): what the verdict rules need from a
 * stored document, computed once at index time so that a lookup never analyses
 * a candidate's text again.
 *
 * A sketch holds
 * - `length`: code points of the normalized text (picks the verdict bucket);
 * - the TF-IDF word vector, unit-normalised, as up to `MAX_SKETCH_TERMS` pairs
 *   (32-bit term hash, float32 weight), heaviest terms first when cut; term hash =
 *   MurmurHash3_x86_32 (seed 0) of the term's UTF-8 bytes. The cosine of two
 *   sketches is the sum of w_a * w_b over equal hashes: the TF-IDF cosine up to
 *   float32 rounding and 32-bit hash collisions, exact in term set whenever both
 *   texts have at most `MAX_SKETCH_TERMS` terms (texts of up to roughly 10,000
 *   characters; beyond, the cosine of the heaviest terms, a lower bound). Every
 *   term is kept because the weights of real texts are flat: keeping the top 256
 *   of a 342-term Chinese text moved its cosine from 0.76 to 0.51;
 * - the normalized text itself, when it is short (`inlineTextLength`): edit
 *   similarity and character cosine need it. Longer texts that may still need
 *   the edit rule keep it in a separate field, read only when the cheaper
 *   rules cannot decide (`compareSketches` returns `undefined` then);
 * - for those longer texts (up to `MAX_FILTER_LENGTH`), a text filter
 *   (text-filter.ts, 388 bytes): exact upper bounds of edit similarity and
 *   trigram Jaccard against another text, so that a lookup that only decides
 *   reads the text only when one of those rules could still hold.
 *
 * Binary layout (little-endian), stored base64 in a `binary` doc-values field:
 *   format 1: u8 1 | u32 length | u16 n | n x u32 hash (ascending) | n x f32 weight | UTF-8 text (may be empty)
 *   format 2: u8 2 | u32 length | u16 n | n x u32 hash | n x f32 weight | text filter (FILTER_BYTES) | UTF-8 text (may be empty)
 * A sketch with a filter is written in format 2, any other in format 1.
 */
import { hamming, type Fingerprint } from "./fingerprint.js";
import { NeardupError } from "./errors.js";
import { murmur3 } from "./lsh.js";
import type { SparseVector } from "./tfidf.js";
import type { Sheet } from "./sheet.js";
import { bucketFor, containmentApplies, editRuleApplies, editSimilarityReaching, lengthsAllow, recordVetoOf, sheetVetoOf, vetoOf, withCharMeasures, type Verdict, type VerdictOptions } from "./verdict.js";
import { oneWordSwap, trigramContainment, trigramJaccard } from "./similarity/spread.js";
import { editSimilarityBound, FILTER_BYTES, knownTextFilter, readTextFilter, textFilterOfText, trigramContainmentBound, trigramJaccardBound, writeTextFilter, type TextFilter } from "./text-filter.js";

/** Version of the sketch scheme; part of the data contract (`neardup.sketch`). */
export const SKETCH_VERSION = "sk2";
const FORMAT = 1;
const FORMAT_FILTERED = 2;
/** `FORMAT` of a log record (record.ts): its text follows the terms. */
const FORMAT_RECORD = 3;
/**
 * `FORMAT` of a sheet (sheet.ts): after the terms a flags byte (1: a text
 * filter follows, 2: a record), the number of fields (one byte) and the
 * fields (three little-endian uint32 each), then the filter, then the text.
 */
const FORMAT_SHEET = 4;
const FLAG_FILTER = 1;
const FLAG_RECORD = 2;
/** Most terms kept in a sketch (heaviest first). */
export const MAX_SKETCH_TERMS = 4096;
/** Texts shorter than this (code points) carry their normalized text in the sketch. Default 300. */
export const DEFAULT_INLINE_TEXT_LENGTH = 300;
/** Longest text (code points) whose sketch carries a text filter; past it the edit rule is far out of reach with any usual bucket. */
export const MAX_FILTER_LENGTH = 20_000;

export interface Sketch {
  /** Code points of the normalized text. */
  length: number;
  /** Term hashes, ascending. */
  hashes: Uint32Array;
  /** Unit-normalised TF-IDF weights, parallel to `hashes`. */
  weights: Float32Array;
  /** The normalized text, when stored or known. */
  text?: string | undefined;
  /** Bounds of the edit and Jaccard rules, for a text not stored in the sketch (text-filter.ts). */
  filter?: TextFilter | undefined;
  /** A log record (record.ts); a record's sketch always holds its text. */
  record?: boolean | undefined;
  /** A sheet's fields (sheet.ts). */
  sheet?: Sheet | undefined;
}

/** What a sketch is made from (an `Analysis` fits). */
export interface Sketchable {
  normalized: string;
  length: number;
  vector: SparseVector;
  /** The terms of `vector` (`sketchTermsOf(vector)`) when already built, by the worker thread that analysed the text; `vector` is then not read. */
  sketchTerms?: SketchTerms | undefined;
  /** A log record (record.ts). */
  record?: boolean | undefined;
  /** A sheet's fields (sheet.ts). */
  sheet?: Sheet | undefined;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Scratch for term bytes: most terms fit, so hashing a term allocates nothing. */
let scratch = new Uint8Array(256);

function termHash(term: string): number {
  // A UTF-16 code unit takes at most 3 UTF-8 bytes.
  if (term.length * 3 > scratch.length) scratch = new Uint8Array(term.length * 3);
  return murmur3(scratch, 0, utf8Into(term, scratch), 0);
}

/**
 * `encoder.encodeInto(term, bytes).written`, in JavaScript: terms are a few
 * characters, and the call into the native encoder cost more than the
 * encoding. A lone surrogate becomes U+FFFD, as TextEncoder does.
 */
function utf8Into(term: string, bytes: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < term.length; i++) {
    let c = term.charCodeAt(i);
    if (c < 0x80) {
      bytes[n++] = c;
      continue;
    }
    if (c < 0x800) {
      bytes[n++] = 0xc0 | (c >> 6);
      bytes[n++] = 0x80 | (c & 0x3f);
      continue;
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      const next = i + 1 < term.length ? term.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
        i++;
        bytes[n++] = 0xf0 | (c >> 18);
        bytes[n++] = 0x80 | ((c >> 12) & 0x3f);
        bytes[n++] = 0x80 | ((c >> 6) & 0x3f);
        bytes[n++] = 0x80 | (c & 0x3f);
        continue;
      }
      c = 0xfffd;
    }
    bytes[n++] = 0xe0 | (c >> 12);
    bytes[n++] = 0x80 | ((c >> 6) & 0x3f);
    bytes[n++] = 0x80 | (c & 0x3f);
  }
  return n;
}

/** The text-free part of a sketch: term hashes (ascending) and unit weights. */
export interface SketchTerms {
  hashes: Uint32Array;
  weights: Float32Array;
}

/**
 * One sketch per vector: a document's sketch is needed by its lookup, the
 * recent-writes window and its stored source, and building it (hashing
 * every term) is not free. Keyed by the vector object, so it lives as long
 * as the analysis does.
 */
const termsMemo = new WeakMap<SparseVector, SketchTerms>();

/** Term positions per sort key: a term's index fits under it (at most `MAX_SKETCH_TERMS` terms are hashed). */
const POSITIONS = 8192;

function termsOf(vector: SparseVector): SketchTerms {
  const memo = termsMemo.get(vector);
  if (memo) return memo;
  let norm = 0;
  let positive = 0;
  for (const w of vector.values()) {
    norm += w * w;
    if (w > 0) positive++;
  }
  norm = Math.sqrt(norm);
  // More terms than a sketch keeps: the heaviest (ties by term).
  const heaviest =
    positive > MAX_SKETCH_TERMS
      ? [...vector]
          .filter(([, w]) => w > 0)
          .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))
          .slice(0, MAX_SKETCH_TERMS)
      : undefined;
  // Each kept term as one number, hash * POSITIONS + position (exact in a double: < 2^45), so a
  // plain numeric sort orders by hash and, within a hash (a collision), by position; no Map, no
  // boxed keys. Weights of colliding terms are summed in term order, as a Map merge would.
  const units = new Float64Array(Math.min(positive, MAX_SKETCH_TERMS));
  const keys = new Float64Array(units.length);
  let n = 0;
  const add = (w: number, term: string): void => {
    if (!(w > 0)) return;
    units[n] = w / norm;
    keys[n] = termHash(term) * POSITIONS + n;
    n++;
  };
  if (heaviest) for (const [term, w] of heaviest) add(w, term);
  else vector.forEach(add); // no [term, weight] pair allocated per term
  keys.sort();
  let distinct = 0;
  for (let i = 0; i < n; i++) if (i === 0 || Math.floor(keys[i]! / POSITIONS) !== Math.floor(keys[i - 1]! / POSITIONS)) distinct++;
  const hashes = new Uint32Array(distinct);
  const weights = new Float32Array(distinct);
  let j = -1;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const hash = Math.floor(keys[i]! / POSITIONS);
    const unit = units[keys[i]! - hash * POSITIONS]!;
    if (j >= 0 && hashes[j] === hash) sum += unit;
    else {
      if (j >= 0) weights[j] = sum;
      hashes[++j] = hash;
      sum = unit;
    }
  }
  if (j >= 0) weights[j] = sum;
  const terms: SketchTerms = { hashes, weights };
  termsMemo.set(vector, terms);
  return terms;
}

/** The sketch terms of a vector (built once per vector; shared: never mutate them). */
export function sketchTermsOf(vector: SparseVector): SketchTerms {
  return termsOf(vector);
}

/**
 * The sketch of an analysed text; the normalized text is kept when the text is
 * shorter than `inlineTextLength` code points (Infinity: always, for in-memory use).
 * The hashes and weights are shared between the sketches of one analysis: never mutate them.
 */
export function sketchOf(a: Sketchable, inlineTextLength: number = DEFAULT_INLINE_TEXT_LENGTH): Sketch {
  const { hashes, weights } = a.sketchTerms ?? termsOf(a.vector);
  const sketch: Sketch = { length: a.length, hashes, weights };
  // A record keeps its text at any inline length: the record veto compares the texts (under 300 code points).
  if (a.length < inlineTextLength || a.record) {
    sketch.text = a.normalized;
    if (a.record) sketch.record = true;
  } else if (a.length <= MAX_FILTER_LENGTH) sketch.filter = textFilterOfText(a.normalized);
  if (a.sheet !== undefined) sketch.sheet = a.sheet;
  return sketch;
}

/** Cosine of two sketches (merge over the sorted hashes), clamped to [0, 1]. */
export function sketchCosine(a: Sketch, b: Sketch): number {
  let i = 0;
  let j = 0;
  let dot = 0;
  const ha = a.hashes;
  const hb = b.hashes;
  while (i < ha.length && j < hb.length) {
    const x = ha[i]!;
    const y = hb[j]!;
    if (x === y) dot += a.weights[i++]! * b.weights[j++]!;
    else if (x < y) i++;
    else j++;
  }
  return dot > 1 ? 1 : dot < 0 ? 0 : dot;
}

export function encodeSketch(s: Sketch): string {
  const text = s.text === undefined ? new Uint8Array(0) : encoder.encode(s.text);
  const n = s.hashes.length;
  const filterBytes = s.filter ? FILTER_BYTES : 0;
  const fields = s.sheet === undefined ? 0 : Math.min(255, s.sheet.length / 3);
  const sheetBytes = s.sheet === undefined ? 0 : 2 + fields * 12;
  const buf = new Uint8Array(7 + n * 8 + sheetBytes + filterBytes + text.length);
  const view = new DataView(buf.buffer);
  const record = s.record === true && s.text !== undefined;
  view.setUint8(0, s.sheet !== undefined ? FORMAT_SHEET : s.filter ? FORMAT_FILTERED : record ? FORMAT_RECORD : FORMAT);
  view.setUint32(1, s.length, true);
  view.setUint16(5, n, true);
  for (let i = 0; i < n; i++) {
    view.setUint32(7 + i * 4, s.hashes[i]!, true);
    view.setFloat32(7 + n * 4 + i * 4, s.weights[i]!, true);
  }
  let at = 7 + n * 8;
  if (s.sheet !== undefined) {
    view.setUint8(at, (s.filter ? FLAG_FILTER : 0) | (record ? FLAG_RECORD : 0));
    view.setUint8(at + 1, fields);
    for (let i = 0; i < fields * 3; i++) view.setUint32(at + 2 + i * 4, s.sheet[i]!, true);
    at += sheetBytes;
  }
  if (s.filter) writeTextFilter(s.filter, view, at);
  buf.set(text, at + filterBytes);
  return Buffer.from(buf).toString("base64");
}

/**
 * Decodes a stored sketch (base64, padded or not). A sketch that stored no
 * text decodes with `text` undefined unless `length` is 0.
 * @throws NeardupError INVALID_INPUT on a malformed or unknown-format sketch.
 */
export function decodeSketch(base64: string, field = "neardup.sketch"): Sketch {
  return decodeSketchBytes(Buffer.from(base64, "base64"), field);
}

/** {@link decodeSketch} of the sketch's bytes (base64-decoded). */
export function decodeSketchBytes(buf: Uint8Array, field = "neardup.sketch"): Sketch {
  const bad = (why: string) => new NeardupError("INVALID_INPUT", `${field} is not a sketch (${SKETCH_VERSION}): ${why}`, { field });
  if (buf.length < 7) throw bad(`${buf.length} bytes`);
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const format = view.getUint8(0);
  if (format !== FORMAT && format !== FORMAT_FILTERED && format !== FORMAT_RECORD && format !== FORMAT_SHEET) throw bad(`format ${format}`);
  const length = view.getUint32(1, true);
  const n = view.getUint16(5, true);
  let at = 7 + n * 8;
  if (buf.length < at) throw bad(`${n} terms in ${buf.length} bytes`);
  const hashes = new Uint32Array(n);
  const weights = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    hashes[i] = view.getUint32(7 + i * 4, true);
    weights[i] = view.getFloat32(7 + n * 4 + i * 4, true);
  }
  let flags = format === FORMAT_FILTERED ? FLAG_FILTER : format === FORMAT_RECORD ? FLAG_RECORD : 0;
  let sheet: Sheet | undefined;
  if (format === FORMAT_SHEET) {
    if (buf.length < at + 2) throw bad(`${n} terms and no fields in ${buf.length} bytes`);
    flags = view.getUint8(at);
    const fields = view.getUint8(at + 1);
    if (buf.length < at + 2 + fields * 12) throw bad(`${n} terms and ${fields} fields in ${buf.length} bytes`);
    sheet = new Uint32Array(fields * 3);
    for (let i = 0; i < fields * 3; i++) sheet[i] = view.getUint32(at + 2 + i * 4, true);
    at += 2 + fields * 12;
  }
  const filterBytes = flags & FLAG_FILTER ? FILTER_BYTES : 0;
  if (buf.length < at + filterBytes) throw bad(`${n} terms and a text filter in ${buf.length} bytes`);
  const rest = buf.subarray(at + filterBytes);
  const sketch: Sketch = { length, hashes, weights };
  if (filterBytes) sketch.filter = readTextFilter(view, at, length);
  if (rest.length > 0) sketch.text = decoder.decode(rest);
  if (flags & FLAG_RECORD && sketch.text !== undefined) sketch.record = true;
  if (sheet !== undefined) sketch.sheet = sheet;
  return sketch;
}

/** A side of a sketch comparison: the stored simhash and sketch. */
export interface Sketched {
  simhash: Fingerprint;
  sketch: Sketch;
}

/**
 * Longest text (code points) for which some bucket's edit, Jaccard or
 * containment rule could still hold against another text: edit similarity
 * <= shorter / longer, and the Jaccard rule is tried only when shorter /
 * longer >= minJaccard (the containment rule >= minContainedShare), so a
 * pair in a bucket below `maxLength` with threshold m needs the longer text
 * under maxLength / m. The one-word rule needs nearly equal lengths (its
 * common opening and ending cover minWordShare of the longer text). Texts
 * longer than this never need their text.
 */
export function editTextLimit(options: VerdictOptions): number {
  let limit = 0;
  for (const b of options.buckets) {
    for (const m of [b.minEditSimilarity, b.minJaccard ?? null, b.minWordShare ?? null, b.minContainment != null ? (b.minContainedShare ?? 0) : null]) {
      if (m === null) continue;
      if (m <= 0 || b.maxLength === Infinity) return Infinity;
      limit = Math.max(limit, Math.ceil(b.maxLength / m));
    }
  }
  return limit;
}

/**
 * The verdict of `decide` (same bucket, same rules, same order: simhash,
 * cosine, edit, Jaccard, one word, containment; then the same veto) from two sketches, computing edit similarity and character
 * cosine only when the cheaper rules cannot decide: when the simhash or
 * cosine rule fires, or when the lengths alone bound edit similarity below
 * the threshold (edit similarity <= shorter / longer), they are `null`.
 * Returns `undefined` when the edit rule must be tried and a text is missing
 * (the caller fetches it and asks again).
 *
 * `decideOnly`: the caller keeps only duplicates (a write's decision, a
 * check), so a pair whose text filters (or texts) show that no rule needing
 * the missing text can hold is a non-duplicate without the text; its verdict
 * then reports no edit similarity or Jaccard (null), where the text would
 * have given the values. The duplicate, the rule and every duplicate's
 * measures are the same either way.
 */
export function compareSketches(a: Sketched, b: Sketched, options: VerdictOptions, decideOnly = false): Verdict | undefined {
  const shorter = Math.min(a.sketch.length, b.sketch.length);
  const longer = Math.max(a.sketch.length, b.sketch.length);
  const bucket = bucketFor(options, shorter);
  const distance = hamming(a.simhash, b.simhash);
  const cos = sketchCosine(a.sketch, b.sketch);
  const textA = a.sketch.text;
  const textB = b.sketch.text;
  const texts = textA !== undefined && textB !== undefined;
  let rule: string | null = null;
  let edit: number | undefined;
  let editTried = false;
  let jac: number | null = null;
  let wordShare: number | null = null;
  let containment: number | null = null;
  if (bucket.maxDistance !== null && distance <= bucket.maxDistance) rule = `${bucket.name}.simhash`;
  else if (bucket.minCosine !== null && cos >= bucket.minCosine) rule = `${bucket.name}.cosine`;
  else {
    const minEdit = bucket.minEditSimilarity;
    // The length ratio bounds edit similarity from above (past it the edit rule cannot fire), and the budget bounds its cost.
    const editCanFire = editRuleApplies(bucket, shorter, longer);
    const minJaccard = bucket.minJaccard != null && lengthsAllow(shorter, longer, bucket.minJaccard) ? bucket.minJaccard : null;
    const minWord = bucket.minWordShare ?? null;
    const minContainment = containmentApplies(bucket, shorter, longer) ? bucket.minContainment! : null;
    const textRules = editCanFire || minJaccard !== null || minWord !== null || minContainment !== null;
    // Without a text, only a caller that keeps duplicates alone may settle for the filters' bounds (no text rule can hold).
    if (textRules && !texts && (!decideOnly || minWord !== null || !outOfReach(a.sketch, b.sketch, editCanFire ? minEdit! : null, minJaccard, minContainment))) return undefined;
    if (textRules && texts) {
      if (editCanFire) {
        editTried = true;
        edit = editSimilarityReaching(textA, textB, minEdit!);
        if (edit !== undefined && edit >= minEdit!) rule = `${bucket.name}.edit`;
      }
      if (rule === null && minJaccard !== null) {
        jac = trigramJaccard(textA, textB);
        if (jac >= minJaccard) rule = `${bucket.name}.jaccard`;
      }
      if (rule === null && minWord !== null) {
        wordShare = oneWordSwap(textA, textB);
        if (wordShare !== null && wordShare >= minWord) rule = `${bucket.name}.word`;
      }
      // Filters both sides already have (stored, or built for this text) bound it first: a long candidate read
      // for the edit rule is rarely contained, and its 3-grams take a sort.
      if (rule === null && minContainment !== null && !containmentRuledOut(a.sketch, b.sketch, minContainment)) {
        containment = trigramContainment(textA, textB);
        if (containment >= minContainment) rule = `${bucket.name}.contained`;
      }
    }
  }
  let vetoed: string | null = rule === null ? null : (recordVetoOf(a.sketch, textA, b.sketch, textB, bucket, options) ?? sheetVetoOf(a.sketch, b.sketch, bucket, options));
  if (vetoed !== null) rule = null;
  if (rule !== null && (options.middleVeto || (bucket.minEndingSimilarity ?? null) !== null)) {
    // The vetoes read both texts; texts too long to be stored are not vetoed.
    if (!texts && longer <= editTextLimit(options)) return undefined;
    if (texts) vetoed = vetoOf(textA, textB, bucket, options);
    if (vetoed !== null) rule = null;
  }
  return withCharMeasures({ duplicate: rule !== null, rule, bucket: bucket.name, distance, cosine: cos, jaccard: jac, wordShare, containment, vetoed }, textA ?? "", textB ?? "", editTried, edit);
}

/** The filter of a side: stored, or made from its text. */
function filterOf(s: Sketch): TextFilter | undefined {
  return s.filter ?? (s.text === undefined ? undefined : textFilterOfText(s.text));
}

/** True when the filters show that none of the edit (`minEdit`), Jaccard (`minJaccard`) and containment (`minContainment`) rules can hold; null: that rule does not apply. */
function outOfReach(a: Sketch, b: Sketch, minEdit: number | null, minJaccard: number | null, minContainment: number | null): boolean {
  const fa = filterOf(a);
  const fb = filterOf(b);
  if (!fa || !fb) return false;
  if (minEdit !== null && editSimilarityBound(fa, fb) >= minEdit) return false;
  if (minContainment !== null && trigramContainmentBound(fa, fb) >= minContainment) return false;
  return minJaccard === null || trigramJaccardBound(fa, fb) < minJaccard;
}

/** True when filters both sides have at hand (none is built) show that the containment rule cannot reach `min`. */
function containmentRuledOut(a: Sketch, b: Sketch, min: number): boolean {
  const fa = a.filter ?? (a.text === undefined ? undefined : knownTextFilter(a.text));
  const fb = b.filter ?? (b.text === undefined ? undefined : knownTextFilter(b.text));
  return fa !== undefined && fb !== undefined && trigramContainmentBound(fa, fb) < min;
}

/** True when `compareSketches` could need `s`'s text against some text (its length is within the edit limit). */
export function mayNeedText(s: Sketch, options: VerdictOptions): boolean {
  return s.length <= editTextLimit(options);
}
