/**
 * The segment tables over typed arrays: fingerprints addressed by handle.
 *
 * Layout. Every insert gets the next sequence number (seq, starting at 1; 0
 * means "none"). Entries live in chunks of 65,536 seqs, each chunk holding the
 * halves `hi`/`lo` (8 bytes an entry), four "next" links (one per segment
 * table, 16 bytes an entry) and a dead-bit (1 bit). The four tables are
 * `heads[t * 65536 + segment]` = the newest seq in that bucket; each entry's
 * `next[4 * i + t]` is the next older seq in the same bucket of table t. So a
 * bucket is a chain in decreasing seq order, and everything costs 24 bytes an
 * entry plus 1 MB of heads, with no per-entry objects.
 *
 * Expiry. Seqs are handed out in time order (see {@link Timeline}), so the
 * expired entries are exactly the seqs below `tail`: expiring moves `tail`
 * up, visits only the expired seqs, and frees whole chunks. Chains are never
 * rewritten: a walk stops at the first seq below `tail`, since everything
 * after it in the chain is older still. Removal of a single entry sets its
 * dead bit; its slot is reclaimed when it expires or by rebuilding.
 */
import { popcount32 } from "../core/fingerprint.js";
import { segmentMasks, segmentSlack } from "./neighbours.js";
import { Timeline } from "./timeline.js";

const CHUNK_BITS = 16;
const CHUNK_SIZE = 1 << CHUNK_BITS;
const CHUNK_MASK = CHUNK_SIZE - 1;
const BUCKETS = 1 << 16;

/** Largest seq handed out; a caller rebuilds the table (seqs restart at 1) before reaching it. */
export const MAX_SEQ = 0xfffffff0;

/** Above this slack (radius >= 12) probing neighbours costs more than a scan. */
const MAX_PROBE_SLACK = 2;

interface Chunk {
  readonly hi: Uint32Array;
  readonly lo: Uint32Array;
  readonly next: Uint32Array;
  readonly dead: Uint8Array;
}

function newChunk(): Chunk {
  return {
    hi: new Uint32Array(CHUNK_SIZE),
    lo: new Uint32Array(CHUNK_SIZE),
    next: new Uint32Array(CHUNK_SIZE * 4),
    dead: new Uint8Array(CHUNK_SIZE >>> 3),
  };
}

const CHUNK_BYTES = CHUNK_SIZE * (4 + 4 + 16) + (CHUNK_SIZE >>> 3);

/** Lookup results, reused between calls: `seqs[i]` at Hamming distance `distances[i]`, i < count. */
export interface Hits {
  count: number;
  seqs: Uint32Array;
  distances: Uint8Array;
}

export class FingerprintTable {
  private readonly heads = new Uint32Array(BUCKETS * 4);
  private chunks: Chunk[] = [];
  /** Chunk number (seq >>> 16) of chunks[0]. */
  private chunkBase = 0;
  private nextSeq = 1;
  private tailSeq = 1;
  private live = 0;
  private readonly timeline = new Timeline();
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

  /** Bytes held in typed arrays (chunks, heads, timeline). */
  get byteLength(): number {
    return this.chunks.length * CHUNK_BYTES + this.heads.byteLength + this.timeline.byteLength;
  }

  /** Appends a fingerprint; returns its seq. `hi`/`lo` are uint32; `time` a finite number. */
  insert(hi: number, lo: number, time: number): number {
    const seq = this.nextSeq;
    if (seq > MAX_SEQ) throw new RangeError(`FingerprintTable: sequence numbers exhausted at ${seq}; rebuild the table`);
    const ci = (seq >>> CHUNK_BITS) - this.chunkBase;
    let c = this.chunks[ci];
    if (c === undefined) {
      c = newChunk();
      this.chunks[ci] = c;
    }
    const off = seq & CHUNK_MASK;
    c.hi[off] = hi;
    c.lo[off] = lo;
    const n = off * 4;
    const heads = this.heads;
    let b = hi >>> 16;
    c.next[n] = heads[b]!;
    heads[b] = seq;
    b = BUCKETS + (hi & 0xffff);
    c.next[n + 1] = heads[b]!;
    heads[b] = seq;
    b = 2 * BUCKETS + (lo >>> 16);
    c.next[n + 2] = heads[b]!;
    heads[b] = seq;
    b = 3 * BUCKETS + (lo & 0xffff);
    c.next[n + 3] = heads[b]!;
    heads[b] = seq;
    this.timeline.push(seq, time);
    this.nextSeq = seq + 1;
    this.live++;
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
    return this.chunks[(seq >>> CHUNK_BITS) - this.chunkBase]!.hi[seq & CHUNK_MASK]!;
  }

