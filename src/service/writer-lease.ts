/**
 * Several sidecars on one index: a writer lease held in the engine.
 *
 * First one wins needs one place where decisions are taken in order. With one
 * sidecar that is its sequencer; with several, the one holding the lease
 * decides and writes, and the others forward their write requests to it. Reads
 * (check, search, clusters) stay local. The lease is one document in the
 * engine (`neardup-leases`, id = the data index), renewed with
 * `if_seq_no`/`if_primary_term`, so the engine is the only coordinator.
 *
 * Safety rests on local clocks measuring time, never on clocks agreeing:
 * - the holder decides only while `renewal sent + ttl - margin` has not
 *   passed on its own clock (a renewal it could not make ends its term);
 * - a follower takes over only when it has seen the same lease version,
 *   unrenewed, for `ttl` on its own clock, counted from the answer of the
 *   read that first showed it (or the holder released it), and does so with
 *   a compare-and-set, so exactly one follower wins;
 * - a new holder starts deciding only once a refresh of the data index that
 *   it sent after taking over has ended (every write its predecessor had
 *   acknowledged is then searchable, however late the engine's own refresh
 *   runs), and not before the refresh interval + margin;
 * - a lease document that disappears (its index deleted) is taken like an
 *   unrenewed one, after `ttl` + margin, by a sidecar that had seen it: its
 *   holder may still be deciding until its next renewal fails.
 */
import { hasErrorCode, NeardupError, isNeardupError } from "../core/errors.js";
import type { Engine } from "../engine/types.js";
import type { IndexResult, WriteRouter } from "./dedup-service.js";
import type { DocInput } from "./input.js";
import type { Policy } from "./options.js";
import { monotonicClock } from "./clock.js";

/** Index holding one lease document per data index. */
export const LEASE_INDEX = "neardup-leases";

export interface LeaseDoc {
  holder: string;
  url: string;
  term: number;
  /** Holder's clock, for people reading the document; followers do not trust it. */
  expires_at: number;
  released?: boolean;
}

/** How long past its `expires_at` (the holder's clock) a lease not released still counts as held elsewhere: clock skew, a slow renewal. */
export const LEASE_SKEW_MS = 30_000;

/**
 * The lease `key` when another sidecar may hold it: the document exists, is not released, and its term has not
 * ended more than {@link LEASE_SKEW_MS} ago by its holder's clock; else undefined (also when it cannot be read).
 * The HTTP API's lease of an index is `<index>`, the proxy's `proxy:<index>`: each path asks whether the other
 * decides for the index, since their decisions would not see each other's.
 */
export async function heldLease(engine: Engine, key: string, now = Date.now()): Promise<LeaseDoc | undefined> {
  // Cannot be read (no lease index yet, an engine or a proxy refusing the read): taken as not held, as the
  // lease itself takes a failed read (it tries again on its next round).
  const found = await engine.getVersioned<LeaseDoc>(LEASE_INDEX, key).catch(() => undefined);
  const doc = found?.source;
  return doc && !doc.released && doc.expires_at + LEASE_SKEW_MS >= now ? doc : undefined;
}

/**
 * The first lease held elsewhere ({@link heldLease}) under `prefix` + a name that stands for the documents of
 * `index`: the index itself, the indices behind it and every alias of those (an API or a proxy may write
 * through any of them). Best effort, as the lease read.
 */
export async function heldLeaseOver(engine: Engine, index: string, prefix = ""): Promise<LeaseDoc | undefined> {
  return (await heldLeaseNamed(engine, index, prefix))?.lease;
}

/**
 * {@link heldLeaseOver} with the name it is held under (without `prefix`), skipping the name `except` (a
 * sidecar's own lease, which its followers share).
 */
