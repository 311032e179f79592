import { beforeAll, describe, expect, it } from "vitest";
import { createFingerprinter, type Fingerprinter } from "../../../src/core/fingerprinter.js";
import type { Candidate } from "../../../src/service/candidate.js";
import { reportedSimilarity } from "../../../src/core/verdict.js";
import { byTimeThenId, chooseOriginal, compareCandidates, INLINE_TEXT_CHARS, rankMatches } from "../../../src/service/rank.js";
import { LONG_ZH, MOM_A, MOM_B, NEWS_EN, NEWS_ZH, variants } from "../../fixtures/texts/near-duplicates.js";
import { sketchOf } from "../../../src/core/sketch.js";
import { fetchCandidates } from "../../../src/service/candidates/index.js";
import { neardupSource } from "../../../src/service/documents.js";
import { MemoryEngine } from "../../helpers/memory-engine.js";

let fp: Fingerprinter;
beforeAll(async () => {
  fp = await createFingerprinter();
});

function candidate(id: string, text: string, time: number, extra: Partial<Candidate> = {}): Candidate {
  return { id, simhash: fp.analyze(text).simhash, time, status: "original", duplicateOf: undefined, text, ...extra };
}

describe("re-rank", () => {
  it("keeps candidates within the radius, compares them and never counts an id twice", async () => {
    const q = fp.analyze(MOM_A);
    const cands = [candidate("b", MOM_B, 2), candidate("b", MOM_B, 2), candidate("news", NEWS_EN, 1)];
    const matches = await compareCandidates(fp, q, cands, 64);
    expect(matches.map((m) => m.candidate.id)).toEqual(["b", "news"]);
    expect(matches[0]!.verdict.duplicate).toBe(true);
    expect(matches[1]!.verdict.duplicate).toBe(false);
    expect(await compareCandidates(fp, q, cands, 0)).toEqual([]); // MOM_B is more than 0 bits away
  });

  it("chooses the earliest matching document as the original, ties by id, followed to its own original", async () => {
    const q = fp.analyze(MOM_A);
    const later = candidate("z-later", MOM_B, 5);
    const tieB = candidate("b-tie", MOM_B, 3);
    const tieA = candidate("a-tie", MOM_B, 3, { status: "duplicate", duplicateOf: "root" });
    const chosen = chooseOriginal(await compareCandidates(fp, q, [later, tieB, tieA], 64));
    expect(chosen?.match.candidate.id).toBe("a-tie");
    expect(chosen?.originalId).toBe("root");
    expect(chooseOriginal(await compareCandidates(fp, q, [candidate("n", NEWS_EN, 0)], 64))).toBeUndefined();
  });

  it("untilDuplicate (a write's decision) picks the same original as comparing every candidate, and stops at it", async () => {
    const q = fp.analyze(MOM_A);
    const texts = [MOM_A, MOM_B, NEWS_EN, NEWS_ZH, LONG_ZH];
    let seed = 7;
    const next = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
    for (let round = 0; round < 60; round++) {
      const cands = Array.from({ length: 1 + next(12) }, (_, k) => {
        const dup = next(3) === 0;
        return candidate(`c${next(6)}-${k}`, texts[next(texts.length)]!, next(5), dup ? { status: "duplicate" as const, duplicateOf: `root${next(3)}` } : {});
      });
      const all = await compareCandidates(fp, q, cands, 64);
      const early = await compareCandidates(fp, q, cands, 64, { untilDuplicate: true });
      const [a, b] = [chooseOriginal(all), chooseOriginal(early)];
      expect(b?.originalId).toBe(a?.originalId);
      expect(b?.match.candidate.id).toBe(a?.match.candidate.id);
      expect(b?.match.verdict).toEqual(a?.match.verdict);
      // It compared the non-duplicates older than the original and the original, nothing after it.
      const older = a ? all.filter((m) => byTimeThenId(m.candidate, a.match.candidate) <= 0).length : all.length;
      expect(early.length).toBe(older);
    }
  });

  it("ranks duplicates first, then by similarity, distance and time", async () => {
    const q = fp.analyze(MOM_A);
    const ranked = rankMatches(await compareCandidates(fp, q, [candidate("n", NEWS_EN, 0), candidate("b", MOM_B, 9), candidate("a", MOM_A, 9)], 64));
    expect(ranked.map((m) => m.candidate.id)).toEqual(["a", "b", "n"]);
  });

  it("analyses a long text stored without a sketch off the event loop when the caller can, a short one inline, with the same verdict (issue 15)", async () => {
    const q = fp.analyze(MOM_A);
    const long = `${MOM_B} ${"padding words for a long stored text. ".repeat(100)}`;
    expect(long.length).toBeGreaterThan(INLINE_TEXT_CHARS);
    const offLoop: string[] = [];
    const inline: string[] = [];
    const counting = new Proxy(fp, {
      get(t, p, r) {
        if (p === "analyze") return (text: string) => (inline.push(text), t.analyze(text));
        return Reflect.get(t, p, r) as unknown;
      },
    });
    const analyze = async (text: string) => (offLoop.push(text), fp.analyze(text));
    const matches = await compareCandidates(counting, q, [candidate("long", long, 1), candidate("short", MOM_B, 2)], 64, { analyze });
    expect(offLoop).toEqual([long]);
    expect(inline).toEqual([MOM_B]);
    expect(matches.map((m) => m.verdict)).toEqual([fp.compare(q, fp.analyze(long)), fp.compare(q, fp.analyze(MOM_B))]);
  });

  it("takes the verdict the lookup already computed for the same query and rules, and only for those", async () => {
    const q = fp.analyze(MOM_A);
    const sketched = (id: string, text: string, memo?: Candidate["verdict"]) => {
      const a = fp.analyze(text);
      return { id, simhash: a.simhash, time: 1, status: "original" as const, duplicateOf: undefined, sketch: sketchOf(a, Infinity), verdict: memo };
    };
    const planted = { ...fp.compare(q, fp.analyze(NEWS_EN)), duplicate: true, rule: "planted" }; // not what a comparison gives
    const [same] = await compareCandidates(fp, q, [sketched("n", NEWS_EN, { of: q, options: fp.verdictOptions, verdict: planted, decideOnly: false })], 64);
    expect(same!.verdict).toBe(planted);
    const [otherQuery] = await compareCandidates(fp, q, [sketched("n", NEWS_EN, { of: fp.analyze(MOM_B), options: fp.verdictOptions, verdict: planted, decideOnly: false })], 64);
    expect(otherQuery!.verdict.duplicate).toBe(false);
    const [otherRules] = await compareCandidates(fp, q, [sketched("n", NEWS_EN, { of: q, options: { ...fp.verdictOptions }, verdict: planted, decideOnly: false })], 64);
    expect(otherRules!.verdict.duplicate).toBe(false);
    // A verdict made for a caller that keeps duplicates alone serves only such callers: it may lack a non-duplicate's measures.
    const [decided] = await compareCandidates(fp, q, [sketched("n", NEWS_EN, { of: q, options: fp.verdictOptions, verdict: planted, decideOnly: true })], 64, { decideOnly: true });
    expect(decided!.verdict).toBe(planted);
    const [reported] = await compareCandidates(fp, q, [sketched("n", NEWS_EN, { of: q, options: fp.verdictOptions, verdict: planted, decideOnly: true })], 64);
    expect(reported!.verdict.duplicate).toBe(false);
  });

  it("gets the same matches from candidates read from the engine, whose sketch verdicts the lookup kept, as from fresh copies", async () => {
    const engine = new MemoryEngine();
    await engine.createIndex("w");
    const now = Date.UTC(2026, 11, 3);
    const stored = [MOM_B, NEWS_EN, NEWS_ZH, LONG_ZH, ...variants(NEWS_ZH, 3)];
    await engine.bulk(stored.flatMap((text, i) => [{ index: { _index: "w", _id: `d${i}` } }, { text, neardup: neardupSource(fp.analyze(text), { status: "original" }, now - 1000, `d${i}`) }]));
    await engine.refresh("w");
    for (const text of [MOM_A, NEWS_ZH, variants(NEWS_ZH, 5)[4]!]) {
      const q = fp.analyze(text);
      const [result] = await fetchCandidates(engine, { index: "w", textField: "text", windowMs: 86_400_000, maxCandidates: 100, verdict: fp.verdictOptions }, [{ analysis: q, time: now, excludeId: undefined, radius: 3 }]);
      const read = result!.candidates;
      expect(read.length).toBeGreaterThan(0);
      expect(read.some((c) => c.verdict?.of === q)).toBe(true);
      const fresh = read.map(({ verdict: _kept, ...c }) => c);
      const verdicts = async (cs: Candidate[]) => (await compareCandidates(fp, q, cs, 3)).map((m) => ({ id: m.candidate.id, ...m.verdict, editSimilarity: m.verdict.editSimilarity, charCosine: m.verdict.charCosine }));
      expect(await verdicts(read)).toEqual(await verdicts(fresh));
    }
  });

  it("orders by time then id", () => {
    const c = (id: string, time: number) => ({ id, time }) as Candidate;
    expect([c("b", 2), c("b", 1), c("a", 2)].sort(byTimeThenId).map((x) => `${x.id}${x.time}`)).toEqual(["b1", "a2", "b2"]);
  });
});

describe("reportedSimilarity", () => {
  const v = (rule: string | null, cosine: number, edit: number | null) => ({ duplicate: rule !== null, rule, bucket: "b", distance: 1, cosine, editSimilarity: edit, charCosine: null });
  it("reports the measure of the rule that fired", () => {
    expect(reportedSimilarity(v("tiny.edit", 0.5, 0.9))).toBe(0.9);
    expect(reportedSimilarity(v("tiny.cosine", 0.95, 0.8))).toBe(0.95);
    expect(reportedSimilarity(v("long.simhash", 0.97, null))).toBe(0.97);
    expect(reportedSimilarity(v(null, 0.2, 0.3))).toBe(0.3);
    expect(reportedSimilarity(v(null, 0.2, null))).toBe(0.2);
  });
});
