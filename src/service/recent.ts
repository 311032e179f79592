import { LshTable, SegmentIndex } from "../index/index.js";
import type { Candidate } from "./candidate.js";
import { reaches, type Probe } from "./candidates/probe.js";
import { monotonicClock } from "./clock.js";

/**
 * One document decided by this sidecar, as the recent-writes window holds it.
 * `visibleAt` is undefined while its write is in flight. Once the engine has
 * acknowledged the write it is `Infinity` until a refresh of the engine that
 * started after the acknowledgement is known to have ended
 * ({@link RecentWrites.confirmVisible}, fed by visibility.ts), and then the
 * time from which the engine's search is sure to show it. The index's refresh
 * interval is no such bound: under load a refresh ends seconds after it.
 */
export interface RecentEntry {
  readonly candidate: Candidate;
  /** Resolves `true` once the engine stored the write, `false` when it failed. */
  readonly stored: Promise<boolean>;
  visibleAt: number | undefined;
  /** When the engine acknowledged the write (undefined while in flight). */
  ackedAt?: number | undefined;
  /**
   * Set when the engine refused the write for the document itself (a 4xx other than 429: a mapping conflict,
   * a `create` of an id that exists): sending it again would be refused again, so what waited for it is decided again.
   */
  refused?: boolean;
  /** Rough memory held by the entry, in bytes (for the window's byte budget). */
  readonly bytes: number;
  /** A duplicate's distance and similarity to its original, as the write answered them. */
  readonly match?: { distance: number | null; similarity: number | null } | undefined;
}

export interface RecentWritesOptions {
  /**
   * How long an entry stays after it became visible in the engine, in ms. A
   * decision whose engine lookup started longer ago than this must look up
   * again (see {@link RecentWrites.covers}).
   */
  holdMs: number;
  /** The index's refresh interval in ms (learned from the engine; default 1 s). */
  refreshMs?: number;
  clock?: () => number;
}

/** Rough bytes held by one candidate: its sketch (8 bytes a term, the text) or, for an analysis, its maps. */
function estimateBytes(c: Candidate): number {
  const keys = 256 + c.id.length * 2 + (c.lsh?.length ?? 0) * 48;
  if (c.sketch) return keys + c.sketch.hashes.length * 8 + (c.sketch.text?.length ?? 0) * 2;
  const a = c.analysis;
  if (!a) return keys;
  return keys + a.normalized.length * 2 + a.termCounts.size * 96;
}

/** How long an entry stays in the window's fresh tables after it became visible in the engine, in ms (`RecentWrites.lookup`). */
export const FRESH_MS = 3_000;

/** The window's lookup tables over a set of entries: simhash segments and band keys. */
class ProbeTables {
  private readonly index = new SegmentIndex();
  private readonly lsh = new LshTable();

  add(c: Candidate, at: number): void {
    this.index.insert(c.id, c.simhash, at);
    this.lsh.add(c.id, c.lsh ?? []);
  }

  remove(id: string): void {
    this.index.remove(id);
    this.lsh.remove(id);
  }

  /** Ids that share a band key with the probe or lie within its radius: a superset of what it reaches. */
  ids(probe: Probe): Set<string> {
    const ids = this.lsh.lookup(probe.lsh);
    for (const m of this.index.lookup(probe.simhash, probe.radius)) ids.add(m.id);
    return ids;
  }
}

/** The engine acknowledged the entry's write (it is visible to searches from `visibleAt`). */
function isAcknowledged(entry: RecentEntry): boolean {
  return entry.visibleAt !== undefined;
}

/**
 * The recent-writes window: documents this sidecar decided that the engine's
 * search may not show yet. An entry is added when its document is decided,
 * stays for as long as its write is in flight, and after the engine
 * acknowledged it for the refresh interval plus `holdMs`. A failed write takes
 * its own entry out (never a newer entry of the same id). A lookup that
 * started at time t reads every entry that was not yet visible in the engine
 * at t, so lookup + window together see every decision taken before.
 */
