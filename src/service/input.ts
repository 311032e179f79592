import { randomUUID } from "node:crypto";
import { z } from "zod";
import { NeardupError } from "../core/errors.js";
import type { Analysis } from "../core/fingerprinter.js";
import { POLICIES, type Policy } from "./options.js";

/** One document to index, after validation. */
export interface DocInput {
  id: string;
  /** Whether the caller gave the id (a generated one can never be a re-submission). */
  idGiven: boolean;
  text: string;
  fields: Record<string, unknown> | undefined;
  /** Epoch milliseconds. */
  time: number;
  /**
   * The caller's own source, written as is (plus the `neardup` object) instead
   * of `{textField: text, fields}`: the `_bulk` proxy writes users' documents
   * unchanged. `text` must be this source's text field.
   */
  source?: Record<string, unknown> | undefined;
  /**
   * The analysis of `text`, made already (by the sidecar that forwarded the document, which analysed it for
   * this one: workers/wire.ts); the service then does not analyse the text again.
   */
  analysis?: Analysis | undefined;
  /**
   * The write is a `create` (the `_bulk` proxy's `create` action): it fails, and changes nothing, when the id
   * is stored already. Its window entry then never stands in for the stored version (recent.ts `add`).
   */
  createOnly?: boolean | undefined;
}

const MAX_ID_BYTES = 512;

/** Node 20 has `String.prototype.isWellFormed`; the ES2023 lib this project compiles against does not declare it. */
function isWellFormed(s: string): boolean {
  return (s as string & { isWellFormed(): boolean }).isWellFormed();
}

/** `" (a lone surrogate U+D800 at index 3)"` for a string that is not well-formed UTF-16. */
function loneSurrogate(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
    else if (c >= 0xd800 && c <= 0xdfff) return ` (a lone surrogate U+${c.toString(16).toUpperCase()} at index ${i})`;
  }
  return "";
}

/**
 * A document id in a request body: not empty and well-formed Unicode. An id
 * with a lone surrogate would reach the engine as U+FFFD, so two different
 * ids would become one document.
 */
export const idSchema = z
  .string()
  .min(1, "must not be empty")
  .check((ctx) => {
    if (!isWellFormed(ctx.value)) ctx.issues.push({ code: "custom", input: ctx.value, message: `must be well-formed Unicode${loneSurrogate(ctx.value)}` });
    else if (Buffer.byteLength(ctx.value) > MAX_ID_BYTES) ctx.issues.push({ code: "custom", input: ctx.value, message: `must be at most ${MAX_ID_BYTES} bytes` });
  });

/** Checks an id taken from a URL path, naming `field` when it is not well-formed. */
export function parseId(value: string, field = "id"): string {
  if (value === "") throw new NeardupError("INVALID_INPUT", `${field} must not be empty`, { field });
  if (!isWellFormed(value)) throw new NeardupError("INVALID_INPUT", `${field} must be well-formed Unicode${loneSurrogate(value)}`, { field });
  if (Buffer.byteLength(value) > MAX_ID_BYTES) throw new NeardupError("INVALID_INPUT", `${field} must be at most ${MAX_ID_BYTES} bytes`, { field });
  return value;
}

/** Most levels of objects in `fields` (`fields.a` is level 1). */
export const MAX_FIELDS_DEPTH = 8;
/** Most keys in one document's `fields`, counted over every level. */
export const MAX_FIELDS_KEYS = 1_000;
/** Longest key in `fields`, in UTF-16 code units. */
export const MAX_FIELDS_KEY_LENGTH = 256;
/** Longest string value in `fields`, in UTF-8 bytes (an engine keyword term holds at most 32,766). */
export const MAX_FIELDS_VALUE_BYTES = 8_192;

function keyProblem(key: string): string | undefined {
  if (key === "") return "has an empty key";
  if (key.length > MAX_FIELDS_KEY_LENGTH) return `has a key longer than ${MAX_FIELDS_KEY_LENGTH} characters`;
  if (!isWellFormed(key)) return `has a key that is not well-formed Unicode${loneSurrogate(key)}`;
  if (key.startsWith("_")) return `has a key starting with an underscore (${JSON.stringify(key)})`;
  // The engines read dots in a key as object paths: ".", "a.", ".a" and "a..b" name an empty object.
  if (key.startsWith(".") || key.endsWith(".") || key.includes("..")) return `has a key with an empty path segment (${JSON.stringify(key)})`;
  return undefined;
}

/**
 * Checks the client's `fields` object: depth, key names, key count and the
 * size of string values, so that what the engine refuses is refused here
 * first, as a 400 naming the path (`fields.a.b`, `items[3].fields.a`).
 */
