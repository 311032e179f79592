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
 *
 * A probe's `must_not exists` matches no document of a v4 window, so it visits
 * every document in its range: 4.2 s with 40M documents stored
 * (docs/benchmarks.md, thirty-sixth session). So after a probe has found none,
 * the next one asks only about documents stamped from `PROBE_OVERLAP_MS`
 * before that probe started: those written since, and those a refresh or a
 * writer's clock had not shown yet. A document written later with an older
 * time is not probed, but the first lookup that reaches it sees that it lacks
 * the fields (above), and the probe after that covers the whole window again.
 */
import type { Engine } from "../../engine/types.js";

export const PROBE_TTL_MS = 5 * 60_000;
/** How far before the last clean probe's start the next probe looks: refresh delays and writers' clock skew. */
export const PROBE_OVERLAP_MS = 10 * 60_000;

export class DocValueReads {
  private fromDocValuesNow = false;
  private probedAt = -Infinity;
  private running: Promise<void> | undefined;
  /** Counts hits seen of documents before v4: a probe that started before one does not switch reads to doc values. */
  private misses = 0;
  /** When the last probe that found every document of the window of v4 started; undefined: the next probe covers the whole window. */
  private cleanAt: number | undefined;

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
    this.cleanAt = undefined;
    this.misses++;
    this.probedAt = this.now();
  }

  /** Asks the engine now; a failure leaves reads on `_id` and `neardup.lsh` until the next probe. */
  async probe(): Promise<void> {
    const startedAt = this.now();
    const misses = this.misses;
    const from = Math.max(startedAt - this.windowMs, this.cleanAt === undefined ? -Infinity : this.cleanAt - PROBE_OVERLAP_MS);
    let clean = false;
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
              filter: [{ range: { "neardup.timestamp": { gte: from, format: "epoch_millis" } } }],
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
      clean = found === 0 && !failed && misses === this.misses;
      if (misses === this.misses) this.fromDocValuesNow = clean;
    } catch {
      this.fromDocValuesNow = false;
    }
    if (misses === this.misses) this.cleanAt = clean ? startedAt : undefined;
    this.probedAt = Math.max(this.probedAt, startedAt);
  }
}
