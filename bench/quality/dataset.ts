/**
 * Builds the labelled pair set for the quality benchmark, deterministically
 * from a seed. See docs/quality.md for the rules; in short, per language and
 * length bucket:
 *
 * - `gen`: a real text and a copy changed by one documented edit (edits.ts)
 *   at strength 1..3: label 1.
 * - `heavy`: the same edits at strength 4 (~25% changed): label 1, reported
 *   apart (recall only), not in precision/recall/F1.
 * - `natural`: variant copies found in the sources (sources.ts rules): label 1.
 * - `neg-template`: two different texts of the same template (same poet and
 *   bucket; same mailing list or sender): label 0.
 * - `neg-boilerplate`: two different texts of one template that both end with
 *   the same block of real text from a third template (a quoted message, a
 *   reprinted preface), 20-30% of their length: label 0.
 * - `neg-random`: two texts of different templates: label 0.
 * - `neg-opening`, `neg-newsletter`: different texts that share their opening
 *   (a heading, a greeting, a template paragraph, a quoted header; real
 *   templated mail): label 0. See openings.ts.
 *
 * A pair's bucket is the length (UTF-16 code units of the original text `a`).
 */
import { applyEdit, EDIT_KINDS, sentences } from "./edits.js";
import type { EditContext } from "./edits.js";
import type { Group, Lang, Source } from "./sources.js";
import { editSimilarity, trigramJaccard } from "../../src/core/index.js";
import type { Analysis, Fingerprinter } from "../../src/core/index.js";
import { buildOpeningPairs } from "./openings.js";
import { createRng } from "./rng.js";
import type { Rng } from "./rng.js";

export type Bucket = "<50" | "50-200" | "200-1000" | ">1000";
export const BUCKETS: readonly Bucket[] = ["<50", "50-200", "200-1000", ">1000"];
export type Tier = "gen" | "heavy" | "natural" | "neg-template" | "neg-boilerplate" | "neg-random" | "neg-opening" | "neg-newsletter";

/** Hard-negative tiers of issue 14 (openings.ts): shared opening, different body. */
export const HARD_NEGATIVE_TIERS: readonly Tier[] = ["neg-opening", "neg-newsletter", "neg-boilerplate"];

export interface Pair {
  readonly id: number;
  readonly a: string;
  readonly b: string;
  /** 1 = near-duplicate, 0 = different documents. */
  readonly label: 0 | 1;
  readonly bucket: Bucket;
  readonly lang: Lang;
  readonly tier: Tier;
  /** Edit and strength (`word_sub:2`), natural rule, or negative kind. */
  readonly edit: string;
}

export function bucketOf(length: number): Bucket {
  if (length < 50) return "<50";
  if (length < 200) return "50-200";
  if (length < 1000) return "200-1000";
  return ">1000";
}

/** Length range [min, max] of texts drawn for a bucket. */
const RANGE: Record<Bucket, [number, number]> = {
  "<50": [16, 49],
  "50-200": [50, 199],
  "200-1000": [200, 999],
  ">1000": [1000, 3000],
};

/** Pairs per language and bucket. */
export interface Sizes {
  gen: number;
  heavy: number;
  natural: number;
  negTemplate: number;
  negBoilerplate: number;
  negRandom: number;
  /** `neg-opening` pairs per language and bucket. */
  negOpening: number;
  /** `neg-newsletter` pairs in all (English). */
  negNewsletter: number;
}

export const DEFAULT_SIZES: Sizes = { gen: 120, heavy: 24, natural: 50, negTemplate: 90, negBoilerplate: 40, negRandom: 40, negOpening: 60, negNewsletter: 120 };

/** The default sizes times `scale` (at least one pair of each kind): reduced runs while iterating. */
export function scaledSizes(scale: number): Sizes {
  const out = { ...DEFAULT_SIZES };
  for (const k of Object.keys(out) as (keyof Sizes)[]) out[k] = Math.max(1, Math.round(out[k] * scale));
  return out;
}

/**
 * A text of the bucket's length from one group: consecutive documents from
 * `start` (joined as on an anthology page or a list digest), cut at a sentence
 * end inside the range, or at a word end if no sentence ends there.
 */
