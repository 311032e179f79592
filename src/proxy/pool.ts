/**
 * One dedup service per concrete target index, made on first use: the index
 * gets the neardup mapping (created when missing, upgraded in place when not),
 * and the service writes through a {@link WriteThrough} so the client's action
 * reaches the engine as sent. A failed set-up is not cached: the next request tries again.
 *
 * With the writer lease on, each index's service also takes part in the
 * index's proxy lease (`proxy:<index>` in `neardup-leases`): the sidecar
 * holding it decides for every sidecar's proxy (peer.ts).
 */
import { randomUUID } from "node:crypto";
import type { Fingerprinter } from "../core/fingerprinter.js";
import type { Engine } from "../engine/types.js";
import { DedupService } from "../service/dedup-service.js";
import { resolveDedupOptions, type DedupOptions } from "../service/options.js";
import { LEASE_INDEX, WriterLease } from "../service/writer-lease.js";
import type { Analyzer } from "../workers/index.js";
import type { IndexRule } from "./rules.js";
import type { Upstream } from "./upstream.js";
import { WriteThrough } from "./write-through.js";

/** The index does not exist and may not be created here (`require_alias`): its items go to the engine as sent. */
export class MissingIndex extends Error {}

export interface IndexDedup {
  service: DedupService;
  writer: WriteThrough;
  /** The index's proxy writer lease; `undefined` when the lease is off (one sidecar). */
  lease: WriterLease | undefined;
}

/** The proxy's part in the writer lease (NEARDUP_WRITER_LEASE). */
export interface ProxyLeaseOptions {
  /** Where other sidecars reach this proxy (NEARDUP_PROXY_ADVERTISE_URL, else the proxy's own URL). */
  url: string;
  ttlMs: number;
  onEvent?: (event: string, detail: Record<string, unknown>) => void;
}

export interface PoolDeps {
  engine: Engine;
  fingerprinter: Fingerprinter;
  upstream: Upstream;
  /** Service options every index shares (window, candidates, policy default...); `index` and `textField` are set per index. */
  dedup: DedupOptions;
  timeoutMs: number;
  lease?: ProxyLeaseOptions | undefined;
  /** Analyses the texts off the event loop (the sidecar's worker pool, NEARDUP_WORKERS); default: in this thread. */
  analyzer?: Analyzer | undefined;
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

  /** The index's service when this proxy has started one (nothing is created). */
  existing(index: string): Promise<IndexDedup> | undefined {
    return this.entries.get(index);
  }

  private async create(index: string, rule: IndexRule, mayCreate: boolean): Promise<IndexDedup> {
    const { engine, fingerprinter, upstream, dedup, timeoutMs } = this.deps;
    if (!mayCreate && !(await engine.indexExists(index))) throw new MissingIndex(index);
    // The index is the client's, set up for its own ingest: a refresh interval longer than the window lengthens the
    // window, and a missing index gets the neardup fields and nothing else of the service's own window.
    const options = resolveDedupOptions({ ...dedup, index, textField: rule.textField, policy: rule.policy ?? dedup.policy, recentWindowFitsRefresh: true, clientIndex: true });
    const writer = new WriteThrough(engine, upstream, timeoutMs);
    const service = new DedupService(writer.engine, fingerprinter, options, undefined, undefined, this.deps.analyzer);
    await service.ensureIndex();
    const lease = this.deps.lease ? await this.startLease(index, service, this.deps.lease) : undefined;
    return { service, writer, lease };
  }

  private async startLease(index: string, service: DedupService, o: ProxyLeaseOptions): Promise<WriterLease> {
    const refreshMs = await service.learnRefreshInterval();
    await this.deps.engine.createIndex(LEASE_INDEX, { settings: { index: { auto_expand_replicas: "0-1" } } });
    const lease = new WriterLease(
      this.deps.engine,
      { index, key: `proxy:${index}`, holder: randomUUID(), url: o.url, ttlMs: o.ttlMs, refreshMs },
      () => Promise.reject(new Error("the proxy forwards its own chunks (peer.ts)")),
      (event, detail) => o.onEvent?.(event, { ...detail, index, proxy: true }),
    );
    await lease.start();
    // Decisions check the lease (a holder that lost it refuses); routing is the proxy's (BulkHandler).
    service.router = lease;
    return lease;
  }

  /** Gives up the leases held (a graceful stop): other sidecars take over at once. */
  async close(): Promise<void> {
    const entries = [...this.entries.values()];
    this.entries.clear();
    await Promise.all(entries.map((e) => e.then((x) => x.lease?.stop(), () => undefined)));
  }
}
