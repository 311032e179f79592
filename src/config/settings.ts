import { z } from "zod";
import { NeardupError } from "../core/errors.js";

/**
 * Every setting neardup reads, in one table: environment variable, default,
 * meaning and validation. The README's configuration table lists exactly
 * these (a unit test checks it), and only `src/config/env.ts` reads them.
 */
export const SETTINGS = {
  NEARDUP_HOST: { default: "127.0.0.1", schema: z.string().min(1), doc: "Address the HTTP server binds to." },
  NEARDUP_PORT: { default: "8080", schema: z.coerce.number().int().min(0).max(65535), doc: "HTTP port (0 picks a free one)." },
  NEARDUP_ENGINE_URL: {
    default: "",
    schema: z.string().url().or(z.literal("")),
    doc: "Elasticsearch or OpenSearch base URL. Empty: start the embedded local OpenSearch (needs Java 17+ and Maven).",
  },
  NEARDUP_ENGINE_USERNAME: { default: "", schema: z.string(), doc: "Basic auth user name for the engine." },
  NEARDUP_ENGINE_PASSWORD: { default: "", schema: z.string(), doc: "Basic auth password for the engine (never logged)." },
  NEARDUP_ENGINE_API_KEY: { default: "", schema: z.string(), doc: "Elasticsearch API key (base64 id:key), sent as `Authorization: ApiKey`; never logged." },
  NEARDUP_ENGINE_CA_FILE: { default: "", schema: z.string(), doc: "Path to a PEM CA certificate for https engine URLs." },
  NEARDUP_ENGINE_TIMEOUT_MS: { default: "30000", schema: z.coerce.number().int().positive(), doc: "Per-request engine timeout in milliseconds." },
  NEARDUP_INDEX: { default: "neardup-documents", schema: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, "lowercase letters, digits, . _ -"), doc: "Index the HTTP API writes documents to." },
  NEARDUP_INDEX_ROLLOVER: {
    default: "false",
    schema: z.enum(["true", "false"]).transform((v) => v === "true"),
    doc: "Time-based indices: NEARDUP_INDEX is a write alias over `<index>-000001`, `-000002`, ... rolled over and deleted by ILM/ISM; reads cover every index behind it.",
  },
  NEARDUP_TEXT_FIELD: { default: "text", schema: z.string().min(1).refine((f) => !f.startsWith("neardup"), "must not be under neardup.*"), doc: "Source field holding the document text." },
  NEARDUP_POLICY: { default: "mark", schema: z.enum(["mark", "skip", "reject"]), doc: "What indexing does with a near-duplicate when the request names no policy: mark, skip or reject." },
  NEARDUP_WINDOW_HOURS: { default: "48", schema: z.coerce.number().positive(), doc: "The dedup window: documents older than this (by their time) are not compared." },
  NEARDUP_RECENT_WINDOW_MS: { default: "30000", schema: z.coerce.number().int().positive(), doc: "How long a written document stays in the in-memory recent-writes window; must exceed the index refresh interval." },
  NEARDUP_MAX_CANDIDATES: { default: "1000", schema: z.coerce.number().int().positive(), doc: "Hits per engine page of a candidate lookup." },
  NEARDUP_MAX_CANDIDATE_PAGES: {
    default: "10",
    schema: z.coerce.number().int().positive(),
    doc: "Pages a candidate lookup reads before it stops; a lookup cut short says so (`candidates_cut` in /v1/check, metric `neardup_candidates_cut_total`, a warning).",
  },
  NEARDUP_MAX_BULK_ITEMS: { default: "1000", schema: z.coerce.number().int().positive(), doc: "Most documents in one bulk request." },
  NEARDUP_BODY_LIMIT: { default: "10mb", schema: z.string().regex(/^\d+(b|kb|mb)$/, "a size like 512kb or 10mb"), doc: "Largest accepted request body." },
  NEARDUP_MAX_TEXT_CHARS: { default: "1000000", schema: z.coerce.number().int().positive(), doc: "Largest accepted text, in UTF-16 code units." },
  NEARDUP_LOCAL_PORT: { default: "9200", schema: z.coerce.number().int().min(0).max(65535), doc: "HTTP port of the embedded OpenSearch (0 picks a free one)." },
  NEARDUP_LOCAL_DATA: { default: ".neardup/opensearch-data", schema: z.string().min(1), doc: "Data folder of the embedded OpenSearch." },
  NEARDUP_LOG_LEVEL: { default: "info", schema: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]), doc: "Log level (pino)." },
} as const;

export type SettingName = keyof typeof SETTINGS;

type Parsed = { [K in SettingName]: z.infer<(typeof SETTINGS)[K]["schema"]> };

/** Validates raw string settings (unset ones take their default). Errors name the variable and the problem. */
export function parseSettings(raw: Partial<Record<string, string | undefined>>): Parsed {
  const out: Record<string, unknown> = {};
  for (const [name, setting] of Object.entries(SETTINGS)) {
    const value = raw[name] ?? setting.default;
    const result = setting.schema.safeParse(value);
    if (!result.success) {
      const problem = result.error.issues[0]?.message ?? "invalid value";
      const shown = /PASSWORD|API_KEY/.test(name) ? "<redacted>" : JSON.stringify(value);
      throw new NeardupError("INVALID_CONFIG", `${name}=${shown} is invalid: ${problem}`, { field: name });
    }
    out[name] = result.data;
  }
  return out as Parsed;
}
