/**
 * The OpenAPI 3.1 description of the HTTP API, served at /openapi.json.
 * Tests validate real responses against these schemas (test/helpers/openapi.ts).
 */
const num = { type: "number" } as const;
const int = { type: "integer" } as const;
const str = { type: "string" } as const;
const nullable = (t: string) => ({ type: [t, "null"] });

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
    required: ["hamming", "simhash", "tfidf_cosine", "tf_cosine", "char_cosine", "edit_distance", "edit_similarity", "jaccard_bigrams", "verdict"],
    properties: {
      hamming: int,
      simhash: { type: "object", required: ["a", "b"], properties: { a: str, b: str } },
      tfidf_cosine: num,
      tf_cosine: num,
      char_cosine: num,
      edit_distance: int,
      edit_similarity: num,
      jaccard_bigrams: num,
      verdict: { type: "object", required: ["duplicate", "rule", "bucket"], properties: { duplicate: { type: "boolean" }, rule: nullable("string"), bucket: str } },
    },
    additionalProperties: false,
  },
  Check: {
    type: "object",
    required: ["status", "duplicate_of", "distance", "similarity", "reason", "matches", "candidates", "candidates_cut"],
    properties: {
      status: { enum: ["original", "duplicate"] },
      duplicate_of: nullable("string"),
      distance: nullable("integer"),
      similarity: nullable("number"),
      reason: nullable("string"),
      matches: { type: "array", items: { $ref: "#/components/schemas/Match" } },
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
  Health: { type: "object", required: ["status"], properties: { status: str, reason: str } },
};

const ref = (name: keyof typeof schemas) => ({ "application/json": { schema: { $ref: `#/components/schemas/${name}` } } });
const errors = {
  "400": { description: "Invalid input: the error names the field and the problem.", content: ref("Error") },
  "413": { description: "Body or text larger than the limit.", content: ref("Error") },
  "503": { description: "Engine unreachable, overloaded or not ready; retry after the Retry-After header.", content: ref("Error") },
};
const docBody = {
  type: "object",
  required: ["text"],
  properties: { id: str, text: str, fields: { type: "object" }, time: { oneOf: [str, num], description: "ISO-8601 date or epoch milliseconds; default now." } },
  additionalProperties: false,
};
const policyParam = { name: "policy", in: "query", schema: { enum: ["mark", "skip", "reject"] }, description: "What to do with a duplicate. Default: the service's configured policy (mark)." };

export const openApiDocument = {
  openapi: "3.1.0",
  info: { title: "neardup", version: "0.1.0", description: "Near-duplicate text detection for Elasticsearch and OpenSearch." },
  paths: {
    "/v1/fingerprint": {
      post: {
        summary: "Simhash, segments and top weighted terms of a text (no engine needed).",
        requestBody: { required: true, content: { "application/json": { schema: { type: "object", required: ["text"], properties: { text: str, top: int }, additionalProperties: false } } } },
        responses: { "200": { description: "The fingerprint.", content: ref("Fingerprint") }, ...errors },
      },
    },
    "/v1/compare": {
      post: {
        summary: "Every pairwise measure between two texts.",
        requestBody: { required: true, content: { "application/json": { schema: { type: "object", required: ["a", "b"], properties: { a: str, b: str }, additionalProperties: false } } } },
        responses: { "200": { description: "The measures and the verdict.", content: ref("Compare") }, ...errors },
      },
    },
    "/v1/check": {
      post: {
        summary: "The verdict and ranked matches for a text; nothing is written.",
        requestBody: { required: true, content: { "application/json": { schema: { type: "object", required: ["text"], properties: { text: str, id: str, time: { oneOf: [str, num] } }, additionalProperties: false } } } },
        responses: { "200": { description: "The verdict.", content: ref("Check") }, ...errors },
      },
    },
    "/v1/documents": {
      post: {
        summary: "Index a document with dedup.",
        parameters: [policyParam],
        requestBody: { required: true, content: { "application/json": { schema: docBody } } },
        responses: {
          "201": { description: "Indexed (original, or duplicate under policy mark).", content: ref("IndexResult") },
          "200": { description: "A duplicate not indexed (policy skip).", content: ref("IndexResult") },
          "409": { description: "A duplicate refused (policy reject); names the original.", content: ref("Rejected") },
          ...errors,
        },
      },
    },
    "/v1/documents/_bulk": {
      post: {
        summary: "Index many documents with dedup; per-item results in order.",
        parameters: [policyParam],
        requestBody: {
          required: true,
          content: { "application/json": { schema: { type: "array", items: docBody } }, "application/x-ndjson": { schema: { type: "string", description: "One document JSON object a line." } } },
        },
        responses: { "200": { description: "Per-item results; one bad item does not fail the others.", content: ref("Bulk") }, ...errors },
      },
    },
    "/v1/search": {
      post: {
        summary: "Near-duplicates of a text or a stored document, ranked, each with why.",
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: { type: "object", properties: { text: str, id: str, radius: int, min_similarity: num, limit: int }, additionalProperties: false, description: "Exactly one of text or id." },
            },
          },
        },
        responses: { "200": { description: "Ranked matches.", content: ref("Search") }, "404": { description: "No document with that id.", content: ref("Error") }, ...errors },
      },
    },
    "/v1/documents/{id}/duplicates": {
      get: {
        summary: "The cluster of a document: its original and every duplicate marked of it.",
        parameters: [{ name: "id", in: "path", required: true, schema: str }],
        responses: { "200": { description: "The cluster.", content: ref("Cluster") }, "404": { description: "No document with that id.", content: ref("Error") }, "503": errors["503"] },
      },
    },
    "/livez": { get: { summary: "Liveness.", responses: { "200": { description: "Alive.", content: ref("Health") } } } },
    "/readyz": { get: { summary: "Readiness: 200 once the engine is ready.", responses: { "200": { description: "Ready.", content: ref("Health") }, "503": { description: "Not ready.", content: ref("Health") } } } },
    "/metrics": { get: { summary: "Prometheus metrics.", responses: { "200": { description: "Text exposition format.", content: { "text/plain": { schema: str } } } } } },
  },
  components: { schemas },
} as const;
