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
const SCRIPT_OR_STYLE = /<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi;
/** A start or end tag, or a declaration: `<` then a letter, `/letter` or `!letter`, a name, then attributes up to `>`. */
const TAG = /<\/?[a-zA-Z][a-zA-Z0-9:-]*(?:\s[^<>]*)?\/?>|<![a-zA-Z][^<>]*>/g;
const URL_TAIL = /(\bhttps?:\/\/[^\s?#<>"'`]+)([?#][^\s<>"'`]*)/gi;
/** Punctuation that ends a sentence after a URL rather than its query (`see https://x.org/?a=1, then`). */
const TRAILING_PUNCTUATION = /[.,;:!?)\]}]*$/;

/** `text` without HTML markup, its character references decoded; unchanged when it has neither `<` nor `&`. */
export function stripMarkup(text: string): string {
  let out = text;
  if (out.includes("<")) out = out.replace(COMMENT, " ").replace(SCRIPT_OR_STYLE, " ").replace(TAG, " ");
  if (out.includes("&")) out = decodeHTML(out);
  return out;
}

/** `text` with the query string and fragment of each `http(s)://` URL dropped. */
export function stripUrlQueries(text: string): string {
  return text.includes("://") ? text.replace(URL_TAIL, (_, url: string, tail: string) => url + TRAILING_PUNCTUATION.exec(tail)![0]) : text;
}
