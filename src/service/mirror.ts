/**
 * The window mirror (NEARDUP_MIRROR_DOCS): the candidate fields of every document of the window, held in
 * this sidecar's memory, so that a lookup reads no engine term dictionary and parses no hits. At 1M stored
 * documents an engine lookup cost the engine about as much CPU as the rest of a write (docs/benchmarks.md).
 *
 * It follows the engine, not this sidecar's own writes: each poll reads the primary's local checkpoint,
 * refreshes the index, and reads every document whose `_seq_no` is past the checkpoint of the poll before
 * (operations up to a checkpoint read before a refresh are all visible after it). So documents written by
 * anyone (other sidecars, backfill, clients writing their own `neardup` fields) reach it too. A poll's view
 * holds every write the engine acknowledged before the poll began (`viewAt`); the recent-writes window holds
 * what came after, exactly as it does for an engine lookup started at that time.
 *
 * Deletes leave no sequence number to read: a poll whose whole tail fits one page compares the documents it
 * holds with the count of the same searcher, and a difference (a delete behind its back) starts it again
 * from nothing. Deletes this service learns of (the proxy's, into its indices) are applied at once (`forget`).
 * What replaced and removed documents took is reclaimed by compacting the store (`MirrorStore.compacted`).
 * Band-key plans are the engine path's, from the engine's term statistics (`lookup`'s `plansOf`).
 *
 * Only one concrete index of one primary shard is mirrored (a shard's sequence numbers are its own); until
 * the first load ends, after a reset, and for a lookup whose window reaches before the oldest document kept
 * (`maxDocs` reached: the oldest by time leave), lookups go to the engine as before.
 */
import { comparableVersions, lookupKeysOf } from "../core/fingerprinter.js";
import { fromHex } from "../core/fingerprint.js";
import type { Engine, SearchHit } from "../engine/types.js";
import type { Candidate } from "./candidate.js";
import { first, hitId, keysOfList } from "./candidates/hit.js";
import { lookupProbe, reaches, windowAround, ALONE_BEYOND, CANDIDATE_FIELDS, type KeyPlan, type Lookup, type LookupResult } from "./candidates/index.js";
import { MirrorStore, parseKeys, type MirrorDoc, type ProbeKeys } from "./mirror-store.js";
import { monotonicClock } from "./clock.js";

export interface MirrorOptions {
  index: string;
  /** Most documents held; past it the oldest by time leave, and lookups reaching back to them go to the engine. */
  maxDocs: number;
  windowMs: number;
  /** A view older than this is brought up to date in the background (default 1,000 ms). */
  pollMs?: number;
  /** A view older than this is not used: the lookup waits for the poll (default 10,000 ms). */
  staleMs?: number;
  /** Bytes replaced and removed documents may take, when they are most of its memory, before it is compacted (default 4 MiB). */
  compactBytes?: number;
  /** Documents per tail page (default 5,000). */
  pageSize?: number;
  clock?: () => number;
  onState?: (state: MirrorState, why?: string) => void;
}

export type MirrorState = "idle" | "loading" | "ready" | "off";

/** After a reset because the engine's count differed, the wait before loading again (a count that keeps differing must not reload for ever). */
const RELOAD_AFTER_MS = 30_000;
/** Bytes replaced and removed documents may take, when they are most of the store's, before it is compacted. */
const COMPACT_BYTES = 4 * 2 ** 20;
/** After a failed poll (the engine unreachable, the index gone), the wait before trying again. */
const RETRY_AFTER_MS = 5_000;

const TAIL_FIELDS = [...CANDIDATE_FIELDS, "neardup.lsh_list", "neardup.version"];

/** Lookup results from a view of the engine: `seenAt` is when that view was taken (what an engine lookup's start is). */
export interface MirrorResults {
  /** Per lookup; `undefined` for a lookup the mirror declines (a write's, with a key held by a crowd: see `lookupOne`). */
  results: (LookupResult | undefined)[];
  seenAt: number;
}

export class WindowMirror {
  private store = new MirrorStore();
  /** Operations up to this sequence number are all in the view. */
  private checkpoint = -1;
  private viewAt = -Infinity;
  /** Lookups whose window starts before this go to the engine (documents older were let go). */
  private coveredSince = -Infinity;
  private polling: Promise<void> | undefined;
  private stateNow: MirrorState = "idle";
  private why: string | undefined;
  /** Ids deleted through this service, and when: a poll that began before that may still read them. */
  private readonly forgotten = new Map<string, number>();
  /** Counts resets, so that a poll that began before one drops its answer. */
  private generation = 0;
  /** Documents with a simhash that cannot be candidates (unreadable fields): counted as held, so they cause no reset. */
  private unusable = new Set<string>();
  /** After a reset, no load before this time (`RELOAD_AFTER_MS`, `RETRY_AFTER_MS`). */
  private notBefore = 0;

