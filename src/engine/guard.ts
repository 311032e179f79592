import { statusOf, toEngineError } from "./errors.js";
import type { Engine, EngineKind } from "./types.js";

/** Runs one engine call and converts whatever it throws into a NeardupError. */
export type Guard = <T>(operation: string, call: () => Promise<T>) => Promise<T>;

/**
 * The engine with every call (all but `close` and the non-function members) run through `guard`, named by
 * its method (`search`, `bulk`...): the circuit breaker and the call timing wrap the engine this way.
 */
export function guardCalls(engine: Engine, guard: Guard): Engine {
  return new Proxy(engine, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== "function" || property === "close") return value;
      const method = value as (...args: unknown[]) => unknown;
      return (...args: unknown[]) => guard(String(property), () => Promise.resolve(method.apply(target, args)));
    },
  });
}

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
  return statusOf(err) === 404;
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

/**
 * The error to throw for a HEAD request that failed (`err`): a HEAD answer has no body, so a 403 says neither
 * whether the credentials were refused nor whether a block on the index did it (`index.blocks.metadata`). On a
 * 403 the same thing is asked with a GET (`named`), whose error body says which; its error is thrown instead.
 * Any other failure, or a GET that answers (nothing to name), leaves `err`.
 */
export async function whyRefused(err: unknown, named: () => Promise<unknown>): Promise<unknown> {
  if (statusOf(err) !== 403) return err;
  try {
    await named();
  } catch (reason) {
    if (statusOf(reason) === 403) return reason;
  }
  return err;
}
