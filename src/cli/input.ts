/** Turning input lines into documents: JSONL objects or plain text, one document a line. */

export type InputFormat = "jsonl" | "text";

export interface FieldOptions {
  /** JSONL field holding the text. Default `text`. */
  textField: string;
  /**
   * JSONL field holding the id. Undefined (default): `id` when the line has
   * one (a non-empty string or a number), else the line number. False: always
   * the line number.
   */
  idField?: string | false | undefined;
  /**
   * JSONL field holding the time (ISO 8601 string or epoch number).
   * Undefined (default): the first of `DEFAULT_TIME_FIELDS` the line has.
   * False: no time (documents are in line order).
   */
  timeField?: string | false | undefined;
  /** Unit of numeric times: `ms` (default) or `s`. */
  timeUnit: "ms" | "s";
}

export interface InputDoc {
  id: string;
  text: string;
  /** Milliseconds since the epoch when a time field is set, else undefined. */
  time: number | undefined;
}

/** Time fields looked for, in this order, when no time field is named. */
export const DEFAULT_TIME_FIELDS: readonly string[] = ["time", "timestamp", "@timestamp", "date", "created_at"];

/** Id field looked for when none is named. */
export const DEFAULT_ID_FIELD = "id";

export type ParsedLine = { kind: "doc"; doc: InputDoc } | { kind: "blank" } | { kind: "bad"; message: string };

/** `jsonl` when the first non-blank line opens a JSON object, else `text`. */
export function detectFormat(firstLine: string): InputFormat {
  return firstLine.trimStart().startsWith("{") ? "jsonl" : "text";
}

function field(obj: Record<string, unknown>, path: string): unknown {
  if (Object.hasOwn(obj, path)) return obj[path];
  // Dotted paths reach into nested objects: `doc.body`.
  let cur: unknown = obj;
  for (const part of path.split(".")) {
    if (cur === null || typeof cur !== "object" || !Object.hasOwn(cur, part)) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

function parseTime(value: unknown, name: string, unit: "ms" | "s"): number | string {
  if (typeof value === "number" && Number.isFinite(value)) return unit === "s" ? value * 1000 : value;
  if (typeof value === "string" && value.trim() !== "") {
    const ms = /^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) * (unit === "s" ? 1000 : 1) : Date.parse(value);
    if (Number.isFinite(ms)) return ms;
  }
  return `field "${name}" must be an ISO 8601 date or an epoch number, got ${JSON.stringify(value)}`;
}

const MAX_SHOWN = 60;
function shown(s: string): string {
  return s.length > MAX_SHOWN ? `${s.slice(0, MAX_SHOWN)}…` : s;
}

/** Parses one line (1-based `lineNumber`, used as the default id). */
export function parseLine(line: string, lineNumber: number, format: InputFormat, fields: FieldOptions): ParsedLine {
  if (line.trim() === "") return { kind: "blank" };
  if (format === "text") return { kind: "doc", doc: { id: String(lineNumber), text: line, time: undefined } };
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    return { kind: "bad", message: `not valid JSON (${(err as Error).message}): ${shown(line)}` };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { kind: "bad", message: `expected a JSON object, got ${shown(line)}` };
  }
  const obj = value as Record<string, unknown>;
  const text = field(obj, fields.textField);
  if (typeof text !== "string") {
    return { kind: "bad", message: `field "${fields.textField}" must be a string, got ${text === undefined ? "nothing" : shown(JSON.stringify(text))}` };
  }
  let id = String(lineNumber);
  // A named field must be there; the default `id` is used when it is (and then must be valid).
  const idName = fields.idField === undefined ? (Object.hasOwn(obj, DEFAULT_ID_FIELD) ? DEFAULT_ID_FIELD : undefined) : fields.idField || undefined;
  if (idName !== undefined) {
    const raw = field(obj, idName);
    if (typeof raw === "string" && raw !== "") id = raw;
    else if (typeof raw === "number" && Number.isFinite(raw)) id = String(raw);
    else return { kind: "bad", message: `field "${idName}" must be a non-empty string or a number, got ${raw === undefined ? "nothing" : shown(JSON.stringify(raw))}` };
  }
  let time: number | undefined;
  const timeName = fields.timeField === undefined ? DEFAULT_TIME_FIELDS.find((f) => Object.hasOwn(obj, f) && obj[f] !== null) : fields.timeField || undefined;
  if (timeName !== undefined) {
    const t = parseTime(field(obj, timeName), timeName, fields.timeUnit);
    if (typeof t === "string") return { kind: "bad", message: t };
    time = t;
  }
  return { kind: "doc", doc: { id, text, time } };
}