function textFrom(lang: Lang, group: Group, start: number, bucket: Bucket, rng: Rng): { text: string; used: number } | null {
  const [min, max] = RANGE[bucket];
  const target = Math.round(min * Math.pow(max / min, rng.next()));
  const sep = lang === "zh" ? "\n" : "\n\n";
  let text = "";
  let i = start;
  while (text.length < target && i < group.docs.length && i < start + 40) {
    text += (text ? sep : "") + (group.docs[i] as string);
    i++;
  }
  if (text.length < min) return null;
  if (text.length > max) {
    let cut = "";
    for (const s of sentences(text)) {
      if ((cut + s).trimEnd().length > Math.max(target, min)) break;
      cut += s;
    }
    cut = cut.trimEnd();
    if (cut.length < min) {
      cut = text.slice(0, target);
      if (lang === "en") cut = cut.replace(/\s+\S*$/, "");
    }
    text = cut;
  }
  text = text.trim();
  return text.length >= min && text.length <= max ? { text, used: i - start } : null;
}

function usableGroups(src: Source): Group[] {
  return src.groups.filter((g) => g.docs.length >= 4);
}

function sampleText(src: Source, groups: Group[], bucket: Bucket, rng: Rng): { group: Group; start: number; text: string; used: number } {
  for (let attempt = 0; attempt < 5000; attempt++) {
    const group = rng.pick(groups);
    const start = rng.int(group.docs.length);
    const got = textFrom(src.lang, group, start, bucket, rng);
    if (got) return { group, start, ...got };
  }
  throw new Error(`dataset: no ${src.lang} text of length ${bucket} after 5000 tries`);
}

/** A different text from the same group not overlapping [start, start + used). */
function sibling(src: Source, group: Group, start: number, used: number, bucket: Bucket, rng: Rng, avoid: string): string | null {
  for (let attempt = 0; attempt < 40; attempt++) {
    const s = rng.int(group.docs.length);
    if (s + 40 > start && s < start + used) continue;
    const got = textFrom(src.lang, group, s, bucket, rng);
    if (!got || sameDocument(got.text, avoid)) continue;
    // Similar length, so length alone does not give the answer away.
    const ratio = got.text.length / avoid.length;
    if (ratio < 0.6 || ratio > 1 / 0.6) continue;
    if (s < start && s + got.used > start) continue;
    return got.text;
  }
  return null;
}

/**
 * Whether two texts drawn as different documents are in fact one document
 * twice: the corpus holds copies (one spam sent to several addresses, one
 * newsletter cut at two lengths, one poem in two editions). Such a pair is not
 * a negative; it is skipped. Rule: equal or one a prefix of the other once
 * case is folded, whitespace runs are one space, and leading and trailing characters that are
 * neither letters nor digits are set aside (mail bodies that open with
 * undecodable bytes, lines wrapped at other widths), character 3-gram
 * Jaccard >= 0.9, or, under 1,000 code units, lengths within 10% and edit
 * similarity >= 0.9 (editions that differ in a few characters throughout).
 */
export function sameDocument(x: string, y: string): boolean {
  const core = (s: string): string => s.toLowerCase().replace(/\s+/gu, " ").replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "");
  const cx = core(x);
  const cy = core(y);
  if (x.startsWith(y) || y.startsWith(x)) return true;
  if (cx !== "" && cy !== "" && (cx.startsWith(cy) || cy.startsWith(cx))) return true;
  const jac = trigramJaccard(x, y);
  if (jac >= 0.9) return true;
  const ratio = Math.min(x.length, y.length) / Math.max(x.length, y.length);
  // Edit distance is quadratic: only for texts under 1,000 code units (the draws repeat it often).
  return jac >= 0.5 && ratio >= 0.9 && Math.max(x.length, y.length) < 1000 && editSimilarity(x, y) >= 0.9;
}

/**
 * The shared block of a boilerplate negative: the start of a real text from a
 * third template (a quoted message, a reprinted preface), cut to `length`.
 */
function sharedBlock(src: Source, groups: Group[], length: number, rng: Rng): string {
  const { text } = sampleText(src, groups, bucketOf(Math.max(length, 16) * 2), rng);
  const cut = text.slice(0, Math.max(8, length));
  return src.lang === "en" ? cut.replace(/\s+\S*$/, "") : cut;
}

