/** The window mirror's first load, timed, for the benches (NEARDUP_MIRROR_DOCS); undefined when the service has none. */
import type { DedupService } from "../src/service/dedup-service.js";

export async function loadMirror(service: DedupService): Promise<{ docs: number; seconds: number; rssMb: number; heapMb: number } | undefined> {
  const mirror = service.mirror;
  if (!mirror) return undefined;
  const t = performance.now();
  await mirror.refresh();
  if (mirror.state !== "ready") throw new Error(`the window mirror did not load (state ${mirror.state}: ${mirror.reason ?? "no reason given"})`);
  const seconds = (performance.now() - t) / 1000;
  const memory = process.memoryUsage();
  return { docs: mirror.size, seconds, rssMb: Math.round(memory.rss / 2 ** 20), heapMb: Math.round(memory.heapUsed / 2 ** 20) };
}
