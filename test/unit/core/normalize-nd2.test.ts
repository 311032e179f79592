// Fingerprint version nd2: normalization drops HTML markup and URL queries and folds traditional
// Chinese to simplified (spec §2). An outside quality audit found these copies missed: the same text
// with its markup left in (recall 0.43), a link with tracking parameters (0.46), the same text in
// traditional characters (0.14).
import { spawnSync } from "node:child_process";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { FOLDED_CHARACTERS, foldChineseVariants } from "../../../src/core/chinese-variants.js";
import { comparableVersions, createFingerprinter, type Fingerprinter } from "../../../src/core/fingerprinter.js";
import { stripMarkup, stripUrlQueries } from "../../../src/core/markup.js";
import { normalize } from "../../../src/core/normalize.js";
import { textRefusal } from "../../../src/core/validate.js";

describe("markup", () => {
  it("tags, comments, script and style elements become a space; character references are decoded", () => {
    expect(normalize('<div class="article-content"><p>FORTH IF HONK THEN</p></div>')).toBe("forth if honk then");
    expect(normalize("<span style=\"font-size:14px;\">If it wasn't for Newton,&nbsp;we</span>")).toBe("if it wasn't for newton, we");
    expect(normalize("a<br/>b<BR>c<!-- note -->d<script>var x = '<p>';</script>e<style>p { x: 1 }</style>f")).toBe("a b c d e f");
    expect(normalize("<!DOCTYPE html><title>x</title>")).toBe("x");
    expect(normalize("&quot;Tom &amp; Jerry&quot; &#39;&#x4e2d;&#20013;&#39;")).toBe("\"tom & jerry\" '中中'");
    // A reference that spells markup is text: it is decoded after tags are dropped.
    expect(normalize("&lt;p&gt; is a tag")).toBe("<p> is a tag");
  });

  it("leaves what is not markup alone: comparisons, hearts, addresses in angle brackets, an ampersand in a name", () => {
    for (const text of ["a < b and c > d", "i <3 you", "mail <ann@example.org>", "AT&T and R&D", "x<-y", "1 <= 2"]) expect(stripMarkup(text)).toBe(text);
  });

  it("a text that is only markup has nothing left, and the input check says so", () => {
    expect(normalize("<p></p>&nbsp;")).toBe("");
    expect(textRefusal("<p></p>&nbsp;")).toMatchObject({ code: "INVALID_INPUT" });
    expect(textRefusal("<p>x</p>")).toBeUndefined();
  });
});

describe("URL queries", () => {
  it("drops the query string and fragment of http(s) URLs, and nothing else", () => {
    expect(stripUrlQueries("see https://t.co/Ab3xYz9Q?utm_source=twitter&utm_medium=social#top now")).toBe("see https://t.co/Ab3xYz9Q now");
    expect(stripUrlQueries("HTTP://x.org/a/b?c=1, and (http://y.org/?q).")).toBe("HTTP://x.org/a/b, and (http://y.org/).");
    for (const text of ["what? why#", "ftp://x.org/a?b", "no url here"]) expect(stripUrlQueries(text)).toBe(text);
  });
});

describe("hostile input", () => {
  it("normalizes a megabyte of open script elements, overlapping URLs, open tags, comments or references (regexes over these were quadratic: minutes a text)", () => {
    // In its own process: a quadratic regex would block this one, and vitest's timeout with it.
    const run = spawnSync(process.execPath, ["--import", "tsx", "test/fixtures/normalize-hostile.ts"], { encoding: "utf8", timeout: 60_000, killSignal: "SIGKILL" });
    expect(run.stdout.trim(), run.stderr).toBe("ok");
  }, 90_000);

  it("drops URL queries as a regex over one URL at a time would (an oracle, on random text of URL pieces)", () => {
    const oracle = (t: string) => t.replace(/(\bhttps?:\/\/[^\s?#<>"'`]*)([?#][^\s<>"'`]*)/gi, (_, url: string, tail: string) => url + /[.,;:!?)\]}]*$/.exec(tail)![0]);
    const piece = fc.constantFrom("http://", "HTTPS://", "x.org", "/p", "?", "#", "a=1", "&", ".", ",", ")", " ", "\n", "<", '"', "'", "`", "中", "b");
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 25 }), (parts) => {
        const t = parts.join("");
        expect(stripUrlQueries(t)).toBe(oracle(t));
      }),
      { numRuns: 3000 },
    );
  });
});