  private readonly clock: () => number;

  constructor(
    private readonly engine: Engine,
    private readonly options: MirrorOptions,
  ) {
    this.clock = options.clock ?? monotonicClock;
  }

  get state(): MirrorState {
    return this.stateNow;
  }

  /** Documents held. */
  get size(): number {
    return this.store.size;
  }

  /** The share of its keys or sketch bytes that replaced and removed documents still take (0 just after a compaction). */
  get wasted(): number {
    return this.store.wasted;
  }

  /** Compactions since it started. */
  compactions = 0;

  /** Why it is off or was last reset. */
  get reason(): string | undefined {
    return this.why;
  }

  private setState(state: MirrorState, why?: string): void {
    if (why !== undefined) this.why = why;
    if (this.stateNow === state) return;
    this.stateNow = state;
    this.options.onState?.(state, why);
  }

  /**
   * Candidates of the lookups from the view, when it can answer them all: loaded, not stale, and every
   * lookup's window within what it holds. Otherwise `undefined` (the engine answers), and a load or poll
   * starts in the background. A lookup it declines (`declines`) is `undefined` in the results.
   *
   * `plansOf`: the band-key plans (candidates/keys.ts) of the lookups it answers, asked only then: the
   * engine's own term statistics, as its lookups take them, so that both reach the same documents (counts of
   * the mirror's live documents differ from the engine's, which hold deleted versions until a merge).
   */
  async lookup(lookups: readonly Lookup[], plansOf: (answered: readonly Lookup[]) => Promise<readonly (KeyPlan | undefined)[]> = async () => []): Promise<MirrorResults | undefined> {
    if (this.stateNow === "off") return undefined;
    if (this.stateNow === "idle") {
      if (this.clock() >= this.notBefore) this.startPoll();
      return undefined;
    }
    if (this.stateNow === "loading") return undefined;
    const age = this.clock() - this.viewAt;
    if (age > (this.options.pollMs ?? 1_000)) this.startPoll();
    if (age > (this.options.staleMs ?? 10_000)) {
      await this.polling;
      if (this.stateNow !== "ready" || this.clock() - this.viewAt > (this.options.staleMs ?? 10_000)) return undefined;
    }
    for (const l of lookups) if (windowAround(l.time, this.options.windowMs).since < this.coveredSince) return undefined;
    const keys = lookups.map((l) => parseKeys(lookupKeysOf(l.analysis)));
    const kept = lookups.flatMap((l, i) => (this.declines(l, keys[i]!) ? [] : [i]));
    const plans = kept.length === 0 ? [] : await plansOf(kept.map((i) => lookups[i]!));
    if (this.stateNow !== "ready") return undefined; // reset meanwhile
    const results: (LookupResult | undefined)[] = lookups.map(() => undefined);
    kept.forEach((i, k) => (results[i] = this.lookupOne(lookups[i]!, keys[i]!, plans[k])));
    return { results, seenAt: this.viewAt };
  }

  /**
   * A write's lookup (`untilDuplicate`) with a key held by more than `ALONE_BEYOND` documents (a template's
   * log lines) is left to the engine, which reads those oldest first and stops at the first duplicate; here
   * every one would be read and compared, each write reading more than the one before (quadratic ingest).
   */
  private declines(l: Lookup, parsed: ProbeKeys): boolean {
    return l.untilDuplicate === true && parsed.keys.some((k) => this.store.holders(k, ALONE_BEYOND + 1) > ALONE_BEYOND);
  }

  /** One lookup's candidates, all of them (`parsed`: its keys). */
  private lookupOne(l: Lookup, parsed: ProbeKeys, plan: KeyPlan | undefined): LookupResult {
    const alone = plan && plan.paired.length > 0 ? new Set(plan.alone) : undefined;
    const probe = lookupProbe(l.analysis, l.radius, alone, l.lengths, l.twoKeyLengths);
    const { since, until } = windowAround(l.time, this.options.windowMs);
    const versions = comparableVersions(l.analysis.version);
    const candidates: Candidate[] = [];
    const slots = this.store.slots(parsed, l.analysis.simhash, l.radius);
    for (const slot of slots) {
      const time = this.store.timeOf(slot);
      if (this.store.isDocument(slot, l.excludeId) || time < since || time > until || !versions.includes(this.store.versionOf(slot))) continue;
      // The reach rule on what it reads (simhash, shared keys, length), then the sketch decoded for those reached.
      const c = this.store.candidate(slot, parsed, false);
      const length = this.store.lengthOf(slot);
      if (!reaches(probe, { ...c, sketch: length === undefined ? undefined : { length } })) continue;
      c.sketch = this.store.sketchOf(slot);
      candidates.push(c);
    }
    return { candidates, hits: slots.size, cut: false, pairedKeys: plan?.paired.length ?? 0, alone };
  }

