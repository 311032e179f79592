import { Counter, Gauge, Histogram, type Registry } from "prom-client";

/** Dedup metrics, registered in the service's registry (served at /metrics). */
export interface DedupMetrics {
  checks: Counter<"operation">;
  duplicates: Counter<"policy">;
  candidates: Histogram;
  engineHits: Histogram;
  candidatesCut: Counter;
  /** LSH band keys too common to be taken alone (candidates/keys.ts). */
  pairedKeys: Counter;
  keyStatisticsErrors: Counter;
  checkDuration: Histogram<"operation">;
  /** Recent-writes window size, read from the service at each scrape (see `readWindow`). */
  recentEntries: Gauge;
  recentBytes: Gauge;
  /** Refreshes the service made itself because the engine's own had not shown an acknowledged write in time (visibility.ts). */
  visibilityRefreshes?: Counter;
  /** Writes of unknown outcome the engine did not show within NEARDUP_UNKNOWN_WRITE_HOLD_MS. */
  unknownWritesAbandoned?: Counter;
  /**
   * The window the gauges read when /metrics is scraped (the service sets it): set only on write requests,
   * they kept the last request's figures after writes stopped, though the entries had long expired.
   */
  readWindow?: () => { size: number; bytes: number };
  /** Documents held by the window mirror (mirror.ts), read at each scrape (see `readMirror`). */
  mirrorDocuments?: Gauge;
  /** 1 while the window mirror answers lookups, 0 while it loads or is off. */
  mirrorState?: Gauge;
  /** Documents the mirror's key tables returned per lookup (the engine hits' counterpart). */
  mirrorHits?: Histogram;
  readMirror?: () => number;
}

/** A gauge that reads its value when scraped (`undefined`: leave it as it is). */
function windowGauge(registry: Registry, name: string, help: string, read: () => number | undefined): Gauge {
  return new Gauge({
    name,
    help,
    registers: [registry],
    collect() {
      const value = read();
      if (value !== undefined) this.set(value);
    },
  });
}

export function createDedupMetrics(registry: Registry): DedupMetrics {
  const metrics: DedupMetrics = {
    checks: new Counter({
      name: "neardup_checks_total",
      help: "Documents checked for near-duplicates, by operation (check, index, search).",
      labelNames: ["operation"] as const,
      registers: [registry],
    }),
    duplicates: new Counter({
      name: "neardup_duplicates_found_total",
      help: "Documents found to be near-duplicates, by the policy applied (mark, skip, reject, check).",
      labelNames: ["policy"] as const,
      registers: [registry],
    }),
    candidates: new Histogram({
      name: "neardup_candidates_per_check",
      help: "Candidates re-ranked per check: engine hits within the radius plus recent-writes window entries.",
      buckets: [0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000],
      registers: [registry],
    }),
    engineHits: new Histogram({
      name: "neardup_engine_hits_per_lookup",
      help: "Segment-term hits the engine returned per lookup, before the Hamming filter.",
      buckets: [0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000],
      registers: [registry],
    }),
    pairedKeys: new Counter({
      name: "neardup_lsh_keys_paired_total",
      help: "LSH band keys too common to reach documents alone (beyond NEARDUP_LSH_KEY_BUDGET): a document sharing only one such key is not read.",
      registers: [registry],
    }),
    keyStatisticsErrors: new Counter({
      name: "neardup_key_statistics_errors_total",
      help: "Lookups whose band keys' term statistics could not be read: they took every key alone (complete, more engine hits).",
      registers: [registry],
    }),
    candidatesCut: new Counter({
      name: "neardup_candidates_cut_total",
      help: "Candidate lookups that reached their bound (NEARDUP_MAX_CANDIDATES x NEARDUP_MAX_CANDIDATE_PAGES hits) with more documents left unread.",
      registers: [registry],
    }),
    checkDuration: new Histogram({
      name: "neardup_check_duration_seconds",
      help: "Time to fingerprint, fetch candidates and re-rank one request, by operation.",
      labelNames: ["operation"] as const,
      buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    visibilityRefreshes: new Counter({
      name: "neardup_visibility_refreshes_total",
      help: "Refreshes neardup made itself because no refresh of the engine's own was seen to show an acknowledged write within the fallback time (3 refresh intervals, at least the interval + 2 s): once after each burst of writes (the engine counts only refreshes that had something to show), and more often with search-idle shards or an engine far behind.",
      registers: [registry],
    }),
    unknownWritesAbandoned: new Counter({
      name: "neardup_unknown_writes_abandoned_total",
      help: "Writes whose outcome was unknown (the engine timed out, or the connection was lost after the request went out) that the engine's search did not show within NEARDUP_UNKNOWN_WRITE_HOLD_MS: they left the recent-writes window, and one that lands later lands as an original.",
      registers: [registry],
    }),
    recentEntries: windowGauge(registry, "neardup_recent_window_documents", "Documents in the recent-writes window (in flight, or not yet searchable in the engine).", () => metrics.readWindow?.().size),
    recentBytes: windowGauge(registry, "neardup_recent_window_bytes", "Rough memory held by the recent-writes window, in bytes (budget: NEARDUP_RECENT_WINDOW_BYTES).", () => metrics.readWindow?.().bytes),
    mirrorDocuments: windowGauge(registry, "neardup_mirror_documents", "Documents of the window held in memory by the window mirror (NEARDUP_MIRROR_DOCS).", () => metrics.readMirror?.()),
    mirrorState: new Gauge({ name: "neardup_mirror_ready", help: "1 while the window mirror answers candidate lookups, 0 while it loads, after a reset, or when off.", registers: [registry] }),
    mirrorHits: new Histogram({
      name: "neardup_mirror_hits_per_lookup",
      help: "Documents the window mirror's key tables returned per lookup, before the reach rule (neardup_engine_hits_per_lookup's counterpart).",
      buckets: [0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000],
      registers: [registry],
    }),
  };
  return metrics;
}
