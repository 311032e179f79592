/**
 * The segment tables over typed arrays: fingerprints addressed by handle.
 *
 * Entries. Every insert gets the next sequence number (seq, from 1; 0 means
 * "none"). Fingerprints live in chunks of 65,536 seqs as interleaved
 * `[hi, lo]` uint32 pairs (8 bytes an entry) plus a dead-bit; chunks are
 * freed whole as they expire, so memory follows the live window.
 *
 * Tables. Table t is keyed by segment t (16 bits, seg0 = bits 63..48). Most
 * entries sit in a *base*: per table, a CSR layout of `offsets` (65,537) and
 * `perm` (the seqs, grouped by segment value, 4 bytes an entry per table), so a
 * bucket is one contiguous run and the CPU can fetch its fingerprints in
 * parallel. Recent inserts sit in a *delta*: per table, chains through
 * `deltaHeads`/`deltaNext` (newest first). When the delta reaches 1/8 of the
 * base (at least 65,536, at most 4M) the live entries are re-sorted into a new
 * base (counting sort, O(live)); removed and expired entries drop out then.
 * Total: 24 bytes an entry, plus at most 16 bytes per delta entry.
 *
 * Expiry. Seqs are handed out in time order (see {@link Timeline}), so the
 * expired entries are exactly the seqs below `tail`: expiring moves `tail` up,
 * visits only the expired seqs and frees whole chunks. Tables are not touched:
 * a probe skips seqs below `tail` (delta chains stop there, as everything
 * after is older). Removing one entry sets its dead bit.
 */
import { popcount32 } from "../core/fingerprint.js";
import { segmentMasks, segmentSlack } from "./neighbours.js";
import { Timeline } from "./timeline.js";

const CHUNK_BITS = 16;
const CHUNK_SIZE = 1 << CHUNK_BITS;
const CHUNK_MASK = CHUNK_SIZE - 1;
const BUCKETS = 1 << 16;
const OFFSETS = BUCKETS + 1;
const MIN_DELTA = 65_536;
const MAX_DELTA = 4_000_000;

/** Largest seq handed out; a caller rebuilds the table (seqs restart at 1) before reaching it. */
export const MAX_SEQ = 0xfffffff0;

/** Above this slack (radius >= 12) probing neighbours costs more than a scan. */
const MAX_PROBE_SLACK = 2;

interface Chunk {
  /** hi, lo of entry `off` at 2 * off, 2 * off + 1. */
  readonly hl: Uint32Array;
  readonly dead: Uint8Array;
}

const CHUNK_BYTES = CHUNK_SIZE * 8 + (CHUNK_SIZE >>> 3);

/** Lookup results, reused between calls: `seqs[i]` at Hamming distance `distances[i]`, i < count. */
export interface Hits {
  count: number;
  seqs: Uint32Array;
  distances: Uint8Array;
}

export class FingerprintTable {
  private chunks: Chunk[] = [];
  /** Chunk number (seq >>> 16) of chunks[0]. */
  private chunkBase = 0;
  private nextSeq = 1;
  private tailSeq = 1;
  private live = 0;
  private readonly timeline = new Timeline();

  private baseOffsets = new Uint32Array(4 * OFFSETS);
  private basePerm: Uint32Array[] = [new Uint32Array(0), new Uint32Array(0), new Uint32Array(0), new Uint32Array(0)];
  private baseCount = 0;
  /** Seqs from here on are in the delta. */
  private deltaStart = 1;
  private readonly deltaHeads = new Uint32Array(4 * BUCKETS);
  private deltaNext = new Uint32Array(4 * 1024);

  readonly hits: Hits = { count: 0, seqs: new Uint32Array(64), distances: new Uint8Array(64) };

  /** Live entries. */
  get size(): number {
    return this.live;
  }

  /** Seqs handed out and not yet expired, live or dead. */
  get occupied(): number {
    return this.nextSeq - this.tailSeq;
  }

  /** The seq the next insert gets. */
  get next(): number {
    return this.nextSeq;
  }

  /** The oldest seq not expired. */
  get tail(): number {
    return this.tailSeq;
  }

