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

  get(index: string, rule: IndexRule): Promise<IndexDedup> {
    let entry = this.entries.get(index);
    if (!entry) {
      entry = this.create(index, rule);
      this.entries.set(index, entry);
      entry.catch(() => this.entries.delete(index));
    }
    return entry;
  }

  private async create(index: string, rule: IndexRule): Promise<IndexDedup> {
    const { engine, fingerprinter, upstream, dedup, timeoutMs } = this.deps;
    const options = resolveDedupOptions({ ...dedup, index, textField: rule.textField, policy: rule.policy ?? dedup.policy });
    const writer = new WriteThrough(engine, upstream, timeoutMs);
    const service = new DedupService(writer.engine, fingerprinter, options);
    await service.ensureIndex();
    return { service, writer };
  }
}
