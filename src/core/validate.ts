/**
 * Input checks run before any work: every bad input becomes a NeardupError
 * naming the problem, never an untyped exception from deeper code.
 */
import { NeardupError } from "./errors.js";
import { normalize } from "./normalize.js";

/** Default limit on input size, in UTF-16 code units (1,000,000). */
export const DEFAULT_MAX_TEXT_LENGTH = 1_000_000;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Checks raw input text: a string, at most `maxLength` UTF-16 code units, no
 * lone surrogate, not empty or white space only. Returns the text unchanged.
 *
 * @throws NeardupError INVALID_INPUT or TOO_LARGE; `field` is set to `field`.
 */
export function validateText(text: unknown, maxLength = DEFAULT_MAX_TEXT_LENGTH, field = "text"): string {
  if (typeof text !== "string") {
    const got = text === null ? "null" : Array.isArray(text) ? "array" : typeof text;
    throw new NeardupError("INVALID_INPUT", `${field} must be a string, got ${got}`, { field });
  }
  if (text.length > maxLength) {
    throw new NeardupError("TOO_LARGE", `${field} is ${text.length} UTF-16 code units, over the limit of ${maxLength}`, {
      field,
      details: { length: text.length, maxLength },
    });
  }
  const m = LONE_SURROGATE.exec(text);
  if (m !== null) {
    const hex = m[0].charCodeAt(0).toString(16).toUpperCase();
    throw new NeardupError("INVALID_INPUT", `${field} contains a lone surrogate U+${hex} at index ${m.index}`, {
      field,
      details: { index: m.index },
    });
  }
  if (text.trim() === "") {
    throw new NeardupError("INVALID_INPUT", `${field} is empty or white space only`, { field });
  }
  return text;
}

/** Printable ASCII and the CJK ideographs: normalization keeps them, so a text holding one is not blank after it. */
const SURELY_VISIBLE = /[\x21-\x7e\u4e00-\u9fff]/;
/** What normalization may drop whole (markup.ts). */
const MARKUP = /[<&]/;

/** The refusal of a text with nothing left after normalization (the same message wherever it is found). */
export function nothingVisible(field: string): NeardupError {
  return new NeardupError("INVALID_INPUT", `${field} has no visible characters after normalization`, { field });
}

/**
 * Why the fingerprinter's `analyze` would refuse a text ({@link validateText}, then nothing visible after
 * normalization), or undefined: the same checks, without tokenizing. Normalizes only a text with no
 * character that surely stays.
 */
export function textRefusal(text: string, maxLength = DEFAULT_MAX_TEXT_LENGTH, field = "text"): NeardupError | undefined {
  try {
    validateText(text, maxLength, field);
  } catch (err) {
    return err as NeardupError;
  }
  // Markup and character references may be all there is (`<p></p>&nbsp;`): such a text takes the whole normalization.
  return (!MARKUP.test(text) && SURELY_VISIBLE.test(text)) || normalize(text) !== "" ? undefined : nothingVisible(field);
}