export class RecentWrites {
  private readonly current = new Map<string, RecentEntry>();
  /** Every entry's keys. */
  private readonly tables = new ProbeTables();
  /**
   * The entries a recent lookup can still need: in flight, or visible for less than `FRESH_MS`. A lookup
   * that started within `FRESH_MS` reads these alone; with log lines, the whole window is thousands of lines
   * of each template, every one of them visible to it already.
   */
  private readonly fresh = new ProbeTables();
  /** Settled entries in the order they became visible: expiry costs what expires. */
  private readonly settled: RecentEntry[] = [];
  private head = 0;
  /** The first settled entry that may still be in the fresh tables. */
  private freshHead = 0;
  private bytesHeld = 0;
  /** The entries that point at each original (status duplicate, duplicateOf). */
  private readonly duplicatesOf = new Map<string, Set<RecentEntry>>();
  /** Each entry's promise resolver, whether or not a newer entry of its id replaced it (gone once settled). */
  private readonly resolvers = new WeakMap<RecentEntry, (ok: boolean) => void>();
  /** Pending entries whose writes wait for an entry's write. */
  private readonly dependents = new WeakMap<RecentEntry, RecentEntry[]>();
  /** The entry of the same id that an entry replaced (a re-submission), until the replacement settles. */
  private readonly replaced = new WeakMap<RecentEntry, RecentEntry>();
  /** Entries whose write failed. */
  private readonly failed = new WeakSet<RecentEntry>();
  /** Entries of `create` writes: until acknowledged, an engine hit of the same id is the stored version, and the create will fail. */
  private readonly creates = new WeakSet<RecentEntry>();
  /** Ids the engine deleted, oldest first: when it acknowledged the delete, and from when its search is sure not to show them (`Infinity` until known). */
  private readonly deleted = new Map<string, { ackedAt: number; visibleAt: number }>();
  /** The first settled entry whose visibility may not be confirmed yet. */
  private confirmHead = 0;
  /** Entries whose write may or may not have been stored (`settleUnknown`), and since when. */
  private readonly unknown = new Map<RecentEntry, number>();
  private readonly clock: () => number;
  refreshMs: number;
  readonly holdMs: number;

  constructor(options: RecentWritesOptions) {
    this.holdMs = options.holdMs;
    this.refreshMs = options.refreshMs ?? 1000;
    this.clock = options.clock ?? monotonicClock;
  }

  /** Entries in the window (expired ones are dropped first). */
  get size(): number {
    this.expire();
    return this.current.size;
  }

  /** Rough bytes held by the entries in the window (expired ones are dropped first). */
  get bytes(): number {
    this.expire();
    return this.bytesHeld;
  }

  /**
   * Adds a decided document whose write is about to start; it replaces an older
   * entry of the same id. `after`: the pending entry its write waits for (the
   * original of a duplicate); if that write fails, this entry leaves the window
   * in the same step (see {@link settle}), and if it has failed already, the
   * entry never enters it.
   */
  add(candidate: Candidate, after?: RecentEntry, match?: RecentEntry["match"], createOnly = false): RecentEntry {
    this.expire();
    let resolve!: (ok: boolean) => void;
    const stored = new Promise<boolean>((r) => (resolve = r));
    const entry: RecentEntry = { candidate, stored, visibleAt: undefined, bytes: estimateBytes(candidate), match };
    if (after && this.failed.has(after)) {
      this.failed.add(entry);
      resolve(false);
      return entry;
    }
    if (createOnly && this.current.has(candidate.id)) {
      // A `create` of an id this window holds fails (the engine answers 409) unless that write fails first: it
      // does not replace the entry, which stays what later decisions see. Settling it changes nothing here.
      this.resolvers.set(entry, resolve);
      return entry;
    }
    if (createOnly) this.creates.add(entry);
    if (after && after.visibleAt === undefined) {
      const list = this.dependents.get(after);
      if (list) list.push(entry);
      else this.dependents.set(after, [entry]);
    }
    const previous = this.current.get(candidate.id);
    if (previous) this.replaced.set(entry, previous);
    this.deleted.delete(candidate.id);
    this.unlink(candidate.id);
    this.link(entry);
    this.resolvers.set(entry, resolve);
    return entry;
  }

