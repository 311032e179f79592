import { inject } from "vitest";
import { connectEngine, type Engine } from "../../src/engine/index.js";
import type { EngineTarget } from "./engine-targets.js";

/** The engines the global setup found, for `describe.each`. Fails loudly when there are none. */
export function engineTargets(): EngineTarget[] {
  const engines = inject("engines");
  if (!engines || engines.length === 0) throw new Error("no integration engine was provided by global-setup");
  return engines;
}

export function connectTarget(target: EngineTarget): Promise<Engine> {
  return connectEngine({ url: target.url, username: target.username, password: target.password });
}

/** The target's basic-auth header, or none. */
export function authHeader(target: EngineTarget): Record<string, string> {
  return target.username ? { authorization: `Basic ${Buffer.from(`${target.username}:${target.password ?? ""}`).toString("base64")}` } : {};
}

/** A raw engine call the Engine interface does not offer (close/open an index, settings, health); throws on an HTTP error. */
export async function rawEngineRequest(target: EngineTarget, method: string, path: string, body?: unknown): Promise<unknown> {
  const headers: Record<string, string> = { "content-type": "application/json", ...authHeader(target) };
  const res = await fetch(`${target.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const parsed = (await res.json()) as unknown;
  if (res.status >= 300) throw new Error(`${method} ${path}: HTTP ${res.status} ${JSON.stringify(parsed)}`);
  return parsed;
}

let counter = 0;
/** A fresh index name per test, so tests never see each other's documents. */
export function uniqueIndex(prefix = "neardup-it"): string {
  counter += 1;
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${counter}`;
}
