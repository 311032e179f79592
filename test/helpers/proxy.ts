/** The `_bulk` proxy in process, in front of a real engine, for the proxy's integration tests. */
import { connectEngine, installTemplates, type Engine } from "../../src/engine/index.js";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import { parseIndexRules, startProxy, type RunningProxy } from "../../src/proxy/index.js";
import { resolveDedupOptions, type DedupOptions } from "../../src/service/options.js";
import type { DedupMetrics } from "../../src/service/metrics.js";
import { sharedFingerprinter } from "./api.js";
import type { EngineTarget } from "./engine-targets.js";

export interface ProxyHarness {
  /** The proxy's base URL (point a client here). */
  url: string;
  /** An adapter straight to the engine, for checking what was written. */
  engine: Engine;
  close(): Promise<void>;
}

/**
 * Starts the proxy on a free port with `rules` (`pattern:field[:policy]`).
 * `engineUrl` (default: the target's) is where both the proxy and its adapter go, e.g. a TCP proxy that can be cut.
 */
export async function startProxyFor(target: EngineTarget, rules: string, options: { engineUrl?: string; dedup?: Partial<DedupOptions>; metrics?: DedupMetrics } = {}): Promise<ProxyHarness> {
  const url = options.engineUrl ?? target.url;
  const viaProxy = await connectEngine({ url, username: target.username, password: target.password, maxRetries: 0, requestTimeoutMs: 10_000 });
  await installTemplates(viaProxy);
  const direct = await connectEngine({ url: target.url, username: target.username, password: target.password });
  const proxy = await startProxy({
    host: "127.0.0.1",
    port: 0,
    connection: { url, requestTimeoutMs: 10_000 },
    rules: parseIndexRules(rules),
    dedup: resolveDedupOptions(options.dedup ?? {}),
    engine: () => viaProxy,
    fingerprinter: sharedFingerprinter,
    metrics: options.metrics,
  });
  return {
    url: proxy.url,
    engine: direct,
    async close() {
      await proxy.close();
      await viaProxy.close();
      await direct.close();
    },
  };
}

/**
 * A proxy in front of a stand-in engine (a local HTTP server answering what a test needs), with the rule
 * `logs-*:message` and no engine client (`engine: () => undefined`): for what the proxy does before or without one.
 */
export function startProxyOver(engine: Server, logger?: Logger, extra: Partial<Parameters<typeof startProxy>[0]> = {}): Promise<RunningProxy> {
  return startProxy({
    host: "127.0.0.1",
    port: 0,
    connection: { url: `http://127.0.0.1:${(engine.address() as AddressInfo).port}`, requestTimeoutMs: 2_000 },
    rules: parseIndexRules("logs-*:message"),
    dedup: resolveDedupOptions({}),
    engine: () => undefined,
    fingerprinter: sharedFingerprinter,
    ...(logger ? { logger } : {}),
    ...extra,
  });
}

/** An NDJSON `_bulk` body of these lines: an object as JSON, a string as given; with the final newline. */
export function ndjson(...objects: unknown[]): string {
  return objects.map((o) => (typeof o === "string" ? o : JSON.stringify(o))).join("\n") + "\n";
}

/** Index names `<prefix>-<kind>-<n>` for one test file, each kept in `created` for its clean-up. */
export function indexNamer(prefix: string): { name: (kind: string) => string; created: string[] } {
  const created: string[] = [];
  const name = (kind: string): string => {
    const index = `${prefix}-${kind}-${created.length}`;
    created.push(index);
    return index;
  };
  return { name, created };
}