  private link(entry: RecentEntry): void {
    const candidate = entry.candidate;
    this.tables.add(candidate, this.clock());
    this.fresh.add(candidate, this.clock());
    this.current.set(candidate.id, entry);
    if (candidate.duplicateOf !== undefined) {
      const members = this.duplicatesOf.get(candidate.duplicateOf);
      if (members) members.add(entry);
      else this.duplicatesOf.set(candidate.duplicateOf, new Set([entry]));
    }
    this.bytesHeld += entry.bytes;
  }

  /**
   * The write of `entry` ended: stored (`ok`) or failed. A failure takes out,
   * in the same step, every entry whose write waited for this one (they will
   * not be written either): no decision taken in between can pick a cluster
   * member whose original is gone and miss that it depends on a failed write.
   */
  settle(entry: RecentEntry, ok: boolean): void {
    if (!this.resolvers.has(entry)) return; // settled already (a dependency failed first)
    const mine = this.current.get(entry.candidate.id) === entry;
    if (ok) {
      entry.ackedAt = this.clock();
      entry.visibleAt = Infinity; // until confirmVisible: the engine's next refresh may end late
      if (mine) this.settled.push(entry);
    } else {
      this.failed.add(entry);
      if (mine) {
        this.unlink(entry.candidate.id);
        // A failed re-submission leaves the engine with the version before it: that version's
        // entry comes back while it may still be needed (in flight, or not yet past its hold).
        const previous = this.replaced.get(entry);
        // A try of unknown outcome whose re-submission the engine refused for the document itself (a mapping
        // conflict) does not come back: the client sent it again as told, and the engine refused it, as it would
        // the earlier try of the same document. Held for the unknown-write hold, it shadowed every near-duplicate
        // sent meanwhile while nothing of them was stored (audit 16).
        if (previous && entry.refused && this.unknown.delete(previous)) this.failed.add(previous);
        if (previous && !this.failed.has(previous) && (previous.visibleAt === undefined || previous.visibleAt >= this.clock() - this.holdMs)) {
          this.link(previous);
          if (previous.visibleAt !== undefined) this.settled.push(previous); // so that it expires (a second listing is harmless)
        }
      }
    }
    this.replaced.delete(entry);
    this.resolvers.get(entry)?.(ok);
    this.resolvers.delete(entry);
    const dependents = this.dependents.get(entry);
    this.dependents.delete(entry);
    if (!ok) for (const d of dependents ?? []) this.settle(d, false);
  }

  /**
   * The write of `entry` ended without an answer the engine may have taken it (a timeout, a connection lost after
   * the request went out): it may be stored, now or later. The entry stays in the window as in flight, and writes
   * that waited for it go on, until the engine's search shows it (`shown`) or it is given up (`abandon`). Taken
   * out at the refresh after the failure, as a written document is, a write the engine carried out later than
   * the window's hold landed as an original beside a near-duplicate decided meanwhile (audit 13, E4).
   */
  settleUnknown(entry: RecentEntry): void {
    if (!this.resolvers.has(entry)) return;
    // Kept even when a re-submission replaced it: if that one's write fails, this entry comes back.
    this.unknown.set(entry, this.clock());
    this.replaced.delete(entry);
    this.resolvers.get(entry)?.(true);
    this.resolvers.delete(entry);
    this.dependents.delete(entry);
  }

  /** The entries of writes whose outcome is unknown that are their id's entry (oldest first). */
  unknownEntries(): RecentEntry[] {
    return [...this.unknown.keys()].filter((entry) => this.current.get(entry.candidate.id) === entry);
  }

