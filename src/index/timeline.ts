/**
 * Insertion times as run-length checkpoints over sequence numbers.
 *
 * Entries get increasing sequence numbers and are assumed to arrive in
 * non-decreasing time order, so a time only needs recording where it changes:
 * checkpoint i says "entries from seqs[i] on have time times[i]". A time earlier
 * than the previous one is clamped up to it (the entry then expires together
 * with the entry before it: never early, possibly late). Memory is 12 bytes
 * per distinct time, so coarse units (seconds) keep this table tiny; finer
 * units are exact too, only larger.
 */
export class Timeline {
  private seqs = new Uint32Array(64);
  private times = new Float64Array(64);
  private head = 0;
  private len = 0;
  private last = -Infinity;

  /** Records the time of `seq` (greater than every earlier seq); returns the effective time. */
  push(seq: number, time: number): number {
    if (this.len > this.head && time <= this.last) return this.last;
    if (this.len === this.seqs.length) this.makeRoom();
    this.seqs[this.len] = seq;
    this.times[this.len] = time;
    this.len++;
    this.last = time;
    return time;
  }

  /**
   * Drops checkpoints older than `cutoff` and returns the first seq whose time
   * is >= cutoff (or `nextSeq` when every entry is older).
   */
  expire(cutoff: number, nextSeq: number): number {
    while (this.head < this.len && this.times[this.head]! < cutoff) this.head++;
    return this.head < this.len ? this.seqs[this.head]! : nextSeq;
  }

  /** Effective time of a live seq (binary search over checkpoints). */
  timeOf(seq: number): number {
    return this.times[this.cursor(seq)]!;
  }

  /** Index of the checkpoint covering `seq`, for walking entries in order with {@link timeAt}. */
  cursor(seq: number): number {
    let lo = this.head;
    let hi = this.len - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.seqs[mid]! <= seq) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Advances `cursor` to cover `seq` (seq must not decrease between calls). */
  advance(cursor: number, seq: number): number {
    while (cursor + 1 < this.len && this.seqs[cursor + 1]! <= seq) cursor++;
    return cursor;
  }

  timeAt(cursor: number): number {
    return this.times[cursor]!;
  }

  /** Bytes held by the checkpoint arrays. */
  get byteLength(): number {
    return this.seqs.byteLength + this.times.byteLength;
  }

  private makeRoom(): void {
    const live = this.len - this.head;
    const cap = live * 2 > this.seqs.length ? this.seqs.length * 2 : this.seqs.length;
    const seqs = new Uint32Array(cap);
    const times = new Float64Array(cap);
    seqs.set(this.seqs.subarray(this.head, this.len));
    times.set(this.times.subarray(this.head, this.len));
    this.seqs = seqs;
    this.times = times;
    this.head = 0;
    this.len = live;
  }
}