  /** The engine acknowledged a delete of these ids: they leave the view now. */
  forget(ids: Iterable<string>): void {
    const now = this.clock();
    for (const id of ids) {
      this.remove(id);
      this.forgotten.set(id, now);
    }
  }

  private remove(id: string): void {
    this.unusable.delete(id);
    this.store.remove(id);
  }

  /** Stops for good: the index cannot be mirrored (several primary shards, keys of a form it cannot hold). */
  stop(why: string): void {
    this.generation += 1;
    this.clear();
    this.setState("off", why);
  }

  private clear(): void {
    this.store = new MirrorStore();
    this.unusable = new Set();
    this.checkpoint = -1;
    this.viewAt = -Infinity;
    this.coveredSince = -Infinity;
  }

  /** Starts again from nothing (a delete behind its back, a failed poll): lookups go to the engine until it has loaded. */
  private reset(why: string, waitMs: number): void {
    this.generation += 1;
    this.clear();
    this.notBefore = this.clock() + waitMs;
    this.setState("idle", why);
  }

  private startPoll(): void {
    if (this.polling) return;
    if (this.stateNow === "idle") this.setState("loading");
    this.polling = this.poll()
      .catch((err: unknown) => this.reset(`poll failed: ${err instanceof Error ? err.message : String(err)}`, RETRY_AFTER_MS))
      .finally(() => (this.polling = undefined));
  }

  /** Brings the view up to date now (tests, and the first load). */
  async refresh(): Promise<void> {
    if (this.stateNow === "off") return;
    this.startPoll();
    await this.polling;
  }

  private async poll(): Promise<void> {
    const generation = this.generation;
    const begun = this.clock();
    const { index } = this.options;
    const shards = await this.engine.seqNoCheckpoints(index);
    if (shards.length === 0) throw new Error(`no primary shard of index ${index} reports its sequence numbers`); // missing, or not started: tried again
    if (shards.length > 1) return this.stop(`index ${index} has ${shards.length} primary shards; the mirror follows one`);
    const checkpoint = shards[0]!.checkpoint;
    await this.engine.refresh(index);
    const pageSize = this.options.pageSize ?? 5_000;
    let after = this.checkpoint;
    let pages = 0;
    let counted: number | undefined;
    const countedSince = this.coveredSince;
    for (;;) {
      const body: Record<string, unknown> = {
        size: pageSize,
        track_total_hits: false,
        seq_no_primary_term: true,
        _source: false,
        docvalue_fields: TAIL_FIELDS,
        query: { range: { _seq_no: { gt: after } } },
        sort: [{ _seq_no: "asc" }],
      };
      // The documents of the same searcher, to see deletes: compared when the whole tail fits this page.
      if (pages === 0) body.aggs = { all: { global: {}, aggs: { live: { filter: this.heldFilter() } } } };
      const response = await this.engine.search<unknown>({ index, body });
      if (generation !== this.generation) return;
      const hits = response.hits.hits;
      if (pages === 0) counted = (response.aggregations?.all as { live?: { doc_count?: number } } | undefined)?.live?.doc_count;
      pages += 1;
      for (const hit of hits) this.apply(hit, begun);
      if (generation !== this.generation) return; // stopped (a document it cannot hold)
      if (this.store.size > this.options.maxDocs) this.letOldestGo();
      if (hits.length < pageSize) break;
      after = (hits[hits.length - 1] as { _seq_no?: number })._seq_no ?? after;
      await new Promise((r) => setImmediate(r)); // a load of a million documents yields between pages
    }
    this.checkpoint = Math.max(this.checkpoint, checkpoint);
    for (const [id, at] of this.forgotten) if (at < begun) this.forgotten.delete(id);
    const held = this.store.size + this.unusable.size;
    // Deletes told since the poll began left the store at once; its searcher may have opened before the engine
    // applied them and count them still. Up to that many more in the engine are theirs, not a delete behind its
    // back (which one told in the same poll can hide: the next poll, with none told, sees it).
    const told = this.forgotten.size;
    if (pages === 1 && counted !== undefined && countedSince === this.coveredSince && (counted < held || counted > held + told)) {
      this.reset(`the engine holds ${counted} documents and the mirror ${held}: documents were deleted behind its back`, RELOAD_AFTER_MS);
      return;
    }
    if (this.store.wasted > 0.5 && this.store.deadBytes >= (this.options.compactBytes ?? COMPACT_BYTES)) {
      // Replaced and removed documents' keys and sketches are not reclaimed in place: a copy of the live ones
      // replaces the store, built while lookups read the old one. Deletes told meanwhile are applied to it.
      const since = this.clock();
      const next = await this.store.compacted();
      if (generation !== this.generation) return;
      for (const [id, at] of this.forgotten) if (at >= since) next.remove(id);
      this.store = next;
      this.compactions += 1;
    }
    this.viewAt = begun;
    this.setState("ready");
  }

