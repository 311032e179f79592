import { availableParallelism } from "node:os";
import { NeardupError } from "../core/errors.js";
import type { EngineConnection } from "../engine/types.js";
import { parseIndexRules, type IndexRule } from "../proxy/rules.js";
import type { DedupOptions } from "../service/options.js";
import { resolveDedupOptions } from "../service/options.js";
import { isLoopbackHost, parseApiKeys, type ApiKey } from "./api-keys.js";
import type { SettingName } from "./settings.js";
import { SETTINGS, parseSettings } from "./settings.js";

/** Prefixes of variables that belong to the test and benchmark harnesses, not the service. */
const HARNESS_PREFIXES = ["NEARDUP_TEST_", "NEARDUP_BENCH_"];

/** The service configuration, validated once at start-up. */
export interface Config {
  server: { host: string; port: number };
  /** `undefined` means: start the embedded local OpenSearch. */
  engine: EngineConnection | undefined;
  /** CA file path to read into `engine.caCert` (the entry point reads it). */
  engineCaFile: string | undefined;
  local: { port: number; dataDir: string; heap: string };
  index: string;
  logLevel: string;
  dedup: DedupOptions;
  bodyLimit: string;
  maxTextChars: number;
  /** The writer lease (several sidecars on one index); `undefined` when off. */
  lease: { ttlMs: number; advertiseUrl: string | undefined; peerApiKey: string | undefined; peerAnalyses: boolean } | undefined;
  /** IDF file (`neardup idf fit`) to weigh terms with; undefined: the bundled table. The entry point reads it. */
  idfFile?: string | undefined;
  /** Verdict options file (NEARDUP_VERDICT_FILE); undefined: the defaults. Read at start. */
  verdictFile?: string | undefined;
  security: SecurityConfig;
  limits: LimitsConfig;
  supervision: SupervisionConfig;
  /** The `_bulk` proxy; `undefined` when NEARDUP_PROXY_PORT is empty. */
  proxy: { port: number; rules: IndexRule[]; advertiseUrl: string | undefined; forwardAnalyses: boolean } | undefined;
  /** Threads of the worker pool (NEARDUP_WORKERS; `auto` resolved to the number of cores); <= 1 = one thread, for large work only. */
  workers: number;
}

/** Who may call the API and how the listener is exposed. */
export interface SecurityConfig {
  /** Keys from NEARDUP_API_KEYS (the entry point adds those of NEARDUP_API_KEYS_FILE). Empty: no authentication. */
  apiKeys: ApiKey[];
  apiKeysFile: string | undefined;
  allowUnauthenticated: boolean;
  /** PEM file paths; the entry point reads them into `tls`. */
  tlsCertFile: string | undefined;
  tlsKeyFile: string | undefined;
  tls?: { cert: string; key: string } | undefined;
  /** Allowed browser origins (`*` = any). Empty: CORS closed. */
  corsOrigins: string[];
}

/** Bounds on what callers can make the service do. */
export interface LimitsConfig {
  /** Requests per second per key (0 = off). */
  rateLimitRps: number;
  rateLimitBurst: number;
  maxConcurrent: number;
  /** Request body bytes in flight at once. */
  maxInflightBodyBytes: number;
  compareEditMaxChars: number;
  /** Largest accepted distance of a document time into the future, ms. */
  timeSkewMs: number;
  /** Longest a request body may go without a byte (API and proxy), ms; then 408 and the connection closes. */
  bodyIdleMs: number;
}

/** How the engine is watched. */
export interface SupervisionConfig {
  probeIntervalMs: number;
  breakerFailures: number;
  breakerOpenMs: number;
  restartMaxMs: number;
  shutdownTimeoutMs: number;
}

/** Bytes of a size setting such as `512kb` or `10mb` (validated by the setting's schema). */
export function parseSize(size: string): number {
  const m = /^(\d+)(b|kb|mb)$/.exec(size);
  if (!m) throw new NeardupError("INVALID_CONFIG", `not a size: ${JSON.stringify(size)}`);
  return Number(m[1]) * (m[2] === "mb" ? 1024 * 1024 : m[2] === "kb" ? 1024 : 1);
}

