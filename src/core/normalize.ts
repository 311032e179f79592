/**
 * Text normalization, step 1 of the fingerprint algorithm (spec: docs/fingerprint-spec.md §2).
 *
 * The steps, in order:
 *  1. HTML markup: comments, `<script>`/`<style>` elements and tags become a
 *     space, then character references are decoded (markup.ts).
 *  2. The query string and fragment of every `http(s)://` URL are dropped (markup.ts).
 *  3. Unicode NFKC: compatibility forms fold to their plain form, which covers
 *     full-width to half-width (`ＡＢＣ１２３` -> `ABC123`, `，` -> `,`) and the
 *     ideographic space U+3000 -> U+0020.
 *  4. Lower case with the locale-independent Unicode default mapping
 *     (`String.prototype.toLowerCase`), the practical case fold.
 *  5. Traditional and regional variant Chinese characters fold to simplified
 *     ones, character by character (chinese-variants.ts).
 *  6. Social-media decorations: links, @mentions, hashtags, repost markers
 *     and emoji are removed, unless fewer than 5 letters or digits would be
 *     left (decorations.ts).
 *  7. Log time stamps (a time of day with seconds, with its date, zone and
 *     year when it has them) and syslog process ids (`sshd[42016]:`) are
 *     removed, unless fewer than 5 letters or digits would be left
 *     (timestamps.ts).
 *  8. Whitespace controls (TAB, LF, VT, FF, CR, NEL) become a space; every other
 *     control (`\p{Cc}`) and format character (`\p{Cf}`: zero-width space, BOM,
 *     soft hyphen, bidi marks, ZWJ) is removed.
 *  9. Every run of white space (`\s`) becomes one U+0020; leading and trailing
 *     white space is removed.
 *
 * Steps 1, 2 and 5 came with fingerprint version `nd2`; a text they leave
 * unchanged normalizes as in `nd1`. Step 6 came with `nd3`; a text it leaves
 * unchanged normalizes as in `nd2`. Step 7 came with `nd4`; a text it leaves
 * unchanged normalizes as in `nd3`.
 */
import { foldChineseVariants } from "./chinese-variants.js";
import { stripDecorations } from "./decorations.js";
import { stripMarkup, stripUrlQueries } from "./markup.js";
import { stripStamps } from "./timestamps.js";

const WHITESPACE_CONTROLS = /[\t\n\v\f\r\u0085]/g;
const INVISIBLE = /[\p{Cc}\p{Cf}]/gu;
const WHITESPACE_RUN = /\s+/g;

export function normalize(text: string): string {
  return normalizeText(text).normalized;
}

/** `normalize`, and whether step 7 removed something: the text carried a log time stamp or a syslog process id. */
export function normalizeText(text: string): { normalized: string; stamped: boolean } {
  const decorated = stripDecorations(foldChineseVariants(stripUrlQueries(stripMarkup(text)).normalize("NFKC").toLowerCase()));
  const folded = stripStamps(decorated);
  const normalized = collapseWhitespace(folded) ?? folded.replace(WHITESPACE_CONTROLS, " ").replace(INVISIBLE, "").replace(WHITESPACE_RUN, " ").trim();
  return { normalized, stamped: folded !== decorated };
}

/** TAB, LF, VT, FF, CR, space and NEL: the white space of ASCII text, which the fast path handles. */
function isAsciiSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0x85;
}

/**
 * Plain code units: no white space (`\s`), control (`\p{Cc}`) or format
 * character (`\p{Cf}`), so steps 3 and 4 leave them alone. Classified on
 * first sight by the regexes themselves (0 = not yet, 1 = plain, 2 = not
 * plain); surrogates are never plain, so text with astral characters takes
 * the regexes.
 */
const plain = new Uint8Array(0x10000);
const SPACE_OR_INVISIBLE = /[\s\p{Cc}\p{Cf}]/u;

function isPlainCodeUnit(c: number): boolean {
  let k = plain[c]!;
  if (k === 0) {
    k = (c & 0xf800) === 0xd800 || SPACE_OR_INVISIBLE.test(String.fromCharCode(c)) ? 2 : 1;
    plain[c] = k;
  }
  return k === 1;
}

/**
 * Steps 3 and 4 without the regexes, for text made only of plain code units
 * (above) and ASCII white space: runs of white space become one U+0020, none
 * at either end. Returns null for any other text (the regexes then run).
 */
function collapseWhitespace(s: string): string | null {
  const n = s.length;
  let out = "";
  let from = -1; // start of the current run of plain code units
  let space = false; // white space seen since the last run (and after some text)
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (isPlainCodeUnit(c)) {
      if (from < 0) {
        if (space) out += " ";
        space = false;
        from = i;
      }
    } else if (isAsciiSpace(c)) {
      if (from >= 0) {
        out += s.slice(from, i);
        from = -1;
      }
      space = out !== "";
    } else {
      return null;
    }
  }
  if (from === 0) return s;
  if (from > 0) out += s.slice(from);
  return out;
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
