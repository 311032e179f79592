/**
 * The window mirror's documents (mirror.ts), held compactly: at a million documents, one JavaScript object
 * each (a Candidate with its key strings and sketch arrays) took more than the 4 GB heap. Here a document is
 * a slot of typed arrays (simhash, time, sequence number, status, band keys), its id, and its stored sketch
 * bytes in off-heap chunks; a candidate object is made only for a document a lookup reaches.
 *
 * Keys (band keys `BB:XXXXXXXX`, core lsh.ts; word keys `w:` and block keys `p:`, each with 16 hex digits, core
 * word-keys.ts and block-keys.ts) are held
 * as a kind and two 32-bit words, each document's in a run of a shared pool, in an open-addressing table of
 * key to its newest holder, each holder chaining to the one before. Simhash segments go to a `SegmentIndex`.
 */
import { decodeSketchBytes, type Sketch } from "../core/sketch.js";
import type { Fingerprint } from "../core/fingerprint.js";
import { SegmentIndex } from "../index/index.js";
import type { Candidate } from "./candidate.js";

const BAND_KEY = /^[0-9a-f]{2}:[0-9a-f]{8}$/;
const WORD_KEY = /^w:[0-9a-f]{16}$/;
const BLOCK_KEY = /^p:[0-9a-f]{16}$/;
/** Sketch chunks grow with the bytes held, from 1 MiB to 64 MiB (a small index holds no 64 MiB). */
const CHUNK_BYTES = 64 * 2 ** 20;
const FIRST_CHUNK_BYTES = 2 ** 20;
/** Bytes a key takes in the pool (kind, two words, slot, next). */
const KEY_BYTES = 17;

/** A document as the mirror takes it from a tail hit. */
export interface MirrorDoc {
  /** `_id`. */
  id: string;
  /** The id its candidate carries (`neardup.id`, the same but for a source copied to another id); default `id`. */
  candidateId?: string | undefined;
  seqNo: number;
  simhash: Fingerprint;
  time: number;
  status: "original" | "duplicate";
  duplicateOf: string | undefined;
  lsh: readonly string[];
  lshScheme: string | undefined;
  version: string;
  /** The stored sketch's bytes (base64-decoded), when it has one. */
  sketch: Uint8Array | undefined;
}

export interface ParsedKey {
  key: string;
  kind: number;
  a: number;
  b: number;
}

/** A lookup's keys, parsed once, and indexed by their low word; keys of no known form cannot be held by any document and are left out. */
export interface ProbeKeys {
  keys: ParsedKey[];
  byLow: Map<number, ParsedKey[]>;
}

export function parseKeys(keys: readonly string[]): ProbeKeys {
  const parsed: ParsedKey[] = [];
  const byLow = new Map<number, ParsedKey[]>();
  for (const key of keys) {
    const k = parseKey(key);
    if (!k) continue;
    const p = { key, ...k };
    parsed.push(p);
    const same = byLow.get(p.b);
    if (same) same.push(p);
    else byLow.set(p.b, [p]);
  }
  return { keys: parsed, byLow };
}

/** A key as (kind, a, b): 1 a band key (band, hash), 2 a word key, 3 a block key (their two hashes); undefined for any other string. */
export function parseKey(key: string): { kind: number; a: number; b: number } | undefined {
  if (BAND_KEY.test(key)) return { kind: 1, a: parseInt(key.slice(0, 2), 16), b: parseInt(key.slice(3), 16) >>> 0 };
  if (WORD_KEY.test(key)) return { kind: 2, a: parseInt(key.slice(2, 10), 16) >>> 0, b: parseInt(key.slice(10), 16) >>> 0 };
  if (BLOCK_KEY.test(key)) return { kind: 3, a: parseInt(key.slice(2, 10), 16) >>> 0, b: parseInt(key.slice(10), 16) >>> 0 };
  return undefined;
}

function grow<T extends Uint8Array | Uint16Array | Uint32Array | Int32Array | Float64Array>(a: T, size: number, fill?: number): T {
  if (a.length >= size) return a;
  const next = new (a.constructor as new (n: number) => T)(Math.max(size, a.length * 2));
  next.set(a);
  if (fill !== undefined) next.fill(fill, a.length);
  return next;
}