  /** Entries in the delta (not yet merged into the base). */
  get deltaSize(): number {
    return this.nextSeq - this.deltaStart;
  }

  /** Bytes held in typed arrays. */
  get byteLength(): number {
    let perms = 0;
    for (const p of this.basePerm) perms += p.byteLength;
    return (
      this.chunks.length * CHUNK_BYTES +
      perms +
      this.baseOffsets.byteLength +
      this.deltaHeads.byteLength +
      this.deltaNext.byteLength +
      this.timeline.byteLength
    );
  }

  /** Appends a fingerprint; returns its seq. `hi`/`lo` are uint32; `time` a finite number. */
  insert(hi: number, lo: number, time: number): number {
    const seq = this.nextSeq;
    if (seq > MAX_SEQ) throw new RangeError(`FingerprintTable: sequence numbers exhausted at ${seq}; rebuild the table`);
    const ci = (seq >>> CHUNK_BITS) - this.chunkBase;
    let c = this.chunks[ci];
    if (c === undefined) {
      c = { hl: new Uint32Array(CHUNK_SIZE * 2), dead: new Uint8Array(CHUNK_SIZE >>> 3) };
      this.chunks[ci] = c;
    }
    const off = seq & CHUNK_MASK;
    c.hl[2 * off] = hi;
    c.hl[2 * off + 1] = lo;

    const d = (seq - this.deltaStart) * 4;
    if (d + 4 > this.deltaNext.length) {
      const grown = new Uint32Array(this.deltaNext.length * 2);
      grown.set(this.deltaNext);
      this.deltaNext = grown;
    }
    const heads = this.deltaHeads;
    const next = this.deltaNext;
    let b = hi >>> 16;
    next[d] = heads[b]!;
    heads[b] = seq;
    b = BUCKETS + (hi & 0xffff);
    next[d + 1] = heads[b]!;
    heads[b] = seq;
    b = 2 * BUCKETS + (lo >>> 16);
    next[d + 2] = heads[b]!;
    heads[b] = seq;
    b = 3 * BUCKETS + (lo & 0xffff);
    next[d + 3] = heads[b]!;
    heads[b] = seq;

    this.timeline.push(seq, time);
    this.nextSeq = seq + 1;
    this.live++;
    if (this.nextSeq - this.deltaStart >= Math.min(MAX_DELTA, Math.max(MIN_DELTA, this.baseCount >>> 3))) this.merge();
    return seq;
  }

  isLive(seq: number): boolean {
    if (seq < this.tailSeq || seq >= this.nextSeq) return false;
    const c = this.chunks[(seq >>> CHUNK_BITS) - this.chunkBase]!;
    const off = seq & CHUNK_MASK;
    return (c.dead[off >>> 3]! & (1 << (off & 7))) === 0;
  }

  /** Marks a live seq dead; returns false if it was not live. */
  kill(seq: number): boolean {
    if (!this.isLive(seq)) return false;
    const c = this.chunks[(seq >>> CHUNK_BITS) - this.chunkBase]!;
    const off = seq & CHUNK_MASK;
    c.dead[off >>> 3]! |= 1 << (off & 7);
    this.live--;
    return true;
  }

  hiOf(seq: number): number {
    return this.chunks[(seq >>> CHUNK_BITS) - this.chunkBase]!.hl[2 * (seq & CHUNK_MASK)]!;
  }

  loOf(seq: number): number {
    return this.chunks[(seq >>> CHUNK_BITS) - this.chunkBase]!.hl[2 * (seq & CHUNK_MASK) + 1]!;
  }

  /** Effective insertion time of a live seq. */
  timeOf(seq: number): number {
    return this.timeline.timeOf(seq);
  }

