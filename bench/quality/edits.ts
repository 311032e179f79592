/**
 * Documented edits that turn a real text into a near-duplicate of itself.
 *
 * Every edit takes a strength 1..4. Strengths 1-3 change about 2%, 5% and 10%
 * of the units the edit works on (characters, words, sentences or length) and
 * are labelled near-duplicates. Strength 4 changes about 25%: reported apart
 * as "heavy" (recall only), because whether such a pair is still "the same
 * document" is a policy choice, not a fact.
 *
 * Units: for English a word is a run of non-space characters; for Chinese a
 * "word" is one CJK character (classical Chinese is mostly monosyllabic) and
 * inserted words are two characters. Sentences end at . ! ? 。！？ or a newline;
 * a text with one sentence is split at commas instead.
 */
import type { Lang } from "./sources.js";
import type { Rng } from "./rng.js";

export type EditKind =
  | "char_noise"
  | "word_ins"
  | "word_del"
  | "word_sub"
  | "sentence_reorder"
  | "boilerplate"
  | "punct_ws"
  | "truncate";

export const EDIT_KINDS: readonly EditKind[] = [
  "char_noise",
  "word_ins",
  "word_del",
  "word_sub",
  "sentence_reorder",
  "boilerplate",
  "punct_ws",
  "truncate",
];

/** Fraction of units changed at each strength (index = strength). */
export const RATE = [0, 0.02, 0.05, 0.1, 0.25] as const;

export interface EditContext {
  readonly lang: Lang;
  readonly rng: Rng;
  /** Words (en) or characters (zh) of the corpus to draw insertions from. */
  readonly vocabulary: readonly string[];
}

const BOILERPLATE: Record<Lang, readonly string[]> = {
  en: [
    "Sent from my mobile device.",
    "To unsubscribe, reply with REMOVE in the subject line.",
    "CONFIDENTIALITY NOTICE: this message is intended only for the named recipient.",
    "Forwarded message follows.",
    "View this email in your browser.",
    "This message was scanned for viruses and is believed to be clean.",
    "Please consider the environment before printing this email.",
  ],
  zh: [
    "轉載請註明出處。",
    "本文來源於網絡，如有侵權請聯繫刪除。",
    "點擊關注，獲取更多精彩內容。",
    "【推薦】",
    "古詩詞賞析，每日一首。",
    "以上內容僅供學習參考。",
  ],
};

/** Count of units to change: at least one. */
function count(n: number, strength: number): number {
  return Math.max(1, Math.round(n * (RATE[strength] ?? 0.1)));
}

function isWordChar(lang: Lang, c: string): boolean {
  return lang === "zh" ? /\p{Script=Han}/u.test(c) : /[A-Za-z0-9]/.test(c);
}

/**
 * Longest token a word edit treats as a word (code units). Longer tokens are
 * URLs, MIME boundaries, encoded lines: replacing one of them changes most of
 * a short text, which then is no near-duplicate whatever its label says.
 */
export const MAX_WORD_LENGTH = 20;

/** Positions (indices into `tokens`) holding words, not spaces, punctuation or long non-word tokens. */
function wordSlots(lang: Lang, tokens: string[]): number[] {
  const out: number[] = [];
  tokens.forEach((t, i) => {
    if (t.length > 0 && t.length <= MAX_WORD_LENGTH && isWordChar(lang, t[0] as string)) out.push(i);
  });
  return out;
}

/** en: words and the spaces between them; zh: one token per character. */
function tokenize(lang: Lang, text: string): string[] {
  return lang === "zh" ? Array.from(text) : text.split(/(\s+)/).filter((t) => t.length > 0);
}

function charNoise(ctx: EditContext, text: string, strength: number): string {
  const chars = Array.from(text);
  const slots = chars.map((c, i) => (isWordChar(ctx.lang, c) ? i : -1)).filter((i) => i >= 0);
  const n = count(slots.length, strength);
  const chosen = new Set(ctx.rng.shuffle(slots).slice(0, n));
  const letters = "abcdefghijklmnopqrstuvwxyz";
  const out: string[] = [];
  chars.forEach((c, i) => {
    if (!chosen.has(i)) return void out.push(c);
    const op = ctx.rng.int(3);
    const rand = ctx.lang === "zh" ? ctx.rng.pick(ctx.vocabulary).charAt(0) : letters.charAt(ctx.rng.int(26));
    if (op === 0) out.push(rand); // substitute
    else if (op === 1) out.push(c, rand); // insert after
    // op 2: delete
  });
  return out.join("");
}

