/**
 * CPU time spent by this process and by the engine over a stretch of a
 * benchmark. On a shared machine, wall-clock rates move with other loads;
 * CPU milliseconds per document move much less, so benchmarks print both.
 * The engine's figure is its `process.cpu.total_in_millis` (`_nodes/stats/process`,
 * summed over nodes; same field in Elasticsearch and OpenSearch), read once
 * the engine's cached figure is no older than the mark.
 */
export interface CpuMark {
  process: number;
  engine: number;
}

type ProcessStats = { nodes?: Record<string, { process?: { timestamp?: number; cpu?: { total_in_millis?: number } } }> };

/**
 * The engine's CPU ms as of `after` (epoch ms) or later. The engine caches its process stats for
 * `monitor.process.refresh_interval` (1 s by default) and stamps them with `process.timestamp`: a read
 * right after a stretch of work can answer a figure from before it (a 0.8 s raw `_bulk` measured 0 ms of
 * engine CPU), so the read is repeated until every node's stamp is at least `after` (at most 3 s).
 */
async function engineCpuMs(engineUrl: string, after: number): Promise<number> {
  for (let tries = 0; ; tries++) {
    const res = await fetch(`${engineUrl}/_nodes/stats/process`);
    const nodes = Object.values(((await res.json()) as ProcessStats).nodes ?? {});
    const fresh = nodes.every((n) => (n.process?.timestamp ?? Infinity) >= after);
    if (fresh || tries >= 30) return nodes.reduce((sum, n) => sum + (n.process?.cpu?.total_in_millis ?? 0), 0);
    await new Promise((done) => setTimeout(done, 100));
  }
}

export async function cpuMark(engineUrl: string): Promise<CpuMark> {
  const at = Date.now();
  const u = process.cpuUsage();
  return { process: (u.user + u.system) / 1000, engine: await engineCpuMs(engineUrl, at) };
}

/** CPU ms per document between two marks: this process (sidecar and client) and the engine. */
export function cpuPerDoc(from: CpuMark, to: CpuMark, docs: number): { process: number; engine: number } {
  return { process: (to.process - from.process) / docs, engine: (to.engine - from.engine) / docs };
}
