/**
 * The embedded index: string ids over {@link FingerprintTable}.
 *
 * Exactness: `lookup(fp, r)` returns every live entry within Hamming distance
 * r, and nothing else (tests compare it with a full scan). Times are assumed
 * non-decreasing across inserts (a document stream, a clock); an earlier time
 * is clamped up to the latest one seen, so such an entry never expires early
 * but may outlive its own time by the amount it was out of order.
 */
import type { Fingerprint } from "../core/fingerprint.js";
import { NeardupError } from "../core/errors.js";
import { FingerprintTable, MAX_SEQ } from "./fingerprint-table.js";
import { IdMap } from "./id-map.js";
import { SeqStrings } from "./seq-strings.js";
import { readIndexFile, writeIndexFile } from "./persist.js";

/** One stored fingerprint. */
export interface IndexEntry {
  readonly id: string;
  readonly fingerprint: Fingerprint;
  /** Effective insertion time, in the caller's unit (see the class doc on ordering). */
  readonly time: number;
}

/** A lookup result. */
export interface IndexMatch extends IndexEntry {
  /** Hamming distance to the query, 0..64. */
  readonly distance: number;
}

/** Largest radius accepted by {@link SegmentIndex.lookup}. */
export const MAX_RADIUS = 64;
/** Longest id accepted, in UTF-16 code units. */
export const MAX_ID_LENGTH = 4096;

function checkFingerprint(fp: Fingerprint): void {
  const ok = (x: unknown): boolean => typeof x === "number" && Number.isInteger(x) && x >= 0 && x <= 0xffffffff;
  if (fp === null || typeof fp !== "object" || !ok(fp.hi) || !ok(fp.lo)) {
    throw new NeardupError("INVALID_INPUT", `fingerprint must be {hi, lo} with uint32 halves, got ${JSON.stringify(fp)}`, {
      field: "fingerprint",
    });
  }
}

function checkRadius(radius: number): void {
  if (!Number.isInteger(radius) || radius < 0 || radius > MAX_RADIUS) {
    throw new NeardupError("INVALID_INPUT", `radius must be an integer in 0..${MAX_RADIUS}, got ${String(radius)}`, { field: "radius" });
  }
}

export class SegmentIndex {
  private table = new FingerprintTable();
  private ids = new SeqStrings();
  private idMap = this.newIdMap();

  /** Live entries. */
  get size(): number {
    return this.table.size;
  }

  /** Bytes held in typed arrays (tables, id hash); the id strings themselves are not counted. */
  get byteLength(): number {
    return this.table.byteLength + this.idMap.byteLength;
  }

  /** Adds a fingerprint under `id`; an entry with the same id is replaced. */
  insert(id: string, fingerprint: Fingerprint, time: number): void {
    if (typeof id !== "string" || id.length === 0 || id.length > MAX_ID_LENGTH) {
      const shown = typeof id === "string" ? `a string of length ${id.length}` : JSON.stringify(id);
      throw new NeardupError("INVALID_INPUT", `id must be a string of 1..${MAX_ID_LENGTH} characters, got ${shown}`, { field: "id" });
    }
    checkFingerprint(fingerprint);
    if (typeof time !== "number" || !Number.isFinite(time)) {
      throw new NeardupError("INVALID_INPUT", `time must be a finite number, got ${String(time)}`, { field: "time" });
    }
    if (this.table.next > MAX_SEQ) this.rebuild();
    const old = this.idMap.get(id);
    if (old !== 0) this.table.kill(old);
    const seq = this.table.insert(fingerprint.hi >>> 0, fingerprint.lo >>> 0, time);
    this.ids.set(seq, id);
    this.idMap.set(id, seq);
    if (old !== 0) this.maybeCompact();
  }

  /** Removes the entry with this id; returns whether there was one. */
  remove(id: string): boolean {
    const seq = this.idMap.get(id);
    if (seq === 0) return false;
    this.table.kill(seq);
    this.idMap.delete(id);
    this.maybeCompact();
    return true;
  }

  has(id: string): boolean {
    return this.idMap.get(id) !== 0;
  }