export async function heldLeaseNamed(engine: Engine, index: string, prefix = "", except?: string): Promise<{ lease: LeaseDoc; name: string } | undefined> {
  const names = new Set([index, ...(await engine.resolveIndices(index).catch(() => [])), ...(await engine.aliasesOf(index).catch(() => []))]);
  for (const name of names) {
    if (name === except) continue;
    const held = await heldLease(engine, `${prefix}${name}`);
    if (held) return { lease: held, name };
  }
  return undefined;
}

/**
 * The INVALID_CONFIG error of a sidecar whose HTTP API would decide apart from another sidecar's HTTP API that
 * holds the lease of the same documents under `name`: another name for them (an alias of the index, the index
 * behind the alias: each name is its own lease, so both held one and both decided, audit 19 F1), or the same
 * name while this sidecar runs with the lease off.
 */
export function decidedByOtherApi(index: string, held: { lease: LeaseDoc; name: string }, leaseOff: boolean): NeardupError {
  const why = leaseOff
    ? "this sidecar runs with NEARDUP_WRITER_LEASE=off, so it would decide apart from that writer and first one wins would not hold; turn the lease on here too"
    : "a lease is taken per name, so both sidecars would decide and first one wins would not hold; give every sidecar of these documents the same NEARDUP_INDEX";
  return new NeardupError(
    "INVALID_CONFIG",
    `index ${index} is deduplicated by the HTTP API of the sidecar at ${held.lease.url} (its NEARDUP_INDEX is ${JSON.stringify(held.name)}): ${why} (this holds until that sidecar's lease is released: when it stops, or 30 s after its lease's end when its holder died)`,
    { field: "NEARDUP_INDEX" },
  );
}

/**
 * Read once `lease` is taken: the other path's lease over `index` (`heldLeaseOver` under `prefix`). When it is
 * held, `lease` is released and the held one returned. A writer that took its own after the other's first read
 * was not seen by that read (audit 14, F3: both decided, two originals for good); as each side reads again after
 * it took its own lease, of two taken at once at least one sees the other and gives way.
 */
export async function givenWay(engine: Engine, lease: WriterLease, index: string, prefix = ""): Promise<LeaseDoc | undefined> {
  const held = await heldLeaseOver(engine, index, prefix);
  if (held) await lease.stop();
  return held;
}

/** The INVALID_CONFIG error of an index that the other path (`other`: "HTTP API" or "_bulk proxy") of a sidecar at `url` decides. */
export function decidedElsewhere(index: string, other: string, url: string, setting: string): NeardupError {
  return new NeardupError(
    "INVALID_CONFIG",
    `index ${index} is deduplicated by the ${other} of the sidecar at ${url}: the HTTP API and the _bulk proxy decide separately, so first one wins would not hold across them; give each its own indices (this holds until that sidecar's lease is released: when it stops, or for a proxy 10 minutes after the index's last write, or 30 s after a lease's end when its holder died)`,
    { field: setting },
  );
}

export interface WriterLeaseOptions {
  /** The data index the lease is for. */
  index: string;
  /** Id of the lease document; default: `index`. The `_bulk` proxy's leases are `proxy:<index>` (their holders answer on the proxy's port). */
  key?: string;
  /** This sidecar's id (random per process). */
  holder: string;
  /** Where other sidecars reach this one. */
  url: string;
  /** Lease time to live in ms. Default 10,000. */
  ttlMs?: number;
  /** Safety margin in ms. Default 1,000. */
  marginMs?: number;
  /** The data index's refresh interval in ms. */
  refreshMs: number;
  /** Milliseconds; default {@link monotonicClock}. Only differences are used, except `expires_at` (informative). */
  clock?: () => number;
}

/**
 * Sends a write request to the lease holder at `url`. `signal` aborts it (with a retryable `NeardupError` as
 * its reason) once this sidecar sees that holder's lease end ({@link WriterLease.holderEnded}).
 */
export type Forwarder = (url: string, docs: DocInput[], policy: Policy, labels: string[] | undefined, signal?: AbortSignal) => Promise<(IndexResult | NeardupError)[]>;

