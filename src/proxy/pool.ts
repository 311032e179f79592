/**
 * One dedup service per target index, made on first use and let go after
 * `idleMs` unused (`sweep`); an index that an alias writes to shares the
 * alias's service (`targetOf`). The index
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
import type { DedupMetrics } from "../service/metrics.js";
import type { RecentWindows } from "../service/recent-windows.js";
import { isIndexName, resolveDedupOptions, type DedupOptions } from "../service/options.js";
import { decidedElsewhere, givenWay, heldLeaseOver, LEASE_INDEX, WriterLease } from "../service/writer-lease.js";
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
  /**
   * A service not asked for this long, and quiet ({@link DedupService.quiet}), is let go: its lease is
   * released and its memory freed; the next write to its index makes it again. Default 10 minutes; 0 keeps
   * every service for the life of the proxy.
   */
  idleMs?: number | undefined;
  clock?: () => number;
  /**
   * Counters and histograms the services' decisions count in (shared with the HTTP API's). The recent-writes
   * window gauges are the API service's to set; they read every window through `windows`.
   */
  metrics?: DedupMetrics | undefined;
  /** The sidecar's recent-writes windows: one budget and one gauge for the API's and every index's (audit 24, F4). */
  windows?: RecentWindows | undefined;
  logger?: { warn(details: object, message: string): void; error(details: object, message: string): void } | undefined;
}

/**
 * Where writes to a name the proxy is sent go: `index`, the index they go to (the name itself when it is an index,
 * or an alias with no single write index); `writeIndex`, that index when the name is an alias with a single one.
 */
interface WritesGo {
  index: string;
  writeIndex: string | undefined;
  /** Whether the name is an alias (indices stand behind it). */
  alias: boolean;
}

/** How long the name an index's writes are deduplicated under (its write alias, or itself) is kept before it is asked again. */
export const TARGET_TTL_MS = 5_000;

/** How long an index's service may go unasked before it is let go (`PoolDeps.idleMs`). */
export const DEFAULT_IDLE_MS = 10 * 60_000;

export class ServicePool {
  private readonly entries = new Map<string, Promise<IndexDedup>>();
  /** The services made, by index, and when each was last asked for. */
  private readonly made = new Map<string, { dedup: IndexDedup; usedAt: number }>();
  /** The rule each service was made with, by the name it stands for. */
  private readonly rules = new Map<string, IndexRule>();
  /** Where writes to each name asked about go ({@link writesOf}: one `aliasIndices` request), and when it was learnt. */
  private readonly writes = new Map<string, WritesGo & { at: number }>();
  /** The name each name's writes are deduplicated under ({@link targetOf}), and when it was learnt. */
  private readonly targets = new Map<string, { target: string; at: number }>();
  private readonly sweeper: NodeJS.Timeout | undefined;
  private readonly clock: () => number;
  private readonly idleMs: number;

  constructor(private readonly deps: PoolDeps) {
    this.clock = deps.clock ?? Date.now;
    this.idleMs = deps.idleMs ?? DEFAULT_IDLE_MS;
    // Without this every index ever written kept its service and, with the writer lease, a lease renewed every
    // ttl/3 for ever: after a black-box audit wrote 184 indices, the idle sidecar held 1.2 GB of heap.
    if (this.idleMs > 0) {
      this.sweeper = setInterval(() => void this.sweep(), Math.min(this.idleMs, 60_000));
      this.sweeper.unref();
    }
  }

  /** The writer leases of the services made, by index, and whether this sidecar holds each (`neardup_writer_lease_held`). */
  leases(): { index: string; held: boolean }[] {
    const out: { index: string; held: boolean }[] = [];
    for (const [index, { dedup }] of this.made) {
      const state = dedup.lease?.status().state;
      if (state !== undefined) out.push({ index, held: state === "held" || state === "taking_over" });
    }
    return out;
  }

  /** Services made and not let go. */
  get size(): number {
    return this.entries.size;
  }

  /** Names whose write index or service name it keeps (a few seconds each: {@link sweep}). */
  get namesKnown(): number {
    return this.writes.size + this.targets.size;
  }

