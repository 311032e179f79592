import { NeardupError } from "../../src/core/errors.js";
import type { Fingerprinter } from "../../src/core/fingerprinter.js";
import { toEngineError } from "../../src/engine/errors.js";
import type { BulkItemResult, BulkResult, Engine } from "../../src/engine/types.js";
import { DedupService } from "../../src/service/dedup-service.js";
import type { DedupMetrics } from "../../src/service/metrics.js";
import { resolveDedupOptions, type DedupOptions } from "../../src/service/options.js";

/**
 * An engine (real, or the in-memory double) with faults injected where a test
 * asks for them: bulk items of chosen ids are refused (as the engine refuses a
 * mapping conflict), bulk writes and searches can be held back. Everything
 * else goes to the wrapped engine.
 */
export interface Faults {
  /** Ids whose bulk items the engine refuses (400 mapper_parsing_exception), every time. */
  refuse: Set<string>;
  /** Ids whose next bulk item only is refused. */
  refuseNextWrite: Set<string>;
  /** Ids whose bulk items the engine answers 429 es_rejected_execution_exception (a full write queue), every time. */
  overload: Set<string>;
  /**
   * Ids whose bulk the engine takes but whose answer is lost: the documents are written, and the call fails as
   * a request that timed out does (the adapters' error for the client's TimeoutError), every time.
   */
  lostAnswer: Set<string>;
  /**
   * Ids whose bulk fails at once as a request that timed out does, while the engine carries it out only when the
   * test calls {@link Faults.land} (a node paused for minutes), or never.
   */
  landLater: Set<string>;
  /** Carries out the bulks held back by `landLater`, in order. */
  land(): Promise<void>;
  /** Ids whose bulk fails as a request the engine never got does (the breaker's refusal while open): nothing is written. */
  neverSent: Set<string>;
  /** Delay before a bulk that contains one of these ids is sent, in ms. */
  slowWrite: Map<string, number>;
  /** Writes of these ids wait until released (see {@link Faults.holdWrite}). */
  heldWrites: Map<string, { promise: Promise<void>; release: () => void }>;
  /** Holds back the next write of `id` until the returned function is called. */
  holdWrite(id: string): () => void;
  /** Delay of every search (search and msearch) issued while this is set, in ms (0: none). */
  slowSearchMs: number;
  /** Searches (search and msearch) issued, and answered (or failed), so far. */
  searches: { issued: number; answered: number };
  /** When set, every search issued meanwhile waits for the promise it returns (given the search's arguments). */
  searchGate: ((...args: unknown[]) => Promise<void>) | undefined;
  /** Called with the id of each bulk item refused (400), when it is refused. */
  onRefuse: ((id: string) => void) | undefined;
}

export function withFaults<E extends Engine>(engine: E): { engine: E; faults: Faults } {
  const heldWrites = new Map<string, { promise: Promise<void>; release: () => void }>();
  const landings: { operations: Record<string, unknown>[]; options?: { refresh?: boolean | "wait_for" } }[] = [];
  const timedOut = () => toEngineError(Object.assign(new Error("Request timed out"), { name: "TimeoutError" }), "opensearch", "bulk", "http://127.0.0.1:9200");
  const faults: Faults = {
    refuse: new Set(),
    refuseNextWrite: new Set(),
    overload: new Set(),
    lostAnswer: new Set(),
    landLater: new Set(),
    async land() {
      for (const l of landings.splice(0)) await engine.bulk(l.operations, l.options);
    },
    neverSent: new Set(),
    slowWrite: new Map(),
    heldWrites,
    holdWrite(id) {
      let release!: () => void;
      const promise = new Promise<void>((r) => (release = r));
      heldWrites.set(id, { promise, release });
      return release;
    },
    slowSearchMs: 0,
    searches: { issued: 0, answered: 0 },
    searchGate: undefined,
    onRefuse: undefined,
  };
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const bulk = async (operations: Record<string, unknown>[], options?: { refresh?: boolean | "wait_for" }): Promise<BulkResult> => {
    const pairs: { action: Record<string, { _id?: string; _index?: string }>; source: Record<string, unknown> }[] = [];
    for (let i = 0; i < operations.length; i += 2) pairs.push({ action: operations[i] as never, source: operations[i + 1]! });
    const idOf = (p: (typeof pairs)[number]) => Object.values(p.action)[0]!._id ?? "";
    const delay = Math.max(0, ...pairs.map((p) => faults.slowWrite.get(idOf(p)) ?? 0));
    if (delay > 0) await sleep(delay);
    const held = pairs.flatMap((p) => {
      const h = heldWrites.get(idOf(p));
      if (!h) return [];
      heldWrites.delete(idOf(p));
      return [h.promise];
    });
    await Promise.all(held);
    if (pairs.some((p) => faults.landLater.has(idOf(p)))) {
      landings.push({ operations, options });
      throw timedOut();
    }
    if (pairs.some((p) => faults.neverSent.has(idOf(p)))) {
      throw new NeardupError("ENGINE_UNAVAILABLE", "bulk: the engine is failing (circuit breaker open, injected by the test)", { details: { operation: "bulk", breaker: "open", retryAfterSeconds: 1 } });
    }
    const refused = new Set(pairs.map(idOf).filter((id) => faults.refuse.has(id) || faults.refuseNextWrite.delete(id) || faults.overload.has(id)));
    for (const id of refused) if (!faults.overload.has(id)) faults.onRefuse?.(id);
    const sent = pairs.filter((p) => !refused.has(idOf(p)));
    const real = sent.length > 0 ? await engine.bulk(sent.flatMap((p) => [p.action, p.source]), options) : { errors: false, items: [] };
    let k = 0;
    const items: BulkItemResult[] = pairs.map((p) =>
      !refused.has(idOf(p))
        ? real.items[k++]!
        : faults.overload.has(idOf(p))
          ? { action: "index", id: idOf(p), status: 429, error: { type: "es_rejected_execution_exception", reason: "rejected execution of coordinating operation (injected by the test)" } }
          : { action: "index", id: idOf(p), status: 400, error: { type: "mapper_parsing_exception", reason: "failed to parse field [fields.n] of type [long] (injected by the test)" } },
    );
    if (pairs.some((p) => faults.lostAnswer.has(idOf(p)))) throw timedOut();
    return { errors: real.errors || items.some((i) => i.error), items };
  };
  const wrapped = new Proxy(engine, {
    get(target, prop, receiver) {
      if (prop === "bulk") return bulk;
      if (prop === "search" || prop === "msearch") {
        return async (...args: unknown[]) => {
          // Read the gate when the search is issued, not when it resumes.
          const gate = faults.searchGate?.(...args);
          const ms = faults.slowSearchMs;
          if (ms > 0) await sleep(ms);
          if (gate) await gate;
          faults.searches.issued++;
          try {
            return await (Reflect.get(target, prop, receiver) as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          } finally {
            faults.searches.answered++;
          }
        };
      }
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { engine: wrapped, faults };
}

/** A DedupService over `engine` with faults injected ({@link withFaults}), its index made. */
export async function faultyDedupService<E extends Engine>(
  engine: E,
  fingerprinter: Fingerprinter,
  options: Partial<DedupOptions>,
  metrics?: DedupMetrics,
): Promise<{ engine: E; faults: Faults; service: DedupService }> {
  const faulty = withFaults(engine);
  const service = new DedupService(faulty.engine, fingerprinter, resolveDedupOptions(options), metrics);
  await service.ensureIndex();
  return { ...faulty, service };
}
