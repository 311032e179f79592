/**
 * Whether candidate reads may take doc values only. `_id` is a stored field:
 * reading it decompresses a block of stored documents per hit (their
 * `_source` with it), about 30 µs a hit, which was half of a grouped lookup's
 * engine time with 1M documents stored (docs/benchmarks.md); the band keys'
 * sorted-set doc values cost a dictionary lookup per key, about 14 µs a hit.
 * Documents of contract v4 carry their id in `neardup.id` and their keys in
 * `neardup.lsh_list` (one binary doc value), so a query can skip stored
 * fields altogether (`stored_fields: _none_`) and the keyword's doc values.
 *
 * That is safe only when every document a lookup can reach is v4. A probe
 * asks the engine whether any document in the window lacks either field
 * (one `size: 0`, `terminate_after: 1` search), at most every `ttlMs`, in the
 * background; until a probe has found none, reads take `_id` and
 * `neardup.lsh`. A hit without them (an older sidecar still writing, a lookup
 * with an old time) switches reads back at once: the caller reads that
 * lookup again.
 */
import type { Engine } from "../../engine/types.js";

export const PROBE_TTL_MS = 5 * 60_000;

export class DocValueReads {
  private fromDocValuesNow = false;
  private probedAt = -Infinity;
  private running: Promise<void> | undefined;
  /** Counts hits seen of documents before v4: a probe that started before one does not switch reads to doc values. */
  private misses = 0;

  constructor(
    private readonly engine: Engine,
    private readonly index: string,
    private readonly windowMs: number,
    private readonly ttlMs = PROBE_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** True when reads may take doc values only (`neardup.id`, `neardup.lsh_list`); starts a probe when the last one is stale (never waits for it). */
  fromDocValues(): boolean {
    if (this.running === undefined && this.now() - this.probedAt >= this.ttlMs) {
      this.running = this.probe().finally(() => (this.running = undefined));
    }
    return this.fromDocValuesNow;
  }

  /** A hit lacked a v4 field: read `_id` and `neardup.lsh` until a later probe finds every document of the window of v4. */
  olderSeen(): void {
    this.fromDocValuesNow = false;
    this.misses++;
    this.probedAt = this.now();
  }

  /** Asks the engine now; a failure leaves reads on `_id` and `neardup.lsh` until the next probe. */
  async probe(): Promise<void> {
    const startedAt = this.now();
    const misses = this.misses;
    try {
      const r = await this.engine.search({
        index: this.index,
        ignoreUnavailable: true,
        body: {
          size: 0,
          terminate_after: 1,
          track_total_hits: true,
          query: {
            bool: {
              filter: [{ range: { "neardup.timestamp": { gte: startedAt - this.windowMs, format: "epoch_millis" } } }],
              should: [{ bool: { must_not: [{ exists: { field: "neardup.id" } }] } }, { bool: { must_not: [{ exists: { field: "neardup.lsh_list" } }] } }],
              minimum_should_match: 1,
            },
          },
        },
      });
      const total = r.hits.total;
      const found = typeof total === "number" ? total : (total?.value ?? 1);
      const failed = (r._shards?.failed ?? 0) > 0;
      // A hit seen without the field while the probe ran wins over the probe.
      if (misses === this.misses) this.fromDocValuesNow = found === 0 && !failed;
    } catch {
      this.fromDocValuesNow = false;
    }
    this.probedAt = Math.max(this.probedAt, startedAt);
  }
}