function checkFields(fields: Record<string, unknown>, path: string): void {
  let keys = 0;
  const fail = (at: string, problem: string): never => {
    throw new NeardupError("INVALID_INPUT", `${at} ${problem}`, { field: at });
  };
  // `arrays`: arrays directly inside arrays (the engines flatten them, but each level is a level of recursion here and there).
  const walk = (value: unknown, at: string, depth: number, arrays = 0): void => {
    if (typeof value === "string") {
      if (!isWellFormed(value)) fail(at, `must be well-formed Unicode${loneSurrogate(value)}`);
      if (value.length > MAX_FIELDS_VALUE_BYTES / 3 && Buffer.byteLength(value) > MAX_FIELDS_VALUE_BYTES) fail(at, `is longer than ${MAX_FIELDS_VALUE_BYTES} bytes`);
      return;
    }
    // JSON numbers past ±1.8e308 parse as Infinity and would be stored as null.
    if (typeof value === "number" && !Number.isFinite(value)) fail(at, "is a number too large to store");
    if (Array.isArray(value)) {
      if (arrays >= MAX_FIELDS_DEPTH) fail(at, `holds arrays nested deeper than ${MAX_FIELDS_DEPTH} levels`);
      value.forEach((v, i) => walk(v, `${at}[${i}]`, depth, arrays + 1));
      return;
    }
    if (value === null || typeof value !== "object") return;
    if (depth > MAX_FIELDS_DEPTH) fail(at, `is nested deeper than ${MAX_FIELDS_DEPTH} levels`);
    for (const [key, v] of Object.entries(value)) {
      const problem = keyProblem(key);
      if (problem) fail(key === "" ? at : `${at}.${key}`, problem);
      keys += 1;
      if (keys > MAX_FIELDS_KEYS) fail(path, `has more than ${MAX_FIELDS_KEYS} keys`);
      walk(v, `${at}.${key}`, depth + 1);
    }
  };
  walk(fields, path, 1);
}

const docSchema = z
  .object({
    id: idSchema
      .refine((s) => Buffer.byteLength(s) <= MAX_ID_BYTES, `must be at most ${MAX_ID_BYTES} bytes`)
      .refine((s) => !s.startsWith("_"), "must not start with an underscore")
      .optional(),
    text: z.string({ error: (i) => (i.input === undefined ? "is required" : "must be a string") }),
    fields: z.record(z.string(), z.unknown()).optional(),
    time: z.union([z.string(), z.number()], { error: (i) => `must be an ISO-8601 date or epoch milliseconds, got ${JSON.stringify(i.input)}` }).optional(),
  })
  .strict();

/** `a.b[2].c` from a zod issue path under a prefix. */
function fieldPath(prefix: string, path: PropertyKey[]): string {
  const parts = path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("");
  return (prefix + parts).replace(/^\./, "") || prefix || "body";
}

/** Throws INVALID_INPUT naming the first bad field (`prefix` + path) and the problem. */
export function parseWith<T>(schema: z.ZodType<T>, raw: unknown, prefix = ""): T {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  // An unknown key is reported first: it is usually a typo of the field that is "missing".
  const issues = result.error.issues;
  const issue = issues.find((i) => i.code === "unrecognized_keys") ?? issues[0]!;
  if (issue.code === "unrecognized_keys") {
    const key = issue.keys[0]!;
    const field = fieldPath(prefix, [...issue.path, key]);
    throw new NeardupError("INVALID_INPUT", `${field} is not a known field`, { field });
  }
  const field = fieldPath(prefix, issue.path);
  let message = `${field} ${issue.message}`;
  // zod's own wording ("Invalid input: expected string, received number") is replaced; a schema's message is kept.
  if (issue.code === "invalid_type" && (issue.path.length === 0 || issue.message.startsWith("Invalid input"))) {
    const value = valueAt(raw, issue.path);
    // zod calls a number with a fraction "an int, got a number" (audit 22a, F7): "an integer, got 1.5".
    const expected = issue.expected === "int" ? "integer" : issue.expected;
    const got = issue.expected === "int" && typeof value === "number" ? String(value) : kindOf(value);
    message = issue.path.length === 0 ? `${field} must be a JSON object` : value === undefined ? `${field} is required` : `${field} must be ${withArticle(expected)}, got ${got}`;
  } else if ((issue.code === "too_small" || issue.code === "too_big") && issue.message.startsWith("Too ")) {
    const small = issue.code === "too_small";
    const bound = Number(small ? issue.minimum : issue.maximum);
    const strict = issue.inclusive === false;
    const value = valueAt(raw, issue.path);
    const got = typeof value === "number" ? `, got ${value}` : "";
    const items = issue.origin === "array" || issue.origin === "set";
    const unit = issue.origin === "string" ? " characters long" : items ? " items" : "";
    const words = small ? (strict ? "greater than" : "at least") : strict ? "less than" : "at most";
    message = `${field} must ${items ? "have" : "be"} ${words} ${bound}${unit}${got}`;
  }
  throw new NeardupError("INVALID_INPUT", message, { field });
}

