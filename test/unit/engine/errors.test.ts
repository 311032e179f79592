import { describe, expect, it } from "vitest";
import { NeardupError } from "../../../src/core/errors.js";
import { connectEngine, normaliseConnection, parseRoot, redactUrl, toEngineError } from "../../../src/engine/index.js";
import { isIndexBlock, outcomeUnknown } from "../../../src/engine/errors.js";
import { whyRefused } from "../../../src/engine/guard.js";
import { UpstreamDown } from "../../../src/proxy/upstream.js";

describe("redactUrl", () => {
  it("removes user and password", () => {
    expect(redactUrl("https://elastic:s3cret@es.example:9200/")).toBe("https://es.example:9200");
  });
  it("does not echo an unparseable URL", () => {
    expect(redactUrl("::not a url s3cret")).toBe("<invalid url>");
  });
});

describe("normaliseConnection", () => {
  it("moves URL credentials into fields and strips them from the URL", () => {
    const c = normaliseConnection({ url: "http://bob:p%40ss@127.0.0.1:9200/" });
    expect(c).toMatchObject({ url: "http://127.0.0.1:9200", username: "bob", password: "p@ss" });
  });
  it("refuses a non-http URL naming the field", () => {
    expect(() => normaliseConnection({ url: "ftp://x" })).toThrow(/engine url must use http or https, got ftp:/);
  });
  it("refuses a password that is not valid percent-encoding, naming the field but not the value", () => {
    let err: unknown;
    try {
      normaliseConnection({ url: "http://bob:50%off@127.0.0.1:9200" });
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: "INVALID_CONFIG", field: "engine.url", message: expect.stringContaining("password is not valid percent-encoding") });
    expect(String((err as Error).message)).not.toContain("50%off");
  });
});

describe("parseRoot", () => {
  it("tells OpenSearch by version.distribution", () => {
    expect(parseRoot({ cluster_name: "c", version: { number: "2.19.6", distribution: "opensearch" } })).toEqual({
      kind: "opensearch",
      version: "2.19.6",
      major: 2,
      clusterName: "c",
    });
  });
  it("takes a root without distribution as Elasticsearch", () => {
    expect(parseRoot({ version: { number: "8.19.2" }, tagline: "You Know, for Search" }).kind).toBe("elasticsearch");
  });
  it("refuses a root without a version", () => {
    expect(() => parseRoot({})).toThrow(/did not report a version/);
  });
});

describe("toEngineError", () => {
  const base = "http://admin:hunter2@127.0.0.1:9200";
  it("names the engine's error type and reason", () => {
    const err = toEngineError(
      { name: "ResponseError", meta: { statusCode: 400, body: { error: { type: "mapper_parsing_exception", reason: "failed to parse field [x]" } } } },
      "opensearch",
      "bulk",
      base,
    );
    expect(err.code).toBe("ENGINE_ERROR");
    expect(err.message).toBe("bulk: opensearch at http://127.0.0.1:9200 answered mapper_parsing_exception: failed to parse field [x]");
  });
  it("maps 429 and connection failures to ENGINE_UNAVAILABLE, 404 to NOT_FOUND, 409 to CONFLICT", () => {
    expect(toEngineError({ name: "ResponseError", meta: { statusCode: 429, body: {} } }, "elasticsearch", "bulk", base).code).toBe("ENGINE_UNAVAILABLE");
    expect(toEngineError({ name: "ConnectionError" }, "elasticsearch", "search", base).code).toBe("ENGINE_UNAVAILABLE");
    expect(toEngineError({ name: "ResponseError", meta: { statusCode: 404, body: { error: { type: "index_not_found_exception", reason: "no such index [x]" } } } }, "opensearch", "search", base).code).toBe("NOT_FOUND");
    expect(toEngineError({ name: "ResponseError", meta: { statusCode: 409, body: { error: { type: "version_conflict_engine_exception", reason: "r" } } } }, "opensearch", "index", base).code).toBe("CONFLICT");
  });
  it("never carries credentials, in the message or in the cause", () => {
    const clientError = {
      name: "ResponseError",
      message: "Response Error at http://admin:hunter2@127.0.0.1:9200 with authorization Basic YWRtaW46aHVudGVyMg==",
      meta: { statusCode: 401, body: { error: { type: "security_exception", reason: "unable to authenticate user" } }, meta: { request: { params: { headers: { authorization: "Basic YWRtaW46aHVudGVyMg==" } } } } },
    };
    const err = toEngineError(clientError, "elasticsearch", "search", base);
    const everything = JSON.stringify({ message: err.message, cause: String(err.cause), details: err.details, stack: err.stack });
    expect(everything).not.toContain("hunter2");
    expect(everything).not.toContain("YWRtaW46aHVudGVyMg");
    expect(err.message).toContain("refused the credentials (security_exception: unable to authenticate user)");
  });
});

