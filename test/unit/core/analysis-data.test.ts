// Issue 10: an Analysis survives structured clone (postMessage) as plain data.
import { beforeAll, describe, expect, it } from "vitest";
import { analysisData, lookupKeysOf } from "../../../src/core/index.js";
import type { Fingerprinter } from "../../../src/core/index.js";
import { defaultFingerprinter } from "./helpers.js";

let fp: Fingerprinter;
beforeAll(async () => {
  fp = await defaultFingerprinter();
});

describe("analysisData / Fingerprinter.fromData", () => {
  it("round-trips through structuredClone with Maps, order, lazy features and verdicts intact", () => {
    for (const text of ["你妈妈喊你回家吃饭哦，回家罗回家罗", "Hello world, a long English text ".repeat(20), "短"]) {
      const a = fp.analyze(text);
      const data = analysisData(a);
      expect(Object.keys(data)).not.toContain("features"); // not computed for the copy
      const b = fp.fromData(structuredClone(data));
      expect([...b.termCounts]).toEqual([...a.termCounts]);
      expect([...b.vector]).toEqual([...a.vector]);
      expect([...b.features]).toEqual([...a.features]);
      expect(b.short).toBe(a.short);
      // The lookup-only keys are not part of the plain form (the golden corpus digests it): the copy makes them again.
      const { features: _a, lookupLsh: _l, ...restA } = a;
      const { features: _b, ...restB } = b;
      expect(restB).toEqual(restA);
      expect(lookupKeysOf(b)).toEqual(lookupKeysOf(a));
      expect(fp.compare(a, b)).toEqual(fp.compare(a, a));
    }
  });

  it("a getter does not survive structuredClone, which is why the plain form exists", () => {
    const a = fp.analyze("你妈妈喊你回家吃饭哦");
    const copy = structuredClone(analysisData(a)) as Record<string, unknown>;
    expect(copy.features).toBeUndefined();
  });

  it("refuses data of another fingerprint version, naming the field", () => {
    const data = { ...analysisData(fp.analyze("abc def")), version: "nd0" };
    expect(() => fp.fromData(data)).toThrow(expect.objectContaining({ code: "INVALID_INPUT", field: "version" }));
  });
});