  loOf(seq: number): number {
    return this.chunks[(seq >>> CHUNK_BITS) - this.chunkBase]!.lo[seq & CHUNK_MASK]!;
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
    // Free chunks whose last seq is below the tail.
    while (this.chunks.length > 0 && (this.chunkBase + 1) * CHUNK_SIZE <= newTail) {
      this.chunks.shift();
      this.chunkBase++;
    }
    if (this.chunks.length === 0) this.chunkBase = newTail >>> CHUNK_BITS;
    return expired;
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
    const q0 = hi >>> 16;
    const q1 = hi & 0xffff;
    const q2 = lo >>> 16;
    const q3 = lo & 0xffff;
    const heads = this.heads;
    const chunks = this.chunks;
    const base = this.chunkBase;
    const tail = this.tailSeq;
    for (let t = 0; t < 4; t++) {
      const q = t === 0 ? q0 : t === 1 ? q1 : t === 2 ? q2 : q3;
      for (let m = 0; m < masks.length; m++) {
        let s = heads[t * BUCKETS + (q ^ masks[m]!)]!;
        while (s >= tail) {
          const c = chunks[(s >>> CHUNK_BITS) - base]!;
          const off = s & CHUNK_MASK;
          if ((c.dead[off >>> 3]! & (1 << (off & 7))) === 0) {
            const eh = c.hi[off]!;
            const el = c.lo[off]!;
            const d = popcount32(eh ^ hi) + popcount32(el ^ lo);
            // Report an entry from the first table whose probe reaches it, so
            // hits are unique without a visited set: skip it here if an
            // earlier table's segment is within the slack too.
            if (
              d <= radius &&
              (t < 1 || popcount32((eh >>> 16) ^ q0) > slack) &&
              (t < 2 || popcount32((eh & 0xffff) ^ q1) > slack) &&
              (t < 3 || popcount32((el >>> 16) ^ q2) > slack)
            ) {
              this.push(s, d);
            }
          }
          s = c.next[off * 4 + t]!;
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
      const first = Math.max(this.tailSeq, (this.chunkBase + ci) * CHUNK_SIZE);
      const end = Math.min(this.nextSeq, (this.chunkBase + ci + 1) * CHUNK_SIZE);
      for (let s = first; s < end; s++) {
        const off = s & CHUNK_MASK;
        if ((c.dead[off >>> 3]! & (1 << (off & 7))) !== 0) continue;
        const d = popcount32(c.hi[off]! ^ hi) + popcount32(c.lo[off]! ^ lo);
        if (d <= radius) this.push(s, d);
      }
    }
    return this.hits.count;
  }

  /** Visits live entries in insertion order. */
  forEachLive(visit: (seq: number, hi: number, lo: number, time: number) => void): void {
    if (this.live === 0) return;
    let cursor = this.timeline.cursor(this.tailSeq);
    for (let s = this.tailSeq; s < this.nextSeq; s++) {
      if (!this.isLive(s)) continue;
      cursor = this.timeline.advance(cursor, s);
      const c = this.chunks[(s >>> CHUNK_BITS) - this.chunkBase]!;
      const off = s & CHUNK_MASK;
      visit(s, c.hi[off]!, c.lo[off]!, this.timeline.timeAt(cursor));
    }
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
