import { LshTable, SegmentIndex } from "../index/index.js";
import type { Candidate } from "./candidate.js";
import type { Probe } from "./candidates/probe.js";

/**
 * The recent-writes window: documents decided by this sidecar that the engine
 * may not show to search yet (written but not refreshed, or still being
 * written). Held in the embedded segment index, keyed by the time they were
 * added here (a local clock, so expiry is in insertion order), and dropped
 * after `retentionMs`, which must outlast the engine's refresh interval.
 */
export class RecentWrites {
  private readonly index = new SegmentIndex();
  private readonly docs = new Map<string, { candidate: Candidate; addedAt: number }>();
  private readonly lsh = new LshTable();
  /** Insertion order for expiry: cost proportional to what expires. */
  private readonly queue: { id: string; addedAt: number }[] = [];
  private head = 0;

  constructor(
    private readonly retentionMs: number,
    private readonly clock: () => number = Date.now,
  ) {}

  get size(): number {
    return this.docs.size;
  }

  add(candidate: Candidate): void {
    this.expire();
    const addedAt = this.clock();
    if (this.docs.has(candidate.id)) this.remove(candidate.id);
    this.index.insert(candidate.id, candidate.simhash, addedAt);
    this.docs.set(candidate.id, { candidate, addedAt });
    this.lsh.add(candidate.id, candidate.lsh ?? []);
    this.queue.push({ id: candidate.id, addedAt });
  }

  remove(id: string): void {
    const entry = this.docs.get(id);
    if (!entry) return;
    this.index.remove(id);
    this.docs.delete(id);
    this.lsh.remove(id);
  }

  get(id: string): Candidate | undefined {
    return this.docs.get(id)?.candidate;
  }

  /** Every recent document the probe reaches: within its radius, or sharing an LSH key. */
  lookup(probe: Probe): Candidate[] {
    this.expire();
    const ids = this.lsh.lookup(probe.lsh);
    for (const m of this.index.lookup(probe.simhash, probe.radius)) ids.add(m.id);
    return [...ids].map((id) => this.docs.get(id)!.candidate);
  }

  private expire(): void {
    const cutoff = this.clock() - this.retentionMs;
    while (this.head < this.queue.length && this.queue[this.head]!.addedAt < cutoff) {
      const { id, addedAt } = this.queue[this.head]!;
      this.head += 1;
      // Skip entries of an id that was added again (replaced) later.
      if (this.docs.get(id)?.addedAt === addedAt) this.remove(id);
    }
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
  }
}