/** The value at a zod issue path in the raw input; undefined when absent. */
function valueAt(raw: unknown, path: PropertyKey[]): unknown {
  let v = raw;
  for (const key of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

/** "a string", "an object": a JSON type named in an error (zod's `record` and `map` are JSON objects). */
function withArticle(type: string): string {
  const json = type === "record" || type === "map" ? "object" : type;
  return /^[aeiou]/.test(json) ? `an ${json}` : `a ${json}`;
}

/** What a JSON value is, for an error: "a number", "null", "an array". */
function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return withArticle(typeof v);
}

/** Default allowance for clocks ahead of ours: 5 minutes (NEARDUP_TIME_SKEW_MS). */
export const DEFAULT_TIME_SKEW_MS = 300_000;

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|([+-])(\d{2}):(\d{2})))?$/;

/**
 * Epoch ms of a strict RFC 3339 string: `2026-01-02T03:04:05Z`, with optional
 * fraction and a `Z` or `+hh:mm` offset, or a bare full-date `2026-01-02`
 * (UTC midnight). Every field is range-checked (no `2024-02-30`, no hour 24),
 * so nothing is silently rolled over the way `Date.parse` does. NaN otherwise.
 */
function parseRfc3339(text: string): number {
  const m = RFC3339.exec(text);
  if (!m) return NaN;
  let offset = 0;
  if (m[9]) {
    const [oh, om] = [Number(m[10]), Number(m[11])];
    if (oh > 23 || om > 59) return NaN;
    offset = (m[9] === "-" ? -1 : 1) * (oh * 60 + om);
  }
  return utcMs([m[1], m[2], m[3], m[4], m[5], m[6]], m[7] ? Math.trunc(Number(`0${m[7]}`) * 1000) : 0, offset);
}

/**
 * Epoch ms of calendar fields (year, month, day, hour, minute, second; absent ones are the first) plus `ms`,
 * less a zone offset in minutes. NaN when a field is out of range: nothing is rolled over (`2024-02-30`, hour 24)
 * the way `Date.UTC` and `Date.parse` do.
 */
function utcMs(fields: (string | undefined)[], ms: number, offsetMinutes: number): number {
  const [year, month, day, hour, minute, second] = fields.map((f, k) => Number(f ?? (k < 3 ? 1 : 0))) as [number, number, number, number, number, number];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59) return NaN;
  const utc = new Date(0);
  utc.setUTCFullYear(year, month - 1, day);
  utc.setUTCHours(hour, minute, second, ms);
  return utc.getTime() - offsetMinutes * 60_000;
}

