/**
 * Self time of a V8 CPU profile (`node --cpu-prof`) by function and by file,
 * largest first: `npx tsx bench/profile-summary.ts <file>.cpuprofile [rows]`.
 */
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const [file, rowsArg] = process.argv.slice(2);
if (!file) throw new Error("usage: profile-summary.ts <file>.cpuprofile [rows]");
const rows = Number(rowsArg ?? 40);
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));

const byFunction = new Map<string, number>();
const byFile = new Map<string, number>();
let total = 0;
for (const [id, us] of self) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  const short = url.replace(/^file:\/\//, "").replace(/^.*\/node_modules\//, "npm:").replace(/^\/work\/[^/]+\/[^/]+\//, "");
  const fn = `${functionName || "(anonymous)"} ${short}:${lineNumber + 1}`;
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
  const where = short === "" ? functionName : short.startsWith("npm:") ? short.split("/").slice(0, short.startsWith("npm:@") ? 2 : 1).join("/") : short;
  byFile.set(where, (byFile.get(where) ?? 0) + us);
  total += us;
}
const idle = [...byFunction].filter(([k]) => k.startsWith("(idle)")).reduce((s, [, v]) => s + v, 0);
const busy = total - idle;
const table = (title: string, map: Map<string, number>) => {
  console.log(`\n| ${title} | ms | share of busy |\n|---|---:|---:|`);
  for (const [k, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, rows)) console.log(`| ${k} | ${(us / 1000).toFixed(0)} | ${((us / busy) * 100).toFixed(1)}% |`);
};
console.log(`wall ${((profile.endTime - profile.startTime) / 1000).toFixed(0)} ms, sampled ${(total / 1000).toFixed(0)} ms, idle ${(idle / 1000).toFixed(0)} ms, busy ${(busy / 1000).toFixed(0)} ms`);
table("file", byFile);
table("function", byFunction);

// Inclusive time of named frames (a frame counted once per sample even when it recurses): NEARDUP_PROFILE_FRAMES="JSON.parse,serialize,..."
const frames = (process.env.NEARDUP_PROFILE_FRAMES ?? "").split(",").filter(Boolean);
if (frames.length > 0) {
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const inclusive = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const { functionName, url } = byId.get(at)!.callFrame;
      for (const f of frames) if (!seen.has(f) && (functionName === f || `${functionName}@${url}`.includes(f))) seen.add(f);
    }
    for (const f of seen) inclusive.set(f, (inclusive.get(f) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  table("frame, inclusive", inclusive);
}

/**
 * Main-thread time by part of the ingest path (NEARDUP_PROFILE_PARTS=1): each
 * sample counted once, under the first part in this list that has a frame on
 * its stack (so analysis called from the decision counts as analysis).
 */
const PARTS: [string, (f: ProfileNode["callFrame"]) => boolean][] = [
  ["idle", (f) => f.functionName === "(idle)"],
  ["garbage collection", (f) => f.functionName === "(garbage collector)"],
  ["analysis (Fingerprinter.analyze)", (f) => f.functionName === "analyze" && f.url.includes("dedup-service")],
  ["worker pool", (f) => f.url.includes("/workers/")],
  ["the stored sketch (storedSketch)", (f) => f.functionName === "storedSketch"],
  ["sketchOf for the window", (f) => f.functionName === "sketchOf"],
  ["re-rank (compareCandidates)", (f) => f.functionName === "compareCandidates"],
  ["documentSource", (f) => f.functionName === "documentSource"],
  ["recent-writes window", (f) => f.url.includes("service/recent")],
  ["candidates", (f) => f.url.includes("service/candidates")],
  ["engine client", (f) => f.url.includes("opensearch-project") || f.url.includes("elastic") || f.url.includes("/src/engine/")],
  ["the benchmark's client", (f) => f.url.includes("/bench/") || f.url.includes("undici")],
  ["Express and body parsing", (f) => /node_modules\/(express|body-parser|raw-body|router|finalhandler|send|on-finished|iconv|secure-json)/.test(f.url)],
  ["prom-client", (f) => f.url.includes("prom-client")],
  ["zod and input", (f) => f.url.includes("zod") || f.url.includes("service/input")],
  ["routes", (f) => f.url.includes("/src/server/")],
  ["other service code", (f) => f.url.includes("/src/service/")],
  ["Node HTTP and streams", (f) => /node:(_http|net|internal\/stream|stream|internal\/streams|string_decoder|buffer|internal\/buffer)/.test(f.url) || f.functionName === "writev"],
];
if (process.env.NEARDUP_PROFILE_PARTS) {
  const parentOf = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
  const parts = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    let best = PARTS.length;
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
      const f = byId.get(at)!.callFrame;
      for (let k = 0; k < best; k++) {
        if (PARTS[k]![1](f)) {
          best = k;
          break;
        }
      }
    }
    const name = best < PARTS.length ? PARTS[best]![0] : "other";
    if (name !== "idle") parts.set(name, (parts.get(name) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  table("part (main thread)", parts);
}
