import { toEngineError } from "./errors.js";
import type { EngineKind } from "./types.js";

/** Runs one engine call and converts whatever it throws into a NeardupError. */
export type Guard = <T>(operation: string, call: () => Promise<T>) => Promise<T>;

export function createGuard(kind: EngineKind, baseUrl: string): Guard {
  return async (operation, call) => {
    try {
      return await call();
    } catch (err) {
      throw toEngineError(err, kind, operation, baseUrl);
    }
  };
}

/** True when a client error is the engine's "index already exists". */
export function isAlreadyExists(err: unknown): boolean {
  const body = (err as { meta?: { body?: { error?: { type?: string } } } })?.meta?.body;
  return body?.error?.type === "resource_already_exists_exception";
}

/** True when a client error is a 404 answer. */
export function isNotFound(err: unknown): boolean {
  return (err as { meta?: { statusCode?: number } })?.meta?.statusCode === 404;
}
