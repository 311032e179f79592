/**
 * The `_bulk` NDJSON body as items: an action line, then a source line for
 * `index`, `create` and `update`. Source lines are kept raw (only the ones the
 * proxy fingerprints are parsed, later), so a malformed one reaches the engine
 * as sent and gets the engine's own per-item error.
 *
 * A problem with the request as a whole (an action line that is not JSON, an
 * unknown action, a missing source line or final newline, no index) is not
 * answered here: the caller forwards the body as is and returns the engine's
 * own whole-request error, which the engines give before writing anything.
 */
import { isDateMathName, resolveDateMathName } from "./date-math.js";
import { firstKey, objectMembers, objectText, readObject, repeatsKey, withoutComments, withoutFirstMember } from "./json-text.js";

export type BulkOp = "index" | "create" | "update" | "delete";

export interface BulkItem {
  op: BulkOp;
  /** The action's metadata (`_index`, `_id`, `routing`, `pipeline`, ...), parsed: for reading flags, never for writing. */
  meta: Record<string, unknown>;
  /** The `_id` as the engines read it: a string's value, or a number's or boolean's text as sent (`9007199254740993`, `1.0`, `1e400`, `true`). */
  id: string | undefined;
  /** Where the action's metadata object starts in the action line (without its byte order mark): see {@link metaText}. */
  metaAt: number;
  /** Target index: the action's `_index`, else the one in the URL path; a date-math name as the engine resolves it. */
  index: string;
  actionLine: string;
  /** Raw source line (`index`, `create`, `update`); `undefined` for `delete`. */
  sourceLine: string | undefined;
}

/**
 * `refuse`: the proxy answers the request itself (400), for a body the engines read differently from one another;
 * `blank`: the body has lines, all blank (the engines' answer is "no requests added").
 */
