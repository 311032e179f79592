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

function isAlreadyExists(err: unknown): boolean {
  const body = (err as { meta?: { body?: { error?: { type?: string } } } })?.meta?.body;
  return body?.error?.type === "resource_already_exists_exception";
}

function isNotFound(err: unknown): boolean {
  return (err as { meta?: { statusCode?: number } })?.meta?.statusCode === 404;
}

/** Runs an index creation: true when created, false when the index already existed. */
export async function createIfAbsent(create: () => Promise<unknown>): Promise<boolean> {
  try {
    await create();
    return true;
  } catch (err) {
    if (isAlreadyExists(err)) return false;
    throw err;
  }
}

/** Runs a read: its value, or `undefined` when the engine answers 404. */
export async function orUndefinedIfMissing<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}
