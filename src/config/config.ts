import { NeardupError } from "../core/errors.js";
import type { EngineConnection } from "../engine/types.js";
import type { DedupOptions } from "../service/options.js";
import { resolveDedupOptions } from "../service/options.js";
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
  local: { port: number; dataDir: string };
  index: string;
  logLevel: string;
  dedup: DedupOptions;
  bodyLimit: string;
  maxTextChars: number;
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
    local: { port: s.NEARDUP_LOCAL_PORT, dataDir: s.NEARDUP_LOCAL_DATA },
    index: s.NEARDUP_INDEX,
    logLevel: s.NEARDUP_LOG_LEVEL,
    dedup: resolveDedupOptions({
      index: s.NEARDUP_INDEX,
      textField: s.NEARDUP_TEXT_FIELD,
      policy: s.NEARDUP_POLICY,
      windowMs: Math.round(s.NEARDUP_WINDOW_HOURS * 3600 * 1000),
      recentWindowMs: s.NEARDUP_RECENT_WINDOW_MS,
      maxCandidates: s.NEARDUP_MAX_CANDIDATES,
      maxCandidatePages: s.NEARDUP_MAX_CANDIDATE_PAGES,
      rollover: s.NEARDUP_INDEX_ROLLOVER,
      maxBulkItems: s.NEARDUP_MAX_BULK_ITEMS,
    }),
    bodyLimit: s.NEARDUP_BODY_LIMIT,
    maxTextChars: s.NEARDUP_MAX_TEXT_CHARS,
  };
}
