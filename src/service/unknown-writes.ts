/**
 * Writes whose outcome is unknown (the engine may have taken them without
 * answering: a timeout, a connection lost after the request went out) stay in
 * the recent-writes window as in flight (`RecentWrites.settleUnknown`). This
 * watch asks the engine's search for them, by id, while there are any: a
 * document it shows with the entry's simhash and time was stored, and its
 * entry leaves the window as a written one does (`shown`). An entry the
 * engine has not shown after `holdMs` is given up (`abandon`): its write
 * most likely never reached the engine, and a near-duplicate sent after that
 * is an original.
 */
import { toHex } from "../core/fingerprint.js";
import type { Engine } from "../engine/types.js";
import { PollLoop } from "./poll-loop.js";
import type { RecentEntry, RecentWrites } from "./recent.js";
import { monotonicClock } from "./clock.js";

export interface UnknownWritesOptions {
  /** The index (or alias, or pattern) whose search shows the written documents. */
  index: string;
  /** How long an entry of unknown outcome waits to be shown, in ms. */
  holdMs: number;
  /** Between two searches, in ms. */
  pollMs: () => number;
  /** Entries given up (never shown by the engine within `holdMs`). */
  onAbandon?: (entries: RecentEntry[]) => void;
  clock?: () => number;
}

/** Ids asked in one search. */
const BATCH = 500;

export class UnknownWriteWatch {
  private readonly clock: () => number;

  constructor(
    private readonly engine: Engine,
    private readonly target: () => RecentWrites,
    private readonly options: UnknownWritesOptions,
  ) {
    this.clock = options.clock ?? monotonicClock;
  }

  /** A write's outcome became unknown: watch until every such entry is shown or given up. */
  kick(): void {
    this.loop.kick();
  }

  /** Stops watching (the service is closing): no search is sent after it. */
  stop(): void {
    this.loop.halt();
  }

  private readonly loop = new PollLoop(
    () => this.target().hasUnknown,
    async () => {
      await new Promise<void>((resolve) => setTimeout(resolve, this.options.pollMs()).unref());
      if (this.loop.isHalted) return;
      await this.step().catch(() => undefined); // the engine is down: asked again at the next round
      const given = this.target().abandon(this.clock() - this.options.holdMs);
      if (given.length > 0) this.options.onAbandon?.(given);
    },
  );

  /** One search for the entries of unknown outcome; those the engine shows leave as written. */
  async step(): Promise<void> {
    const recent = this.target();
    const entries = recent.unknownEntries();
    for (let start = 0; start < entries.length; start += BATCH) {
      const batch = entries.slice(start, start + BATCH);
      const byId = new Map(batch.map((e) => [e.candidate.id, e]));
      const response = await this.engine.search<unknown>({
        index: this.options.index,
        ignoreUnavailable: true,
        body: {
          size: batch.length * 2, // an id may be stored in two indices behind an alias
          track_total_hits: false,
          _source: false,
          docvalue_fields: ["neardup.simhash", { field: "neardup.timestamp", format: "epoch_millis" }],
          query: { ids: { values: [...byId.keys()] } },
        },
      });
      const answeredAt = this.clock();
      for (const hit of response.hits.hits) {
        const entry = byId.get(hit._id);
        if (!entry) continue;
        const simhash = hit.fields?.["neardup.simhash"]?.[0];
        const time = Number(hit.fields?.["neardup.timestamp"]?.[0]);
        // The version this entry wrote, not an older one of the same id.
        if (simhash === toHex(entry.candidate.simhash) && time === entry.candidate.time) recent.shown(entry, answeredAt);
      }
    }
  }
}
