/**
 * How the service runs its embedded OpenSearch (no NEARDUP_ENGINE_URL): a
 * real node from tools/local-opensearch, handed to the service's supervision
 * (service.ts) as an `OwnedEngine` whose exit the service watches and answers
 * with a restart. `npm start` (main.ts) and the supervision test use this one
 * function, so the test kills the JVM the service really started.
 */
import { resolve } from "node:path";
import type { Logger } from "pino";
import type { Config } from "../config/config.js";
import { startLocalOpenSearch } from "../engine/local/index.js";
import type { OwnedEngine } from "./service.js";

export interface EmbeddedOptions {
  /** JVM heap (`1g`, `512m`), over `local.heap` (NEARDUP_LOCAL_HEAP). */
  heap?: string;
}

export function embeddedOpenSearch(logger: Logger, options: EmbeddedOptions = {}): (local: Config["local"]) => Promise<OwnedEngine> {
  return async (local) => {
    const node = await startLocalOpenSearch({
      port: local.port,
      dataDir: resolve(local.dataDir),
      heap: options.heap ?? local.heap,
      log: (line: string) => logger.debug({ engine: "local-opensearch" }, line),
    });
    return {
      url: node.url,
      pid: node.process.pid,
      stop: () => node.stop(),
      onExit: (listener) => void node.process.once("exit", listener),
    };
  };
}