export type LeaseRole = "holder" | "follower" | "unknown";

/**
 * What a lease lets this sidecar do with writes now, for /readyz and the metrics (audit 23, F1):
 * - `held`: this sidecar holds the lease and decides;
 * - `taking_over`: it has just taken the lease over and waits until the engine shows its predecessor's writes;
 * - `forwarding`: another sidecar holds it, seen renewing it (live), and writes are forwarded to it;
 * - `waiting`: the lease is held by a sidecar not yet seen renewing it since this one started, or that no longer
 *   renews it (a crashed predecessor, whose URL may be this sidecar's own), or this sidecar is late to renew its
 *   own; a lease is taken once unrenewed for ttl + margin, counted on this sidecar's clock, never sooner (a guess
 *   that its holder is dead would make two writers);
 * - `unknown`: the lease has not been read yet (or could not be).
 */
export type LeaseState = "held" | "taking_over" | "forwarding" | "waiting" | "unknown";

export interface LeaseStatus {
  state: LeaseState;
  /** The holder's URL as last read (this sidecar's own when it holds it). */
  holderUrl?: string;
  /** `waiting`, `taking_over`: the least time left, in whole seconds (rounded up), before writes can be taken. */
  secondsLeft?: number;
}

/** Lease events an operator should see at the default log level (the others are info). */
const LEASE_WARNINGS: ReadonlySet<string> = new Set(["lease lost", "lease renewal late", "lease error", "lease predecessor writes running", "lease predecessor writes unknown"]);

/** After a takeover, how often the `_bulk` requests that were writing to the index are listed again, in ms. */
const PREDECESSOR_WRITES_POLL_MS = 200;
/** After a takeover, the longest wait for them, in ms: past it the new holder decides with them still running. */
export const PREDECESSOR_WRITES_MAX_MS = 60_000;

/**
 * A lease's `onEvent` that logs each event, at warn for those in {@link LEASE_WARNINGS}, with `context` added,
 * and tells `count` (a metric) of it.
 */
export function logLeaseEvents(log: { info(details: object, message: string): void; warn(details: object, message: string): void }, context: object = {}, count?: (event: string) => void) {
  return (event: string, detail: Record<string, unknown>): void => {
    count?.(event);
    if (LEASE_WARNINGS.has(event)) log.warn({ ...detail, ...context }, event);
    else log.info({ ...detail, ...context }, event);
  };
}

export class WriterLease implements WriteRouter {
  private readonly ttlMs: number;
  private readonly marginMs: number;
  private readonly clock: () => number;
  private readonly key: string;
  private version: { seqNo: number; primaryTerm: number } | undefined;
  private current: LeaseDoc | undefined;
  /** Local time at which the version now seen was first seen (followers). */
  private seenAt = 0;
  private holding = false;
  private validUntil = 0;
  /** From when the holder decides; `Infinity` while its takeover refresh has not ended. */
  private decidingFrom = 0;
  /** Whether the engine refused to list its tasks once (reported once). */
  private tasksUnlisted = false;
  /** After a takeover: not before this, whatever the refresh (the interval + margin). */
  private waitUntil = 0;
  /** Local time at which the lease document was first found missing after this sidecar had seen one. */
  private missingSince: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Whether the lease document was seen to change after this sidecar first read it (its holder is live). */
  private changeSeen = false;
  /** Set once {@link hasTakenWrites} (checked after each round too). */
  private tookWrites = false;
  /** Counts of lease events, for metrics and tests. */
  readonly events = { acquired: 0, lost: 0, renewed: 0, forwarded: 0, late: 0 };
  /** The validity a late renewal was last reported for (one report per late renewal). */
  private lateReported = 0;
  /** Per holder URL, what aborts the writes forwarded to it once its lease is seen to end. */
  private readonly forwards = new Map<string, AbortController>();

