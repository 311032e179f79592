/**
 * Which real engines the integration tests run against, and how they were had.
 * Filled by test/integration/global-setup.ts, read by the tests via inject().
 */
export interface EngineTarget {
  /** `opensearch` or `elasticsearch` (detected from the root endpoint). */
  kind: string;
  version: string;
  url: string;
  username?: string;
  password?: string;
  /** How the engine was obtained: `env`, `testcontainers` or `local-maven`. */
  source: string;
}

declare module "vitest" {
  export interface ProvidedContext {
    engines: EngineTarget[];
  }
}
