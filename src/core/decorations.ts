/**
 * What a social-media post carries besides its words (spec §2, step 6 of
 * normalization, version `nd3`): links, @mentions, hashtags, repost markers
 * and emoji.
 *
 * A short post and its copy differ there more than anywhere: the same
 * sentence reposted with `转发微博 @李娜`, a `t.cn` short link, `#好物分享#`
 * and a 👍 around it, or as `RT @jdoe: ... https://t.co/...`. On a 10-character
 * post a 20-character link doubled the length and no rule held (an outside
 * audit, docs/quality.md "nd3"). Runs on normalized text (after NFKC, lower
 * case and the Chinese fold: `：` is `:` and `ＲＴ` is `rt` by then); each
 * removed decoration but an emoji becomes one space, which the later steps
 * collapse. In this order:
 *
 * 1. Short links: `http://`, `https://` and `www.` (then a letter or digit)
 *    after a word boundary and not after `@`, `.` or `-` (`ann@www.example.org`
 *    is an address), with the printable ASCII characters that follow but
 *    `"'<>` and the backtick; the run of `.,;:!?)]}` that ends one is
 *    sentence punctuation and stays (`链接https://t.cn/x,很好` -> `链接 ,很好`).
 *    Only links of up to `SHORT_LINK_MAX` characters go: a longer one names
 *    what it points at (a newsletter's issue), and removing those made pieces
 *    of two newsletters that differ in their link one text (this repository's
 *    quality benchmark: hard-negative false positives 0.013 -> 0.017).
 * 2. Mentions: `@` and a name of 1-30 letters, marks, digits, `_` or `-`
 *    holding a letter and not followed by another name character (a longer
 *    run is no mention), then an optional `:`; with `rt` (a word of its own)
 *    or `//` (a Weibo repost chain, `//@x:`) right before it. An `@` right
 *    after a letter, mark or digit or one of `_.+-` is an e-mail address and
 *    stays (`ann@example.org`), unless that letter is Chinese, Japanese or
 *    Korean: then it is a mention (`谢谢@李娜`).
 * 3. Hashtags: Weibo's `#topic#` (1-40 characters, no `#` or line break
 *    inside, neither end white space, at least one letter), then Twitter's
 *    `#tag` (a letter, then up to 49 letters, marks, digits or `_`, and no
 *    more). Neither after a Latin letter, digit, `_` or `&` (`C#`, `&#`); a
 *    Twitter tag not after any letter either. `#42`, `issue #42` and a
 *    Markdown heading `# Title` stay.
 * 4. Emoji: `\p{Extended_Pictographic}`, regional indicators (flags),
 *    skin-tone modifiers, VS16 and the keycap mark are removed (no space).
 * 5. Repost markers: `转发微博` (with an optional `:`) between white space or
 *    the text's ends, and a leading `转:`, `转发:` or `【转】`.
 *
 * Safety: when fewer than 5 letters or digits (`\p{L}\p{N}`) would be left,
 * the text is returned as it was: a text that is only a link or a mention
 * fingerprints as before, and no accepted text becomes an empty one.
 *
 * A text holding none of `@`, `#`, `://`, `www.` and `转发微博`, no emoji,
 * and not opening with `转:`, `转发:` or `【转】` is returned as it is after
 * that quick check (`mayHaveDecorations`), which is all plain text pays.
 */
import { unlessTooLittleLeft } from "./removal-guard.js";

const URL = /(?<![@.-])\b(?:https?:\/\/|www\.(?=[a-z0-9]))[\x21\x23-\x26\x28-\x3b\x3d\x3f-\x5f\x61-\x7e]*/giu;
/**
 * The longest link removed, in characters (its query already dropped, markup.ts): short links (`t.cn/…`,
 * `t.co/…`, `bit.ly/…`, `youtu.be/…`) are decoration; a longer one names what it points at and stays.
 */
