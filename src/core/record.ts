/**
 * Log records (the record veto, docs/fingerprint-spec.md §8). A log line
 * logged again for the same event differs from the first only in its time
 * stamp and process id, which normalization step 7 removes; a line of the
 * same template about another event differs in a value: another user, order,
 * status code or host (`code 500` / `code 404`). Both are one-token edits of
 * a short text, which the rules for prose call duplicates. So two texts that
 * both carried a stamp or process id, each one short line, are duplicates
 * only when they are the same record once normalized; under `skip` or
 * `reject` the other event would be lost.
 */

/**
 * Records are texts shorter than this once normalized (code points): log
 * lines. A longer stamped text (a mail with its `Date:` header, an article
 * with its update time) is judged as prose. Equal to the sketch's inline
 * text length (`DEFAULT_INLINE_TEXT_LENGTH`), so a stored record's sketch
 * always holds its text.
 */
export const RECORD_MAX_LENGTH = 300;

/** A line break: LF, CR, VT, FF, NEL, LINE and PARAGRAPH SEPARATOR. */
const LINE_BREAK = /[\n\r\v\f\u0085\u2028\u2029]/;

/**
 * Whether `text`, whose normalization removed a stamp (`stamped`) and left
 * `length` code points, is a record: one line (line breaks at its ends aside)
 * and short. A mail's quote line (`On Fri, Aug 02, 2002 at 12:23:04PM +0100,
 * Justin Mason wrote:` and the quote below it) or a feed item with its `Date:`
 * line is several lines: prose, whose edits stay near-duplicates (five such
 * pairs of the quality benchmark).
 */
export function isRecord(stamped: boolean, length: number, text: string): boolean {
  return stamped && length < RECORD_MAX_LENGTH && !LINE_BREAK.test(text.trim());
}