  get(id: string): IndexEntry | undefined {
    const seq = this.idMap.get(id);
    return seq === 0 ? undefined : this.entryAt(seq);
  }

  /** Removes every entry whose time is < cutoff; returns how many. Cost proportional to what expires. */
  expireBefore(cutoff: number): number {
    if (typeof cutoff !== "number" || Number.isNaN(cutoff)) {
      throw new NeardupError("INVALID_INPUT", `cutoff must be a number, got ${String(cutoff)}`, { field: "cutoff" });
    }
    const n = this.table.expireBefore(cutoff, (seq) => this.idMap.delete(this.ids.get(seq)));
    this.ids.dropBelow(this.table.tail);
    return n;
  }

  /**
   * Every live entry within Hamming distance `radius` (integer 0..64) of
   * `fingerprint`, nearest first, ties in insertion order (oldest first).
   */
  lookup(fingerprint: Fingerprint, radius: number): IndexMatch[] {
    checkFingerprint(fingerprint);
    checkRadius(radius);
    this.table.lookup(fingerprint.hi >>> 0, fingerprint.lo >>> 0, radius);
    return this.collect();
  }

  /** Same contract as {@link lookup}, by scanning every entry: the reference for tests and benchmarks. */
  scan(fingerprint: Fingerprint, radius: number): IndexMatch[] {
    checkFingerprint(fingerprint);
    checkRadius(radius);
    this.table.scan(fingerprint.hi >>> 0, fingerprint.lo >>> 0, radius);
    return this.collect();
  }

  /** Live entries in insertion order. */
  entries(): IndexEntry[] {
    const out: IndexEntry[] = [];
    this.table.forEachLive((seq, hi, lo, time) => out.push({ id: this.ids.get(seq), fingerprint: { hi, lo }, time }));
    return out;
  }

  /**
   * Sorts every entry into the contiguous base tables now (inserts do this on
   * their own as the recent-entries delta grows); call after a bulk load.
   */
  optimize(): void {
    this.table.merge();
  }

  /** Rebuilds the tables from the live entries, reclaiming removed and replaced slots. */
  compact(): void {
    this.rebuild();
  }

  /** Writes the live entries to `path` (format: see persist.ts). */
  save(path: string): void {
    const table = this.table;
    writeIndexFile(path, table.size, (emit) => {
      table.forEachLive((seq, hi, lo, time) => emit(hi, lo, time, this.ids.get(seq)));
    });
  }

  /** Reads an index written by {@link save}; a corrupt, truncated or unknown file throws CORRUPT_FILE. */
  static load(path: string): SegmentIndex {
    const index = new SegmentIndex();
    readIndexFile(path, (hi, lo, time, id) => index.insert(id, { hi, lo }, time));
    index.optimize();
    return index;
  }

  private newIdMap(): IdMap {
    return new IdMap((seq) => this.ids.get(seq));
  }

  private entryAt(seq: number): IndexEntry {
    const t = this.table;
    return { id: this.ids.get(seq), fingerprint: { hi: t.hiOf(seq), lo: t.loOf(seq) }, time: t.timeOf(seq) };
  }

  private collect(): IndexMatch[] {
    const hits = this.table.hits;
    const order: number[] = [];
    for (let i = 0; i < hits.count; i++) order.push(i);
    order.sort((a, b) => hits.distances[a]! - hits.distances[b]! || hits.seqs[a]! - hits.seqs[b]!);
    return order.map((i) => ({ ...this.entryAt(hits.seqs[i]!), distance: hits.distances[i]! }));
  }

  private maybeCompact(): void {
    const waste = this.table.occupied - this.table.size;
    if (waste > 65536 && waste > this.table.size) this.rebuild();
  }

  private rebuild(): void {
    const oldTable = this.table;
    const oldIds = this.ids;
    this.table = new FingerprintTable();
    this.ids = new SeqStrings();
    this.idMap = this.newIdMap();
    oldTable.forEachLive((seq, hi, lo, time) => {
      const id = oldIds.get(seq);
      const s = this.table.insert(hi, lo, time);
      this.ids.set(s, id);
      this.idMap.set(id, s);
    });
    this.table.merge();
  }
}
