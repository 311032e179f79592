import { describe, expect, it } from "vitest";
import { CorpusIdf, parseIdfDictionary } from "../../../src/core/index.js";

describe("IDF tables", () => {
  it("dictionary: known terms from the file, unknown terms at the median", () => {
    const d = parseIdfDictionary("a 1.0\nb 3.0\nc 2.0\n\nＤ 9\n");
    expect(d.size).toBe(4);
    expect(d.idf("a")).toBe(1);
    expect(d.idf("d")).toBe(9); // terms are normalized
    expect(d.unknownIdf).toBe(2.5);
    expect(d.idf("zzz")).toBe(2.5);
  });

  it("corpus: smoothed ln((1+N)/(1+df))+1, unknown terms get the maximum", () => {
    const t = CorpusIdf.fit([["a", "b", "a"], ["a"], ["c"]]);
    expect(t.n).toBe(3);
    expect(t.documentFrequency("a")).toBe(2);
    expect(t.idf("a")).toBeCloseTo(Math.log(4 / 3) + 1, 15);
    expect(t.idf("unseen")).toBeCloseTo(Math.log(4) + 1, 15);
  });

  it("merge adds counts; JSON round-trips", () => {
    const a = CorpusIdf.fit([["x", "y"], ["y"]]);
    const b = CorpusIdf.fit([["y", "z"]]);
    const m = a.merge(b);
    expect(m.n).toBe(3);
    expect(m.documentFrequency("y")).toBe(3);
    expect(m.toJSON()).toEqual(CorpusIdf.fit([["x", "y"], ["y"], ["y", "z"]]).toJSON());
    const back = CorpusIdf.fromJSON(JSON.stringify(m));
    expect(back.toJSON()).toEqual(m.toJSON());
    expect(back.idf("z")).toBe(m.idf("z"));
  });
});
