/**
 * The OpenAPI 3.1 description of the HTTP API, served at /openapi.json.
 * Tests validate real responses against these schemas (test/helpers/openapi.ts).
 */
import { PACKAGE_VERSION } from "../version.js";

const num = { type: "number" } as const;
const int = { type: "integer" } as const;
const str = { type: "string" } as const;
const nullable = (t: string) => ({ type: [t, "null"] });

/** An array of rows with exactly these fields. */
const rows = (properties: Record<string, unknown>) => ({ type: "array", items: { type: "object", required: Object.keys(properties), properties, additionalProperties: false } });

const error = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message"],
      properties: { code: str, message: str, field: str },
      additionalProperties: false,
    },
  },
};

const matchReport = {
  type: "object",
  required: ["id", "status", "duplicate", "distance", "similarity", "cosine", "edit_similarity", "char_cosine", "rule", "bucket"],
  properties: {
    id: str,
    status: { enum: ["original", "duplicate"] },
    duplicate: { type: "boolean" },
    distance: int,
    similarity: num,
    cosine: num,
    edit_similarity: nullable("number"),
    char_cosine: nullable("number"),
    rule: nullable("string"),
    bucket: str,
  },
  additionalProperties: false,
};

const indexResult = {
  type: "object",
  required: ["id", "status", "action", "duplicate_of", "distance", "similarity", "reason"],
  properties: {
    id: str,
    status: { enum: ["original", "duplicate"] },
    action: { enum: ["indexed", "skipped", "rejected"] },
    duplicate_of: nullable("string"),
    distance: nullable("integer"),
    similarity: nullable("number"),
    reason: nullable("string"),
  },
  additionalProperties: false,
};

