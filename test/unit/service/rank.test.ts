import { beforeAll, describe, expect, it } from "vitest";
import { createFingerprinter, type Fingerprinter } from "../../../src/core/fingerprinter.js";
import type { Candidate } from "../../../src/service/candidate.js";
import { reportedSimilarity } from "../../../src/core/verdict.js";
import { byTimeThenId, chooseOriginal, compareCandidates, INLINE_TEXT_CHARS, rankMatches } from "../../../src/service/rank.js";
import { MOM_A, MOM_B, NEWS_EN } from "../../fixtures/texts/near-duplicates.js";

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