export function buildPairs(sources: readonly Source[], seed = 20260601, sizes: Sizes = DEFAULT_SIZES): Pair[] {
  const pairs: Pair[] = [];
  const push = (p: Omit<Pair, "id">): void => void pairs.push({ id: pairs.length, ...p });
  for (const src of sources) {
    const rng = createRng(seed ^ (src.lang === "zh" ? 0x5a48 : 0x454e));
    const groups = usableGroups(src);
    const vocabulary = buildVocabulary(src);
    const ctx: EditContext = { lang: src.lang, rng, vocabulary };
    for (const bucket of BUCKETS) {
      const base = { bucket, lang: src.lang };
      for (let i = 0; i < sizes.gen + sizes.heavy; i++) {
        const heavy = i >= sizes.gen;
        const strength = heavy ? 4 : 1 + (i % 3);
        const { text } = sampleText(src, groups, bucket, rng);
        let kind = EDIT_KINDS[Math.floor(i / 3) % EDIT_KINDS.length] ?? "char_noise";
        let b = applyEdit(ctx, kind, text, strength);
        // No room for the edit (one sentence to reorder, fewer than four words):
        // a word substitution, else character noise, which always has room.
        for (const fallback of ["word_sub", "char_noise"] as const) {
          if (b !== null) break;
          kind = fallback;
          b = applyEdit(ctx, kind, text, strength);
        }
        b ??= text;
        push({ ...base, a: text, b, label: 1, tier: heavy ? "heavy" : "gen", edit: `${kind}:${strength}` });
      }
      const natural = rng.shuffle(src.natural.filter((n) => bucketOf(n.a.length) === bucket)).slice(0, sizes.natural);
      for (const n of natural) push({ ...base, a: n.a, b: n.b, label: 1, tier: "natural", edit: n.rule });
      for (let i = 0; i < sizes.negTemplate + sizes.negBoilerplate; i++) {
        const boiler = i >= sizes.negTemplate;
        let a = "";
        let b: string | null = null;
        while (b === null) {
          const s = sampleText(src, groups, bucket, rng);
          a = s.text;
          b = sibling(src, s.group, s.start, s.used, bucket, rng, a);
        }
        if (boiler) {
          const block = sharedBlock(src, groups, Math.round(a.length * (0.2 + 0.1 * rng.next())), rng);
          const sep = src.lang === "zh" ? "\n" : "\n\n";
          a = a + sep + block;
          b = b + sep + block;
        }
        push({ ...base, a, b, label: 0, tier: boiler ? "neg-boilerplate" : "neg-template", edit: boiler ? "shared-boilerplate" : "same-template" });
      }
      for (let i = 0; i < sizes.negRandom; i++) {
        const x = sampleText(src, groups, bucket, rng);
        let y = sampleText(src, groups, bucket, rng);
        while (y.group === x.group || sameDocument(x.text, y.text)) y = sampleText(src, groups, bucket, rng);
        push({ ...base, a: x.text, b: y.text, label: 0, tier: "neg-random", edit: "different-template" });
      }
    }
  }
  const openingRng = (lang: Lang): Rng => createRng(seed ^ (lang === "zh" ? 0x4f5a : 0x4f45));
  pairs.push(...buildOpeningPairs(sources, openingRng, { perBucket: sizes.negOpening, newsletters: sizes.negNewsletter }, pairs.length));
  return pairs;
}

/** Insertion vocabulary: English words / Chinese characters seen in the corpus, sorted for determinism. */
function buildVocabulary(src: Source): string[] {
  const seen = new Set<string>();
  for (const g of src.groups.slice(0, 400)) {
    for (const d of g.docs.slice(0, 20)) {
      if (src.lang === "zh") for (const c of d) { if (/\p{Script=Han}/u.test(c)) seen.add(c); }
      else for (const w of d.split(/\s+/)) { if (/^[a-z]{3,12}$/.test(w)) seen.add(w); }
    }
  }
  return [...seen].sort();
}

/** Both texts of a pair analysed; undefined when one of them is refused (empty after normalization): the scripts skip such pairs. */
export function analyzePair(fp: Fingerprinter, pair: { a: string; b: string }): [Analysis, Analysis] | undefined {
  try {
    return [fp.analyze(pair.a), fp.analyze(pair.b)];
  } catch {
    return undefined;
  }
}
