/**
 * Hard negatives of issue 14: different texts that share their opening.
 *
 * `neg-opening` (label 0): two different texts of one template (same poet,
 * same mailing list), each cut so that a shared opening takes `f` of the
 * result, then the shared opening put in front of both. The opening is real
 * text from a third template, in one of four forms:
 *
 * - `heading` (f 0.10-0.30): the first line or clause of the third text, as a
 *   title or subject line above the body;
 * - `greeting` (f 0.20-0.45): its first sentence(s), as a salutation or lead;
 * - `template` (f 0.45-0.80): its first paragraph(s), as the fixed first
 *   paragraph of a newsletter or a product page;
 * - `quoted` (en, f 0.35-0.70): its first lines quoted as a reply quotes the
 *   message it answers (`On <date>, <list> wrote:` and `> ` lines), the way
 *   forum and list replies that bottom-post open.
 *
 * `neg-newsletter` (en, label 0): real templated mail, not assembled: two
 * messages of one mailing list or sender whose bodies share a common opening
 * or closing of at least 15% of the longer body (a newsletter header, a
 * product-page frame, a list footer) and whose remaining parts are at least
 * 30% of the longer body and not identical. Found by scanning each group.
 *
 * Both tiers are drawn with their own random stream, so adding them changed
 * none of the other pairs.
 */
import { bucketOf, sameDocument, type Bucket, type Pair } from "./dataset.js";
import { sentences } from "./edits.js";
import type { Group, Lang, Source } from "./sources.js";
import type { Rng } from "./rng.js";

export type OpeningKind = "heading" | "greeting" | "template" | "quoted";

const SHARE: Record<OpeningKind, [number, number]> = {
  heading: [0.1, 0.3],
  greeting: [0.2, 0.45],
  template: [0.45, 0.8],
  quoted: [0.35, 0.7],
};

const RANGE: Record<Bucket, [number, number]> = {
  "<50": [16, 49],
  "50-200": [50, 199],
  "200-1000": [200, 999],
  ">1000": [1000, 3000],
};

/** The first `n` characters of `text`, cut back to a sentence end, else a word end (en). */
function head(lang: Lang, text: string, n: number): string {
  let out = "";
  for (const s of sentences(text)) {
    if ((out + s).length > n) break;
    out += s;
  }
  if (out.trim().length >= n * 0.6) return out.trimEnd();
  const cut = text.slice(0, n).replace(/[\uD800-\uDBFF]$/, ""); // never half a surrogate pair
  return (lang === "en" ? cut.replace(/\s+\S*$/, "") : cut).trimEnd();
}

/** Concatenated documents of a group from `start` until at least `n` characters (or the group ends); `end` is exclusive. */
function runFrom(lang: Lang, group: Group, start: number, n: number): { text: string; end: number } {
  const sep = lang === "zh" ? "\n" : "\n\n";
  let text = "";
  let i = start;
  for (; i < group.docs.length && text.length < n; i++) text += (text ? sep : "") + (group.docs[i] as string);
  return { text, end: i };
}

function run(lang: Lang, group: Group, start: number, n: number): string {
  return runFrom(lang, group, start, n).text;
}

function opening(lang: Lang, kind: OpeningKind, third: Group, rng: Rng, n: number): string {
  const src = run(lang, third, rng.int(third.docs.length), n * 3 + 40);
  if (kind === "heading") {
    const line = src.split(/\n/)[0] ?? src;
    return head(lang, line, n) || head(lang, src, n);
  }
  if (kind !== "quoted") return head(lang, src, n);
  const day = 1 + rng.int(28);
  const header = `On Mon, ${day} Sep 2002, ${third.key.replace(/^[^:]*:/, "") || "someone"} wrote:\n`;
  const body = head(lang, src, Math.max(10, n - header.length));
  return header + body.split(/\n/).map((l) => `> ${l}`).join("\n");
}

export interface OpeningSizes {
  /** Pairs per language and bucket. */
  perBucket: number;
  /** Natural templated English pairs in all (spread over the buckets they fall in). */
  newsletters: number;
}