  /**
   * Lets go of the services not asked for `idleMs` that are quiet: each leaves the pool at once (a request
   * after this makes a new one) and its lease is released. Resolves the indices let go.
   */
  async sweep(): Promise<string[]> {
    const now = this.clock();
    // What was learnt of each name a client wrote or deleted through, past its TARGET_TTL_MS (asked afresh after it
    // anyway): one entry per distinct name for the life of the proxy, for names no rule takes too (audit 24, F5).
    // A name's service name stays while that service does, since `existing` finds the service by it.
    for (const [name, known] of this.writes) if (now - known.at >= TARGET_TTL_MS) this.writes.delete(name);
    for (const [name, known] of this.targets) if (now - known.at >= TARGET_TTL_MS && !this.entries.has(known.target)) this.targets.delete(name);
    const gone: { index: string; dedup: IndexDedup }[] = [];
    for (const [index, { dedup, usedAt }] of this.made) {
      if (this.idleMs <= 0 || now - usedAt < this.idleMs || !dedup.service.quiet()) continue;
      this.made.delete(index);
      this.entries.delete(index);
      this.rules.delete(index);
      gone.push({ index, dedup });
    }
    for (const { dedup } of gone) dedup.service.stop();
    await Promise.all(gone.map(({ dedup }) => dedup.lease?.stop()));
    return gone.map((g) => g.index);
  }

  /**
   * The index's service; `mayCreate: false` (the client asked `require_alias`) rejects with {@link MissingIndex}
   * rather than create the index. A concrete index that an alias writes to (its write index) shares the alias's
   * service ({@link targetOf}), when both names' rules agree.
   */
  async get(index: string, rule: IndexRule, mayCreate = true): Promise<IndexDedup> {
    let target = await this.targetOf(index);
    const owner = this.rules.get(target);
    if (target !== index && owner && (owner.textField !== rule.textField || owner.policy !== rule.policy)) target = index;
    const used = this.made.get(target);
    if (used) used.usedAt = this.clock();
    let entry = this.entries.get(target);
    if (!entry) {
      const made = this.create(target, index, rule, mayCreate);
      entry = made;
      this.entries.set(target, made);
      this.rules.set(target, rule);
      made.then(
        (dedup) => {
          if (this.entries.get(target) === made) this.made.set(target, { dedup, usedAt: this.clock() });
        },
        () => {
          if (this.entries.get(target) !== made) return;
          this.entries.delete(target);
          this.rules.delete(target);
        },
      );
    }
    return entry;
  }

  /** The index's service when this proxy has started one (nothing is created). */
  existing(index: string): Promise<IndexDedup> | undefined {
    const target = this.targets.get(index)?.target;
    return (target === undefined ? undefined : this.entries.get(target)) ?? this.entries.get(index);
  }

  /**
   * The name writes to `name` are deduplicated under. The index the writes go to (`name` itself, or an alias's
   * write index) is taken under its write alias when it has exactly one that reads all of it
   * (`Engine.writeAliasesOf`: `is_write_index`, no filter, no routing, a name neardup takes), else under its own
   * name; an alias with no single write index is itself (the engine takes no writes through it). So writes through
   * a write alias, through another alias over the same index, and naming the index meet in one service (one
   * recent-writes window, one order of decisions, one lease), and first one wins holds across them; its lookups
   * read the whole alias. Kept {@link TARGET_TTL_MS}: after a rollover the old index is itself again.
   */
  private async targetOf(name: string): Promise<string> {
    const known = this.targets.get(name);
    if (known && this.clock() - known.at < TARGET_TTL_MS) return known.target;
    // Asked afresh with the write aliases: an alias's write index kept from before a rollover, with the write
    // aliases of now, made the alias's old index its service's name (two services deciding for one alias).
    const { index, writeIndex, alias } = await this.writesOf(name, true);
    let target = name;
    // An alias with no single write index is itself: the engine takes no writes through it.
    if (!alias || writeIndex !== undefined) {
      // An alias of a name neardup does not take is not its index's name here.
      const aliases = (await this.deps.engine.writeAliasesOf(index)).filter(isIndexName);
      // Of several write aliases none stands for the others: a name that is one of them is its own service (its
      // lookups read what it covers), any other name the index's (audit 14, F4: the index's lookups read only it;
      // audit 16: taking the widest alias read indices the name does not cover, or still missed the older ones).
      target = aliases.length === 1 ? aliases[0]! : aliases.includes(name) ? name : index;
    }
    this.targets.set(name, { target, at: this.clock() });
    return target;
  }

