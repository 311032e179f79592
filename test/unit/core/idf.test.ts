import { describe, expect, it } from "vitest";
import { analysisVersion, CorpusIdf, CorpusIdfBuilder, createFingerprinter, FINGERPRINT_VERSION, fnv1a32Hex, parseIdfDictionary } from "../../../src/core/index.js";
import { defaultFingerprinter } from "./helpers.js";

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

describe("corpus IDF identity and the fingerprint version (issue 14)", () => {
  it("identity: 8 hex of the canonical JSON; equal tables equal, any count change differs; survives a round trip", () => {
    const a = CorpusIdf.fit([["x", "y"], ["y"]]);
    expect(a.identity).toMatch(/^[0-9a-f]{8}$/);
    expect(CorpusIdf.fit([["y"], ["y", "x"]]).identity).toBe(a.identity);
    expect(CorpusIdf.fromJSON(JSON.stringify(a)).identity).toBe(a.identity);
    expect(CorpusIdf.fit([["x", "y"], ["y"], ["z"]]).identity).not.toBe(a.identity);
    expect(fnv1a32Hex("")).toBe("811c9dc5"); // FNV-1a offset basis
    expect(fnv1a32Hex("a")).toBe("e40c292c"); // published FNV-1a 32 test vector
  });

  it("hashes the canonical JSON of fingerprint-spec §5: number terms (array indices) first in numeric order, then the rest in code-unit order (docs audit)", () => {
    const table = CorpusIdf.fit([["b", "10", "2", "a", "01", "4294967295"]]);
    const canonical = '{"format":"neardup-idf","version":1,"n":1,"df":{"2":1,"10":1,"01":1,"4294967295":1,"a":1,"b":1}}';
    expect(JSON.stringify(table.toJSON())).toBe(canonical);
    expect(table.identity).toBe(fnv1a32Hex(canonical));
  });

  it("the streaming builder gives the same table as fit; minDf leaves rare terms out", () => {
    const docs = [["a", "b", "a"], ["a"], ["c"], ["a", "c"]];
    const builder = new CorpusIdfBuilder();
    for (const d of docs) builder.add(d);
    expect(builder.build().toJSON()).toEqual(CorpusIdf.fit(docs).toJSON());
    const pruned = builder.build(2);
    expect(pruned.n).toBe(4);
    expect(pruned.documentFrequency("b")).toBe(0);
    expect(pruned.documentFrequency("c")).toBe(2);
  });

  it("analysis version: nd4 with the bundled table, nd4+idf.<identity> with a corpus table", async () => {
    expect(analysisVersion()).toBe(FINGERPRINT_VERSION);
    const table = CorpusIdf.fit([["the", "cat"], ["the", "dog"], ["a", "bird"]]);
    expect(analysisVersion(table)).toBe(`nd4+idf.${table.identity}`);
    expect(analysisVersion({ idf: () => 1 })).toBe("nd4+idf.custom");
    const fp = await createFingerprinter({ idf: table });
    expect(fp.version).toBe(`nd4+idf.${table.identity}`);
    expect(fp.analyze("the cat sat").version).toBe(fp.version);
    expect((await defaultFingerprinter()).analyze("the cat sat").version).toBe("nd4");
  });

  it("English gets real weights from a corpus: a common word weighs less than a rare one (the bundled table gives both 11.95)", async () => {
    const fp = await defaultFingerprinter();
    const corpus = ["the council met today", "the council voted", "the weather was fine", "a rare aurora appeared"];
    const table = CorpusIdf.fit(corpus.map((t) => fp.tokenize(t)));
    expect(fp.idf.idf("council")).toBe(fp.idf.idf("aurora"));
    expect(table.idf("council")).toBeLessThan(table.idf("aurora"));
    const withTable = await createFingerprinter({ idf: table });
    const v = withTable.analyze("council aurora").vector;
    expect(v.get("council")!).toBeLessThan(v.get("aurora")!);
  });
});

describe("IDF lines in traditional characters (nd2 folds them)", () => {
  it("weigh the simplified word they fold to when the table has no line for it, and give way to one that it has", () => {
    const table = parseIdfDictionary("後來 9.5\n后来 2.5\n經濟 8\n其他 1\n");
    expect(table.idf("后来")).toBe(2.5); // the line as written wins over the folded one before it
    expect(table.idf("经济")).toBe(8); // only the traditional line: it weighs the folded word
  });
});