function wordEdit(ctx: EditContext, text: string, strength: number, op: "ins" | "del" | "sub"): string | null {
  const tokens = tokenize(ctx.lang, text);
  const slots = wordSlots(ctx.lang, tokens);
  const n = count(slots.length, strength);
  // No room: the one-word minimum would change more than the heavy rate (a
  // quarter) of the words, as in a text of two or three words.
  if (slots.length === 0 || n / slots.length > RATE[4]) return null;
  const chosen = new Set(ctx.rng.shuffle(slots).slice(0, n));
  const sep = ctx.lang === "zh" ? "" : " ";
  const draw = (): string =>
    ctx.lang === "zh" ? ctx.rng.pick(ctx.vocabulary) + ctx.rng.pick(ctx.vocabulary) : ctx.rng.pick(ctx.vocabulary);
  const out: string[] = [];
  tokens.forEach((t, i) => {
    if (!chosen.has(i)) return void out.push(t);
    if (op === "ins") out.push(t, sep, draw());
    else if (op === "sub") out.push(ctx.lang === "zh" ? ctx.rng.pick(ctx.vocabulary) : draw());
    // del: drop the word (its neighbouring spaces stay, as after a careless cut)
  });
  return out.join("");
}

/** Sentences with their trailing punctuation and whitespace kept. */
export function sentences(text: string): string[] {
  const s = text.match(/[^.!?。！？\n]+(?:[.!?。！？]+|\n+|$)\s*/gu) ?? [text];
  if (s.length >= 2) return s;
  return text.match(/[^,，;；]+(?:[,，;；]+|$)\s*/gu) ?? [text];
}

function reorder(ctx: EditContext, text: string, strength: number): string | null {
  const parts = sentences(text);
  if (parts.length < 2) return null;
  const swaps = strength >= 4 ? parts.length : strength;
  for (let k = 0; k < swaps; k++) {
    const i = ctx.rng.int(parts.length - 1);
    const a = parts[i] as string;
    parts[i] = parts[i + 1] as string;
    parts[i + 1] = a;
  }
  return parts.join("");
}

function boilerplate(ctx: EditContext, text: string, strength: number): string {
  const budget = Math.max(4, Math.round(text.length * (RATE[strength] ?? 0.1)));
  let add = "";
  for (const phrase of ctx.rng.shuffle(BOILERPLATE[ctx.lang])) {
    if (add.length + phrase.length > budget) continue;
    add += (add && ctx.lang === "en" ? " " : "") + phrase;
  }
  if (add === "") add = ctx.lang === "zh" ? "【轉】" : "FW:";
  const sep = ctx.lang === "zh" ? "\n" : "\n\n";
  return ctx.rng.int(2) === 0 ? add + sep + text : text + sep + add;
}

const FULLWIDTH_PUNCT: Record<string, string> = { ",": "，", ".": "。", "!": "！", "?": "？", ";": "；", ":": "：" };
const HALFWIDTH_PUNCT: Record<string, string> = Object.fromEntries(
  Object.entries(FULLWIDTH_PUNCT).map(([h, f]) => [f, h]),
);

/** Punctuation, whitespace, case and full-width changes a normalizer should undo. */
function punctWs(ctx: EditContext, text: string, strength: number): string {
  const p = [0, 0.1, 0.3, 0.6, 1][strength] ?? 0.3;
  const out: string[] = [];
  for (const c of text) {
    if (ctx.rng.next() >= p) out.push(c);
    else if (HALFWIDTH_PUNCT[c]) out.push(HALFWIDTH_PUNCT[c] + (ctx.rng.int(2) ? " " : ""));
    else if (FULLWIDTH_PUNCT[c]) out.push(FULLWIDTH_PUNCT[c]);
    else if (/\s/.test(c)) out.push(ctx.rng.pick([" ", "  ", "\n", "\t", ""]));
    else if (/[A-Za-z0-9]/.test(c)) {
      const flipped = c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase();
      out.push(ctx.rng.int(2) ? flipped : String.fromCharCode(c.charCodeAt(0) + 0xfee0));
    } else out.push(c);
  }
  return out.join("");
}

function truncate(ctx: EditContext, text: string, strength: number): string {
  const chars = Array.from(text);
  const drop = count(chars.length, strength);
  return (ctx.rng.int(2) === 0 ? chars.slice(0, chars.length - drop) : chars.slice(drop)).join("");
}

/** Applies one edit; null when the text has no room for it (one sentence to reorder). */
export function applyEdit(ctx: EditContext, kind: EditKind, text: string, strength: number): string | null {
  switch (kind) {
    case "char_noise":
      return charNoise(ctx, text, strength);
    case "word_ins":
      return wordEdit(ctx, text, strength, "ins");
    case "word_del":
      return wordEdit(ctx, text, strength, "del");
    case "word_sub":
      return wordEdit(ctx, text, strength, "sub");
    case "sentence_reorder":
      return reorder(ctx, text, strength);
    case "boilerplate":
      return boilerplate(ctx, text, strength);
    case "punct_ws":
      return punctWs(ctx, text, strength);
    case "truncate":
      return truncate(ctx, text, strength);
  }
}