  /** Whether some write's outcome is unknown (`settleUnknown`) and not settled since. */
  get hasUnknown(): boolean {
    return this.unknown.size > 0;
  }

  /** The engine's search showed an entry of unknown outcome from `at` on: it leaves as a written one does. */
  shown(entry: RecentEntry, at: number): void {
    if (!this.unknown.delete(entry)) return;
    if (this.current.get(entry.candidate.id) !== entry) return;
    entry.ackedAt = at;
    entry.visibleAt = at;
    this.settled.push(entry);
  }

  /** Gives up the entries of unknown outcome that the engine has not shown since before `before`; returns them. */
  abandon(before: number): RecentEntry[] {
    const out: RecentEntry[] = [];
    for (const [entry, since] of this.unknown) {
      if (since >= before) break;
      this.unknown.delete(entry);
      if (this.current.get(entry.candidate.id) !== entry) continue;
      this.unlink(entry.candidate.id);
      out.push(entry);
    }
    return out;
  }

  /** True when an entry in the window is a duplicate of `id`. */
  hasDuplicates(id: string): boolean {
    return this.duplicatesOf.has(id);
  }

  /**
   * The entries marked duplicates of `id` whose writes the engine acknowledged: a search shows them only
   * after the next refresh, this window at once.
   */
  storedDuplicatesOf(id: string): RecentEntry[] {
    this.expire();
    return [...(this.duplicatesOf.get(id) ?? [])].filter(isAcknowledged);
  }

  get(id: string): RecentEntry | undefined {
    return this.current.get(id);
  }

  /** The entry of `id` when the engine acknowledged its write (newer than what a search may still show). */
  acknowledged(id: string): RecentEntry | undefined {
    const entry = this.current.get(id);
    return entry && isAcknowledged(entry) ? entry : undefined;
  }

  /**
   * The engine acknowledged a delete of `id` now: its entry leaves the window, and the engine's hits of it
   * are superseded (see {@link supersedes}) until its search is sure not to show it (`confirmVisible`).
   * Without this a near-duplicate sent just after the delete was decided against the deleted text, and
   * `skip` dropped it: neither document stayed.
   */
  forget(id: string): void {
    this.expire();
    const entry = this.current.get(id);
    if (entry) this.unlink(id);
    this.deleted.delete(id); // re-inserted last, to keep the map in acknowledgement order
    this.deleted.set(id, { ackedAt: this.clock(), visibleAt: Infinity });
  }

  /**
   * The oldest acknowledgement (a write's or a delete's) whose visibility in the engine's search is not
   * confirmed yet; undefined when every one is.
   */
  unconfirmedSince(): number | undefined {
    let oldest: number | undefined;
    for (let k = this.confirmHead; k < this.settled.length; k++) {
      const entry = this.settled[k]!;
      if (entry.visibleAt === Infinity) {
        oldest = entry.ackedAt;
        break;
      }
    }
    for (const gone of this.deleted.values()) {
      if (gone.visibleAt !== Infinity) continue;
      if (oldest === undefined || gone.ackedAt < oldest) oldest = gone.ackedAt;
      break;
    }
    return oldest;
  }

  /**
   * A refresh of the engine that started after `ackedBefore` had ended by `at`: every write and delete
   * acknowledged by then is visible to searches from `at` on. Entries are confirmed in acknowledgement order.
   */
  confirmVisible(ackedBefore: number, at: number): void {
    while (this.confirmHead < this.settled.length) {
      const entry = this.settled[this.confirmHead]!;
      if (entry.visibleAt === Infinity) {
        if (entry.ackedAt! > ackedBefore) break;
        entry.visibleAt = at;
      }
      this.confirmHead += 1;
    }
    for (const gone of this.deleted.values()) {
      if (gone.ackedAt > ackedBefore) break;
      if (gone.visibleAt === Infinity) gone.visibleAt = at;
    }
    this.expire();
  }