describe("traditional Chinese", () => {
  it("folds traditional and regional variant characters to simplified, one character at a time", () => {
    expect(FOLDED_CHARACTERS).toBeGreaterThan(2000);
    expect(foldChineseVariants("政治經濟學是經濟學的基礎學科")).toBe("政治经济学是经济学的基础学科");
    expect(foldChineseVariants("驅動盤不能在XP系統中使用，比較麻煩")).toBe("驱动盘不能在XP系统中使用，比较麻烦");
    expect(foldChineseVariants("爲了")).toBe("为了"); // a Taiwan variant, then simplified
    expect(foldChineseVariants("a䡵b㜢")).toBe("a𫟦b𡞱"); // characters of the BMP whose simplified form lies beyond it
    // Simplified text, Latin, and astral characters without a fold are unchanged.
    for (const text of ["政治经济学是经济学的基础学科", "plain ascii", "𠀀𪚥 emoji 😀"]) expect(foldChineseVariants(text)).toBe(text);
  });

  it("is a function of each character alone: folding a concatenation is concatenating the folds, and folding twice is folding once", () => {
    const chars = fc.constantFrom(..."經濟學政治经济学系統乾隆後來裡面髮䡵㜢abc 😀𠀀，。");
    const text = fc.array(chars, { maxLength: 30 }).map((a) => a.join(""));
    fc.assert(
      fc.property(text, text, (a, b) => {
        expect(foldChineseVariants(a + b)).toBe(foldChineseVariants(a) + foldChineseVariants(b));
        expect(foldChineseVariants(foldChineseVariants(a))).toBe(foldChineseVariants(a));
      }),
    );
  });
});

describe("near-duplicates nd1 missed (outside quality audit)", () => {
  let fp: Fingerprinter;
  beforeAll(async () => {
    fp = await createFingerprinter();
  });
  const duplicate = (a: string, b: string) => fp.compare(fp.analyze(a), fp.analyze(b)).duplicate;

  it("the same text in traditional and simplified characters, with markup left in, with a tracking query on its link", () => {
    expect(duplicate("政治经济学是经济学的基础学科，研究人类社会中生产、交换、分配和消费的规律。", "政治經濟學是經濟學的基礎學科，研究人類社會中生產、交換、分配和消費的規律。")).toBe(true);
    expect(duplicate("If it wasn't for Newton, we wouldn't have to eat bruised apples.", '<span style="font-size:14px;">If it wasn\'t for Newton,&nbsp;we wouldn\'t have to eat bruised apples.</span>')).toBe(true);
    expect(duplicate("Beware the new TTY code! https://t.co/Ab3xYz9Q", "Beware the new TTY code! https://t.co/Ab3xYz9Q?utm_source=twitter&utm_medium=social&utm_campaign=spring_sale")).toBe(true);
  });

  it("different texts stay different with the same markup around them", () => {
    const wrap = (t: string) => `<div class="article-content"><p>${t}</p><p>&copy; 2026 Example News</p></div>`;
    expect(duplicate(wrap("The council approved the new budget for road repairs on Tuesday."), wrap("Heavy snow closed three mountain passes and delayed trains overnight."))).toBe(false);
  });
});

describe("fingerprint version", () => {
  it("nd2 lookups read nd1 documents of the same IDF table, and nothing else", () => {
    expect(comparableVersions("nd2")).toEqual(["nd2", "nd1"]);
    expect(comparableVersions("nd2+idf.1a2b3c4d")).toEqual(["nd2+idf.1a2b3c4d", "nd1+idf.1a2b3c4d"]);
    expect(comparableVersions("nd1")).toEqual(["nd1"]);
  });
});
