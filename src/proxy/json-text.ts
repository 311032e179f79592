/**
 * Reading JSON text without parsing its values: `JSON.parse` turns
 * 9007199254740993 into 9007199254740992, and the engines do not (they keep a
 * number's text where they read it as a string, and read longs whole). The
 * proxy keeps the raw text of what it passes on.
 *
 * Every function here expects text that `JSON.parse` has already accepted.
 */

/** One member of a JSON object: its key (decoded) and its value's text as sent. */
export interface Member {
  key: string;
  raw: string;
}

const WHITE = new Set([0x20, 0x09, 0x0a, 0x0d]);

function skipWhite(text: string, at: number): number {
  while (at < text.length && WHITE.has(text.charCodeAt(at))) at++;
  return at;
}

/** End (exclusive) of the string that opens at `at`. */
function stringEnd(text: string, at: number): number {
  for (let i = at + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x22) return i + 1;
  }
  return text.length;
}

/** A quoted key, decoded (escapes are rare in keys: most are the text between the quotes); throws on a bad escape. */
function keyOf(quoted: string): string {
  return quoted.includes("\\") ? (JSON.parse(quoted) as string) : quoted.slice(1, -1);
}

/** End (exclusive) of the value that starts at `at`. */
function valueEnd(text: string, at: number): number {
  const c = text.charCodeAt(at);
  if (c === 0x22) return stringEnd(text, at);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    for (let i = at; i < text.length; i++) {
      const d = text.charCodeAt(i);
      if (d === 0x22) i = stringEnd(text, i) - 1;
      else if (d === 0x7b || d === 0x5b) depth++;
      else if ((d === 0x7d || d === 0x5d) && --depth === 0) return i + 1;
    }
    return text.length;
  }
  let i = at;
  while (i < text.length) {
    const d = text.charCodeAt(i);
    if (WHITE.has(d) || d === 0x2c || d === 0x7d || d === 0x5d) break;
    i++;
  }
  return i;
}

/**
 * The object that opens at `at` (white space before it allowed): its members in text order, repeated keys
 * included, and `rest`, the text after its closing brace.
 */
export function readObject(text: string, at: number): { members: Member[]; rest: string } {
  const members: Member[] = [];
  let i = skipWhite(text, at) + 1; // past "{"
  for (;;) {
    i = skipWhite(text, i);
    if (text.charCodeAt(i) !== 0x22) return { members, rest: text.slice(i + 1) }; // "}"
    const keyEnd = stringEnd(text, i);
    const key = keyOf(text.slice(i, keyEnd));
    const start = skipWhite(text, skipWhite(text, keyEnd) + 1); // past ":"
    const end = valueEnd(text, start);
    members.push({ key, raw: text.slice(start, end) });
    i = skipWhite(text, end);
    if (text.charCodeAt(i) === 0x2c) i++;
  }
}

/** The members of the object that opens at `at` (see {@link readObject}). */
export function objectMembers(text: string, at: number): Member[] {
  return readObject(text, at).members;
}

/** A JSON object's text from members. */
export function objectText(members: readonly Member[]): string {
  return `{${members.map((m) => `${JSON.stringify(m.key)}:${m.raw}`).join(",")}}`;
}

/**
 * A JSON object's text without the first member named `key`, every other member's text as sent (repeated
 * keys included: the engines refuse those, and so they still will). How a client's source line that holds
 * `neardup` of its own is written: that member is the one neardup replaces.
 */
export function withoutFirstMember(text: string, key: string): string {
  const members = objectMembers(text, 0);
  const at = members.findIndex((m) => m.key === key);
  return at < 0 ? text : objectText(members.filter((_, i) => i !== at));
}

/**
 * A JSON object's text with `members` (`"key":value,...`) put first and every byte after its opening brace
 * as it was: how the proxy adds `neardup` to a client's source line, and `_index` and `_id` to its metadata.
 */
export function withFirstMembers(objectText: string, members: string): string {
  const rest = objectText.slice(objectText.indexOf("{") + 1);
  return `{${members}${rest.trim() === "}" ? "" : ","}${rest}`;
}

/**
 * The line with its comments (`// ...` to the end of the line, and block comments) outside strings turned
 * into spaces, as the engines read JSON (their parser allows comments), every other character where it was;
 * the line itself when it has none, or when a block comment does not end (the engines refuse that line too).
 */
export function withoutComments(line: string): string {
  if (!line.includes("/")) return line;
  let out = "";
  let from = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c === 0x22) {
      i = stringEnd(line, i) - 1;
      continue;
    }
    if (c !== 0x2f) continue;
    const next = line.charCodeAt(i + 1);
    let end: number;
    if (next === 0x2f) end = line.length;
    else if (next === 0x2a) {
      const close = line.indexOf("*/", i + 2);
      if (close < 0) return line;
      end = close + 2;
    } else continue;
    out += line.slice(from, i) + " ".repeat(end - i);
    from = end;
    i = end - 1;
  }
  return from === 0 ? line : out + line.slice(from);
}

/** The first key of the object that opens at the start of `text` (white space allowed), decoded, and where its value starts; undefined when there is none. */
export function firstKey(text: string): { key: string; valueAt: number } | undefined {
  let i = skipWhite(text, 0);
  if (text.charCodeAt(i) !== 0x7b) return undefined;
  i = skipWhite(text, i + 1);
  if (text.charCodeAt(i) !== 0x22) return undefined;
  const keyEnd = stringEnd(text, i);
  let key: string;
  try {
    key = keyOf(text.slice(i, keyEnd));
  } catch {
    return undefined; // a bad escape
  }
  const colon = skipWhite(text, keyEnd);
  if (text.charCodeAt(colon) !== 0x3a) return undefined;
  return { key, valueAt: colon + 1 };
}

/**
 * Whether a JSON text (one `JSON.parse` takes) repeats a key within one object, at any depth: the engines
 * refuse such a text, where `JSON.parse` keeps the last value. One pass over the text, strings skipped.
 */
export function repeatsKey(json: string): boolean {
  const frames: { keys: Set<string> | undefined; expectKey: boolean }[] = [];
  for (let i = 0; i < json.length; i++) {
    const c = json[i];
    if (c === "{") frames.push({ keys: new Set(), expectKey: true });
    else if (c === "[") frames.push({ keys: undefined, expectKey: false });
    else if (c === "}" || c === "]") frames.pop();
    else if (c === ",") {
      const top = frames.at(-1);
      if (top?.keys) top.expectKey = true;
    } else if (c === '"') {
      const start = i;
      for (i++; json[i] !== '"'; i++) if (json[i] === "\\") i++;
      const top = frames.at(-1);
      if (top?.keys && top.expectKey) {
        const key = JSON.parse(json.slice(start, i + 1)) as string;
        if (top.keys.has(key)) return true;
        top.keys.add(key);
        top.expectKey = false;
      }
    }
  }
  return false;
}
