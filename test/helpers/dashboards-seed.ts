/**
 * Seeded documents for the dashboard tests: known originals, duplicates,
 * times, sources, rules, distances and similarities, and the numbers every
 * panel must show for them, counted here by brute force (not by aggregation).
 */
import type { Engine } from "../../src/engine/index.js";

export interface SeedDoc {
  id: string;
  time: number;
  status: "original" | "duplicate";
  source: string;
  duplicateOf?: string;
  distance?: number;
  similarity?: number;
  reason?: string;
}

/** Documents and duplicates per bucket: rates 0.2, 0.5 and 0. */
export const SEED_BUCKETS = [
  { docs: 10, duplicates: 2 },
  { docs: 20, duplicates: 10 },
  { docs: 4, duplicates: 0 },
] as const;

const CLUSTERS = ["orig-a", "orig-b", "orig-c"];
const RULES = ["long.simhash", "medium.cosine", "short.edit"];
// Away from histogram bucket edges even as 32-bit floats.
const SIMILARITIES = [0.97, 0.92, 0.87, 0.82];

/**
 * The seed: bucket k starts at `start + k * bucketMs`; its documents are spread
 * inside it. Originals first (the three cluster originals are the first
 * documents), then duplicates. Duplicate j: cluster orig-a for j < 6, orig-b
 * for j < 10, else orig-c; source alpha for every fourth, else beta; originals
 * alternate alpha and gamma.
 */
export function seedDocs(start: number, bucketMs: number): SeedDoc[] {
  const docs: SeedDoc[] = [];
  let dup = 0;
  let orig = 0;
  SEED_BUCKETS.forEach((b, k) => {
    for (let i = 0; i < b.docs; i++) {
      const time = start + k * bucketMs + Math.floor((i * bucketMs) / 40);
      if (i < b.docs - b.duplicates) {
        const id = orig < CLUSTERS.length ? CLUSTERS[orig]! : `orig-${orig}`;
        docs.push({ id, time, status: "original", source: orig % 2 === 0 ? "alpha" : "gamma" });
        orig++;
      } else {
        const j = dup++;
        docs.push({
          id: `dup-${j}`,
          time,
          status: "duplicate",
          source: j % 4 === 0 ? "alpha" : "beta",
          duplicateOf: CLUSTERS[j < 6 ? 0 : j < 10 ? 1 : 2],
          distance: j % 4,
          similarity: SIMILARITIES[j % SIMILARITIES.length],
          reason: RULES[j % 3 === 2 ? 2 : j % 2],
        });
      }
    }
  });
  return docs;
}

/** Writes the seed into `index` (created with the neardup mapping beforehand) and refreshes. */
export async function writeSeed(engine: Engine, index: string, docs: SeedDoc[]): Promise<void> {
  const ops = docs.flatMap((d) => [
    { index: { _index: index, _id: d.id } },
    {
      text: `seeded document ${d.id}`,
      fields: { source: d.source },
      neardup: {
        status: d.status,
        timestamp: new Date(d.time).toISOString(),
        length: 20,
        version: "seed",
        ...(d.status === "duplicate" ? { duplicate_of: d.duplicateOf, distance: d.distance, similarity: d.similarity, reason: d.reason } : {}),
      },
    },
  ]);
  const result = await engine.bulk(ops, { refresh: true });
  if (result.errors) throw new Error(`seeding failed: ${JSON.stringify(result.items.find((i) => i.error))}`);
}

type Row = Record<string, string | number | null>;
const countBy = <T>(xs: T[], key: (x: T) => string | number) => {
  const m = new Map<string | number, T[]>();
  for (const x of xs) m.set(key(x), [...(m.get(key(x)) ?? []), x]);
  return m;
};
const byCountThenKey = (a: Row, b: Row, count: string, key: string) => Number(b[count]) - Number(a[count]) || String(a[key]).localeCompare(String(b[key]));

/** What each panel must show for the seed, bucketed from `start` by `bucketMs` (brute force). */
export function expectedRows(docs: SeedDoc[], start: number, bucketMs: number): Record<string, Row[]> {
  const dups = docs.filter((d) => d.status === "duplicate");
  const perBucket = SEED_BUCKETS.map((_, k) => docs.filter((d) => Math.floor((d.time - start) / bucketMs) === k));
  const rateRows = perBucket.map((ds, k) => {
    const n = ds.filter((d) => d.status === "duplicate").length;
    return { time: start + k * bucketMs, total: ds.length, duplicates: n, rate: ds.length ? n / ds.length : null };
  });
  const distances = countBy(dups, (d) => d.distance!);
  const maxDistance = Math.max(...dups.map((d) => d.distance!));
  const similarityBucket = (s: number) => Math.round(Math.floor(Math.fround(s) / 0.05) * 5) / 100;
  const sims = countBy(dups, (d) => similarityBucket(d.similarity!));
  const simKeys = [...sims.keys()].map(Number);
  const simRows: Row[] = [];
  for (let s = Math.min(...simKeys); s <= Math.max(...simKeys) + 1e-9; s = Math.round((s + 0.05) * 100) / 100) simRows.push({ similarity: s, count: sims.get(s)?.length ?? 0 });
  const bySource = countBy(docs, (d) => d.source);
  const clusters = countBy(dups, (d) => d.duplicateOf!);
  return {
    rate_over_time: rateRows,
    volume_by_status: rateRows.flatMap((r) => [
      { time: r.time, status: "original", count: r.total - r.duplicates },
      { time: r.time, status: "duplicate", count: r.duplicates },
    ]),
    by_rule: [...countBy(dups, (d) => d.reason!)].map(([rule, ds]) => ({ rule, count: ds.length })).sort((a, b) => byCountThenKey(a, b, "count", "rule")),
    distance: Array.from({ length: maxDistance + 1 }, (_, d) => ({ distance: d, count: distances.get(d)?.length ?? 0 })).filter((_r, i, all) => i >= all.findIndex((x) => x.count > 0)),
    similarity: simRows,
    top_clusters: [...clusters].map(([original, ds]) => ({ original, duplicates: ds.length })).sort((a, b) => byCountThenKey(a, b, "duplicates", "original")),
    rate_by_field: [...bySource]
      .map(([value, ds]) => {
        const n = ds.filter((d) => d.status === "duplicate").length;
        return { value, total: ds.length, duplicates: n, rate: n / ds.length };
      })
      .sort((a, b) => byCountThenKey(a, b, "total", "value")),
    recent_clusters: [...clusters]
      .map(([original, ds]) => ({ original, duplicates: ds.length, latest: Math.max(...ds.map((d) => d.time)) }))
      .sort((a, b) => b.latest - a.latest),
  };
}