  constructor(
    private readonly engine: Engine,
    private readonly options: WriterLeaseOptions,
    private readonly forwarder: Forwarder,
    private readonly onEvent: (event: string, detail: Record<string, unknown>) => void = () => undefined,
  ) {
    this.ttlMs = options.ttlMs ?? 10_000;
    this.marginMs = options.marginMs ?? 1000;
    this.clock = options.clock ?? monotonicClock;
    this.key = options.key ?? options.index;
    if (this.ttlMs <= 2 * this.marginMs) throw new NeardupError("INVALID_CONFIG", `lease ttl ${this.ttlMs} ms must exceed twice the margin (${this.marginMs} ms)`, { field: "ttlMs" });
  }

  get role(): LeaseRole {
    if (this.isHolder()) return "holder";
    return this.current && !this.holding ? "follower" : "unknown";
  }

  /** The holder's URL as last read, when another sidecar holds the lease. */
  get holderUrl(): string | undefined {
    return this.holding ? this.options.url : this.current?.url;
  }

  /** What the lease lets this sidecar do with writes now ({@link LeaseState}). */
  status(): LeaseStatus {
    const now = this.clock();
    const seconds = (ms: number) => Math.max(0, Math.ceil(ms / 1000));
    if (this.isHolder()) {
      if (this.decidingFrom === Infinity || now < this.decidingFrom) return { state: "taking_over", holderUrl: this.options.url, secondsLeft: seconds(this.msUntilDeciding()) };
      return { state: "held", holderUrl: this.options.url };
    }
    // Still ours in the engine but its renewal not answered in time: the wait is for the engine, bounded by the ttl.
    if (this.holding) return { state: "waiting", holderUrl: this.options.url, secondsLeft: seconds(this.validUntil + this.ttlMs - now) };
    const current = this.current;
    if (!current) return { state: "unknown" };
    // Taken at the round after it is seen unrenewed for ttl + margin: up to a round (ttl / 3) later.
    const round = Math.floor(this.ttlMs / 3);
    if (this.missingSince !== undefined) return { state: "waiting", holderUrl: current.url, secondsLeft: seconds(this.missingSince + this.ttlMs + this.marginMs + round - now) };
    const unrenewedFor = now - this.seenAt;
    const expired = current.released === true || unrenewedFor >= this.ttlMs + this.marginMs;
    // A holder is known live once its lease was seen to change after this sidecar's first read of it (a renewal,
    // a takeover): the first read alone may show a holder that has just died elsewhere (a pod with a new address).
    if (!expired && current.url !== this.options.url && this.changeSeen) return { state: "forwarding", holderUrl: current.url };
    return { state: "waiting", holderUrl: current.url, secondsLeft: current.released === true ? seconds(round) : seconds(this.ttlMs + this.marginMs - unrenewedFor + round) };
  }

  /** Whether this lease has ever let this sidecar take writes (held and deciding, or a live holder to forward to). */
  get hasTakenWrites(): boolean {
    return this.noteWrites();
  }

  private noteWrites(): boolean {
    if (!this.tookWrites) {
      const state = this.status().state;
      this.tookWrites = state === "held" || state === "forwarding";
    }
    return this.tookWrites;
  }

  /** True while this sidecar holds a valid lease (not yet its deciding time, possibly). */
  private isHolder(): boolean {
    return this.holding && this.clock() < this.validUntil;
  }

