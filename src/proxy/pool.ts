/**
 * One dedup service per concrete target index, made on first use: the index
 * gets the neardup mapping (created when missing, upgraded in place when not),
 * and the service writes through a {@link WriteThrough} so the client's action
 * reaches the engine as sent. A failed set-up is not cached: the next request tries again.
 */
import type { Fingerprinter } from "../core/fingerprinter.js";
import type { Engine } from "../engine/types.js";
import { DedupService } from "../service/dedup-service.js";
import { resolveDedupOptions, type DedupOptions } from "../service/options.js";
import type { IndexRule } from "./rules.js";
import type { Upstream } from "./upstream.js";
import { WriteThrough } from "./write-through.js";

/** The index does not exist and may not be created here (`require_alias`): its items go to the engine as sent. */
export class MissingIndex extends Error {}

export interface IndexDedup {
  service: DedupService;
  writer: WriteThrough;
}

export interface PoolDeps {
  engine: Engine;
  fingerprinter: Fingerprinter;
  upstream: Upstream;
  /** Service options every index shares (window, candidates, policy default...); `index` and `textField` are set per index. */
  dedup: DedupOptions;
  timeoutMs: number;
}

export class ServicePool {
  private readonly entries = new Map<string, Promise<IndexDedup>>();

  constructor(private readonly deps: PoolDeps) {}

  /** The index's service; `mayCreate: false` (the client asked `require_alias`) rejects with {@link MissingIndex} rather than create the index. */
  get(index: string, rule: IndexRule, mayCreate = true): Promise<IndexDedup> {
    let entry = this.entries.get(index);
    if (!entry) {
      entry = this.create(index, rule, mayCreate);
      this.entries.set(index, entry);
      entry.catch(() => this.entries.delete(index));
    }
    return entry;
  }

  private async create(index: string, rule: IndexRule, mayCreate: boolean): Promise<IndexDedup> {
    const { engine, fingerprinter, upstream, dedup, timeoutMs } = this.deps;
    if (!mayCreate && !(await engine.indexExists(index))) throw new MissingIndex(index);
    const options = resolveDedupOptions({ ...dedup, index, textField: rule.textField, policy: rule.policy ?? dedup.policy });
    const writer = new WriteThrough(engine, upstream, timeoutMs);
    const service = new DedupService(writer.engine, fingerprinter, options);
    await service.ensureIndex();
    return { service, writer };
  }
}