/** Builds the typed config from raw settings (environment variables by name). */
export function buildConfig(raw: Partial<Record<SettingName | string, string | undefined>>): Config {
  for (const name of Object.keys(raw)) {
    if (name.startsWith("NEARDUP_") && !(name in SETTINGS) && !HARNESS_PREFIXES.some((p) => name.startsWith(p))) {
      throw new NeardupError("INVALID_CONFIG", `unknown setting ${name}: known settings are ${Object.keys(SETTINGS).join(", ")}`, {
        field: name,
      });
    }
  }
  const s = parseSettings(raw);
  const engine: EngineConnection | undefined = s.NEARDUP_ENGINE_URL
    ? {
        url: s.NEARDUP_ENGINE_URL,
        username: s.NEARDUP_ENGINE_USERNAME || undefined,
        password: s.NEARDUP_ENGINE_PASSWORD || undefined,
        apiKey: s.NEARDUP_ENGINE_API_KEY || undefined,
        requestTimeoutMs: s.NEARDUP_ENGINE_TIMEOUT_MS,
      }
    : undefined;
  return {
    server: { host: s.NEARDUP_HOST, port: s.NEARDUP_PORT },
    engine,
    engineCaFile: s.NEARDUP_ENGINE_CA_FILE || undefined,
    local: { port: s.NEARDUP_LOCAL_PORT, dataDir: s.NEARDUP_LOCAL_DATA, heap: s.NEARDUP_LOCAL_HEAP },
    index: s.NEARDUP_INDEX,
    logLevel: s.NEARDUP_LOG_LEVEL,
    dedup: resolveDedupOptions({
      index: s.NEARDUP_INDEX,
      textField: s.NEARDUP_TEXT_FIELD,
      policy: s.NEARDUP_POLICY,
      windowMs: Math.round(s.NEARDUP_WINDOW_HOURS * 3600 * 1000),
      recentWindowMs: s.NEARDUP_RECENT_WINDOW_MS,
      unknownWriteHoldMs: s.NEARDUP_UNKNOWN_WRITE_HOLD_MS,
      recentWindowBytes: s.NEARDUP_RECENT_WINDOW_BYTES,
      maxCandidates: s.NEARDUP_MAX_CANDIDATES,
      maxCandidatePages: s.NEARDUP_MAX_CANDIDATE_PAGES,
      rollover: s.NEARDUP_INDEX_ROLLOVER,
      maxBulkItems: s.NEARDUP_MAX_BULK_ITEMS,
      pipelineChunk: s.NEARDUP_PIPELINE_CHUNK,
      lshKeyBudget: s.NEARDUP_LSH_KEY_BUDGET,
      mirrorDocs: s.NEARDUP_MIRROR_DOCS,
    }),
    bodyLimit: s.NEARDUP_BODY_LIMIT,
    maxTextChars: s.NEARDUP_MAX_TEXT_CHARS,
    lease:
      s.NEARDUP_WRITER_LEASE === "on"
        ? { ttlMs: s.NEARDUP_LEASE_TTL_MS, advertiseUrl: s.NEARDUP_ADVERTISE_URL || undefined, peerApiKey: s.NEARDUP_PEER_API_KEY || undefined, peerAnalyses: s.NEARDUP_PEER_ANALYSES === "on" }
        : undefined,
    idfFile: s.NEARDUP_IDF_FILE || undefined,
    verdictFile: s.NEARDUP_VERDICT_FILE || undefined,
    security: {
      apiKeys: parseApiKeys(s.NEARDUP_API_KEYS, "NEARDUP_API_KEYS"),
      apiKeysFile: s.NEARDUP_API_KEYS_FILE || undefined,
      allowUnauthenticated: s.NEARDUP_ALLOW_UNAUTHENTICATED === "true",
      tlsCertFile: s.NEARDUP_TLS_CERT_FILE || undefined,
      tlsKeyFile: s.NEARDUP_TLS_KEY_FILE || undefined,
      corsOrigins: s.NEARDUP_CORS_ORIGINS.split(",")
        .map((o) => o.trim())
        .filter((o) => o !== ""),
    },
    limits: {
      rateLimitRps: s.NEARDUP_RATE_LIMIT_RPS,
      rateLimitBurst: s.NEARDUP_RATE_LIMIT_BURST,
      maxConcurrent: s.NEARDUP_MAX_CONCURRENT,
      maxInflightBodyBytes: parseSize(s.NEARDUP_MAX_INFLIGHT_BODY),
      compareEditMaxChars: s.NEARDUP_COMPARE_EDIT_MAX_CHARS,
      timeSkewMs: s.NEARDUP_TIME_SKEW_MS,
      bodyIdleMs: s.NEARDUP_BODY_TIMEOUT_MS,
    },
    supervision: {
      probeIntervalMs: s.NEARDUP_ENGINE_PROBE_MS,
      breakerFailures: s.NEARDUP_BREAKER_FAILURES,
      breakerOpenMs: s.NEARDUP_BREAKER_OPEN_MS,
      restartMaxMs: s.NEARDUP_ENGINE_RESTART_MAX_MS,
      shutdownTimeoutMs: s.NEARDUP_SHUTDOWN_TIMEOUT_MS,
    },
    proxy: s.NEARDUP_PROXY_PORT === "" ? undefined : { port: s.NEARDUP_PROXY_PORT, rules: proxyRules(s.NEARDUP_PROXY_INDICES, s.NEARDUP_INDEX, s.NEARDUP_INDEX_ROLLOVER), advertiseUrl: s.NEARDUP_PROXY_ADVERTISE_URL || undefined, forwardAnalyses: s.NEARDUP_PEER_ANALYSES === "on" },
    workers: s.NEARDUP_WORKERS === "auto" ? availableParallelism() : s.NEARDUP_WORKERS,
  };
}

