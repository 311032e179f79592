/**
 * The safety rule of the normalization steps that remove parts of a text (spec §2, steps 6 and 7): a step
 * that would leave fewer than 5 letters or digits (`\p{L}\p{N}`) returns its input unchanged, so a text that
 * is only a link, a mention or a time stamp fingerprints as before, and no accepted text becomes an empty one.
 */

/** At least 5 letters or digits (anchored, and the two classes are disjoint: linear; unanchored it took time quadratic in a text of few letters). */
const FIVE_LETTERS_OR_DIGITS = /^(?:[^\p{L}\p{N}]*[\p{L}\p{N}]){5}/u;

/** `removed` (a step's output for `text`), or `text` itself when the step changed nothing or left fewer than 5 letters or digits. */
export function unlessTooLittleLeft(text: string, removed: string): string {
  return removed === text || !FIVE_LETTERS_OR_DIGITS.test(removed) ? text : removed;
}