export const SHORT_LINK_MAX = 32;
/** Punctuation that ends a sentence after a URL rather than the URL (as markup.ts). */
const TRAILING_PUNCTUATION = /[.,;:!?)\]}]+$/u;
const MENTION = /(?:(?<![\p{L}\p{M}\p{N}_])rt\s*|\/\/)?@(?=[\p{N}_-]*\p{L})[\p{L}\p{M}\p{N}_-]{1,30}(?![\p{L}\p{M}\p{N}_-]):?/giu;
/** What makes an `@` right after it an e-mail address's (a Latin or other alphabetic letter, a digit, `_.+-`)... */
const EMAIL_LOCAL = /[\p{L}\p{M}\p{N}_.+-]/u;
/** ...unless it is a letter of a script written without spaces, where a mention follows a word directly. */
const UNSPACED_SCRIPT = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}]/u;
const WEIBO_TAG = /(?<![a-z0-9_&#])#([^#\s](?:[^#\n\r\v\f\u0085\u2028\u2029]{0,38}[^#\s])?)#(?!#)/giu;
const TWITTER_TAG = /(?<![\p{L}\p{M}\p{N}_&#])#\p{L}[\p{L}\p{M}\p{N}_]{0,49}(?![\p{L}\p{M}\p{N}_])/gu;
const LETTER = /\p{L}/u;
/** Pictographs, regional indicators (flags), skin-tone modifiers, VS16, the keycap mark (alternatives: one class of them reads as one emoji to a linter). */
const EMOJI = /\p{Extended_Pictographic}|[\u{1F1E6}-\u{1F1FF}]|[\u{1F3FB}-\u{1F3FF}]|\uFE0F|\u20E3/gu;
/** The same, for a test of one character (no global state). */
const HAS_EMOJI = new RegExp(EMOJI.source, "u");
const REPOST = /(?<!\S)转发微博(?::|(?!\S))/gu;
const LEADING_REPOST = /^\s*(?:转发?:|【转】)/u;

/**
 * BMP code units by what the quick check makes of them, classified on first
 * sight (0 = not yet, 1 = nothing, 2 = a decoration may start here: `@`, `#`,
 * `:`, `w`, `转`, an emoji of the BMP, VS16, the keycap mark, a high surrogate).
 */
const START = new Uint8Array(0x10000);
const STARTS = /[@#:w转\uD800-\uDBFF]|\uFE0F|\u20E3|\p{Extended_Pictographic}/u;

function startClass(c: number): number {
  let k = START[c]!;
  if (k === 0) {
    k = STARTS.test(String.fromCharCode(c)) ? 2 : 1;
    START[c] = k;
  }
  return k;
}

/** Whether a decoration may start at `i`, whose code unit `c` the table marks (the exact test behind the table's guess). */
function startsAt(text: string, i: number, c: number): boolean {
  switch (c) {
    case 0x40: // @
    case 0x23: // #
      return true;
    case 0x3a: // :
      return text.startsWith("//", i + 1);
    case 0x77: // w
      return text.startsWith("ww.", i + 1);
    case 0x8f6c: // 转
      return text.startsWith("发微博", i + 1);
    default:
      if (c >= 0xd800 && c <= 0xdbff) return HAS_EMOJI.test(String.fromCodePoint(text.codePointAt(i)!));
      return true; // an emoji of the BMP, VS16 or the keycap mark
  }
}

/** Whether `text` holds anything `stripDecorations` may remove (a quick check, one pass over the code units: false means it returns `text` itself). */
export function mayHaveDecorations(text: string): boolean {
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (startClass(c) === 2 && startsAt(text, i, c)) return true;
  }
  return LEADING_REPOST.test(text);
}

/** `text` (normalized through NFKC, lower case and the Chinese fold) without links, mentions, hashtags, repost markers and emoji; `text` itself when that would leave fewer than 5 letters or digits. */
export function stripDecorations(text: string): string {
  if (!mayHaveDecorations(text)) return text;
  let out = text;
  if (out.includes("://") || out.includes("www.")) {
    out = out.replace(URL, (url) => {
      const tail = TRAILING_PUNCTUATION.exec(url);
      // A long link names what it points at (a newsletter's issue, an article): it stays, as in nd2.
      if (url.length - (tail?.[0].length ?? 0) > SHORT_LINK_MAX) return url;
      return tail === null ? " " : " " + tail[0];
    });
  }
  if (out.includes("@")) {
    out = out.replace(MENTION, (m: string, at: number, s: string) => (m.charCodeAt(0) === 0x40 && isEmailBefore(s, at) ? m : " "));
  }
  if (out.includes("#")) {
    out = out.replace(WEIBO_TAG, (m: string, topic: string) => (LETTER.test(topic) ? " " : m));
    if (out.includes("#")) out = out.replace(TWITTER_TAG, " ");
  }
  out = out.replace(EMOJI, "");
  if (out.includes("转")) out = out.replace(REPOST, " ").replace(LEADING_REPOST, "");
  return unlessTooLittleLeft(text, out);
}

/** Whether the `@` at `at` follows a character of an e-mail address's local part (then it is no mention). */
function isEmailBefore(s: string, at: number): boolean {
  if (at === 0) return false;
  const c = s.charCodeAt(at - 1);
  if (c >= 0xdc00 && c <= 0xdfff) return false; // an astral character (an emoji, a rare Han character): not an address
  const prev = s[at - 1]!;
  return EMAIL_LOCAL.test(prev) && !UNSPACED_SCRIPT.test(prev);
}
