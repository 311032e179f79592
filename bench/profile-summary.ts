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