  /**
   * Expires every entry with (effective) time < cutoff. `onExpired` sees each
   * live seq that expires, before its storage is freed. Returns how many live
   * entries expired. Cost: proportional to the seqs that expire.
   */
  expireBefore(cutoff: number, onExpired?: (seq: number) => void): number {
    const newTail = this.timeline.expire(cutoff, this.nextSeq);
    let expired = 0;
    for (let s = this.tailSeq; s < newTail; s++) {
      if (this.isLive(s)) {
        onExpired?.(s);
        expired++;
      }
    }
    this.live -= expired;
    this.tailSeq = newTail;
    while (this.chunks.length > 0 && (this.chunkBase + 1) * CHUNK_SIZE <= newTail) {
      this.chunks.shift();
      this.chunkBase++;
    }
    if (this.chunks.length === 0) this.chunkBase = newTail >>> CHUNK_BITS;
    return expired;
  }

  /**
   * Re-sorts every live entry into the base tables and empties the delta
   * (counting sort by segment, O(live); old tables are freed first, so memory
   * does not double). Called by insert as the delta grows.
   */
  merge(): void {
    const counts = new Uint32Array(4 * OFFSETS);
    let n = 0;
    this.forEachLiveSeq((_s, hi, lo) => {
      counts[(hi >>> 16) + 1]!++;
      counts[OFFSETS + (hi & 0xffff) + 1]!++;
      counts[2 * OFFSETS + (lo >>> 16) + 1]!++;
      counts[3 * OFFSETS + (lo & 0xffff) + 1]!++;
      n++;
    });
    for (let t = 0; t < 4; t++) {
      const o = t * OFFSETS;
      for (let v = 1; v < OFFSETS; v++) counts[o + v]! += counts[o + v - 1]!;
    }
    this.basePerm = [new Uint32Array(0), new Uint32Array(0), new Uint32Array(0), new Uint32Array(0)];
    const p0 = new Uint32Array(n);
    const p1 = new Uint32Array(n);
    const p2 = new Uint32Array(n);
    const p3 = new Uint32Array(n);
    const fill = counts.slice();
    this.forEachLiveSeq((s, hi, lo) => {
      p0[fill[hi >>> 16]!++] = s;
      p1[fill[OFFSETS + (hi & 0xffff)]!++] = s;
      p2[fill[2 * OFFSETS + (lo >>> 16)]!++] = s;
      p3[fill[3 * OFFSETS + (lo & 0xffff)]!++] = s;
    });
    this.basePerm = [p0, p1, p2, p3];
    this.baseOffsets = counts;
    this.baseCount = n;
    this.deltaStart = this.nextSeq;
    this.deltaHeads.fill(0);
    const want = 4 * Math.min(MAX_DELTA, Math.max(MIN_DELTA, n >>> 3));
    if (this.deltaNext.length > want) this.deltaNext = new Uint32Array(want);
  }

  /**
   * Every live entry within Hamming distance `radius` of (hi, lo), into
   * {@link hits} in no particular order; returns the count. Radius 0-3 probes
   * one bucket per table; larger radii probe the buckets within floor(r/4)
   * bits (see neighbours.ts); radius >= 12 scans.
   */
  lookup(hi: number, lo: number, radius: number): number {
    const slack = segmentSlack(radius);
    this.hits.count = 0;
    if (slack > MAX_PROBE_SLACK) return this.scan(hi, lo, radius);
    const masks = segmentMasks(slack);
    const q = [hi >>> 16, hi & 0xffff, lo >>> 16, lo & 0xffff] as const;
    const chunks = this.chunks;
    const base = this.chunkBase;
    const tail = this.tailSeq;
    const offsets = this.baseOffsets;
    const deltaStart = this.deltaStart;
    const heads = this.deltaHeads;
    const next = this.deltaNext;
    for (let t = 0; t < 4; t++) {
      const qt = q[t];
      const perm = this.basePerm[t]!;
      for (let m = 0; m < masks.length; m++) {
        const v = qt ^ masks[m]!;
        // Base: one contiguous run of seqs.
        const end = offsets[t * OFFSETS + v + 1]!;
        for (let i = offsets[t * OFFSETS + v]!; i < end; i++) {
          const s = perm[i]!;
          if (s < tail) continue;
          const hl = chunks[(s >>> CHUNK_BITS) - base]!.hl;
          const k = 2 * (s & CHUNK_MASK);
          const eh = hl[k]!;
          const el = hl[k + 1]!;
          const d = popcount32(eh ^ hi) + popcount32(el ^ lo);
          if (d <= radius && this.firstProbe(eh, el, t, q, slack) && this.isLive(s)) this.push(s, d);
        }
        // Delta: a chain, newest first; stop at the base or the tail.
        let s = heads[t * BUCKETS + v]!;
        while (s >= deltaStart && s >= tail) {
          const hl = chunks[(s >>> CHUNK_BITS) - base]!.hl;
          const k = 2 * (s & CHUNK_MASK);
          const eh = hl[k]!;
          const el = hl[k + 1]!;
          const d = popcount32(eh ^ hi) + popcount32(el ^ lo);
          if (d <= radius && this.firstProbe(eh, el, t, q, slack) && this.isLive(s)) this.push(s, d);
          s = next[(s - deltaStart) * 4 + t]!;
        }
      }
    }
    return this.hits.count;
  }