/**
 * The proxy's rules, refused when one of them reaches the HTTP API's index
 * (NEARDUP_INDEX, or an index behind it when it is a rollover alias): the
 * proxy and the API decide with separate services, so "first one wins"
 * would hold within each only (docs/proxy.md).
 */
function proxyRules(spec: string, apiIndex: string, rollover: boolean): IndexRule[] {
  const rules = parseIndexRules(spec);
  const clash = rules.find((r) => r.matches(apiIndex) || (rollover && r.matches(`${apiIndex}-000001`)));
  if (clash) {
    throw new NeardupError(
      "INVALID_CONFIG",
      `NEARDUP_PROXY_INDICES: rule ${JSON.stringify(clash.pattern)} matches NEARDUP_INDEX (${apiIndex}), the HTTP API's index; the proxy and the API decide separately, so give each its own indices`,
      { field: "NEARDUP_PROXY_INDICES" },
    );
  }
  return rules;
}

/**
 * Start-up checks that need the whole config (keys from the file included):
 * TLS needs both files; a listener reachable from other machines needs keys
 * unless NEARDUP_ALLOW_UNAUTHENTICATED=true says the network is trusted.
 */
export function checkExposure(config: Config): void {
  const { security, server } = config;
  if (Boolean(security.tlsCertFile) !== Boolean(security.tlsKeyFile)) {
    throw new NeardupError("INVALID_CONFIG", "NEARDUP_TLS_CERT_FILE and NEARDUP_TLS_KEY_FILE must be set together", { field: "NEARDUP_TLS_CERT_FILE" });
  }
  if (security.apiKeys.length === 0 && !security.allowUnauthenticated && !isLoopbackHost(server.host)) {
    throw new NeardupError(
      "INVALID_CONFIG",
      `NEARDUP_HOST=${server.host} is reachable from other machines but no API keys are configured: set NEARDUP_API_KEYS or NEARDUP_API_KEYS_FILE, or NEARDUP_ALLOW_UNAUTHENTICATED=true on a trusted network`,
      { field: "NEARDUP_HOST" },
    );
  }
}
