/**
 * Issue 9: no candidate lookup drops candidates silently, and lookups compare
 * only documents of their own fingerprint and LSH scheme. Real engines.
 *
 * The reproduction from the issue: NEARDUP_MAX_CANDIDATES=20, 1,500 documents
 * sharing a 200-character opening, the recent-writes window expired; a
 * one-character edit of the 750th document must find it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Registry } from "prom-client";
import type { Engine } from "../../src/engine/index.js";
import { installTemplates } from "../../src/engine/index.js";
import { DedupService } from "../../src/service/dedup-service.js";
import { createDedupMetrics } from "../../src/service/metrics.js";
import { resolveDedupOptions } from "../../src/service/options.js";
import { createRng } from "../../bench/quality/rng.js";
import { sharedFingerprinter } from "../helpers/api.js";
import { connectTarget, engineTargets, uniqueIndex } from "../helpers/engines.js";
import { storeThroughEngine } from "../helpers/stored-window.js";

const rng = createRng(9);
const syllables = ["ka", "lo", "mi", "ne", "su", "ta", "ri", "po", "de", "gu", "ha", "ve", "zo", "bi", "fu", "ja", "xe", "qu", "wa", "yo"];
const word = () => Array.from({ length: 2 + rng.int(3) }, () => syllables[rng.int(syllables.length)]).join("");
const sentence = (words: number) => Array.from({ length: words }, word).join(" ");
const opening = sentence(30).slice(0, 200);
const texts = Array.from({ length: 1500 }, (_, i) => `${opening} ${sentence(45)} number ${i}.`);

describe.each(engineTargets())("candidate lookups over many shared keys on $kind $version", (target) => {
  let engine: Engine;
  const index = uniqueIndex("neardup-it-cut");
  const warnings: { details: object; message: string }[] = [];
  const registry = new Registry();
  let cutService: DedupService;
  let fullService: DedupService;

  beforeAll(async () => {
    engine = await connectTarget(target);
    await installTemplates(engine);
    const fingerprinter = await sharedFingerprinter();
    const log = { warn: (details: object, message: string) => void warnings.push({ details, message }), error: () => undefined };
    const base = { index, maxCandidates: 20, recentWindowMs: 1001 };
    cutService = new DedupService(engine, fingerprinter, resolveDedupOptions({ ...base, maxCandidatePages: 3 }), createDedupMetrics(registry), log);
    fullService = new DedupService(engine, fingerprinter, resolveDedupOptions({ ...base, maxCandidatePages: 1000 }));
    await cutService.ensureIndex();
    await storeThroughEngine(cutService, engine, index, texts, Date.now() - 3600_000, 500);
  }, 600_000);
  afterAll(async () => {
    await engine.deleteIndex(index);
    await engine.close();
  });

  const edited = texts[749]!.replace("number 749.", "number 749!");

  it("finds the planted duplicate when the candidates exceed one page", async () => {
    const full = await fullService.check(edited);
    expect(full.candidates).toBeGreaterThan(20);
    expect(full.candidates_cut).toBe(false);
    expect(full.duplicate_of).toBe("d749");
  }, 120_000);

  it("reads the documents sharing the most keys first, and says so, counts and logs it when its bound is reached", async () => {
    const cut = await cutService.check(edited);
    expect(cut.duplicate_of).toBe("d749");
    expect(cut.candidates_cut).toBe(true);
    const metric = await registry.getSingleMetric("neardup_candidates_cut_total")!.get();
    expect(metric.values[0]!.value).toBeGreaterThanOrEqual(1);
    expect(warnings.some((w) => w.message.includes("candidate lookup cut"))).toBe(true);
  }, 120_000);

  it("never takes a document of another fingerprint or LSH scheme as a candidate (nd3, nd2 and nd1 count as nd4's)", async () => {
    const fingerprinter = await sharedFingerprinter();
    const probe = "A text about the scheme check, written once in one scheme and once in another, long enough to have keys.";
    const a = fingerprinter.analyze(probe);
    const neardup = (version: string, lshScheme: string, simhash: string, segs: string[]) => ({
      simhash,
      seg0: segs[0],
      seg1: segs[1],
      seg2: segs[2],
      seg3: segs[3],
      lsh: a.lsh,
      lsh_scheme: lshScheme,
      status: "original",
      length: a.length,
      version,
      timestamp: new Date().toISOString(),
    });
    const far = "0000000000000000" === a.hex ? "ffffffffffffffff" : (BigInt("0x" + a.hex) ^ 0xffffffffffffffffn).toString(16).padStart(16, "0");
    const farSegs = [far.slice(0, 4), far.slice(4, 8), far.slice(8, 12), far.slice(12, 16)];
    const ops = [
      // Same simhash and keys, another fingerprint version: never a candidate.
      { index: { _index: index, _id: "other-version" } },
      { text: probe, neardup: neardup("nd0", a.lshScheme!, a.hex, a.segments) },
      // Far simhash, same keys, another LSH scheme: the keys mean something else, never a candidate.
      { index: { _index: index, _id: "other-lsh" } },
      { text: probe, neardup: neardup(a.version, "lsh9-16x3", far, farSegs) },
      // Far simhash, same keys, same schemes: a candidate through the keys (the control).
      { index: { _index: index, _id: "same-scheme" } },
      { text: probe, neardup: neardup(a.version, a.lshScheme!, far, farSegs) },
      // nd3, nd2 and nd1, which nd4 reads (comparableVersions): candidates; nd1 of another IDF table: never.
      { index: { _index: index, _id: "nd3" } },
      { text: probe, neardup: neardup("nd3", a.lshScheme!, a.hex, a.segments) },
      { index: { _index: index, _id: "nd2" } },
      { text: probe, neardup: neardup("nd2", a.lshScheme!, a.hex, a.segments) },
      { index: { _index: index, _id: "nd1" } },
      { text: probe, neardup: neardup("nd1", a.lshScheme!, a.hex, a.segments) },
      { index: { _index: index, _id: "nd1-other-idf" } },
      { text: probe, neardup: neardup("nd1+idf.0badc0de", a.lshScheme!, a.hex, a.segments) },
    ];
    expect((await engine.bulk(ops, { refresh: true })).errors).toBe(false);
    const result = await fullService.search({ text: probe, limit: 10, minSimilarity: 0 });
    const ids = result.matches.map((m) => m.id);
    expect(a.version).toBe("nd4");
    expect(ids).toContain("same-scheme");
    expect(ids).toContain("nd3");
    expect(ids).toContain("nd2");
    expect(ids).toContain("nd1");
    expect(ids).not.toContain("nd1-other-idf");
    expect(ids).not.toContain("other-version");
    expect(ids).not.toContain("other-lsh");
  }, 120_000);
});