  /**
   * True when the engine's hit of `id`, from a lookup started at `startedAt`, may show a version that is no
   * longer there: a newer write of the id in this window, or a delete the engine's search had not shown by then.
   */
  supersedes(id: string, startedAt: number): boolean {
    const entry = this.current.get(id);
    if (this.pendingCreate(id)) return false;
    if (entry) return entry.visibleAt === undefined || entry.visibleAt > startedAt;
    const gone = this.deleted.get(id);
    return gone !== undefined && gone.visibleAt > startedAt;
  }

  /**
   * True when the window's entry of `id` is a `create` whose write is in flight. The engine's hit of the id
   * is then the version stored (the create will fail with a conflict): it stands, and this entry gives way.
   * Without this a `create` re-sent with another text hid the stored original from the request's later
   * near-duplicates, which were written as originals.
   */
  pendingCreate(id: string): boolean {
    const entry = this.current.get(id);
    return entry !== undefined && entry.visibleAt === undefined && this.creates.has(entry);
  }

  /** True when a lookup that started at `startedAt` can still be completed from this window. */
  covers(startedAt: number): boolean {
    return this.clock() - startedAt < this.holdMs;
  }

  /**
   * Every entry the probe reaches that the engine's search may not have shown
   * to a lookup started at `startedAt`. "Reaches" is the engine lookup's own
   * rule (probe.ts `reaches`, with the probe of `lookupProbe`): within the
   * radius and sharing the segments the probe asks, or sharing a band key of
   * a comparable scheme, and under a key plan (`probe.alone`) one of its keys
   * taken alone or two of the others. So a document is a candidate or not
   * whether its write is still in this window or already in the engine.
   * `notAfter`: only entries whose document time is not later than this.
   */
  lookup(probe: Probe, startedAt: number, notAfter = Infinity): RecentEntry[] {
    this.expire();
    // Entries out of the fresh tables were visible FRESH_MS ago: a lookup started since then skips them anyway.
    const ids = (startedAt >= this.clock() - FRESH_MS ? this.fresh : this.tables).ids(probe);
    const out: RecentEntry[] = [];
    for (const id of ids) {
      const entry = this.current.get(id)!;
      if (entry.visibleAt !== undefined && entry.visibleAt <= startedAt) continue;
      if (entry.candidate.time <= notAfter && reaches(probe, entry.candidate)) out.push(entry);
    }
    return out;
  }

  private unlink(id: string): void {
    const entry = this.current.get(id);
    if (!entry) return;
    this.tables.remove(id);
    this.fresh.remove(id);
    this.current.delete(id);
    this.bytesHeld -= entry.bytes;
    const root = entry.candidate.duplicateOf;
    const members = root === undefined ? undefined : this.duplicatesOf.get(root);
    members?.delete(entry);
    if (members?.size === 0) this.duplicatesOf.delete(root!);
  }

  private expire(): void {
    const now = this.clock();
    // Entries visible for FRESH_MS leave the fresh tables (only the id's current entry: a newer one stays).
    while (this.freshHead < this.settled.length && this.settled[this.freshHead]!.visibleAt! < now - FRESH_MS) {
      const entry = this.settled[this.freshHead]!;
      this.freshHead += 1;
      if (this.current.get(entry.candidate.id) === entry) this.fresh.remove(entry.candidate.id);
    }
    const cutoff = now - this.holdMs;
    while (this.head < this.settled.length && this.settled[this.head]!.visibleAt! < cutoff) {
      const entry = this.settled[this.head]!;
      this.head += 1;
      if (this.current.get(entry.candidate.id) === entry) this.unlink(entry.candidate.id);
    }
    for (const [id, gone] of this.deleted) {
      if (gone.visibleAt >= cutoff) break;
      this.deleted.delete(id);
    }
    if (this.head > 1024 && this.head * 2 > this.settled.length) {
      this.settled.splice(0, this.head);
      this.freshHead = Math.max(0, this.freshHead - this.head);
      this.confirmHead = Math.max(0, this.confirmHead - this.head);
      this.head = 0;
    }
  }
}
