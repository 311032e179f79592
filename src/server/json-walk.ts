/**
 * One pass over a JSON text that knows where it is (json-numbers.ts, json-keys.ts): each object key and each
 * number is shown to a visitor with the path to it, and the walk stops at the first one the visitor flags.
 * The text is not validated: on text that is not JSON the walk gives up (`JSON.parse` says why elsewhere).
 */

export interface JsonVisitor {
  /** A key of an object, with the keys seen before it in that object; true stops the walk here. */
  key?(key: string, before: ReadonlySet<string>): boolean;
  /** A number as written; true stops the walk here. */
  number?(literal: string): boolean;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const IDENTIFIER = /^[\p{L}_$][\p{L}\p{N}_$]*$/u;

/** `prefix` then the steps: `items[3].fields.a`, `["a b"]`; `body` for the text itself without a prefix. */
export function pathOf(prefix: string, steps: readonly (string | number)[]): string {
  if (prefix === "" && steps.length === 0) return "body";
  let path = prefix;
  for (const step of steps) {
    if (typeof step === "number") path += `[${step}]`;
    else if (IDENTIFIER.test(step)) path += path === "" ? step : `.${step}`;
    else path += `[${JSON.stringify(step)}]`;
  }
  return path;
}

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

/** Walks `text`; returns the path (after `prefix`) of the first key or number the visitor flags, undefined when none is (or the text is not JSON). */
export function walkJson(text: string, prefix: string, visitor: JsonVisitor): string | undefined {
  return walk(text, prefix, visitor, () => true);
}

/** The paths (after `prefix`) of every key and number the visitor flags, in text order; on text that is not JSON, those before the walk gave up. */
export function walkJsonAll(text: string, prefix: string, visitor: JsonVisitor): string[] {
  const paths: string[] = [];
  walk(text, prefix, visitor, (path) => (paths.push(path), false));
  return paths;
}

/** The walk; `flagged` is told the path of each key or number the visitor flags, and stops the walk there by returning true. */
function walk(text: string, prefix: string, visitor: JsonVisitor, flagged: (path: string) => boolean): string | undefined {
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
        if (visitor.key?.(key, seen)) {
          const path = pathOf(prefix, steps);
          if (flagged(path)) return path;
        }
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
    } else if (visitor.number && (c === 0x2d || (c >= 0x30 && c <= 0x39))) {
      NUMBER.lastIndex = i;
      const literal = NUMBER.exec(text)?.[0];
      if (literal === undefined) return undefined;
      if (visitor.number(literal)) {
        const path = pathOf(prefix, steps);
        if (flagged(path)) return path;
      }
      i += literal.length;
    } else {
      i++; // white space, ':', true, false, null (and numbers, when nobody asks for them)
    }
  }
  return undefined;
}
