/**
 * Traditional Chinese folded to simplified, character by character (spec
 * §2, step 5 of normalization, version `nd2`).
 *
 * The same text written in traditional characters (Taiwan, Hong Kong) and in
 * simplified ones shares almost no words: 25-35% of its characters differ, so
 * its simhash is as far as an unrelated text's and jieba (a simplified
 * dictionary) segments it differently. Folding every character to one form
 * makes the two the same text.
 *
 * The tables are OpenCC's (`opencc-js`): the Taiwan and Hong Kong variant
 * tables (`TWVariantsRev`, `HKVariantsRev`: a regional variant to OpenCC's
 * standard traditional form), then `TSCharacters` (traditional to
 * simplified, its first candidate). Only single characters are folded, never
 * phrases: a fold must be a function of each character alone, so that any
 * two texts fold alike wherever they differ. Characters of simplified text
 * are not in `TSCharacters` as keys, except a few that are both (乾 -> 干):
 * both sides of any comparison fold alike, so that costs nothing but a word.
 */
import { from, to } from "opencc-js/preset/t2cn";
import type { DictGroup, DictLike } from "opencc-js/core";

/** The single-character entries of some OpenCC dictionaries: key -> first candidate, both one code point; the first table wins. */
function characterPairs(groups: readonly DictGroup[]): Map<string, string> {
  const out = new Map<string, string>();
  const add = (key: string, value: string) => {
    const first = value.split(" ")[0]!;
    if ([...key].length === 1 && [...first].length === 1 && !out.has(key)) out.set(key, first);
  };
  for (const group of groups) {
    for (const dict of group as readonly DictLike[]) {
      if (typeof dict === "string") {
        for (const entry of dict.split("|")) {
          const sp = entry.indexOf(" ");
          if (sp > 0) add(entry.slice(0, sp), entry.slice(sp + 1));
        }
      } else {
        for (const [key, value] of dict) add(key, value);
      }
    }
  }
  return out;
}

/** Code point -> its simplified form, for every character that has one. */
function foldTable(): Map<number, number> {
  const variants = characterPairs([...(from.tw ?? []), ...(from.hk ?? [])]);
  const simplified = characterPairs(to.cn ?? []);
  const table = new Map<number, number>();
  for (const key of new Set([...variants.keys(), ...simplified.keys()])) {
    const standard = variants.get(key) ?? key;
    const folded = simplified.get(standard) ?? simplified.get(key) ?? standard;
    if (folded !== key) table.set(key.codePointAt(0)!, folded.codePointAt(0)!);
  }
  return table;
}

const TABLE = foldTable();
/** The same for the Basic Multilingual Plane, as a flat array (0: unchanged), for the per-character loop. */
const BMP = new Uint32Array(0x10000);
for (const [key, value] of TABLE) if (key < 0x10000) BMP[key] = value;

/** Number of characters folded (for tests and the spec). */
export const FOLDED_CHARACTERS = TABLE.size;

const UTF16 = new TextDecoder("utf-16le");
let scratch = new Uint16Array(1024);

/** Where the first character of `text` that folds is, or -1 when none does. */
function firstToFold(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x2e80) continue; // below the CJK radicals: nothing to fold
    if (BMP[c] !== 0 || ((c & 0xfc00) === 0xd800 && TABLE.has(text.codePointAt(i)!))) return i;
  }
  return -1;
}

/** `text` with every traditional or regional variant character replaced by its simplified form. */
export function foldChineseVariants(text: string): string {
  const n = text.length;
  // Most text has nothing to fold: it is returned itself.
  let i = firstToFold(text);
  if (i < 0) return text;
  // Code units out, two per unit at most (a character of the BMP may fold to one beyond it).
  if (scratch.length < 2 * n) scratch = new Uint16Array(2 * n);
  const out = scratch;
  for (let k = 0; k < i; k++) out[k] = text.charCodeAt(k);
  let o = i;
  for (; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x2e80) {
      out[o++] = c;
      continue;
    }
    let cp = c;
    if ((c & 0xfc00) === 0xd800 && i + 1 < n && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      cp = text.codePointAt(i)!;
      i++;
    }
    const to = cp < 0x10000 ? BMP[cp] || cp : (TABLE.get(cp) ?? cp);
    if (to < 0x10000) out[o++] = to;
    else {
      out[o++] = 0xd800 + ((to - 0x10000) >> 10);
      out[o++] = 0xdc00 + ((to - 0x10000) & 0x3ff);
    }
  }
  return UTF16.decode(out.subarray(0, o));
}

/** Whether `text` holds a character that {@link foldChineseVariants} changes. */
export function hasChineseVariant(text: string): boolean {
  return firstToFold(text) >= 0;
}
