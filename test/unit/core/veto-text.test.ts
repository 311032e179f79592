// The vetoes read texts less truncation markers and line-wrapping spaces between CJK characters (audit 15).
import { beforeAll, describe, expect, it } from "vitest";
import type { Fingerprinter } from "../../../src/core/index.js";
import { compareSketches, sketchOf } from "../../../src/core/sketch.js";
import { vetoText } from "../../../src/core/similarity/veto-text.js";
import { defaultFingerprinter } from "./helpers.js";

// Real pairs of the outside set (Debian handbook and maint-guide, zh-CN and zh-TW), labelled near-duplicates.
const CUT_SHORT: [string, string][] = [
  ["debc 允许以相似的方式（用 dpkg -c）来扫描最近生成的软件包，而无需键入其完整名称与路径。", "debc 允许以相似的方式（用 dpkg -c）来扫描最近生成的软件包，而无需键入其完（未完）"],
  ["讓我們嘗試創建一個自己的軟件包(或者，“收養”一個已存在的軟件包則更 好)。", "讓我們嘗試創建一個自己的軟件包(或者，“收養”一個已存在的軟件包則更..."],
];
const WRAPPED: [string, string] = [
  "雖然此法在大部分情況下能顯靈，但你仍需要根據 Debian 政策（Debian Policy）以及約定俗成的做法來調整 軟體包名 和 上游版本 。",
  "雖然此法在大部分情況下能顯靈，但你仍需要根據 Debian 政策（Debian Policy）以及約定俗成的做法來調整軟體包名和上游版本。",
];

describe("vetoText", () => {
  it("takes out a truncation marker at either end, and spaces between CJK characters only", () => {
    expect(vetoText("the backup failed ...")).toBe("the backup failed");
    expect(vetoText("… the backup failed")).toBe("the backup failed");
    expect(vetoText("the backup [...]")).toBe("the backup");
    expect(vetoText("备份失败（未完待续）")).toBe("备份失败");
    expect(vetoText("see the notes (continued)")).toBe("see the notes");
    expect(vetoText("調整 軟體包名 和 上游版本 。")).toBe("調整軟體包名和上游版本。");
    expect(vetoText("the Debian 政策 of words")).toBe("the Debian 政策 of words"); // a space beside a Latin word stays
    expect(vetoText("no marker here.")).toBe("no marker here.");
    expect(vetoText("...")).toBe("..."); // nothing but a marker: kept
  });
});

describe("the vetoes on copies cut short or wrapped (audit 15)", () => {
  let fp: Fingerprinter;
  beforeAll(async () => {
    fp = await defaultFingerprinter();
  });

  it("a copy cut short with a marker is a duplicate, from texts and from sketches alike (it was vetoed as a different ending)", () => {
    for (const [a, b] of CUT_SHORT) {
      const v = fp.compare(a, b);
      expect(v.duplicate, `${v.rule} vetoed ${v.vetoed}: ${b}`).toBe(true);
      const [x, y] = [fp.analyze(a), fp.analyze(b)];
      const s = compareSketches({ simhash: x.simhash, sketch: sketchOf(x) }, { simhash: y.simhash, sketch: sketchOf(y) }, fp.verdictOptions);
      expect(s?.duplicate).toBe(true);
    }
  });

  it("a copy whose only difference is line-wrapping spaces between CJK characters is a duplicate (it was vetoed as a different middle)", () => {
    const v = fp.compare(WRAPPED[0], WRAPPED[1]);
    expect(v.duplicate, `${v.rule} vetoed ${v.vetoed}`).toBe(true);
  });

  it("a different ending stays vetoed when both texts carry a marker", () => {
    const v = fp.compare("Here are the required steps to set up the mirror…", "Here are the required parameters for the mirror…");
    expect(v.duplicate).toBe(false);
  });
});
