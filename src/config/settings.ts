import { z } from "zod";
import { NeardupError } from "../core/errors.js";
import { redactText } from "../engine/errors.js";

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
    schema: z
      .string()
      .url()
      .refine((u) => /^https?:\/\//i.test(u), "must be an http or https URL")
      .or(z.literal("")),
    doc: "Elasticsearch or OpenSearch base URL. Empty: start the embedded local OpenSearch (needs Java 17+ and Maven).",
  },
  NEARDUP_ENGINE_USERNAME: { default: "", schema: z.string(), doc: "Basic auth user name for the engine." },
  NEARDUP_ENGINE_PASSWORD: { default: "", schema: z.string(), doc: "Basic auth password for the engine (never logged)." },
  NEARDUP_ENGINE_API_KEY: { default: "", schema: z.string(), doc: "Elasticsearch API key (base64 id:key), sent as `Authorization: ApiKey`; never logged." },
  NEARDUP_ENGINE_CA_FILE: { default: "", schema: z.string(), doc: "Path to a PEM CA certificate for https engine URLs." },
  NEARDUP_ENGINE_TIMEOUT_MS: { default: "30000", schema: z.coerce.number().int().positive(), doc: "Engine timeout in milliseconds, per attempt: the engine client tries a call that times out or loses its connection up to twice more, so one engine call can take up to three times this." },
  NEARDUP_INDEX: { default: "neardup-documents", schema: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, "lowercase letters, digits, . _ -"), doc: "Index the HTTP API writes documents to." },
  NEARDUP_INDEX_ROLLOVER: {
    default: "false",
    schema: z.enum(["true", "false"]).transform((v) => v === "true"),
    doc: "Time-based indices: NEARDUP_INDEX is a write alias over `<index>-000001`, `-000002`, ... rolled over and deleted by ILM/ISM; reads cover every index behind it.",
  },
  NEARDUP_TEXT_FIELD: { default: "text", schema: z.string().min(1).refine((f) => !f.startsWith("neardup"), "must not be under neardup.*"), doc: "Source field holding the document text." },
  NEARDUP_POLICY: { default: "mark", schema: z.enum(["mark", "skip", "reject"]), doc: "What indexing does with a near-duplicate when the request names no policy: mark, skip or reject." },
  NEARDUP_WINDOW_HOURS: { default: "48", schema: z.coerce.number().positive(), doc: "The dedup window: documents further apart than this (by their times, either way) are not compared." },
  NEARDUP_RECENT_WINDOW_MS: { default: "30000", schema: z.coerce.number().int().positive(), doc: "How long a written document stays in the in-memory recent-writes window after the engine is known to show it (a refresh that started after the acknowledgement has ended); must exceed the refresh interval (checked at start)." },
  NEARDUP_UNKNOWN_WRITE_HOLD_MS: {
    default: "600000",
    schema: z.coerce.number().int().positive(),
    doc: "How long a write whose outcome is unknown (the engine timed out, or the connection was lost after the request went out) stays in the recent-writes window while the engine's search does not show it; shown, it leaves as a written document does.",
  },
  NEARDUP_RECENT_WINDOW_BYTES: {
    default: "268435456",
    schema: z.coerce.number().int().min(1_048_576),
    doc: "Memory budget of the recent-writes windows in bytes, the API index's and every `_bulk` proxy index's together; while they are full, writes answer 503 with Retry-After (a window is never cut short).",
  },
  NEARDUP_MAX_CANDIDATES: { default: "1000", schema: z.coerce.number().int().positive(), doc: "Hits per engine page of a candidate lookup." },
  NEARDUP_MAX_CANDIDATE_PAGES: {
    default: "10",
    schema: z.coerce.number().int().positive(),
    doc: "Pages of `NEARDUP_MAX_CANDIDATES` hits a candidate lookup reads before it stops (a write's lookup read oldest first also reads its shorter first pages, docs/dedup.md); a lookup cut short says so (`candidates_cut` in /v1/check, metric `neardup_candidates_cut_total`, a warning).",
  },
  NEARDUP_LSH_KEY_BUDGET: {
    default: "200",
    schema: z.coerce.number().int().min(0),
    doc: "Engine documents a lookup may draw through LSH band keys shared alone: keys are taken alone from the rarest up while the documents holding them (index term statistics) sum to at most this; commoner keys reach a document only when it shares two of them. 0: every key alone.",
  },
  NEARDUP_MIRROR_DOCS: {
    default: "0",
    schema: z.coerce.number().int().min(0),
    doc: "Most documents of the window a sidecar holds in memory to answer candidate lookups without the engine (the window mirror, docs/operations.md): about 3 KB a document of 300 characters, mostly off the JavaScript heap. It follows the engine by sequence number, so documents written by others reach it too; past this many the oldest by time leave it, and lookups reaching back to them ask the engine. Only for one concrete index of one primary shard. 0: off, every lookup asks the engine.",
  },
  NEARDUP_MAX_BULK_ITEMS: { default: "1000", schema: z.coerce.number().int().positive(), doc: "Most documents in one bulk request." },
  NEARDUP_PIPELINE_CHUNK: {
    default: "100",
    schema: z.coerce.number().int().positive(),
    doc: "Documents a write request decides at a time: a longer bulk runs as a pipeline of chunks, the next analysed and looked up while one is decided and written.",
  },
  NEARDUP_BODY_LIMIT: { default: "10mb", schema: z.string().regex(/^\d+(b|kb|mb)$/, "a size like 512kb or 10mb"), doc: "Largest accepted request body." },
  NEARDUP_MAX_TEXT_CHARS: { default: "1000000", schema: z.coerce.number().int().positive(), doc: "Largest accepted text, in UTF-16 code units." },
  NEARDUP_IDF_FILE: {
    default: "",
    schema: z.string(),
    doc: "IDF table written by `neardup idf fit` (read at start). Empty: jieba's bundled table. Fingerprints then carry the table's identity in `neardup.version` (`nd4+idf.<8 hex>`).",
  },
  NEARDUP_VERDICT_FILE: {
    default: "",
    schema: z.string(),
    doc: "Verdict options as JSON (`buckets`, `middleVeto`, `recordVeto`, `sheetVeto`; docs/fingerprint-spec.md §8; the last bucket's `maxLength` written `null`), read at start: for example a bucket's `minContainment` set to null turns the `.contained` rule off there. Empty: the defaults. Sidecars sharing an index must use the same.",
  },
  NEARDUP_API_KEYS: {
    default: "",
    schema: z.string(),
    doc: "API keys, comma-separated `name:scopes:sha256hex` (scopes `read`, `write`, `admin` joined by `+`; the hash is the SHA-256 of the key in hex). Empty: no keys.",
  },
  NEARDUP_API_KEYS_FILE: { default: "", schema: z.string(), doc: "File of API keys, one `name:scopes:sha256hex` a line (`#` comments); added to NEARDUP_API_KEYS." },
  NEARDUP_ALLOW_UNAUTHENTICATED: {
    default: "false",
    schema: z.enum(["true", "false"]),
    doc: "Allow serving without API keys on an address other than loopback (refused at start-up otherwise).",
  },
  NEARDUP_TLS_CERT_FILE: { default: "", schema: z.string(), doc: "PEM certificate (chain) file: serve HTTPS. Needs NEARDUP_TLS_KEY_FILE." },
  NEARDUP_TLS_KEY_FILE: { default: "", schema: z.string(), doc: "PEM private key file for NEARDUP_TLS_CERT_FILE." },
  NEARDUP_CORS_ORIGINS: { default: "", schema: z.string(), doc: "Origins allowed to call the API from a browser, comma-separated (`*` for any). Empty: no CORS headers, so browsers refuse cross-site reads." },
  NEARDUP_RATE_LIMIT_RPS: {
    default: "1000",
    schema: z.coerce.number().min(0),
    doc: "Requests per second per API key on /v1 (without keys there is no per-caller limit; the concurrency limits still apply); 0 turns it off. Over it: 429 with Retry-After.",
  },
  NEARDUP_RATE_LIMIT_BURST: { default: "2000", schema: z.coerce.number().int().min(1), doc: "Requests a key may make at once above its rate (token bucket size)." },
  NEARDUP_MAX_CONCURRENT: { default: "64", schema: z.coerce.number().int().min(1), doc: "Most /v1 requests being worked on at once; more get 429 with Retry-After. A request with a body takes its slot once the body has arrived (a body still arriving holds none)." },
  NEARDUP_MAX_INFLIGHT_BODY: {
    default: "64mb",
    schema: z.string().regex(/^\d+(b|kb|mb)$/, "a size like 512kb or 64mb"),
    doc: "Most request body bytes in flight at once, for the API and (separately, decoded bodies counted too) for the _bulk proxy (counted as they arrive); the request whose bytes would pass it gets 429 with Retry-After (on the proxy it first waits up to 10 s, its socket paused, for others to finish).",
  },
  NEARDUP_COMPARE_EDIT_MAX_CHARS: {
    default: "4000",
    schema: z.coerce.number().int().min(1),
    doc: "/v1/compare computes the exact edit distance within the work of two texts of this many characters: for any pair that short, and for longer pairs whose distance fits the band that work pays for (N x N / length - 33 edits: long near-duplicates). Otherwise edit_similarity is estimated from character bigrams (linear time).",
  },
  NEARDUP_BODY_TIMEOUT_MS: {
    default: "20000",
    schema: z.coerce.number().int().min(1),
    doc: "Longest a request body (API and _bulk proxy) may go without a byte, in milliseconds; then 408 and the connection closes. A /v1 request takes its NEARDUP_MAX_CONCURRENT slot only once its body has arrived, so stalled or trickling bodies hold no slot.",
  },
  NEARDUP_TIME_SKEW_MS: { default: "300000", schema: z.coerce.number().int().min(0), doc: "How far in the future a document time may be (clock skew), in milliseconds; later times are refused." },
  NEARDUP_ENGINE_PROBE_MS: { default: "5000", schema: z.coerce.number().int().positive(), doc: "Interval of the engine health probe behind /readyz, in milliseconds." },
  NEARDUP_BREAKER_FAILURES: { default: "5", schema: z.coerce.number().int().positive(), doc: "Consecutive engine-unavailable failures that open the circuit breaker (engine calls then fail fast with 503)." },
  NEARDUP_BREAKER_OPEN_MS: { default: "10000", schema: z.coerce.number().int().positive(), doc: "How long the circuit breaker stays open before one trial call, in milliseconds." },
  NEARDUP_ENGINE_RESTART_MAX_MS: { default: "60000", schema: z.coerce.number().int().positive(), doc: "Longest pause between restarts of the embedded engine after it dies (the backoff doubles from 1 s up to this)." },
  NEARDUP_SHUTDOWN_TIMEOUT_MS: { default: "15000", schema: z.coerce.number().int().positive(), doc: "On SIGTERM, how long in-flight requests may finish before the server closes their connections." },
  NEARDUP_WORKERS: {
    default: "auto",
    schema: z.literal("auto").or(z.coerce.number().int().min(0).max(256)),
    doc: "Threads of the one worker pool that analyzes texts (normalize, segment, fingerprint) and runs large comparisons; `auto` = one per core. With 2 or more, write requests are analyzed on the pool; with 0 or 1, small work runs in the request thread and only work on more than 3,000 characters goes to one pool thread (started on first use), so a big text never blocks the event loop. Each worker loads its own dictionaries (about 0.5 GB).",
  },
  NEARDUP_LOCAL_PORT: { default: "9200", schema: z.coerce.number().int().min(0).max(65535), doc: "HTTP port of the embedded OpenSearch (0 picks a free one)." },
  NEARDUP_LOCAL_DATA: { default: ".neardup/opensearch-data", schema: z.string().min(1), doc: "Data folder of the embedded OpenSearch." },
  NEARDUP_LOCAL_HEAP: {
    default: "1g",
    schema: z.string().regex(/^\d+[kmgKMG]?$/, "must be a JVM heap size like 512m or 2g"),
    doc: "JVM heap (-Xms and -Xmx) of the embedded OpenSearch, like 512m or 2g.",
  },
  NEARDUP_WRITER_LEASE: {
    default: "on",
    schema: z.enum(["on", "off"]),
    doc: "on: sidecars sharing an index elect one writer through a lease document in the engine and forward writes to it (first one wins across sidecars); off: only for a single sidecar (one that finds another sidecar holding the lease of its documents refuses to start). Every sidecar of the same documents needs the same `NEARDUP_INDEX`: one naming them another way (an alias of the index, the index behind the alias) refuses to start while another holds their lease (docs/dedup.md, Limits).",
  },
  NEARDUP_LEASE_TTL_MS: { default: "10000", schema: z.coerce.number().int().min(3000), doc: "Writer lease time to live: how long a dead writer blocks writes before another sidecar takes over." },
  NEARDUP_ADVERTISE_URL: { default: "", schema: z.string().url().or(z.literal("")), doc: "URL other sidecars use to forward writes to this one. Empty: this sidecar's own URL (https with NEARDUP_TLS_CERT_FILE, else http; NEARDUP_HOST:port)." },
  NEARDUP_PEER_ANALYSES: {
    default: "on",
    schema: z.enum(["on", "off"]),
    doc: "on: a sidecar that forwards writes to the index's lease holder (its API or its proxy) sends its own analyses of the texts with them, so the holder does not analyse them again (each sidecar adds analysis capacity); off: the holder analyses every text.",
  },
  NEARDUP_PEER_API_KEY: { default: "", schema: z.string(), doc: "Bearer token this sidecar sends when it forwards writes to the lease holder (never logged). Needed with API keys on: a key with write scope." },
  NEARDUP_PROXY_PORT: {
    default: "",
    schema: z.literal("").or(z.coerce.number().int().min(0).max(65535)),
    doc: "Port of the Elasticsearch-compatible `_bulk` proxy (docs/proxy.md); empty: no proxy, 0 picks a free one.",
  },
  NEARDUP_PROXY_INDICES: {
    default: "",
    schema: z.string(),
    doc: "Indices the proxy deduplicates, as `pattern:textField[:policy]` rules separated by commas, e.g. `logs-*:message,articles:body:reject`; other indices pass through.",
  },
  NEARDUP_PROXY_ADVERTISE_URL: {
    default: "",
    schema: z.string().url().or(z.literal("")),
    doc: "URL other sidecars' proxies use to send this one their `_bulk` decisions when it holds an index's writer lease. Empty: http://NEARDUP_HOST:proxy port.",
  },
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
      const shown = /PASSWORD|API_KEY/.test(name) ? "<redacted>" : JSON.stringify(redactText(value));
      throw new NeardupError("INVALID_CONFIG", `${name}=${shown} is invalid: ${problem}`, { field: name });
    }
    out[name] = result.data;
  }
  return out as Parsed;
}
