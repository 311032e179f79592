import { expect } from "vitest";
import type { Engine } from "../../src/engine/index.js";
import type { DedupService } from "../../src/service/dedup-service.js";

/**
 * Stores `texts` through `service` (mark) as documents `d<i>` at time `start + i`, in bulks of `batch`, then
 * waits until the engine alone shows them: refreshed, and out of a 1,001 ms recent-writes window (acknowledged +
 * the 1 s refresh interval), so that later lookups read them from the engine.
 */
export async function storeThroughEngine(service: DedupService, engine: Engine, index: string, texts: readonly string[], start: number, batch: number): Promise<void> {
  for (let from = 0; from < texts.length; from += batch) {
    const docs = texts.slice(from, from + batch).map((text, k) => ({ id: `d${from + k}`, idGiven: true, text, time: start + from + k, fields: undefined }));
    const results = await service.index(docs, "mark");
    expect(results.every((r) => !(r instanceof Error))).toBe(true);
  }
  await engine.refresh(index);
  await new Promise((r) => setTimeout(r, 1100));
}
