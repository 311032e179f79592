/**
 * CPU time spent by this process and by the engine over a stretch of a
 * benchmark. On a shared machine, wall-clock rates move with other loads;
 * CPU milliseconds per document move much less, so benchmarks print both.
 * The engine's figure is its `process.cpu.total_in_millis` (`_nodes/stats/process`,
 * summed over nodes; same field in Elasticsearch and OpenSearch).
 */
export interface CpuMark {
  process: number;
  engine: number;
}

async function engineCpuMs(engineUrl: string): Promise<number> {
  const res = await fetch(`${engineUrl}/_nodes/stats/process`);
  const body = (await res.json()) as { nodes?: Record<string, { process?: { cpu?: { total_in_millis?: number } } }> };
  return Object.values(body.nodes ?? {}).reduce((sum, n) => sum + (n.process?.cpu?.total_in_millis ?? 0), 0);
}

export async function cpuMark(engineUrl: string): Promise<CpuMark> {
  const u = process.cpuUsage();
  return { process: (u.user + u.system) / 1000, engine: await engineCpuMs(engineUrl) };
}

/** CPU ms per document between two marks: this process (sidecar and client) and the engine. */
export function cpuPerDoc(from: CpuMark, to: CpuMark, docs: number): { process: number; engine: number } {
  return { process: (to.process - from.process) / docs, engine: (to.engine - from.engine) / docs };
}