export function buildOpeningPairs(sources: readonly Source[], rngFor: (lang: Lang) => Rng, sizes: OpeningSizes, firstId: number): Pair[] {
  const pairs: Pair[] = [];
  const push = (p: Omit<Pair, "id">): void => void pairs.push({ id: firstId + pairs.length, ...p });
  for (const src of sources) {
    const rng = rngFor(src.lang);
    const groups = src.groups.filter((g) => g.docs.length >= 4);
    const kinds: OpeningKind[] = src.lang === "en" ? ["heading", "greeting", "template", "quoted"] : ["heading", "greeting", "template"];
    const sep = src.lang === "zh" ? "\n" : "\n\n";
    for (const bucket of ["<50", "50-200", "200-1000", ">1000"] as const) {
      const [min, max] = RANGE[bucket];
      for (let i = 0; i < sizes.perBucket; i++) {
        const kind = kinds[i % kinds.length] as OpeningKind;
        for (let attempt = 0; attempt < 200; attempt++) {
          const target = Math.round(min * Math.pow(max / min, rng.next()));
          const [lo, hi] = SHARE[kind];
          const f = lo + (hi - lo) * rng.next();
          const group = rng.pick(groups);
          const third = rng.pick(groups);
          if (third === group) continue;
          const x = rng.int(group.docs.length);
          let y = rng.int(group.docs.length);
          if (y === x) y = (x + 1) % group.docs.length;
          const bodyLength = Math.round(target * (1 - f));
          const runA = runFrom(src.lang, group, x, bodyLength);
          const runB = runFrom(src.lang, group, y, bodyLength);
          // The two bodies share no document.
          if (x < runB.end && y < runA.end) continue;
          const bodyA = head(src.lang, runA.text, bodyLength);
          const bodyB = head(src.lang, runB.text, bodyLength);
          if (bodyA.length < 4 || bodyB.length < 4 || sameDocument(bodyA, bodyB)) continue;
          const open = opening(src.lang, kind, third, rng, Math.max(4, Math.round(target * f)));
          if (open.length < 3) continue;
          const a = open + sep + bodyA;
          const b = open + sep + bodyB;
          if (a.length < min || a.length > max) continue;
          const ratio = b.length / a.length;
          if (ratio < 0.6 || ratio > 1 / 0.6) continue;
          push({ a, b, label: 0, bucket, lang: src.lang, tier: "neg-opening", edit: `opening-${kind}` });
          break;
        }
      }
    }
    if (src.lang === "en") for (const p of newsletterPairs(groups, rng, sizes.newsletters)) push(p);
  }
  return pairs;
}

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

function commonSuffix(a: string, b: string, prefix: number): number {
  const n = Math.min(a.length, b.length) - prefix;
  let i = 0;
  while (i < n && a.charCodeAt(a.length - 1 - i) === b.charCodeAt(b.length - 1 - i)) i++;
  return i;
}

/** Real templated mail: same group, shared opening or closing >= 15%, different remaining parts >= 30% (see the file comment). */
function newsletterPairs(groups: Group[], rng: Rng, limit: number): Omit<Pair, "id">[] {
  const found: Omit<Pair, "id">[] = [];
  for (const g of groups) {
    const docs = [...new Set(g.docs)].filter((d) => d.length >= 16 && d.length <= 3000);
    for (let i = 0; i < docs.length && i < 60; i++) {
      for (let j = i + 1; j < docs.length && j < 60; j++) {
        const a = docs[i] as string;
        const b = docs[j] as string;
        const longer = Math.max(a.length, b.length);
        const ratio = b.length / a.length;
        if (ratio < 0.6 || ratio > 1 / 0.6) continue;
        const p = commonPrefix(a, b);
        const s = commonSuffix(a, b, p);
        const shared = Math.max(p, s);
        const rest = Math.min(a.length, b.length) - p - s;
        if (shared < 0.15 * longer || rest < 0.3 * longer || sameDocument(a, b)) continue;
        found.push({ a, b, label: 0, bucket: bucketOf(a.length), lang: "en", tier: "neg-newsletter", edit: p >= s ? "shared-opening" : "shared-closing" });
      }
    }
  }
  // At most two pairs a group, so one chatty list does not fill the tier.
  const perGroup = new Map<string, number>();
  const out: Omit<Pair, "id">[] = [];
  for (const p of rng.shuffle(found)) {
    const key = p.a.slice(0, 40);
    const n = perGroup.get(key) ?? 0;
    if (n >= 2) continue;
    perGroup.set(key, n + 1);
    out.push(p);
    if (out.length >= limit) break;
  }
  return out;
}
