/**
 * String id -> seq, as an open-addressing hash table over a Uint32Array.
 *
 * A JavaScript Map stops at 2^24 entries (~16.7M) and costs ~30 bytes an
 * entry; this table holds 4 bytes a slot (load <= 0.8) and compares keys
 * through `idOf(seq)`, the id storage its owner already keeps. Linear probing
 * with backward-shift deletion, so there are no tombstones.
 */

/** FNV-1a over UTF-16 code units. */
export function hashId(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

const EMPTY = 0;

export class IdMap {
  private slots = new Uint32Array(1024);
  private mask = 1023;
  private count = 0;

  /** `idOf(seq)` returns the id stored for a seq currently in the map. */
  constructor(private readonly idOf: (seq: number) => string) {}

  get size(): number {
    return this.count;
  }

  get byteLength(): number {
    return this.slots.byteLength;
  }

  /** The seq stored for `id`, or 0. */
  get(id: string): number {
    let i = hashId(id) & this.mask;
    for (;;) {
      const s = this.slots[i]!;
      if (s === EMPTY) return 0;
      if (this.idOf(s) === id) return s;
      i = (i + 1) & this.mask;
    }
  }

  /** Maps `id` to `seq` (seq > 0), replacing any previous seq. */
  set(id: string, seq: number): void {
    if ((this.count + 1) * 5 > this.slots.length * 4) this.grow();
    let i = hashId(id) & this.mask;
    for (;;) {
      const s = this.slots[i]!;
      if (s === EMPTY) {
        this.slots[i] = seq;
        this.count++;
        return;
      }
      if (this.idOf(s) === id) {
        this.slots[i] = seq;
        return;
      }
      i = (i + 1) & this.mask;
    }
  }

  /** Removes `id`; returns whether it was present. */
  delete(id: string): boolean {
    const mask = this.mask;
    let i = hashId(id) & mask;
    for (;;) {
      const s = this.slots[i]!;
      if (s === EMPTY) return false;
      if (this.idOf(s) === id) break;
      i = (i + 1) & mask;
    }
    // Backward shift: move later members of the cluster into the hole when
    // their home slot is not in (hole, j].
    let j = i;
    for (;;) {
      j = (j + 1) & mask;
      const s = this.slots[j]!;
      if (s === EMPTY) break;
      const home = hashId(this.idOf(s)) & mask;
      const between = i <= j ? home > i && home <= j : home > i || home <= j;
      if (!between) {
        this.slots[i] = s;
        i = j;
      }
    }
    this.slots[i] = EMPTY;
    this.count--;
    return true;
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Uint32Array(old.length * 2);
    this.mask = this.slots.length - 1;
    for (let k = 0; k < old.length; k++) {
      const s = old[k]!;
      if (s === EMPTY) continue;
      let i = hashId(this.idOf(s)) & this.mask;
      while (this.slots[i] !== EMPTY) i = (i + 1) & this.mask;
      this.slots[i] = s;
    }
  }
}
