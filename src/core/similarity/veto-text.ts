/**
 * The text the vetoes (verdict rules 7 and 8) read: the normalized text less
 * what says nothing about a differing middle or ending. A truncation marker
 * at either end (`…`, `...`, `[...]`, `（未完）`, `(continued)`) marks a copy
 * cut short, not another ending; spaces between two CJK characters are line
 * wrapping (a text build of a page breaks lines inside words), not words. A
 * veto read them as differences: a copy cut to `…而无需键入其完（未完）` was
 * vetoed as a different ending, and a wrapped copy with simhash distance 0
 * and cosine 1.0 as a different middle (audit 15).
 *
 * Only the vetoes read it, from both sides' texts, so the verdict from texts
 * (`decide`) and from stored sketches (`compareSketches`) stay the same; the
 * fingerprint and the other rules are unchanged.
 */

/** A truncation marker, with the spaces around it, at the end or at the start. */
const MARKER = String.raw`(?:…+|\.{3,}|\[(?:\.\.\.|…)\]|[（(](?:未完待续|未完|待续|待續|未完待續|more|continued)[)）])`;
const TRAILING = new RegExp(String.raw`\s*${MARKER}\s*$`, "u");
const LEADING = new RegExp(String.raw`^\s*${MARKER}\s*`, "u");
/** White space between two CJK characters (Han, kana, CJK punctuation, full-width forms). */
const CJK = String.raw`\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u303f\uff00-\uffef`;
const CJK_SPACE = new RegExp(String.raw`(?<=[${CJK}])[ \t]+(?=[${CJK}])`, "gu");

/** Whether `code` (a UTF-16 unit) can end or begin a marker: `.`, `…`, `]`, `)`, `）` or `[`, `(`, `（`. */
function markerEdge(code: number): boolean {
  return code === 0x2e || code === 0x2026 || code === 0x5d || code === 0x29 || code === 0xff09 || code === 0x5b || code === 0x28 || code === 0xff08;
}

/** `text` as the vetoes read it (see the file comment); the text itself when there is nothing to take out. */
export function vetoText(text: string): string {
  let t = text;
  const last = t.trimEnd();
  if (last.length > 0 && markerEdge(last.charCodeAt(last.length - 1))) t = t.replace(TRAILING, "");
  const first = t.trimStart();
  if (first.length > 0 && markerEdge(first.charCodeAt(0))) t = t.replace(LEADING, "");
  if (t.length === 0) return text; // nothing but a marker: the text as it is
  return hasSpace(t) ? t.replace(CJK_SPACE, "") : t;
}

function hasSpace(t: string): boolean {
  return t.includes(" ") || t.includes("\t");
}