describe("connectEngine against nothing", () => {
  it("fails with ENGINE_UNAVAILABLE and no password in the message", async () => {
    const err = await connectEngine({ url: "http://127.0.0.1:1", username: "u", password: "very-secret-pw", requestTimeoutMs: 2000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NeardupError);
    expect((err as NeardupError).code).toBe("ENGINE_UNAVAILABLE");
    expect((err as NeardupError).message).toContain("detect engine: opensearch at http://127.0.0.1:1 is unreachable");
    expect(JSON.stringify({ m: (err as Error).message, s: (err as Error).stack })).not.toContain("very-secret-pw");
  });
});

describe("outcomeUnknown", () => {
  it("is true where the request may have reached the engine (a timeout, a lost connection) and false where it cannot have or the engine answered", () => {
    const client = (name: string, statusCode?: number, body?: unknown) => Object.assign(new Error(name), { name, meta: { statusCode, body } });
    expect(outcomeUnknown(toEngineError(client("TimeoutError"), "opensearch", "bulk", "http://e:9200"))).toBe(true);
    expect(outcomeUnknown(toEngineError(client("ConnectionError"), "opensearch", "bulk", "http://e:9200"))).toBe(true);
    // The engine answered: it says what it did.
    const rejected = { error: { type: "es_rejected_execution_exception", reason: "queue full" }, status: 429 };
    expect(outcomeUnknown(toEngineError(client("ResponseError", 429, rejected), "opensearch", "bulk", "http://e:9200"))).toBe(false);
    expect(outcomeUnknown(new NeardupError("ENGINE_UNAVAILABLE", "breaker open", { details: { breaker: "open" } }))).toBe(false);
    expect(outcomeUnknown(new UpstreamDown("e", Object.assign(new Error("refused"), { code: "ECONNREFUSED" })))).toBe(false);
    expect(outcomeUnknown(new UpstreamDown("e", Object.assign(new Error("timed out"), { code: "ETIMEDOUT" })))).toBe(true);
    expect(outcomeUnknown(new UpstreamDown("e", Object.assign(new Error("socket hang up"), { code: "ECONNRESET" })))).toBe(true);
  });
});

describe("whyRefused (a HEAD request's bare 403)", () => {
  const failure = (statusCode: number, body?: unknown) => Object.assign(new Error(`ResponseError (HTTP ${statusCode})`), { meta: { statusCode, body } });
  const block = { error: { type: "cluster_block_exception", reason: "index [logs-a] blocked by: [FORBIDDEN/9/index metadata (api)];" }, status: 403 };

  it("a 403 is asked again with the GET, whose body names the block: an index block, not refused credentials", async () => {
    const head = failure(403);
    const get = failure(403, block);
    const err = await whyRefused(head, () => Promise.reject(get));
    expect(err).toBe(get);
    const described = toEngineError(err, "opensearch", "index exists logs-a", "http://127.0.0.1:9200");
    expect(described.message).toMatch(/the index is blocked \(cluster_block_exception: .*index metadata/);
    expect(isIndexBlock(described)).toBe(true);
  });

  it("keeps the HEAD's error when the GET answers, fails otherwise, or the HEAD's status is not 403", async () => {
    const head = failure(403);
    expect(await whyRefused(head, () => Promise.resolve({}))).toBe(head);
    expect(await whyRefused(head, () => Promise.reject(failure(503)))).toBe(head);
    const down = failure(503);
    let asked = false;
    expect(await whyRefused(down, () => ((asked = true), Promise.resolve({})))).toBe(down);
    expect(asked).toBe(false);
  });
});