  /** Where writes to `name` go ({@link WritesGo}), kept {@link TARGET_TTL_MS} unless `fresh`: one `aliasIndices` request. */
  private async writesOf(name: string, fresh = false): Promise<WritesGo> {
    const known = this.writes.get(name);
    if (!fresh && known && this.clock() - known.at < TARGET_TTL_MS) return known;
    const behind = await this.deps.engine.aliasIndices(name);
    const writes = behind.filter((b) => b.writeIndex);
    const writeIndex = behind.length > 0 && writes.length === 1 ? writes[0]!.index : undefined;
    const found = { index: writeIndex ?? name, writeIndex, alias: behind.length > 0, at: this.clock() };
    this.writes.set(name, found);
    return found;
  }

  /**
   * The index writes through `name` go to when `name` is an alias with a single write index (its `is_write_index`,
   * or its only index); `undefined` for an index, a missing name, an alias with no single write index, or when the
   * engine cannot tell (a block, an outage). Read from {@link writesOf}'s entry, which {@link spaceOf} shares.
   */
  async writeIndexOf(name: string): Promise<string | undefined> {
    return this.writesOf(name).then(
      (r) => r.writeIndex,
      () => undefined,
    );
  }

  /**
   * The index writes to `name` go to (`name` itself for an index, an alias's write index), by which the proxy
   * orders a request's items touching one document: an alias and the index it writes to are one. The name itself
   * when the engine cannot tell.
   */
  async spaceOf(name: string): Promise<string> {
    return this.writesOf(name).then(
      (r) => r.index,
      () => name,
    );
  }

  /** The service of `index` (a name {@link targetOf} gives), first asked for under the client's name `named`. */
  private async create(index: string, named: string, rule: IndexRule, mayCreate: boolean): Promise<IndexDedup> {
    const { engine, fingerprinter, upstream, dedup, timeoutMs } = this.deps;
    if (!mayCreate && !(await engine.indexExists(named))) throw new MissingIndex(named);
    // A sidecar's HTTP API decides for these documents (its lease `<NEARDUP_INDEX>`): two writers would keep two originals.
    const api = await heldLeaseOver(engine, index);
    if (api) throw decidedElsewhere(index, "HTTP API", api.url, "NEARDUP_PROXY_INDICES");
    // The index is the client's, set up for its own ingest: a refresh interval longer than the window lengthens the
    // window, and a missing index gets the neardup fields and nothing else of the service's own window.
    // Never the API's rollover: the client's index is written as it is named (audit 13: with NEARDUP_INDEX_ROLLOVER
    // on, every proxy index was taken for a rollover alias, and dedup was off or writes went to <name>-000001).
    // An alias (a client's rollover alias): an index behind it closed or deleted by its lifecycle is skipped, as the
    // API's rollover window does (audit 13: one closed old index made every write fail with a per-item 502).
    const aliasWindow = (await engine.aliasIndices(index)).length > 0;
    const options = resolveDedupOptions({ ...dedup, index, rollover: false, aliasWindow, textField: rule.textField, policy: rule.policy ?? dedup.policy, recentWindowFitsRefresh: true, clientIndex: true });
    const writer = new WriteThrough(engine, upstream, timeoutMs);
    // A copy of the shared metrics: each service sets the window gauges' `readWindow` on the object it is given,
    // and the API's service sets the one the gauges read.
    const metrics = this.deps.metrics && { ...this.deps.metrics };
    const service = new DedupService(writer.engine, fingerprinter, options, metrics, this.deps.logger, this.deps.analyzer, this.deps.windows);
    await service.ensureIndex();
    const lease = this.deps.lease ? await this.startLease(index, service, this.deps.lease) : undefined;
    const late = lease && (await givenWay(engine, lease, index));
    if (late) throw decidedElsewhere(index, "HTTP API", late.url, "NEARDUP_PROXY_INDICES");
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
  async close(settleMs = 0): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    const entries = [...this.entries.values()];
    this.entries.clear();
    this.made.clear();
    this.rules.clear();
    this.targets.clear();
    await Promise.all(
      entries.map((e) =>
        e.then(
          async (x) => {
            // Writes of unknown outcome are known to this holder only: let go once the engine shows them.
            if (x.lease) await x.service.unknownWritesSettled(settleMs);
            await x.lease?.stop();
            x.service.stop();
          },
          () => undefined,
        ),
      ),
    );
  }
}