export class MirrorStore {
  private readonly slotOf = new Map<string, number>();
  private ids: (string | undefined)[] = [];
  private readonly freeSlots: number[] = [];
  private hi = new Uint32Array(1024);
  private lo = new Uint32Array(1024);
  private times = new Float64Array(1024);
  private seqNos = new Float64Array(1024);
  /** Index into `names` of each slot's version and LSH scheme (0: none). */
  private version = new Uint8Array(1024);
  /** 1 for a duplicate. */
  private duplicate = new Uint8Array(1024);
  private scheme = new Uint8Array(1024);
  private readonly names: string[] = [""];
  private readonly nameIds = new Map<string, number>();
  private readonly duplicateOf = new Map<number, string>();
  /** Candidate ids that differ from the slot's `_id`. */
  private readonly candidateIds = new Map<number, string>();
  /** Per slot: its keys' run in the pool. */
  private keyStart = new Uint32Array(1024);
  private keyCount = new Uint16Array(1024);
  /** The key pool: each entry's key (kind, a, b), its slot, and the entry of the same key's holder before it (-1 at the end). */
  private poolKind = new Uint8Array(1 << 14);
  private poolA = new Uint32Array(1 << 14);
  private poolB = new Uint32Array(1 << 14);
  private poolSlot = new Uint32Array(1 << 14);
  private poolNext = new Int32Array(1 << 14).fill(-1);
  private poolUsed = 0;
  /** Pool entries of removed documents (reclaimed only by a reload). */
  private poolDead = 0;
  /** Sketch bytes of removed documents (reclaimed only by a reload). */
  private sketchDead = 0;
  /** Open addressing over keys: kind (0 empty), a, b, and the newest holder's pool entry (-1: none now). */
  private tableKind = new Uint8Array(1 << 16);
  private tableA = new Uint32Array(1 << 16);
  private tableB = new Uint32Array(1 << 16);
  private tableHead = new Int32Array(1 << 16).fill(-1);
  private tableUsed = 0;
  /** Sketch bytes: chunk, offset and length per slot (length 0: none). */
  private sketchChunk = new Uint16Array(1024);
  private sketchOffset = new Uint32Array(1024);
  private sketchLength = new Uint32Array(1024);
  private readonly chunks: Buffer[] = [];
  private chunkUsed = 0;
  /** Bytes of the chunks, and of them those written (live sketches and those of removed and replaced documents). */
  private chunkBytes = 0;
  private sketchUsed = 0;
  private readonly segments = new SegmentIndex();

  get size(): number {
    return this.slotOf.size;
  }

  /**
   * The share of the key pool or of the sketch bytes that removed and replaced documents still take
   * (whichever is larger): neither is reclaimed in place, so a window whose documents are re-sent again and
   * again grows until it is compacted ({@link compacted}, mirror.ts).
   */
  get wasted(): number {
    const sketches = this.sketchUsed === 0 ? 0 : this.sketchDead / this.sketchUsed;
    const keys = this.poolUsed === 0 ? 0 : this.poolDead / this.poolUsed;
    return Math.max(sketches, keys);
  }

  /** Bytes that removed and replaced documents still take (sketches and keys). */
  get deadBytes(): number {
    return this.sketchDead + this.poolDead * KEY_BYTES;
  }

  /**
   * A new store of this one's documents alone, without what removed and replaced documents took, built
   * `batch` documents at a time between turns of the event loop (a million take seconds). Documents this
   * store loses meanwhile may be in the new one; the caller removes them.
   */
  async compacted(batch = 20_000): Promise<MirrorStore> {
    const next = new MirrorStore();
    let n = 0;
    for (const slot of this.slotOf.values()) {
      const start = this.keyStart[slot]!;
      const keys: { kind: number; a: number; b: number }[] = [];
      for (let at = start; at < start + this.keyCount[slot]!; at++) keys.push({ kind: this.poolKind[at]!, a: this.poolA[at]!, b: this.poolB[at]! });
      const offset = this.sketchOffset[slot]!;
      const length = this.sketchLength[slot]!;
      const scheme = this.scheme[slot]!;
      next.putKeys(
        {
          id: this.ids[slot]!,
          candidateId: this.candidateIds.get(slot),
          seqNo: this.seqNos[slot]!,
          simhash: { hi: this.hi[slot]!, lo: this.lo[slot]! },
          time: this.times[slot]!,
          status: this.duplicate[slot] === 1 ? "duplicate" : "original",
          duplicateOf: this.duplicateOf.get(slot),
          lsh: [],
          lshScheme: scheme === 0 ? undefined : this.names[scheme],
          version: this.names[this.version[slot]!]!,
          sketch: length === 0 ? undefined : this.chunks[this.sketchChunk[slot]!]!.subarray(offset, offset + length),
        },
        keys,
      );
      if (++n % batch === 0) await new Promise((r) => setImmediate(r));
    }
    return next;
  }

