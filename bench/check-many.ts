/**
 * `/v1/check` of a text with many near-duplicates in the window (a repost
 * that went round): what the answer's `limit` saves. A fresh index on
 * NEARDUP_ENGINE_URL gets NEARDUP_BENCH_COPIES (default 200) copies of one
 * long text (NEARDUP_BENCH_POEMS Tang poems, default 8), each with two
 * characters changed; then NEARDUP_BENCH_CHECKS (default 40) new edits are
 * checked through the service in this process, each with `limit` 10 (the
 * API's default) and with every match listed (the answer before `limit`),
 * in turns. Prints p50 / p99 ms of each, the ratio, and whether every
 * verdict (duplicate_of, distance, similarity, rule, matches_total) agrees.
 *
 *   NEARDUP_ENGINE_URL=http://127.0.0.1:19200 npx tsx bench/check-many.ts
 *
 * With NEARDUP_BENCH_PROFILE=<file>.cpuprofile the checks (not the load) are
 * profiled, sampling every 200 µs (read it with bench/profile-summary.ts).
 */
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { connectEngine, installTemplates } from "../src/engine/index.js";
import { createFingerprinter } from "../src/core/fingerprinter.js";
import { DedupService } from "../src/service/dedup-service.js";
import { resolveDedupOptions } from "../src/service/options.js";
import { createRng } from "./quality/rng.js";
import { loadPoems } from "./poems.js";

const url = (process.env.NEARDUP_ENGINE_URL ?? "").split(",")[0]!.trim();
if (!url) throw new Error("bench/check-many.ts needs NEARDUP_ENGINE_URL");
const COPIES = Number(process.env.NEARDUP_BENCH_COPIES ?? 200);
const POEMS = Number(process.env.NEARDUP_BENCH_POEMS ?? 8);
const CHECKS = Number(process.env.NEARDUP_BENCH_CHECKS ?? 40);
const T0 = Date.parse("2026-12-01T00:00:00Z");

const poems = loadPoems(1);
const rng = createRng(7);
const base = Array.from({ length: POEMS }, (_, k) => poems[(k * 37) % poems.length]).join("");
/** `base` with two characters replaced at random places. */
const edit = (): string => {
  const chars = Array.from(base);
  for (let k = 0; k < 2; k++) chars[rng.int(chars.length)] = "的";
  return chars.join("");
};

const engine = await connectEngine({ url, requestTimeoutMs: 120_000 });
await installTemplates(engine);
const index = `bench-check-many-${process.pid}`;
await engine.deleteIndex(index);
const service = new DedupService(engine, await createFingerprinter(), resolveDedupOptions({ index }));
await service.ensureIndex();
try {
  for (let i = 0; i < COPIES; i += 100) {
    const docs = Array.from({ length: Math.min(100, COPIES - i) }, (_, k) => ({ id: `c${i + k}`, text: edit(), time: T0 + i + k, idGiven: true, fields: undefined }));
    await service.index(docs, "mark");
  }
  await engine.refresh(index);
  const now = T0 + COPIES + 1;
  const profileFile = process.env.NEARDUP_BENCH_PROFILE;
  const session = profileFile ? new Session() : undefined;
  if (session) {
    session.connect();
    await session.post("Profiler.enable");
    await session.post("Profiler.setSamplingInterval", { interval: 200 });
    await session.post("Profiler.start");
  }
  const times: Record<"limit10" | "all", number[]> = { limit10: [], all: [] };
  let same = 0;
  let listedAll = 0;
  for (let c = 0; c < CHECKS; c++) {
    const text = edit();
    const answers: Partial<Record<"limit10" | "all", Awaited<ReturnType<DedupService["check"]>>>> = {};
    for (const kind of c % 2 ? (["all", "limit10"] as const) : (["limit10", "all"] as const)) {
      const t = performance.now();
      answers[kind] = await service.check(text, { time: now, limit: kind === "all" ? undefined : 10 });
      times[kind].push(performance.now() - t);
    }
    const [a, b] = [answers.limit10!, answers.all!];
    if (a.duplicate_of === b.duplicate_of && a.distance === b.distance && a.similarity === b.similarity && a.reason === b.reason && a.matches_total === b.matches_total) same++;
    listedAll += b.matches.length;
  }
  if (session) {
    writeFileSync(profileFile!, JSON.stringify((await session.post("Profiler.stop")).profile));
    session.disconnect();
  }
  const pct = (xs: number[], p: number) => [...xs].sort((x, y) => x - y)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!;
  const f = (x: number) => x.toFixed(1);
  console.log(`${COPIES} copies of a ${Array.from(base).length}-character text in the window; ${CHECKS} checks of new edits, ${(listedAll / CHECKS).toFixed(1)} duplicate matches each`);
  console.log(`| answer | check p50 / p99 ms |\n|---|---|`);
  console.log(`| every match listed | ${f(pct(times.all, 50))} / ${f(pct(times.all, 99))} |`);
  console.log(`| limit 10 | ${f(pct(times.limit10, 50))} / ${f(pct(times.limit10, 99))} |`);
  console.log(`p50 ratio (limit 10 / all): ${(pct(times.limit10, 50) / pct(times.all, 50)).toFixed(2)}; verdicts the same in ${same} of ${CHECKS} checks`);
} finally {
  await engine.deleteIndex(index);
  await engine.close();
}