  /** Runs the first round, then keeps the lease fresh every ttl/3. */
  async start(): Promise<void> {
    await this.tick();
    // Lost the race to create the lease: read the winner now rather than a round later.
    if (!this.holding && !this.current) await this.tick();
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.tick().finally(() => this.schedule());
    }, Math.max(50, Math.floor(this.ttlMs / 3)));
    this.timer.unref();
  }

  /** One round: renew when holding, else read the lease and take it when free or expired. */
  async tick(): Promise<void> {
    try {
      if (this.holding) await this.renew();
      else await this.observe();
      this.noteWrites();
    } catch (err) {
      // Engine unreachable: a holder keeps deciding until its term runs out on its own clock.
      this.onEvent("lease error", { message: isNeardupError(err) ? err.message : String(err) });
    }
  }

  private doc(released = false): LeaseDoc {
    return { holder: this.options.holder, url: this.options.url, term: (this.current?.term ?? 0) + (this.holding ? 0 : 1), expires_at: this.clock() + this.ttlMs, ...(released ? { released } : {}) };
  }

  private async renew(): Promise<void> {
    const sentAt = this.clock();
    const doc = this.doc();
    try {
      this.version = await this.engine.putDocument(LEASE_INDEX, this.key, doc as never, { ifSeqNo: this.version!.seqNo, ifPrimaryTerm: this.version!.primaryTerm });
    } catch (err) {
      if (!hasErrorCode(err, "CONFLICT")) throw err;
      // The engine client sends a write again after a timeout: when the first attempt was stored, the second
      // meets its own renewal. The lease is still ours if the stored document is this holder's, of this term.
      const found = await this.engine.getVersioned<LeaseDoc>(LEASE_INDEX, this.key);
      if (found?.source.holder !== this.options.holder || found.source.term !== doc.term || found.source.released === true) {
        this.lose(found ? "another sidecar took the lease" : "the lease document is gone");
        return;
      }
      this.version = { seqNo: found.seqNo, primaryTerm: found.primaryTerm };
    }
    this.current = doc;
    this.validUntil = sentAt + this.ttlMs - this.marginMs;
    this.events.renewed += 1;
  }

  private lose(why: string): void {
    if (!this.holding) return;
    this.holding = false;
    this.validUntil = 0;
    this.version = undefined;
    this.events.lost += 1;
    this.onEvent("lease lost", { why });
  }

  private async observe(): Promise<void> {
    const asked = this.clock();
    const found = await this.engine.getVersioned<LeaseDoc>(LEASE_INDEX, this.key);
    // A version's age counts from the read's answer: the engine may have served the read after a renewal sent
    // after it was asked, so the time it was asked could be seconds before that renewal (audit 19: a slow read
    // let a follower take a lease its holder still held). A lease taken now counts its term from `asked`, the
    // earlier time, so that it ends no later than it would on the holder's own reckoning.
    const now = this.clock();
    if (!found) {
      // Gone after this sidecar saw it (the lease index deleted): its holder decides until a renewal fails, up
      // to a ttl from now. Seen missing for ttl + margin, it is free, and taken as a takeover.
      if (this.current !== undefined) {
        this.missingSince ??= now;
        if (now - this.missingSince < this.ttlMs + this.marginMs) return;
      }
      await this.take(undefined, asked, this.current !== undefined);
      return;
    }
    this.missingSince = undefined;
    const changed = !this.version || found.seqNo !== this.version.seqNo || found.primaryTerm !== this.version.primaryTerm;
    if (changed) {
      if (this.version) this.changeSeen = true;
      this.version = { seqNo: found.seqNo, primaryTerm: found.primaryTerm };
      this.current = found.source;
      this.seenAt = now;
    }
    const expired = found.source.released === true || now - this.seenAt >= this.ttlMs + this.marginMs;
    // Writes forwarded to an earlier holder get their answer now. Those to a holder whose lease merely expired
    // wait until the lease has moved (`take`): a holder that wakes first renews it, and answers them itself.
    if (!expired) this.endForwards(found.source.url);
    if (found.source.holder === this.options.holder || expired) await this.take(found, asked);
  }

  private async take(found: { seqNo: number; primaryTerm: number; source: LeaseDoc } | undefined, sentAt: number, takeover = found !== undefined): Promise<void> {
    const doc: LeaseDoc = { holder: this.options.holder, url: this.options.url, term: (found?.source.term ?? 0) + 1, expires_at: sentAt + this.ttlMs };
    try {
      this.version = found
        ? await this.engine.putDocument(LEASE_INDEX, this.key, doc as never, { ifSeqNo: found.seqNo, ifPrimaryTerm: found.primaryTerm, refresh: false })
        : await this.engine.putDocument(LEASE_INDEX, this.key, doc as never, { create: true });
    } catch (err) {
      if (hasErrorCode(err, "CONFLICT")) {
        this.version = undefined; // someone else was faster: read it next round
        this.changeSeen = true; // ... and is live
        return;
      }
      throw err;
    }
    this.current = doc;
    this.holding = true;
    this.endForwards();
    this.missingSince = undefined;
    this.validUntil = sentAt + this.ttlMs - this.marginMs;
    if (takeover) this.showPredecessor(doc.term);
    else this.decidingFrom = this.clock();
    this.events.acquired += 1;
    this.onEvent("lease acquired", { term: doc.term, takeover });
  }

  /**
   * After a takeover: decide once the `_bulk` requests that were writing to the data index when it was taken
   * have ended (a predecessor's write still queued in the engine is in no refresh yet; their wait is bounded
   * by {@link PREDECESSOR_WRITES_MAX_MS}), then a refresh of the data index sent after them has ended, so that
   * every write the previous holder acknowledged or still had in the engine shows in the lookups (the engine's
   * own refresh may end seconds after its interval under load), and not before the refresh interval + margin.
   * A failed refresh is tried again every second while this term lasts; an index that does not exist holds
   * nothing to show.
   */
  private showPredecessor(term: number): void {
    this.waitUntil = this.clock() + this.options.refreshMs + this.marginMs;
    this.decidingFrom = Infinity;
    const ours = () => this.holding && this.current?.term === term && !this.stopped;
    const shown = () => {
      if (ours()) this.decidingFrom = Math.max(this.waitUntil, this.clock());
    };
    const attempt = (): void => {
      this.engine.refresh(this.options.index).then(shown, (err: unknown) => {
        if (hasErrorCode(err, "NOT_FOUND")) shown();
        else if (ours()) setTimeout(attempt, 1000).unref();
      });
    };
    void this.predecessorWritesEnded(ours).then(() => {
      if (ours()) attempt();
    });
  }

  /**
   * Resolves once none of the `_bulk` requests writing to the data index (by its name or the indices behind
   * it, by the name alone when the engine will not resolve it) at the call is running, polling every {@link PREDECESSOR_WRITES_POLL_MS}; at once when none is, or
   * when the engine will not list its tasks (then only the refresh covers them: reported once, at warn); after
   * {@link PREDECESSOR_WRITES_MAX_MS} with some still running (reported, at warn), or once `ours` turns false.
   */
  private async predecessorWritesEnded(ours: () => boolean): Promise<void> {
    const since = this.clock();
    let names: string[];
    let running: Set<string>;
    // The indices behind the name are looked up too (a bulk names what its client wrote to); when they cannot be,
    // the name alone still finds the writes of sidecars, which name the index as configured.
    const behind = await this.engine.resolveIndices(this.options.index).catch(() => [] as string[]);
    try {
      names = [this.options.index, ...behind];
      running = new Set(await this.engine.runningBulks(names));
    } catch (err) {
      if (!this.tasksUnlisted) this.onEvent("lease predecessor writes unknown", { error: err instanceof Error ? err.message : String(err) });
      this.tasksUnlisted = true;
      return;
    }
    while (running.size > 0 && ours()) {
      if (this.clock() - since >= PREDECESSOR_WRITES_MAX_MS) {
        this.onEvent("lease predecessor writes running", { tasks: [...running], waitedMs: this.clock() - since });
        return;
      }
      await new Promise((r) => setTimeout(r, PREDECESSOR_WRITES_POLL_MS).unref());
      // A failed listing keeps waiting for what was running (the wait is bounded).
      const now = await this.engine.runningBulks(names).catch(() => undefined);
      if (now) running = new Set([...running].filter((id) => now.includes(id)));
    }
  }

  /** Gives the lease up (graceful stop): followers may take it at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (!this.holding || !this.version) return;
    const version = this.version;
    this.holding = false;
    await this.engine
      .putDocument(LEASE_INDEX, this.key, { ...this.doc(true), term: this.current?.term ?? 0 } as never, { ifSeqNo: version.seqNo, ifPrimaryTerm: version.primaryTerm })
      .catch(() => undefined);
  }

  /**
   * Where a write goes: `undefined` when this sidecar decides it, else the
   * holder's URL (counted as forwarded). Throws a retryable error while no
   * sidecar holds the lease (a handover).
   */
  writerUrl(): string | undefined {
    if (this.isHolder()) return undefined;
    const url = this.current?.url;
    if (this.holding) {
      // Still ours in the engine, but its renewal has not been answered in time: a slow engine, not a handover.
      // Whole milliseconds: the monotonic clock has fractions (audit 23, F7: "24749.943115234375 ms").
      const lateMs = Math.round(this.clock() - this.validUntil);
      if (this.lateReported !== this.validUntil) {
        this.lateReported = this.validUntil;
        this.events.late += 1;
        this.onEvent("lease renewal late", { lateMs, ttlMs: this.ttlMs });
      }
      throw new NeardupError("RETRY", `this sidecar holds the writer lease, but the engine has not answered its renewal in time (${lateMs} ms past its term; NEARDUP_LEASE_TTL_MS is ${this.ttlMs}): writes wait until it does; send again shortly`);
    }
    if (!url || url === this.options.url) {
      throw new NeardupError("RETRY", "no sidecar holds the writer lease right now (a handover is under way); send again shortly");
    }
    this.events.forwarded += 1;
    return url;
  }

  forward(docs: DocInput[], policy: Policy, labels?: string[]): Promise<(IndexResult | NeardupError)[]> | undefined {
    let url: string | undefined;
    try {
      url = this.writerUrl();
    } catch (err) {
      return Promise.reject(err as Error);
    }
    return url === undefined ? undefined : this.forwarder(url, docs, policy, labels, this.holderEnded(url));
  }

  /**
   * Aborts, with a retryable error, once this sidecar sees the lease of the holder at `url` move: taken by
   * this sidecar or another after that holder stopped renewing it (ttl + margin on this sidecar's clock) or
   * released it. A write forwarded to a frozen holder then answers `RETRY` within about a ttl, not after the
   * forward's timeout; and the holder, if it wakes, writes none of it: its lease is gone from the engine, so
   * it cannot renew, and it checks its lease again before each write.
   */
  holderEnded(url: string): AbortSignal {
    let controller = this.forwards.get(url);
    if (!controller) this.forwards.set(url, (controller = new AbortController()));
    return controller.signal;
  }

  /** Ends the writes forwarded to every holder but `live`. */
  private endForwards(live?: string): void {
    for (const [url, controller] of this.forwards) {
      if (url === live) continue;
      this.forwards.delete(url);
      controller.abort(new NeardupError("RETRY", `the writer sidecar at ${url} stopped holding the writer lease while this request waited for its answer (not renewed for ${this.ttlMs + this.marginMs} ms: frozen, cut off or gone, or handed over); send again`));
    }
  }

  msUntilDeciding(): number {
    if (!this.isHolder()) return 0;
    // While the takeover refresh runs: the least it can still take, and at least a short poll.
    if (this.decidingFrom === Infinity) return Math.max(100, this.waitUntil - this.clock());
    return Math.max(0, this.decidingFrom - this.clock());
  }

  assertDeciding(): void {
    if (!this.isHolder()) throw new NeardupError("RETRY", "this sidecar lost the writer lease before deciding; send again");
    if (this.clock() < this.decidingFrom) throw new NeardupError("RETRY", "this sidecar has just taken over the writer lease and waits one refresh interval, until the engine shows its predecessor's writes, before deciding; send again shortly");
  }
}
