/**
 * Selective LSH keys (issue 9). A MinHash band key shared by many stored
 * documents is weak evidence on its own: at 50M documents one common key of a
 * template draws thousands of engine hits, nearly all of them unrelated texts.
 * A lookup therefore takes its band keys alone, rarest first, while the
 * documents holding them sum to at most a budget (`NEARDUP_LSH_KEY_BUDGET`,
 * default 200); the keys beyond it are "paired": a document reached only
 * through them must share two of them. Near-duplicates share most of their
 * band keys, so they are still found; what is no longer read is the crowd that
 * shares one common key and nothing else. The segment terms are untouched.
 *
 * Document frequencies come from the engine's term statistics (one
 * `_mtermvectors` round trip per request, a dictionary lookup per key, see
 * `Engine.termDocFrequencies`), so the rule holds from the first lookup of a
 * fresh sidecar and is the same on every sidecar.
 */
import type { Engine } from "../../engine/types.js";

/** How a lookup uses its band keys. */
export interface KeyPlan {
  /** Keys a document may share alone to be a candidate. */
  alone: string[];
  /** Keys a document must share two of (when it shares no `alone` key). */
  paired: string[];
  /** Documents holding the paired keys (index statistics): what the plan did not read one by one. */
  pairedDocs: number;
}

/**
 * The plan for `keys` under `budget` documents: keys sorted by document
 * frequency (ties in their given order) are taken alone while the running sum
 * stays within the budget; a key no document holds is always alone. A budget
 * of 0 (or below) takes every key alone, as before the rule existed.
 */
export function planKeys(keys: readonly string[], frequencies: ReadonlyMap<string, number>, budget: number): KeyPlan {
  if (budget <= 0) return { alone: [...keys], paired: [], pairedDocs: 0 };
  const order = keys.map((key, i) => ({ key, i, df: frequencies.get(key) ?? 0 })).sort((a, b) => a.df - b.df || a.i - b.i);
  const alone: string[] = [];
  const paired: string[] = [];
  let sum = 0;
  let pairedDocs = 0;
  for (const { key, df } of order) {
    if (df === 0 || sum + df <= budget) {
      alone.push(key);
      sum += df;
    } else {
      paired.push(key);
      pairedDocs += df;
    }
  }
  return { alone, paired, pairedDocs };
}

/** How long a lookup's candidate count keeps the statistics on. */
const HOLD_MS = 60_000;

/**
 * Document frequencies of band keys in the candidate index (its concrete
 * indices resolved and kept a few seconds), asked only while they can
 * matter: a service whose lookups have all drawn fewer than half the budget
 * in candidates over the last minute skips the request (its plans would pair
 * nothing), and one lookup at half the budget or more turns it on again for
 * a minute. A fresh instance asks.
 */
export class KeyStatistics {
  private resolved: { indices: string[]; at: number } | undefined;
  private largest = { count: Infinity, at: 0 };
  /** When a plan last paired a key. */
  private pairedAt = -Infinity;

  constructor(
    private readonly engine: Engine,
    private readonly index: string,
    private readonly resolveTtlMs = 5_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether lookups under `budget` should read statistics now. */
  wanted(budget: number): boolean {
    if (budget <= 0) return false;
    return this.now() - this.largest.at > HOLD_MS || this.largest.count * 2 >= budget;
  }

  /**
   * Whether a lookup may be asked before its statistics arrive, with every key
   * alone (`fetchCandidates` then filters with the plan): statistics are
   * wanted, and no plan of the last minute paired a key, so the plan most
   * likely asks the very same query. One plan with pairs stops it for a
   * minute, so a window whose keys are common pays the extra hits once a
   * minute at most.
   */
  speculative(budget: number): boolean {
    return this.wanted(budget) && this.now() - this.pairedAt > HOLD_MS;
  }

  /** Whether a lookup of the last minute drew at least `count` candidates. */
  drewAtLeast(count: number): boolean {
    return this.now() - this.largest.at <= HOLD_MS && this.largest.count >= count;
  }

  /** What one lookup drew (its candidates; with paired keys, at least the budget), and whether its plan paired keys. */
  observe(count: number, paired = false): void {
    const now = this.now();
    if (now - this.largest.at > HOLD_MS || count >= this.largest.count) this.largest = { count, at: now };
    if (paired) this.pairedAt = now;
  }

  async frequencies(keys: readonly string[]): Promise<Map<string, number>> {
    if (keys.length === 0) return new Map();
    const now = this.now();
    if (!this.resolved || now - this.resolved.at > this.resolveTtlMs) this.resolved = { indices: await this.engine.resolveIndices(this.index), at: now };
    return this.engine.termDocFrequencies(this.resolved.indices, "neardup.lsh", keys);
  }
}
