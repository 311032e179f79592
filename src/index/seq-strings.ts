/** Strings addressed by seq, in chunks of 65,536 that are dropped once expired (mirrors FingerprintTable's chunks). */
const CHUNK_BITS = 16;
const CHUNK_SIZE = 1 << CHUNK_BITS;
const CHUNK_MASK = CHUNK_SIZE - 1;

export class SeqStrings {
  private chunks: string[][] = [];
  private base = 0;

  set(seq: number, value: string): void {
    const ci = (seq >>> CHUNK_BITS) - this.base;
    let c = this.chunks[ci];
    if (c === undefined) {
      if (this.chunks.length === 0) {
        this.base = seq >>> CHUNK_BITS;
        c = [];
        this.chunks.push(c);
      } else {
        c = [];
        this.chunks[ci] = c;
      }
    }
    c[seq & CHUNK_MASK] = value;
  }

  get(seq: number): string {
    return this.chunks[(seq >>> CHUNK_BITS) - this.base]![seq & CHUNK_MASK]!;
  }

  /** Drops the chunks holding only seqs below `tail`. */
  dropBelow(tail: number): void {
    while (this.chunks.length > 0 && (this.base + 1) * CHUNK_SIZE <= tail) {
      this.chunks.shift();
      this.base++;
    }
  }
}
