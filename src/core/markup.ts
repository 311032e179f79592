/**
 * What a text carries besides its words (spec §2, steps 1 and 2 of
 * normalization, version `nd2`): HTML markup and the query strings of URLs.
 *
 * Copies of one text differ there more than anywhere: the same article
 * scraped with and without its `<p>`/`<span style=...>`/`&nbsp;`, the same
 * post with a link carrying `?utm_source=...&fbclid=...`. Tag and attribute
 * names and tracking parameters became words (`p`, `span`, `style`,
 * `utm_source`, a random id), often as many as the text's own; a short text
 * lost every rule to them.
 *
 * - Markup: comments, `<script>` and `<style>` elements, and tags (`<p>`,
 *   `</div>`, `<br/>`, `<a href="...">`, `<!DOCTYPE ...>`) become a space;
 *   then character references (`&amp;`, `&nbsp;`, `&#39;`, `&#x4e2d;`) are
 *   decoded, as an HTML parser decodes them in text (the `entities`
 *   package). A `<` not followed by a letter, `/` or `!` (`a < b`,
 *   `<3`) and an address in angle brackets (`<ann@example.org>`) stay.
 * - URLs: in `http://` and `https://` URLs, the query string and fragment
 *   are dropped (`https://t.co/x?utm_source=a#top` -> `https://t.co/x`), all
 *   but the punctuation that ends them (`?a=1,` -> `,`).
 */
import { decodeHTML } from "entities";

const COMMENT = /<!--[\s\S]*?(?:-->|$)/g;
/** A script or style element; one left open runs to the end of the text (as in a browser), which keeps the scan linear. */
const SCRIPT_OR_STYLE = /<(script|style)\b[^>]*>[\s\S]*?(?:<\/\1\s*>|$)/gi;
/** A start or end tag, or a declaration: `<` then a letter, `/letter` or `!letter`, a name, then attributes up to `>`. */
const TAG = /<\/?[a-zA-Z][a-zA-Z0-9:-]*(?:\s[^<>]*)?\/?>|<![a-zA-Z][^<>]*>/g;
const URL_START = /\bhttps?:\/\//gi;
/** What ends a URL: white space, `<`, `>`, quotes and the backtick. */
const URL_END = /[\s<>"'`]/;
/** Punctuation that ends a sentence after a URL rather than its query (`see https://x.org/?a=1, then`). */
const TRAILING_PUNCTUATION = ".,;:!?)]}";

/** `text` without HTML markup, its character references decoded; unchanged when it has neither `<` nor `&`. */
export function stripMarkup(text: string): string {
  let out = text;
  if (out.includes("<")) out = out.replace(COMMENT, " ").replace(SCRIPT_OR_STYLE, " ").replace(TAG, " ");
  if (out.includes("&")) out = decodeHTML(out);
  return out;
}

/**
 * `text` with the query string and fragment of each `http(s)://` URL dropped. One pass: a URL runs from its
 * scheme to the first character that ends it, and the next URL is looked for after it (a regex over
 * overlapping URLs, `http://http://...`, took time quadratic in the text).
 */
export function stripUrlQueries(text: string): string {
  if (!text.includes("://")) return text;
  const n = text.length;
  let out = "";
  let from = 0;
  URL_START.lastIndex = 0;
  for (let m = URL_START.exec(text); m !== null; m = URL_START.exec(text)) {
    let end = m.index + m[0].length;
    let query = -1;
    for (; end < n; end++) {
      const c = text[end]!;
      if (URL_END.test(c)) break;
      if (query < 0 && (c === "?" || c === "#")) query = end;
    }
    if (query >= 0) {
      let kept = end;
      while (kept > query && TRAILING_PUNCTUATION.includes(text[kept - 1]!)) kept--;
      out += text.slice(from, query) + text.slice(kept, end);
      from = end;
    }
    URL_START.lastIndex = end;
  }
  return from === 0 ? text : out + text.slice(from);
}
