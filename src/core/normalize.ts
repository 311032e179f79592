/**
 * Text normalization, step 1 of the fingerprint algorithm (spec: docs/fingerprint-spec.md §2).
 *
 * The steps, in order:
 *  1. Unicode NFKC: compatibility forms fold to their plain form, which covers
 *     full-width to half-width (`ＡＢＣ１２３` -> `ABC123`, `，` -> `,`) and the
 *     ideographic space U+3000 -> U+0020.
 *  2. Lower case with the locale-independent Unicode default mapping
 *     (`String.prototype.toLowerCase`), the practical case fold.
 *  3. Whitespace controls (TAB, LF, VT, FF, CR, NEL) become a space; every other
 *     control (`\p{Cc}`) and format character (`\p{Cf}`: zero-width space, BOM,
 *     soft hyphen, bidi marks, ZWJ) is removed.
 *  4. Every run of white space (`\s`) becomes one U+0020; leading and trailing
 *     white space is removed.
 */
const WHITESPACE_CONTROLS = /[\t\n\v\f\r\u0085]/g;
const INVISIBLE = /[\p{Cc}\p{Cf}]/gu;
const WHITESPACE_RUN = /\s+/g;

export function normalize(text: string): string {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(WHITESPACE_CONTROLS, " ")
    .replace(INVISIBLE, "")
    .replace(WHITESPACE_RUN, " ")
    .trim();
}

/** Number of Unicode code points in `text` (the unit of every length in neardup). */
export function codePointLength(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}
