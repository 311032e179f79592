import { randomUUID } from "node:crypto";
import { z } from "zod";
import { NeardupError } from "../core/errors.js";
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
}

const MAX_ID_BYTES = 512;

const docSchema = z
  .object({
    id: z
      .string()
      .min(1, "must not be empty")
      .refine((s) => Buffer.byteLength(s) <= MAX_ID_BYTES, `must be at most ${MAX_ID_BYTES} bytes`)
      .refine((s) => !s.startsWith("_"), "must not start with an underscore")
      .optional(),
    text: z.string({ error: (i) => (i.input === undefined ? "is required" : "must be a string") }),
    fields: z.record(z.string(), z.unknown()).optional(),
    time: z.union([z.string(), z.number()]).optional(),
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
  const message = issue.code === "invalid_type" && issue.path.length === 0 ? `${field} must be a JSON object` : `${field} ${issue.message}`;
  throw new NeardupError("INVALID_INPUT", message, { field });
}

/** Epoch ms from an ISO-8601 string or epoch milliseconds. */
export function parseTime(value: string | number | undefined, field: string, now: number): number {
  if (value === undefined) return now;
  const ms = typeof value === "number" ? value : Date.parse(value);
  if (!Number.isFinite(ms) || ms < 0 || ms > 253402300799999) {
    throw new NeardupError("INVALID_INPUT", `${field} must be an ISO-8601 date or epoch milliseconds, got ${JSON.stringify(value)}`, { field });
  }
  return Math.trunc(ms);
}

/** Validates one document of a request; `prefix` names it in errors (e.g. `items[3]`). */
export function parseDocInput(raw: unknown, prefix = "", now = Date.now()): DocInput {
  const doc = parseWith(docSchema, raw, prefix);
  const at = (f: string) => (prefix ? `${prefix}.${f}` : f);
  return {
    id: doc.id ?? randomUUID(),
    idGiven: doc.id !== undefined,
    text: doc.text,
    fields: doc.fields,
    time: parseTime(doc.time, at("time"), now),
  };
}

export function parsePolicy(value: unknown, fallback: Policy): Policy {
  if (value === undefined) return fallback;
  if (typeof value === "string" && (POLICIES as readonly string[]).includes(value)) return value as Policy;
  throw new NeardupError("INVALID_INPUT", `policy must be one of ${POLICIES.join(", ")}, got ${JSON.stringify(value)}`, { field: "policy" });
}
