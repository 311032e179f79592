import { Client } from "@opensearch-project/opensearch";
import { NeardupError } from "../core/errors.js";
import { ElasticsearchEngine } from "./elasticsearch.js";
import { redactUrl, statusOf, toEngineError } from "./errors.js";
import { OpenSearchEngine, openSearchClientOptions } from "./opensearch.js";
import type { Engine, EngineConnection, EngineInfo } from "./types.js";

interface RootBody {
  cluster_name?: string;
  version?: { number?: string; distribution?: string };
  tagline?: string;
}

/** A percent-encoded user name or password of the engine URL; the error never shows the value. */
function decodeCredential(value: string, what: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw new NeardupError("INVALID_CONFIG", `engine url: the ${what} is not valid percent-encoding (write a literal % as %25)`, { field: "engine.url" });
  }
}

/** Moves `user:pass@` out of the URL into the connection's fields. */
export function normaliseConnection(connection: EngineConnection): EngineConnection {
  let url: URL;
  try {
    url = new URL(connection.url);
  } catch {
    throw new NeardupError("INVALID_CONFIG", `engine url must be an absolute http(s) URL, got ${JSON.stringify(redactUrl(connection.url))}`, {
      field: "engine.url",
    });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new NeardupError("INVALID_CONFIG", `engine url must use http or https, got ${url.protocol}`, { field: "engine.url" });
  }
  const out: EngineConnection = { ...connection };
  if (url.username) {
    out.username ??= decodeCredential(url.username, "user name");
    out.password ??= decodeCredential(url.password, "password");
    url.username = "";
    url.password = "";
  }
  out.url = url.toString().replace(/\/$/, "");
  return out;
}

/**
 * Reads the root endpoint and tells Elasticsearch from OpenSearch: OpenSearch
 * answers `version.distribution: "opensearch"`; Elasticsearch has no such field.
 * The probe uses the OpenSearch client as a neutral HTTP transport, because the
 * Elastic client refuses servers that are not Elasticsearch.
 */
export function parseRoot(body: RootBody): EngineInfo {
  const version = body.version?.number;
  if (!version) {
    throw new NeardupError("ENGINE_ERROR", `the root endpoint did not report a version: ${JSON.stringify(body).slice(0, 200)}`);
  }
  const major = Number.parseInt(version, 10);
  const kind = body.version?.distribution === "opensearch" ? "opensearch" : "elasticsearch";
  return { kind, version, major, clusterName: body.cluster_name ?? "" };
}

interface NodesBody {
  cluster_name?: string;
  nodes?: Record<string, { version?: string }>;
}

/**
 * The same facts from `GET /_nodes/_local`, for a node without the root
 * endpoint (an Elasticsearch core node without the rest-root module answers
 * `GET /` with 405). Elasticsearch marks every answer with `X-Elastic-Product`.
 */
export function parseNodes(body: NodesBody, headers: Record<string, unknown>): EngineInfo {
  const version = Object.values(body.nodes ?? {})[0]?.version;
  if (!version) throw new NeardupError("ENGINE_ERROR", `_nodes/_local did not report a version: ${JSON.stringify(body).slice(0, 200)}`);
  const kind = String(headers["x-elastic-product"] ?? "") === "Elasticsearch" ? "elasticsearch" : "opensearch";
  return { kind, version, major: Number.parseInt(version, 10), clusterName: body.cluster_name ?? "" };
}

export async function detectEngine(connection: EngineConnection): Promise<EngineInfo> {
  const conn = normaliseConnection(connection);
  const probe = new Client(openSearchClientOptions({ ...conn, maxRetries: 0 }));
  try {
    try {
      const response = await probe.info();
      return parseRoot(response.body as RootBody);
    } catch (err) {
      if (statusOf(err) !== 405) throw err;
      const response = await probe.transport.request({ method: "GET", path: "/_nodes/_local", querystring: { filter_path: "cluster_name,nodes.*.version" } });
      return parseNodes(response.body as NodesBody, (response.headers ?? {}) as Record<string, unknown>);
    }
  } catch (err) {
    throw toEngineError(err, "opensearch", "detect engine", conn.url);
  } finally {
    await probe.close();
  }
}

/** Detects the engine behind the URL and returns the matching adapter. */
export async function connectEngine(connection: EngineConnection): Promise<Engine> {
  const conn = normaliseConnection(connection);
  const info = await detectEngine(conn);
  if (info.kind === "opensearch") {
    if (info.major < 2) throw new NeardupError("ENGINE_ERROR", `OpenSearch ${info.version} is not supported: need 2.x or newer`);
    return new OpenSearchEngine(conn, info);
  }
  if (info.major !== 8 && info.major !== 9) {
    throw new NeardupError("ENGINE_ERROR", `Elasticsearch ${info.version} is not supported: need 8.x or 9.x`);
  }
  return new ElasticsearchEngine(conn, info);
}
