/**
 * A key repeated in one object of a JSON body. `JSON.parse` keeps the last one without a word, so
 * `{"id": "a", "id": "b"}` was written under `b` and `{"text": "x", "text": "y"}` fingerprinted `y` (audit 18,
 * F5); both engines refuse such a document ("Duplicate field"). The API refuses it too, with a 400 naming it.
 */

/** The end (one past the closing quote) of the JSON string starting at `start`, and whether it holds an escape; -1 when unterminated. */
function stringEnd(text: string, start: number): { end: number; escaped: boolean } {
  let escaped = false;
  for (let j = start + 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === 0x5c) {
      escaped = true;
      j++;
    } else if (c === 0x22) return { end: j + 1, escaped };
  }
  return { end: -1, escaped };
}

const IDENTIFIER = /^[\p{L}_$][\p{L}\p{N}_$]*$/u;

function pathOf(prefix: string, steps: readonly (string | number)[]): string {
  let path = prefix;
  for (const step of steps) {
    if (typeof step === "number") path += `[${step}]`;
    else if (IDENTIFIER.test(step)) path += path === "" ? step : `.${step}`;
    else path += `[${JSON.stringify(step)}]`;
  }
  return path;
}

/**
 * The path of the first key that repeats within its object (`items[2].id`, `fields.a`), or undefined when none
 * does (or the text is not JSON: `JSON.parse` says why). `prefix`: the path of the text itself (`items[3]`).
 */
export function findDuplicateKey(text: string, prefix = ""): string | undefined {
  const steps: (string | number)[] = [];
  /** Per open container: the keys seen (objects), or undefined (arrays). */
  const keys: (Set<string> | undefined)[] = [];
  let expectKey = false;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const { end, escaped } = stringEnd(text, i);
      if (end < 0) return undefined;
      const seen = keys.at(-1);
      if (expectKey && seen) {
        let key = text.slice(i + 1, end - 1);
        if (escaped) {
          try {
            key = JSON.parse(text.slice(i, end)) as string;
          } catch {
            return undefined;
          }
        }
        steps[steps.length - 1] = key;
        if (seen.has(key)) return pathOf(prefix, steps);
        seen.add(key);
        expectKey = false;
      }
      i = end;
    } else if (c === 0x7b || c === 0x5b) {
      keys.push(c === 0x7b ? new Set() : undefined);
      steps.push(c === 0x7b ? "" : 0);
      expectKey = c === 0x7b;
      i++;
    } else if (c === 0x7d || c === 0x5d) {
      keys.pop();
      steps.pop();
      i++;
    } else if (c === 0x2c) {
      if (keys.at(-1)) expectKey = true;
      else if (keys.length > 0) steps[steps.length - 1] = (steps.at(-1) as number) + 1;
      i++;
    } else {
      i++; // white space, ':', numbers, true, false, null
    }
  }
  return undefined;
}

/** The message of a refused repeated key. */
export function duplicateKeyMessage(path: string): string {
  return `${path} appears twice in one object: each key of a JSON object must be unique (JSON parsing would keep the last one without a word; the engines refuse such a document)`;
}