  /** The documents the view holds, as a query: with a simhash, and not older than what was let go. */
  private heldFilter(): Record<string, unknown> {
    const exists = { exists: { field: "neardup.simhash" } };
    if (this.coveredSince === -Infinity) return exists;
    return { bool: { filter: [exists, { range: { "neardup.timestamp": { gte: this.coveredSince, format: "epoch_millis" } } }] } };
  }

  private apply(hit: SearchHit<unknown>, begun: number): void {
    const seqNo = (hit as { _seq_no?: number })._seq_no;
    // Held by `_id`, the document's own id, which deletes and the engine's count go by; its candidate id is
    // `neardup.id` when that differs (a source copied to another id), as the engine's lookups read it.
    const id = hit._id;
    if (typeof seqNo !== "number" || typeof id !== "string") return;
    const had = this.store.seqNoOf(id);
    if (had !== undefined && had >= seqNo) return;
    const gone = this.forgotten.get(id);
    if (gone !== undefined && gone >= begun) return; // deleted after this poll's searcher opened
    const doc = docOfHit(hit, id, hitId(hit) ?? id, seqNo);
    if (doc === undefined) {
      // Its neardup fields are gone (a full re-index without them), or are no candidate's (no readable simhash,
      // version or time: the engine's lookups leave it out as well). Counted, so that it causes no reset.
      this.remove(id);
      if (hit.fields?.["neardup.simhash"] !== undefined) this.unusable.add(id);
      return;
    }
    if (doc.time < this.coveredSince) return this.remove(id); // older than what is held
    this.unusable.delete(id);
    // Keys of a form it does not know: the engine reaches this document through them and the mirror would not,
    // so the mirror stops rather than answer without it.
    if (!this.store.put(doc)) this.stop(`document ${JSON.stringify(id)} has keys the mirror cannot hold (it holds band keys BB:XXXXXXXX, and word keys w: and block keys p: with 16 hex digits)`);
  }

  /** Past `maxDocs`, the oldest tenth by document time leaves; lookups reaching back to them go to the engine. */
  private letOldestGo(): void {
    const times = Float64Array.from([...this.store.entries()].map(([, time]) => time)).sort();
    const keep = Math.floor(this.options.maxDocs * 0.9);
    const cutoff = times[times.length - keep] ?? Infinity;
    for (const [id, time] of [...this.store.entries()]) if (time < cutoff) this.remove(id);
    this.coveredSince = Math.max(this.coveredSince, cutoff);
  }
}

/** A tail hit as the mirror holds it; undefined when it lacks a readable simhash, version or time. */
function docOfHit(hit: SearchHit<unknown>, id: string, candidateId: string, seqNo: number): MirrorDoc | undefined {
  const hex = first(hit.fields, "neardup.simhash");
  const version = first(hit.fields, "neardup.version");
  const time = Number(first(hit.fields, "neardup.timestamp"));
  if (typeof hex !== "string" || typeof version !== "string" || !Number.isFinite(time)) return undefined;
  let simhash;
  try {
    simhash = fromHex(hex);
  } catch {
    return undefined;
  }
  const lsh = hit.fields?.["neardup.lsh"] ?? keysOfList(first(hit.fields, "neardup.lsh_list")) ?? [];
  const scheme = first(hit.fields, "neardup.lsh_scheme");
  const duplicateOf = first(hit.fields, "neardup.duplicate_of");
  const sketch = first(hit.fields, "neardup.sketch");
  return {
    id,
    candidateId,
    seqNo,
    simhash,
    time,
    status: first(hit.fields, "neardup.status") === "duplicate" ? "duplicate" : "original",
    duplicateOf: typeof duplicateOf === "string" ? duplicateOf : undefined,
    lsh: lsh.filter((k): k is string => typeof k === "string"),
    lshScheme: typeof scheme === "string" ? scheme : undefined,
    version,
    sketch: typeof sketch === "string" ? Buffer.from(sketch, "base64") : undefined,
  };
}