  seqNoOf(id: string): number | undefined {
    const slot = this.slotOf.get(id);
    return slot === undefined ? undefined : this.seqNos[slot];
  }

  private nameId(name: string | undefined): number {
    if (name === undefined) return 0;
    let id = this.nameIds.get(name);
    if (id === undefined) {
      if (this.names.length >= 255) throw new Error("more than 254 distinct versions and schemes in the window");
      id = this.names.length;
      this.names.push(name);
      this.nameIds.set(name, id);
    }
    return id;
  }

  /** Adds or replaces a document. Returns false, holding nothing of it, when its keys cannot be held. */
  put(doc: MirrorDoc): boolean {
    const keys: { kind: number; a: number; b: number }[] = [];
    for (const k of new Set(doc.lsh)) {
      const key = parseKey(k);
      if (!key) return false;
      keys.push(key);
    }
    if (keys.length > 0xffff) return false;
    this.putKeys(doc, keys);
    return true;
  }

  /** `put` of a document whose keys are parsed. */
  private putKeys(doc: MirrorDoc, keys: readonly { kind: number; a: number; b: number }[]): void {
    this.remove(doc.id);
    const slot = this.freeSlots.pop() ?? this.ids.length;
    if (slot === this.ids.length) this.ids.push(undefined);
    this.ensure(slot + 1);
    this.ids[slot] = doc.id;
    this.slotOf.set(doc.id, slot);
    this.hi[slot] = doc.simhash.hi;
    this.lo[slot] = doc.simhash.lo;
    this.times[slot] = doc.time;
    this.seqNos[slot] = doc.seqNo;
    this.version[slot] = this.nameId(doc.version);
    this.duplicate[slot] = doc.status === "duplicate" ? 1 : 0;
    this.scheme[slot] = this.nameId(doc.lshScheme);
    if (doc.duplicateOf !== undefined) this.duplicateOf.set(slot, doc.duplicateOf);
    if (doc.candidateId !== undefined && doc.candidateId !== doc.id) this.candidateIds.set(slot, doc.candidateId);
    this.ensurePool(this.poolUsed + keys.length);
    this.keyStart[slot] = this.poolUsed;
    this.keyCount[slot] = keys.length;
    for (const { kind, a, b } of keys) {
      const at = this.poolUsed++;
      this.poolKind[at] = kind;
      this.poolA[at] = a;
      this.poolB[at] = b;
      this.poolSlot[at] = slot;
      const t = this.findKey(kind, a, b, true);
      this.poolNext[at] = this.tableHead[t]!;
      this.tableHead[t] = at;
    }
    this.storeSketch(slot, doc.sketch);
    this.segments.insert(doc.id, doc.simhash, 0);
  }