/** The engines' default date format (`strict_date_optional_time`): a date, then optionally a time with optional minutes, seconds, fraction and zone. */
const OPTIONAL_TIME = /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2})(?::(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?)?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * Epoch ms of a time as a document's source may carry it, read as the engines'
 * default date format reads it (`strict_date_optional_time||epoch_millis`): a
 * year, year-month or date with an optional time, zone and fraction (no zone:
 * UTC), or epoch milliseconds as a number or a string (a fraction is cut);
 * four digits, as a number or a string, are a year, as the engines read them. Every field is
 * range-checked (no `2024-02-30`). NaN for anything else.
 */
export function readSourceTime(value: unknown): number {
  if (typeof value === "number" && !Number.isFinite(value)) return NaN;
  if (typeof value !== "number" && typeof value !== "string") return NaN;
  const text = String(value);
  // Four digits are a year (the date format is tried first), other digits epoch milliseconds.
  if (!/^\d{4}$/.test(text) && /^-?\d{1,15}(\.\d+)?$/.test(text)) return Math.trunc(Number(text));
  const m = OPTIONAL_TIME.exec(text);
  if (!m) return NaN;
  let offset = 0;
  if (m[8] !== undefined && m[8] !== "Z") {
    const digits = m[8].replace(":", "");
    const [oh, om] = [Number(digits.slice(1, 3)), Number(digits.slice(3, 5) || "0")];
    if (oh > 18 || om > 59) return NaN;
    offset = (m[8][0] === "-" ? -1 : 1) * (oh * 60 + om);
  }
  return utcMs([m[1], m[2], m[3], m[4], m[5], m[6]], m[7] ? Math.trunc(Number(`0.${m[7]}`) * 1000) : 0, offset);
}

/** The latest document time accepted: 9999-12-31T23:59:59.999Z (what `Date` and the engines' date fields hold). */
export const MAX_TIME_MS = 253402300799999;

/**
 * What the API's numeric parameters accept, in words: the routes' schemas use the same bounds, and a number in
 * them that JSON cannot carry as sent (2^53 + 1, 1e400) is refused naming the range (server/json-numbers.ts),
 * not with the advice for `fields` values (send it as a string), which these parameters do not take.
 */
export const LIMIT_RANGE = { min: 1, max: 1000 } as const;
export const RADIUS_RANGE = { min: 0, max: 16 } as const;
export const PARAMETER_RANGES: Readonly<Record<string, string>> = {
  limit: `an integer from ${LIMIT_RANGE.min} to ${LIMIT_RANGE.max}`,
  radius: `an integer from ${RADIUS_RANGE.min} to ${RADIUS_RANGE.max}`,
  min_similarity: "a number from 0 to 1",
  time: `an ISO-8601 date or epoch milliseconds (a JSON number) from 0 to ${MAX_TIME_MS} (9999-12-31T23:59:59.999Z)`,
};

/** A document time the service can store: whole epoch milliseconds from 1970 to {@link MAX_TIME_MS}. */
export function isStorableTime(ms: number): boolean {
  return Number.isInteger(ms) && ms >= 0 && ms <= MAX_TIME_MS;
}

/**
 * Epoch ms from a strict RFC 3339 string or a JSON number of epoch
 * milliseconds (an integer >= 0). Strings of digits (`"1"`, `"0"`) are not
 * times. A time more than `maxFutureMs` after `now` is refused: a
 * future-dated document would stay a candidate for everything after it.
 */
export function parseTime(value: string | number | undefined, field: string, now: number, maxFutureMs = Infinity): number {
  if (value === undefined) return now;
  const ms = typeof value === "number" ? (Number.isInteger(value) ? value : NaN) : parseRfc3339(value);
  if (Number.isInteger(ms) && ms < 0) {
    throw new NeardupError("INVALID_INPUT", `${field} must be 1970-01-01 or later (neardup stores no earlier time), got ${JSON.stringify(value)}`, { field });
  }
  if (!isStorableTime(ms)) {
    // A string of digits is not a time here (`"1"`); epoch milliseconds go as a JSON number (audit 22a, F5).
    const hint = typeof value === "string" && /^\d+$/.test(value) ? " (epoch milliseconds are sent as a JSON number, not a string)" : "";
    throw new NeardupError("INVALID_INPUT", `${field} must be an ISO-8601 date or epoch milliseconds, got ${JSON.stringify(value)}${hint}`, { field });
  }
  if (ms > now + maxFutureMs) {
    throw new NeardupError(
      "INVALID_INPUT",
      `${field} ${JSON.stringify(value)} is ${Math.round((ms - now) / 1000)} s in the future; at most ${Math.round(maxFutureMs / 1000)} s of clock skew is allowed (NEARDUP_TIME_SKEW_MS)`,
      { field },
    );
  }
  return ms;
}

/** Validates one document of a request; `prefix` names it in errors (e.g. `items[3]`). */
export function parseDocInput(raw: unknown, prefix = "", now = Date.now(), maxFutureMs = Infinity): DocInput {
  const doc = parseWith(docSchema, raw, prefix);
  const at = (f: string) => (prefix ? `${prefix}.${f}` : f);
  // The client's own object: the schema's copy drops a `__proto__` key (assigning it sets the prototype).
  if (doc.fields) checkFields((raw as { fields: Record<string, unknown> }).fields, at("fields"));
  return {
    id: doc.id ?? randomUUID(),
    idGiven: doc.id !== undefined,
    text: doc.text,
    fields: doc.fields,
    time: parseTime(doc.time, at("time"), now, maxFutureMs),
  };
}

export function parsePolicy(value: unknown, fallback: Policy): Policy {
  if (value === undefined) return fallback;
  if (typeof value === "string" && (POLICIES as readonly string[]).includes(value)) return value as Policy;
  throw new NeardupError("INVALID_INPUT", `policy must be one of ${POLICIES.join(", ")}, got ${JSON.stringify(value)}`, { field: "policy" });
}