const schemas = {
  Error: error,
  Fingerprint: {
    type: "object",
    required: ["simhash", "segments", "version", "length", "short", "terms"],
    properties: {
      simhash: { type: "string", pattern: "^[0-9a-f]{16}$" },
      segments: { type: "array", items: { type: "string", pattern: "^[0-9a-f]{4}$" }, minItems: 4, maxItems: 4 },
      version: str,
      length: int,
      short: { type: "boolean" },
      terms: { type: "array", items: { type: "object", required: ["term", "weight"], properties: { term: str, weight: num }, additionalProperties: false } },
    },
    additionalProperties: false,
  },
  Compare: {
    type: "object",
    required: ["hamming", "simhash", "tfidf_cosine", "tf_cosine", "char_cosine", "edit_distance", "edit_similarity", "edit_measure", "jaccard_bigrams", "jaccard_trigrams", "containment_trigrams", "verdict"],
    properties: {
      hamming: int,
      simhash: { type: "object", required: ["a", "b"], properties: { a: str, b: str } },
      tfidf_cosine: num,
      tf_cosine: num,
      char_cosine: num,
      edit_distance: { type: ["integer", "null"], description: "Levenshtein distance in code points; null when it is not found within the work of two texts of NEARDUP_COMPARE_EDIT_MAX_CHARS characters (long texts far apart)." },
      edit_similarity: { type: "number", description: "1 - distance / longer length; over the edit budget, the linear q-gram upper bound (see edit_measure)." },
      edit_measure: { enum: ["levenshtein", "qgram_bound"] },
      jaccard_bigrams: num,
      jaccard_trigrams: { type: "number", description: "Character 3-gram Jaccard: the measure of the `<bucket>.jaccard` rule." },
      containment_trigrams: { type: "number", description: "Character 3-gram containment, |A ∩ B| / min(|A|, |B|): the measure of the `<bucket>.contained` rule (a copy cut short or with a paragraph added)." },
      verdict: {
        type: "object",
        required: ["duplicate", "rule", "bucket", "vetoed"],
        properties: { duplicate: { type: "boolean" }, rule: nullable("string"), bucket: str, vetoed: { ...nullable("string"), description: "The veto that overruled a duplicate rule (e.g. `long.middle`: the texts share an opening and differ in the middle); null when none did." } },
      },
    },
    additionalProperties: false,
  },
  Check: {
    type: "object",
    required: ["status", "duplicate_of", "distance", "similarity", "reason", "matches", "matches_total", "candidates", "candidates_cut"],
    properties: {
      status: { enum: ["original", "duplicate"] },
      duplicate_of: nullable("string"),
      distance: nullable("integer"),
      similarity: nullable("number"),
      reason: nullable("string"),
      matches: { type: "array", items: { $ref: "#/components/schemas/Match" }, description: "The best `limit` duplicate matches: most similar first, then nearest, then oldest." },
      matches_total: { ...int, description: "How many stored documents the rules call duplicates of the text (the verdict weighs them all); `matches` lists the first `limit`." },
      candidates: int,
      candidates_cut: {
        type: "boolean",
        description: "True when the candidate lookup reached its bound (NEARDUP_MAX_CANDIDATES x NEARDUP_MAX_CANDIDATE_PAGES hits) and documents sharing the fewest keys were not read.",
      },
    },
    additionalProperties: false,
  },
  Match: matchReport,
  IndexResult: indexResult,
  Rejected: {
    type: "object",
    required: ["error", "result"],
    properties: { error: error.properties.error, result: { $ref: "#/components/schemas/IndexResult" } },
    additionalProperties: false,
  },
  Bulk: {
    type: "object",
    required: ["took", "errors", "items"],
    properties: {
      took: int,
      errors: { type: "boolean" },
      items: {
        type: "array",
        items: {
          oneOf: [
            { type: "object", required: ["status", "result"], properties: { status: int, result: { $ref: "#/components/schemas/IndexResult" } }, additionalProperties: false },
            { type: "object", required: ["status", "error"], properties: { status: int, error: error.properties.error }, additionalProperties: false },
          ],
        },
      },
    },
    additionalProperties: false,
  },
  Search: {
    type: "object",
    required: ["matches", "candidates", "radius"],
    properties: { matches: { type: "array", items: { $ref: "#/components/schemas/Match" } }, candidates: int, radius: int },
    additionalProperties: false,
  },
  Cluster: {
    type: "object",
    required: ["original", "members"],
    properties: {
      original: str,
      members: {
        type: "array",
        items: {
          type: "object",
          required: ["id", "status", "distance", "similarity"],
          properties: { id: str, status: { enum: ["original", "duplicate"] }, distance: nullable("integer"), similarity: nullable("number") },
          additionalProperties: false,
        },
      },
    },
    additionalProperties: false,
  },
  Health: {
    type: "object",
    required: ["status"],
    properties: {
      status: str,
      reason: str,
      lease: {
        type: "object",
        description: "/readyz with the writer lease on: what the API index's lease lets this sidecar do with writes now (docs/operations.md).",
        properties: { index: str, state: { type: "string", enum: ["held", "taking_over", "forwarding", "waiting", "unknown"] }, holder_url: str, seconds_left: { type: "integer", minimum: 0 } },
      },
    },
  },
  Stats: {
    type: "object",
    required: ["from", "to", "interval", "by", "by_field", "total", "duplicates", "rate", "panels"],
    properties: {
      from: { type: "string", format: "date-time" },
      to: { type: "string", format: "date-time" },
      interval: str,
      by: str,
      by_field: { ...str, description: "The field aggregated: by, or its .keyword subfield when by is a text field." },
      total: int,
      duplicates: int,
      rate: nullable("number"),
      panels: {
        type: "object",
        description: "Rows of each dashboard panel (src/dashboards/definition.ts), the same rows the Kibana and OpenSearch Dashboards specs compute.",
        required: ["rate_over_time", "volume_by_status", "by_rule", "distance", "similarity", "top_clusters", "rate_by_field", "recent_clusters"],
        properties: {
          rate_over_time: rows({ time: int, total: int, duplicates: int, rate: nullable("number") }),
          volume_by_status: rows({ time: int, status: { enum: ["original", "duplicate"] }, count: int }),
          by_rule: rows({ rule: str, count: int }),
          distance: rows({ distance: int, count: int }),
          similarity: rows({ similarity: num, count: int }),
          top_clusters: rows({ original: str, duplicates: int }),
          rate_by_field: rows({ value: str, total: int, duplicates: int, rate: nullable("number") }),
          recent_clusters: rows({ original: str, duplicates: int, latest: nullable("number") }),
        },
        additionalProperties: false,
      },
    },
    additionalProperties: false,
  },
};

