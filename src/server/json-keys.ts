/**
 * A key repeated in one object of a JSON body. `JSON.parse` keeps the last one without a word, so
 * `{"id": "a", "id": "b"}` was written under `b` and `{"text": "x", "text": "y"}` fingerprinted `y` (audit 18,
 * F5); both engines refuse such a document ("Duplicate field"). The API refuses it too, with a 400 naming it.
 */
import { walkJson } from "./json-walk.js";

/**
 * The path of the first key that repeats within its object (`items[2].id`, `fields.a`), or undefined when none
 * does (or the text is not JSON: `JSON.parse` says why). `prefix`: the path of the text itself (`items[3]`).
 */
export function findDuplicateKey(text: string, prefix = ""): string | undefined {
  return walkJson(text, prefix, { key: (key, before) => before.has(key) });
}

/** The message of a refused repeated key. */
export function duplicateKeyMessage(path: string): string {
  return `${path} appears twice in one object: each key of a JSON object must be unique (JSON parsing would keep the last one without a word; the engines refuse such a document)`;
}