export type ParsedBulk = { ok: true; items: BulkItem[] } | { ok: false; reason: string; refuse?: boolean; blank?: boolean };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Where the action's value opens an object (sticky: tried at `lastIndex`, after the action key). */
const OBJECT_START = /\s*\{/y;

/** The four actions: the first key of an action line (the engines read that key, in text order). */
const ACTIONS: ReadonlySet<string> = new Set(["index", "create", "update", "delete"]);

/**
 * A line without its byte order mark: both engines skip one at the start of
 * any line (each line is parsed on its own), and `JSON.parse` does not.
 */
function withoutBom(line: string): string {
  return line.charCodeAt(0) === 0xfeff ? line.slice(1) : line;
}

/** The line's first object (when it starts with one that parses): its text, its value, and the text after it. */
function afterFirstObject(text: string): { object: string; value: unknown; rest: string } | undefined {
  if (!/^\s*\{/.test(text)) return undefined;
  const { rest } = readObject(text, 0);
  const object = text.slice(0, text.length - rest.length);
  try {
    return { object, value: JSON.parse(object) as unknown, rest };
  } catch {
    return undefined;
  }
}

/** Node 20 has `String.prototype.toWellFormed` (lone surrogates become U+FFFD); the ES2023 lib does not declare it. */
function toWellFormed(s: string): string {
  return (s as string & { toWellFormed(): string }).toWellFormed();
}

/** The fields of an update's body (the engines' `UpdateRequest`); any other refuses the whole request. */
const UPDATE_FIELDS: ReadonlySet<string> = new Set(["doc", "upsert", "doc_as_upsert", "script", "scripted_upsert", "detect_noop", "_source"]);

/** An update's body as the engines parse it with the request: a JSON object of update fields, no key repeated at any depth. */
function isUpdateBody(line: string): boolean {
  const text = withoutBom(line);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return false;
  }
  return isObject(body) && Object.keys(body).every((k) => UPDATE_FIELDS.has(k)) && !repeatsKey(text);
}

function isJsonValue(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The longest `_id` the engines take, in UTF-8 bytes. */
const MAX_ID_BYTES = 512;

/** Lines {@link parseBulkInSlices} parses between two turns of the event loop (about 15 ms of work). */
export const PARSE_SLICE_LINES = 10_000;

/**
 * The parse itself, a step at a time: it pauses (yields) every
 * {@link PARSE_SLICE_LINES} lines. Lines are read with `indexOf` from a
 * cursor, not split into an array first (82 MB of delete lines are 2M strings).
 */
function* parseSteps(body: string, pathIndex: string | undefined, now = Date.now()): Generator<void, ParsedBulk> {
  if (body.length > 0 && !body.endsWith("\n")) return { ok: false, reason: "the body does not end with a newline" };
  let pos = 0;
  let lineNumber = 0;
  /** The next line without its newline; `undefined` past the last one (the body ends with a newline). */
  const nextLine = (skipEmpty = false): string | undefined => {
    // Empty lines where an action may start (the engines skip them there) without a string each: 99 MB of
    // newlines took 2.4 s, now a fifth of it. A source line is taken as it is, empty or not.
    // At most 500,000 a call (a few ms), so the parse still yields between slices.
    for (let n = 0; skipEmpty && n < 500_000 && pos < body.length && body.charCodeAt(pos) === 0x0a; n++) {
      pos++;
      lineNumber++;
    }
    if (pos >= body.length) return undefined;
    const end = body.indexOf("\n", pos);
    const line = body.slice(pos, end);
    pos = end + 1;
    lineNumber++;
    return line;
  };
  const items: BulkItem[] = [];
  let sliceEnds = PARSE_SLICE_LINES;
  for (let actionLine = nextLine(true); actionLine !== undefined; actionLine = nextLine(true)) {
    if (lineNumber >= sliceEnds) {
      sliceEnds = lineNumber + PARSE_SLICE_LINES;
      yield;
    }
    if (actionLine.trim() === "") continue;
    const at = lineNumber;
    // Comments are read as the engines read them (their JSON parser allows them): as white space. The line goes
    // on without them, so what the proxy writes or forwards is what it read.
    actionLine = withoutComments(actionLine);
    let text = withoutBom(actionLine);
    let action: unknown;
    try {
      action = JSON.parse(text);
    } catch {
      // Text after the action's object: both engines ignore a JSON value there (`{"index":{}} {"a":1}`), so the
      // line is its object. Anything else there OpenSearch ignores and Elasticsearch refuses, whole request: the
      // proxy refuses it (forwarded, OpenSearch wrote its documents without dedup).
      const after = afterFirstObject(text);
      if (after === undefined) return { ok: false, reason: `line ${at} is not a JSON action` };
      if (!isJsonValue(after.rest)) return { ok: false, refuse: true, reason: `line ${at} has text after its action object: ${JSON.stringify(after.rest.trim().slice(0, 40))}` };
      text = after.object;
      actionLine = actionLine.charCodeAt(0) === 0xfeff ? `\ufeff${text}` : text;
      action = after.value;
    }
    if (!isObject(action)) return { ok: false, reason: `line ${at} is not an action object` };
    // The engines read the first key as the action and ignore any after it; so does the proxy.
    // Its key decoded (`{"\u0069ndex":...}` is an index action to the engines too).
    const first = firstKey(text);
    const op = first && ACTIONS.has(first.key) ? first.key : undefined;
    const metaAt = first?.valueAt ?? 0;
    OBJECT_START.lastIndex = metaAt;
    if (op === undefined || !OBJECT_START.test(text)) return { ok: false, reason: `line ${at} is not one of index, create, update, delete` };
    const { members, rest } = readObject(text, metaAt);
    let meta = action[op] as Record<string, unknown>;
    // The action is the line's only key, as a rule: then JSON.parse's object is the one read, and a repeated key
    // (which the engines refuse: strict duplicate detection) shows as fewer keys than members. Else the first value
    // in the text is the action's, as the engines read it; JSON.parse keeps the last (`{"index":{...},"index":{...}}`).
    const alone = rest.trim() === "}";
    if (!alone) meta = Object.fromEntries(members.map((m) => [m.key, JSON.parse(m.raw) as unknown]));
    if ((alone ? Object.keys(meta).length : new Set(members.map((m) => m.key)).size) !== members.length) return { ok: false, reason: `line ${at} repeats a key of its metadata` };
    // `_index` and `_id` as the engines read them: a string's value, a number's or a boolean's text as sent
    // (`1e400`, `1.50`, `true`: the engines store those). An object or an array they refuse, whole request:
    // forwarded, so their own error comes back. (Forwarding a scalar the same way wrote every other item of
    // the request without dedup, hostile-input audit.)
    const scalarText = (key: string): string | null | undefined => {
      const value = meta[key];
      if (value === undefined || value === null || typeof value === "string") return value as string | null | undefined;
      return typeof value === "object" ? null : members.find((m) => m.key === key)!.raw;
    };
    const indexText = scalarText("_index");
    if (indexText === null && meta._index !== null) return { ok: false, reason: `line ${at} has an _index that is not a string` };
    const itemId = scalarText("_id");
    if (itemId === null && meta._id !== null) return { ok: false, reason: `line ${at} has an _id that is not a simple value` };
    // An id past 512 bytes on a write fails the engines' check of the whole request (a delete's they answer alone):
    // forwarded, so nothing is written (the proxy wrote the others and answered the id 502, differential audit).
    if (op !== "delete" && typeof itemId === "string" && itemId.length > 170 && Buffer.byteLength(itemId, "utf8") > MAX_ID_BYTES) {
      return { ok: false, reason: `line ${at} has an _id longer than ${MAX_ID_BYTES} bytes` };
    }
    const named = typeof indexText === "string" ? indexText : pathIndex;
    if (named === undefined || named === "") return { ok: false, reason: `line ${at} names no index` };
    // A date-math name (`<logs-{now/d}>`) is the index the engine resolves it to; one beyond what the proxy
    // resolves stays as sent, and matches no rule.
    const index = isDateMathName(named) ? (resolveDateMathName(named, now) ?? named) : named;
    let sourceLine: string | undefined;
    if (op !== "delete") {
      sourceLine = nextLine();
      if (sourceLine === undefined) return { ok: false, reason: `line ${at} has no source line` };
      sourceLine = withoutComments(sourceLine);
      // The engines read an update's body with the request, and refuse the whole request when it does not
      // parse: forwarded, so that error comes back and nothing is written (the other items were written).
      if (op === "update" && !isUpdateBody(sourceLine)) return { ok: false, reason: `line ${at + 1} is not an update body the engines read` };
    }
    // A lone surrogate reaches the engine as U+FFFD (UTF-8 has no other form for it): `a\ud800` and `a\ufffd`
    // are one document there, and so here (hostile-input audit: the second was the first's duplicate, and the
    // one document stored ended up a duplicate of itself).
    items.push({ op: op as BulkOp, meta, id: itemId == null ? undefined : toWellFormed(itemId), metaAt, index, actionLine, sourceLine });
  }
  if (items.length === 0) return { ok: false, reason: "the body has no actions", blank: body.length > 0 };
  return { ok: true, items };
}

/** The metadata less `_index` and `_id`, as a JSON object whose values are the client's text (numbers keep every digit); read when an item is written, not for every line parsed. */
export function metaText(item: Pick<BulkItem, "actionLine" | "metaAt">): string {
  return objectText(objectMembers(withoutBom(item.actionLine), item.metaAt).filter((m) => m.key !== "_index" && m.key !== "_id"));
}

export function parseBulk(body: string, pathIndex: string | undefined): ParsedBulk {
  const steps = parseSteps(body, pathIndex);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * {@link parseBulk} that gives the event loop a turn every
 * {@link PARSE_SLICE_LINES} lines: 2M lines take seconds to parse, and other
 * requests (and `/livez`) are answered in between instead of after.
 */
export async function parseBulkInSlices(body: string, pathIndex: string | undefined): Promise<ParsedBulk> {
  const steps = parseSteps(body, pathIndex);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/**
 * Deepest nesting of objects and arrays the proxy parses and writes again: a source nested deeper goes to
 * the engine as sent (its parser and mapping limits answer for it, per item). Rebuilding one thousands deep
 * overflowed the stack, and its whole chunk was answered a retryable 503 for ever.
 */
export const MAX_SOURCE_DEPTH = 100;

/** Whether a JSON text nests objects and arrays deeper than `max` (a scan that skips strings; no parse). */
export function nestsDeeperThan(json: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c === 0x22) {
      // a string: skip to its closing quote, past escapes
      for (i++; i < json.length; i++) {
        const d = json.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}

/** The source line as an object, or `undefined` when it is not a JSON object or is nested past {@link MAX_SOURCE_DEPTH} (the engine will say why). */
export function parseSource(item: Pick<BulkItem, "sourceLine">): Record<string, unknown> | undefined {
  if (item.sourceLine === undefined) return undefined;
  if (nestsDeeperThan(item.sourceLine, MAX_SOURCE_DEPTH)) return undefined;
  try {
    const value: unknown = JSON.parse(withoutBom(item.sourceLine));
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A source line whose `textField` is a string: its object and text. The caller checks the text (a blank one,
 * like any text neardup refuses, is written as sent and marked `unchecked`).
 */
export function textSource(sourceLine: string | undefined, textField: string): { source: Record<string, unknown>; text: string } | undefined {
  const source = parseSource({ sourceLine });
  const text = source?.[textField];
  return source && typeof text === "string" ? { source, text } : undefined;
}

/**
 * The line the proxy writes for a client's source line (before `neardup` is added, write-through.ts
 * `withNeardup`): the line as sent, less its own `neardup` member when it has one (neardup replaces it).
 * Never the source written again from `JSON.parse`'s object, which keeps the last of a repeated key (the
 * engines refuse the line) and rounds numbers past 2^53.
 */
export function lineToWrite(sourceLine: string, source: Record<string, unknown>): string {
  return Object.hasOwn(source, "neardup") ? withoutFirstMember(withoutBom(sourceLine), "neardup") : sourceLine;
}