  remove(id: string): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    this.slotOf.delete(id);
    this.ids[slot] = undefined;
    this.duplicateOf.delete(slot);
    this.candidateIds.delete(slot);
    const start = this.keyStart[slot]!;
    for (let at = start; at < start + this.keyCount[slot]!; at++) {
      const t = this.findKey(this.poolKind[at]!, this.poolA[at]!, this.poolB[at]!, false);
      if (t < 0) continue;
      // Unlink `at` from its key's chain.
      if (this.tableHead[t] === at) this.tableHead[t] = this.poolNext[at]!;
      else {
        for (let p = this.tableHead[t]!; p >= 0; p = this.poolNext[p]!) {
          if (this.poolNext[p] === at) {
            this.poolNext[p] = this.poolNext[at]!;
            break;
          }
        }
      }
      this.poolNext[at] = -1;
    }
    this.poolDead += this.keyCount[slot]!;
    this.keyCount[slot] = 0;
    this.sketchDead += this.sketchLength[slot]!;
    this.sketchLength[slot] = 0;
    this.segments.remove(id);
    this.freeSlots.push(slot);
  }

  private ensure(slots: number): void {
    if (this.hi.length >= slots) return;
    this.hi = grow(this.hi, slots);
    this.lo = grow(this.lo, slots);
    this.times = grow(this.times, slots);
    this.seqNos = grow(this.seqNos, slots);
    this.version = grow(this.version, slots);
    this.duplicate = grow(this.duplicate, slots);
    this.scheme = grow(this.scheme, slots);
    this.keyStart = grow(this.keyStart, slots);
    this.keyCount = grow(this.keyCount, slots);
    this.sketchChunk = grow(this.sketchChunk, slots);
    this.sketchOffset = grow(this.sketchOffset, slots);
    this.sketchLength = grow(this.sketchLength, slots);
  }

  private ensurePool(entries: number): void {
    if (this.poolKind.length >= entries) return;
    this.poolKind = grow(this.poolKind, entries);
    this.poolA = grow(this.poolA, entries);
    this.poolB = grow(this.poolB, entries);
    this.poolSlot = grow(this.poolSlot, entries);
    this.poolNext = grow(this.poolNext, entries, -1);
  }

  private storeSketch(slot: number, bytes: Uint8Array | undefined): void {
    if (!bytes || bytes.length === 0) {
      this.sketchLength[slot] = 0;
      return;
    }
    const last = this.chunks[this.chunks.length - 1];
    if (!last || this.chunkUsed + bytes.length > last.length) {
      const size = Math.max(bytes.length, Math.min(CHUNK_BYTES, Math.max(FIRST_CHUNK_BYTES, this.chunkBytes)));
      this.chunks.push(Buffer.allocUnsafeSlow(size));
      this.chunkBytes += size;
      this.chunkUsed = 0;
    }
    const chunk = this.chunks.length - 1;
    this.chunks[chunk]!.set(bytes, this.chunkUsed);
    this.sketchChunk[slot] = chunk;
    this.sketchOffset[slot] = this.chunkUsed;
    this.sketchLength[slot] = bytes.length;
    this.chunkUsed += bytes.length;
    this.sketchUsed += bytes.length;
  }

  private hashSlot(kind: number, a: number, b: number, mask: number): number {
    return (Math.imul(b ^ Math.imul(a + kind, 0x9e3779b1), 0x85ebca6b) >>> 0) & mask;
  }

  /** The table position of the key; with `add`, made when missing; else -1 when missing. */
  private findKey(kind: number, a: number, b: number, add: boolean): number {
    if (add && (this.tableUsed + 1) * 2 > this.tableKind.length) this.rehash();
    const mask = this.tableKind.length - 1;
    for (let t = this.hashSlot(kind, a, b, mask); ; t = (t + 1) & mask) {
      const k = this.tableKind[t]!;
      if (k === 0) {
        if (!add) return -1;
        this.tableKind[t] = kind;
        this.tableA[t] = a;
        this.tableB[t] = b;
        this.tableHead[t] = -1;
        this.tableUsed += 1;
        return t;
      }
      if (k === kind && this.tableA[t] === a && this.tableB[t] === b) return t;
    }
  }

  /** Rebuilds the key table, four times as large as its live keys, leaving out keys no document holds any more. */
  private rehash(): void {
    let live = 0;
    for (let t = 0; t < this.tableKind.length; t++) if (this.tableKind[t] !== 0 && this.tableHead[t] !== -1) live++;
    let size = 1 << 16;
    while (size < (live + 1) * 4) size *= 2;
    const [kinds, as, bs, heads] = [this.tableKind, this.tableA, this.tableB, this.tableHead];
    this.tableKind = new Uint8Array(size);
    this.tableA = new Uint32Array(size);
    this.tableB = new Uint32Array(size);
    this.tableHead = new Int32Array(size).fill(-1);
    this.tableUsed = 0;
    const mask = size - 1;
    for (let t = 0; t < kinds.length; t++) {
      if (kinds[t] === 0 || heads[t] === -1) continue;
      let u = this.hashSlot(kinds[t]!, as[t]!, bs[t]!, mask);
      while (this.tableKind[u] !== 0) u = (u + 1) & mask;
      this.tableKind[u] = kinds[t]!;
      this.tableA[u] = as[t]!;
      this.tableB[u] = bs[t]!;
      this.tableHead[u] = heads[t]!;
      this.tableUsed += 1;
    }
  }

  /** Documents holding this key, counted up to `limit`. */
  holders(k: ParsedKey, limit = Infinity): number {
    const t = this.findKey(k.kind, k.a, k.b, false);
    let n = 0;
    for (let p = t < 0 ? -1 : this.tableHead[t]!; p >= 0 && n < limit; p = this.poolNext[p]!) n++;
    return n;
  }

  /** Slots holding any of the keys, or within `radius` of the simhash. */
  slots(probe: ProbeKeys, simhash: Fingerprint, radius: number): Set<number> {
    const out = new Set<number>();
    for (const k of probe.keys) {
      const t = this.findKey(k.kind, k.a, k.b, false);
      for (let p = t < 0 ? -1 : this.tableHead[t]!; p >= 0; p = this.poolNext[p]!) out.add(this.poolSlot[p]!);
    }
    for (const m of this.segments.lookup(simhash, radius)) {
      const slot = this.slotOf.get(m.id);
      if (slot !== undefined) out.add(slot);
    }
    return out;
  }

  idOf(slot: number): string | undefined {
    return this.ids[slot];
  }

  /** Whether the slot is the document `id` (its `_id` or its candidate id), as a lookup's `excludeId` leaves out. */
  isDocument(slot: number, id: string | undefined): boolean {
    return id !== undefined && (this.ids[slot] === id || this.candidateIds.get(slot) === id);
  }

  timeOf(slot: number): number {
    return this.times[slot]!;
  }

  versionOf(slot: number): string {
    return this.names[this.version[slot]!]!;
  }

  /** The code points of the slot's text, from its sketch's header; undefined without a sketch. */
  lengthOf(slot: number): number | undefined {
    const n = this.sketchLength[slot]!;
    if (n < 5) return undefined;
    const chunk = this.chunks[this.sketchChunk[slot]!]!;
    const o = this.sketchOffset[slot]! + 1;
    return (chunk[o]! | (chunk[o + 1]! << 8) | (chunk[o + 2]! << 16) | (chunk[o + 3]! << 24)) >>> 0;
  }

  /**
   * The slot's candidate for a lookup whose band keys are `probeKeys`: its `lsh` holds the probe's keys it
   * shares (all the reach rule asks of it), its sketch decoded from the stored bytes (none if unreadable).
   */
  candidate(slot: number, probe: ProbeKeys, sketch = true): Candidate {
    const lsh: string[] = [];
    const start = this.keyStart[slot]!;
    const end = start + this.keyCount[slot]!;
    for (let at = start; at < end; at++) {
      const same = probe.byLow.get(this.poolB[at]!);
      if (!same) continue;
      for (const k of same) if (this.poolKind[at] === k.kind && this.poolA[at] === k.a) lsh.push(k.key);
    }
    const scheme = this.scheme[slot]!;
    const duplicateOf = this.duplicateOf.get(slot);
    return {
      id: this.candidateIds.get(slot) ?? this.ids[slot]!,
      simhash: { hi: this.hi[slot]!, lo: this.lo[slot]! },
      time: this.times[slot]!,
      status: this.duplicate[slot] === 1 ? "duplicate" : "original",
      duplicateOf,
      lsh,
      lshScheme: scheme === 0 ? undefined : this.names[scheme],
      sketch: sketch ? this.sketchOf(slot) : undefined,
    };
  }

  sketchOf(slot: number): Sketch | undefined {
    const n = this.sketchLength[slot]!;
    if (n === 0) return undefined;
    const offset = this.sketchOffset[slot]!;
    try {
      return decodeSketchBytes(this.chunks[this.sketchChunk[slot]!]!.subarray(offset, offset + n));
    } catch {
      return undefined; // unreadable: the re-rank reads the stored text instead
    }
  }

  /** Every id with its document time (for letting the oldest go). */
  *entries(): IterableIterator<[string, number]> {
    for (const [id, slot] of this.slotOf) yield [id, this.times[slot]!];
  }
}