const ref = (name: keyof typeof schemas) => ({ "application/json": { schema: { $ref: `#/components/schemas/${name}` } } });
const errorResponse = (description: string) => ({ description, content: ref("Error") });
const retryAfter = { "Retry-After": { description: "Seconds to wait before retrying.", schema: { type: "integer", minimum: 1 } } };
/** Statuses every /v1 operation can answer (src/server/errors.ts maps codes to these). */
const errors = {
  "400": errorResponse("Invalid input (body, field, path encoding, time): the error names the field and the problem."),
  "401": { ...errorResponse("No API key, or not a valid one (when keys are configured)."), headers: { "WWW-Authenticate": { schema: str } } },
  "403": errorResponse("The API key lacks the scope this endpoint needs."),
  "405": { ...errorResponse("Method not allowed on this path; the Allow header lists the allowed ones."), headers: { Allow: { schema: str } } },
  "408": errorResponse("The request body stalled: no byte for NEARDUP_BODY_TIMEOUT_MS (code REQUEST_TIMEOUT); the connection is closed and nothing of the request was done."),
  "413": errorResponse("Body or text larger than the limit."),
  "415": errorResponse("Content-Type is not application/json (or NDJSON for bulk), or the Content-Encoding or charset is not supported."),
  "429": { ...errorResponse("A rate or concurrency limit was hit; retry after the Retry-After header."), headers: retryAfter },
};
const engineErrors = {
  "502": errorResponse("The engine answered with an error (its type and reason, credentials removed)."),
  "503": { ...errorResponse("Engine unreachable, overloaded, not ready, or its circuit breaker is open; retry after the Retry-After header."), headers: retryAfter },
};
/**
 * Characters JavaScript's String.prototype.trim removes: a text must contain
 * one other character (white-space-only text is refused). Spelled out rather
 * than `\S` because other regex engines (Python's, used by schemathesis)
 * disagree on what white space is.
 */
const notBlank = "[^\\t\\n\\u000b\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]";
const text = { type: "string", minLength: 1, pattern: notBlank, description: "Not empty or white space only; at most NEARDUP_MAX_TEXT_CHARS UTF-16 code units (413 beyond)." };
const id = { type: "string", minLength: 1, maxLength: 512, description: "At most 512 characters and 512 UTF-8 bytes." };
const time = {
  oneOf: [
    { type: "string", format: "date-time", description: "RFC 3339 date-time (2026-01-02T03:04:05Z) or full-date; not before 1970." },
    { type: "integer", minimum: 0, description: "Epoch milliseconds." },
  ],
  description: "Default now. At most NEARDUP_TIME_SKEW_MS (5 minutes) in the future.",
};
const docBody = {
  type: "object",
  required: ["text"],
  properties: { id: { ...id, pattern: "^[^_]", description: "Does not start with an underscore; at most 512 bytes." }, text, fields: { type: "object", description: "The client's own data, stored beside the text: at most 8 levels, 1,000 keys (1-256 characters, not starting with _), string values up to 8,192 bytes." }, time },
  additionalProperties: false,
};
/** A bulk item is validated alone (an invalid one gets its own error in the answer), so the body schema takes any value per item. */
const bulkItem = { description: "A document: the schema of POST /v1/documents. Validated per item." };
const policyParam = { name: "policy", in: "query", schema: { enum: ["mark", "skip", "reject"] }, description: "What to do with a duplicate. Default: the service's configured policy (mark)." };
const json = (schema: unknown) => ({ required: true, content: { "application/json": { schema } } });
const open = { security: [] as never[] };