  /** Same result as {@link lookup}, by visiting every live entry. The baseline for tests and benchmarks. */
  scan(hi: number, lo: number, radius: number): number {
    this.hits.count = 0;
    for (let ci = 0; ci < this.chunks.length; ci++) {
      const c = this.chunks[ci]!;
      const hl = c.hl;
      const first = Math.max(this.tailSeq, (this.chunkBase + ci) * CHUNK_SIZE);
      const end = Math.min(this.nextSeq, (this.chunkBase + ci + 1) * CHUNK_SIZE);
      for (let s = first; s < end; s++) {
        const off = s & CHUNK_MASK;
        const d = popcount32(hl[2 * off]! ^ hi) + popcount32(hl[2 * off + 1]! ^ lo);
        if (d <= radius && (c.dead[off >>> 3]! & (1 << (off & 7))) === 0) this.push(s, d);
      }
    }
    return this.hits.count;
  }

  /** Visits live entries in insertion order. */
  forEachLive(visit: (seq: number, hi: number, lo: number, time: number) => void): void {
    if (this.live === 0) return;
    let cursor = this.timeline.cursor(this.tailSeq);
    this.forEachLiveSeq((s, hi, lo) => {
      cursor = this.timeline.advance(cursor, s);
      visit(s, hi, lo, this.timeline.timeAt(cursor));
    });
  }

  private forEachLiveSeq(visit: (seq: number, hi: number, lo: number) => void): void {
    for (let ci = 0; ci < this.chunks.length; ci++) {
      const c = this.chunks[ci]!;
      const first = Math.max(this.tailSeq, (this.chunkBase + ci) * CHUNK_SIZE);
      const end = Math.min(this.nextSeq, (this.chunkBase + ci + 1) * CHUNK_SIZE);
      for (let s = first; s < end; s++) {
        const off = s & CHUNK_MASK;
        if ((c.dead[off >>> 3]! & (1 << (off & 7))) === 0) visit(s, c.hl[2 * off]!, c.hl[2 * off + 1]!);
      }
    }
  }

  /**
   * An entry is reported from the first table whose probe reaches it, so hits
   * are unique without a visited set: not from table t if an earlier table's
   * segment is within the slack too.
   */
  private firstProbe(eh: number, el: number, t: number, q: readonly [number, number, number, number], slack: number): boolean {
    if (t > 0 && popcount32((eh >>> 16) ^ q[0]) <= slack) return false;
    if (t > 1 && popcount32((eh & 0xffff) ^ q[1]) <= slack) return false;
    if (t > 2 && popcount32((el >>> 16) ^ q[2]) <= slack) return false;
    return true;
  }

  private push(seq: number, distance: number): void {
    const h = this.hits;
    if (h.count === h.seqs.length) {
      const seqs = new Uint32Array(h.seqs.length * 2);
      seqs.set(h.seqs);
      const distances = new Uint8Array(h.seqs.length * 2);
      distances.set(h.distances);
      h.seqs = seqs;
      h.distances = distances;
    }
    h.seqs[h.count] = seq;
    h.distances[h.count] = distance;
    h.count++;
  }
}