export const openApiDocument = {
  openapi: "3.1.0",
  info: {
    title: "neardup",
    version: PACKAGE_VERSION,
    description:
      "Near-duplicate text detection for Elasticsearch and OpenSearch. /v1 needs an API key (`Authorization: ApiKey <key>` or `Bearer <key>`) when keys are configured; /livez, /readyz, /metrics and /openapi.json are always open. Writes must be application/json (bulk: also application/x-ndjson).",
  },
  security: [{ apiKey: [] }, { bearer: [] }],
  paths: {
    "/v1/fingerprint": {
      post: {
        summary: "Simhash, segments and top weighted terms of a text (no engine needed).",
        requestBody: json({ type: "object", required: ["text"], properties: { text, top: { type: "integer", minimum: 0, maximum: 100 } }, additionalProperties: false }),
        responses: { "200": { description: "The fingerprint.", content: ref("Fingerprint") }, ...errors },
      },
    },
    "/v1/compare": {
      post: {
        summary: "Every pairwise measure between two texts (exact edit distance within the work of two NEARDUP_COMPARE_EDIT_MAX_CHARS-long texts, which also covers long near-duplicates; a linear bound beyond).",
        requestBody: json({ type: "object", required: ["a", "b"], properties: { a: text, b: text }, additionalProperties: false }),
        responses: { "200": { description: "The measures and the verdict.", content: ref("Compare") }, ...errors },
      },
    },
    "/v1/check": {
      post: {
        summary: "The verdict and ranked matches for a text; nothing is written.",
        description: "Reads the window as this sidecar sees it: its own writes at once; on a sidecar that forwards writes to the writer-lease holder (several sidecars), its forwarded writes once the engine shows them (a refresh interval, 1 s by default). Read through the holder for read-your-writes (docs/dedup.md).",
        requestBody: json({ type: "object", required: ["text"], properties: { text, id, time, limit: { type: "integer", minimum: 1, maximum: 1000, description: "Most matches listed (default: all); `matches_total` counts them all." } }, additionalProperties: false }),
        responses: { "200": { description: "The verdict.", content: ref("Check") }, ...errors, ...engineErrors },
      },
    },
    "/v1/documents": {
      post: {
        summary: "Index a document with dedup.",
        parameters: [policyParam],
        requestBody: json(docBody),
        responses: {
          "201": { description: "Indexed (original, or duplicate under policy mark).", content: ref("IndexResult") },
          "200": { description: "A duplicate not indexed (policy skip).", content: ref("IndexResult") },
          "409": { description: "A duplicate refused (policy reject); names the original.", content: ref("Rejected") },
          ...errors,
          ...engineErrors,
        },
      },
    },
    "/v1/documents/_bulk": {
      post: {
        summary: "Index many documents with dedup; per-item results in order.",
        parameters: [policyParam],
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                oneOf: [
                  { type: "array", items: bulkItem, minItems: 1, maxItems: 1000 },
                  { type: "object", required: ["items"], properties: { items: { type: "array", items: bulkItem, minItems: 1, maxItems: 1000 } }, additionalProperties: false },
                ],
                description: "At most NEARDUP_MAX_BULK_ITEMS (1,000) documents; an invalid item fails alone (its own 400 in the answer, the others are indexed), on a JSON array as on NDJSON: a line that is not JSON, a key twice in one object, a number JSON cannot carry (field `items[1].text`).",
              },
            },
            "application/x-ndjson": { schema: { type: "string", minLength: 1, pattern: notBlank, description: "One document JSON object a line." } },
          },
        },
        responses: { "200": { description: "Per-item results; one bad item does not fail the others.", content: ref("Bulk") }, ...errors, ...engineErrors },
      },
    },
    "/v1/search": {
      post: {
        summary: "Near-duplicates of a text or a stored document, ranked, each with why.",
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                type: "object",
                properties: {
                  text,
                  id,
                  radius: { type: "integer", minimum: 0, maximum: 16 },
                  min_similarity: { type: "number", minimum: 0, maximum: 1 },
                  limit: { type: "integer", minimum: 1, maximum: 1000 },
                },
                oneOf: [{ required: ["text"], not: { required: ["id"] } }, { required: ["id"], not: { required: ["text"] } }],
                additionalProperties: false,
                description: "Exactly one of text or id.",
              },
            },
          },
        },
        responses: { "200": { description: "Ranked matches.", content: ref("Search") }, "404": { description: "No document with that id.", content: ref("Error") }, ...errors, ...engineErrors },
      },
    },
    "/v1/documents/{id}/duplicates": {
      get: {
        summary: "The cluster of a document: its original and every duplicate marked of it, oldest first.",
        description: "Duplicates this sidecar wrote are listed at once; those written through another sidecar once the index refreshes (about a second).",
        parameters: [{ name: "id", in: "path", required: true, schema: id }],
        responses: { "200": { description: "The cluster.", content: ref("Cluster") }, "404": { description: "No document with that id.", content: ref("Error") }, ...errors, ...engineErrors },
      },
    },
    "/v1/stats": {
      get: {
        summary: "Duplicate-rate statistics over the dedup window or a range: the dashboard panels' aggregations, computed by the engine.",
        parameters: [
          { name: "from", in: "query", schema: { type: "string", minLength: 1 }, description: "Start, ISO-8601 or epoch milliseconds. Default: to minus the dedup window." },
          { name: "to", in: "query", schema: { type: "string", minLength: 1 }, description: "End, ISO-8601 or epoch milliseconds. Default: now." },
          { name: "interval", in: "query", schema: { type: "string", pattern: "^[1-9][0-9]{0,5}(ms|s|m|h|d)$" }, description: "Date histogram interval, e.g. 1h. Default: the smallest of 1m..365d giving at most 60 buckets; at most 2000 buckets." },
          { name: "by", in: "query", schema: str, description: "User field for the rate-by panel. Default fields.source (its .keyword subfield when it is a text field). A field named here that the index does not map, or a text field with no .keyword subfield, is a 400 naming by; the default is never refused (its rows are empty when unmapped)." },
          { name: "top", in: "query", schema: { type: "integer", minimum: 1, maximum: 100 }, description: "Size of the top-N lists. Default 10." },
        ],
        responses: { "200": { description: "The statistics.", content: ref("Stats") }, ...errors, ...engineErrors },
      },
    },
    "/livez": { get: { ...open, summary: "Liveness (no key needed).", responses: { "200": { description: "Alive.", content: ref("Health") }, "405": errors["405"] } } },
    "/readyz": {
      get: {
        ...open,
        summary: "Readiness (no key needed): the cached result of the engine health probe, refreshed every NEARDUP_ENGINE_PROBE_MS (the API index red is not ready); with the writer lease on, 503 until this sidecar has once been able to take writes, and the lease's state.",
        responses: { "200": { description: "Ready.", content: ref("Health") }, "503": { description: "Not ready; the reason says why (credentials removed).", content: ref("Health") }, "405": errors["405"] },
      },
    },
    "/metrics": { get: { ...open, summary: "Prometheus metrics (no key needed).", responses: { "200": { description: "Text exposition format.", content: { "text/plain": { schema: str } } }, "405": errors["405"] } } },
    "/openapi.json": { get: { ...open, summary: "This document (no key needed).", responses: { "200": { description: "The OpenAPI 3.1 document.", content: { "application/json": { schema: { type: "object" } } } }, "405": errors["405"] } } },
  },
  components: {
    schemas,
    securitySchemes: {
      apiKey: { type: "apiKey", in: "header", name: "Authorization", description: "`ApiKey <key>`." },
      bearer: { type: "http", scheme: "bearer", description: "`Bearer <key>`." },
    },
  },
} as const;
