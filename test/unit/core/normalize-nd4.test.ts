// Fingerprint version nd4: normalization drops log time stamps (a time of day with seconds, with its date,
// zone and year) and syslog process ids (spec §2 step 7) unless fewer than 5 letters or digits would be left.
// An outside quality audit (audit 20) found a log line logged again for the same event, with another time
// stamp, called a near-duplicate in 8% of pairs with stamps days apart and 86% with stamps seconds apart.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { foldChineseVariants } from "../../../src/core/chinese-variants.js";
import { stripDecorations } from "../../../src/core/decorations.js";
import { comparableVersions, createFingerprinter, FINGERPRINT_VERSION, type Fingerprinter } from "../../../src/core/fingerprinter.js";
import { fromHex } from "../../../src/core/fingerprint.js";
import { stripMarkup, stripUrlQueries } from "../../../src/core/markup.js";
import { normalize } from "../../../src/core/normalize.js";
import { mayHaveStamps, stripStamps } from "../../../src/core/timestamps.js";
import { textRefusal } from "../../../src/core/validate.js";
import { candidateQuery } from "../../../src/service/candidates/index.js";

/** nd3's normalization: every step but the stamps (spec §2 as it was). */
function normalizeNd3(text: string): string {
  return stripDecorations(foldChineseVariants(stripUrlQueries(stripMarkup(text)).normalize("NFKC").toLowerCase()))
    .replace(/[\t\n\v\f\r\u0085]/g, " ")
    .replace(/[\p{Cc}\p{Cf}]/gu, "")
    .replace(/\s+/g, " ")
    .trim();
}

describe("log time stamps and process ids", () => {
  it("ISO 8601 stamps, with a fraction and a zone, in brackets or not", () => {
    expect(normalize("2024-06-26T18:23:55.099Z WARN c.e.db.Pool - Connection to db-4.internal:5432 timed out")).toBe("warn c.e.db.pool - connection to db-4.internal:5432 timed out");
    expect(normalize("[2024-10-03T20:34:57.282Z] 用户 carol 于 13.118.165.39 登录失败：密码错误")).toBe("[ ] 用户 carol 于 13.118.165.39 登录失败:密码错误");
    expect(normalize("2024-06-26 18:23:55,123 INFO main started")).toBe("info main started");
    expect(normalize("2024/06/26 18:23:55+08:00 任务完成 done")).toBe("任务完成 done");
  });

  it("the common log format, syslog and `date` stamps, a Chinese date, a time alone", () => {
    expect(normalize('35.166.247.49 - - [25/Jul/2024:05:28:45 +0000] "GET /healthz HTTP/1.1" 502 851231')).toBe('35.166.247.49 - - [ ] "get /healthz http/1.1" 502 851231');
    expect(normalize("Jun  6 18:23:55 host kernel: Out of memory")).toBe("host kernel: out of memory");
    expect(normalize("Wed Jun 26 18:23:55 UTC 2024 backup finished")).toBe("backup finished");
    expect(normalize("2024年6月26日 18:23:55 系统维护开始")).toBe("系统维护开始");
    expect(normalize("18:23:55.099 [main] DEBUG loaded 12 rules")).toBe("[main] debug loaded 12 rules");
  });

  it("a syslog process id after a program name, before its colon", () => {
    expect(normalize("sshd[42016]: Failed password for invalid user admin")).toBe("sshd: failed password for invalid user admin");
    expect(normalize("systemd[1]: java.service: Main process exited")).toBe("systemd: java.service: main process exited");
  });

  it("what a notice or an article says stays: a date alone, a time without seconds, a ratio, a number after a stamp that is no year", () => {
    for (const text of ["会议 14:30 开始，2024-06-26 在三楼", "the score was 1:23:45:67 at the end", "version 1.2:33:44 is out", "see note [12]: below", "chapter12:00:00:00 ok"]) {
      expect(normalize(text)).toBe(normalizeNd3(text));
    }
    expect(normalize("at 10:00:00 1500 people came")).toBe("at 1500 people came"); // a time with seconds goes; 1500 is no year
  });

  it("a text that is only a stamp fingerprints as in nd3 (never refused); five letters or digits left are enough", () => {
    for (const text of ["12:00:00", "2024-06-26 18:23:55", "[25/Jul/2024:05:28:45 +0000] ok"]) {
      expect(normalize(text)).toBe(normalizeNd3(text));
      expect(textRefusal(text)).toBeUndefined();
    }
    expect(normalize("2024-06-26 18:23:55 hello")).toBe("hello");
  });

  it("never turns an accepted text into a refused one, and never leaves fewer than 5 letters or digits (property)", () => {
    const piece = fc.constantFrom("2024-06-26", "t", " ", "18:23:55", ".099", "z", "+08:00", "utc", "2024", "jun", "wed", "6", ":", "[", "]", "]:", "sshd", "[42]", "/jul/", "年", "月", "日", "a", "中", "\n");
    const fewLetters = /^(?:[^\p{L}\p{N}]*[\p{L}\p{N}]){5}/u;
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 16 }), (parts) => {
        const t = parts.join("");
        const nd4 = normalize(t);
        expect(nd4 === "").toBe(normalizeNd3(t) === "");
        if (nd4 !== normalizeNd3(t)) expect(fewLetters.test(nd4)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it("without two digits around a colon and without `]:`: exactly nd3's normalization (property)", () => {
    const text = fc.string({ unit: "grapheme", maxLength: 80 }).filter((t) => !/\d:\d|\]:/u.test(t.normalize("NFKC")));
    fc.assert(
      fc.property(text, (t) => {
        expect(mayHaveStamps(t.normalize("NFKC").toLowerCase())).toBe(false);
        expect(normalize(t)).toBe(normalizeNd3(t));
      }),
      { numRuns: 3000 },
    );
  });

  it("the quick check says no for plain text, and then returns the text itself", () => {
    for (const text of ["政治经济学是经济学的基础学科，研究人类社会中生产、交换、分配和消费的规律。", "the quick brown fox: jumps over the lazy dog."]) {
      expect(mayHaveStamps(text)).toBe(false);
      expect(stripStamps(text)).toBe(text);
    }
  });
});

describe("near-duplicates nd3 missed (outside quality audit 20)", () => {
  let fp: Fingerprinter;
  beforeAll(async () => {
    fp = await createFingerprinter();
  });
  const duplicate = (a: string, b: string) => fp.compare(fp.analyze(a), fp.analyze(b)).duplicate;

  it("a log line logged again for the same event: another time stamp, another process id", () => {
    expect(duplicate("2024-06-26T18:23:55.099Z WARN  c.e.db.Pool - Connection to db-4.internal:5432 timed out after 13986 ms, retrying (4/5)", "2024-01-23T00:15:28.356Z WARN  c.e.db.Pool - Connection to db-4.internal:5432 timed out after 13986 ms, retrying (4/5)")).toBe(true);
    expect(duplicate("2024-01-20T10:34:23.688Z sshd[42016]: Failed password for invalid user www-data from 219.122.57.165 port 15550 ssh2", "2024-03-19T14:12:49.549Z sshd[1743]: Failed password for invalid user www-data from 219.122.57.165 port 15550 ssh2")).toBe(true);
    expect(duplicate("[2024-10-03T20:34:57.282Z] 用户 carol 于 13.118.165.39 登录失败：密码错误（第2次）", "[2024-06-01T04:32:05.545Z] 用户 carol 于 13.118.165.39 登录失败：密码错误（第2次）")).toBe(true);
  });

  it("two different events with the same stamp stay different", () => {
    expect(duplicate("2024-06-26T18:23:55.099Z sshd[42016]: Failed password for invalid user admin from 219.122.57.165 port 15550 ssh2", "2024-06-26T18:23:55.099Z kernel: Out of memory: Killed process 39448 (postgres) total-vm:1024kB")).toBe(false);
  });
});

describe("fingerprint version nd4", () => {
  it("is the current version; nd4 lookups read nd3, nd2 and nd1 documents of the same IDF table, and nothing else", () => {
    expect(FINGERPRINT_VERSION).toBe("nd4");
    expect(comparableVersions("nd4")).toEqual(["nd4", "nd3", "nd2", "nd1"]);
    expect(comparableVersions("nd4+idf.1a2b3c4d")).toEqual(["nd4+idf.1a2b3c4d", "nd3+idf.1a2b3c4d", "nd2+idf.1a2b3c4d", "nd1+idf.1a2b3c4d"]);
    expect(comparableVersions("nd3")).toEqual(["nd3", "nd2", "nd1"]);
  });

  it("a stored nd3 (or older) document is a candidate of an nd4 lookup: the engine query's version filter names them", () => {
    const body = candidateQuery({ simhash: fromHex("0123456789abcdef"), radius: 3, lsh: ["00:0000abcd"], scheme: { version: "nd4", lshScheme: "lsh2-16x3" }, since: 0, size: 10 }) as {
      query: { bool: { filter: Record<string, unknown>[] } };
    };
    expect(body.query.bool.filter[0]).toEqual({ terms: { "neardup.version": ["nd4", "nd3", "nd2", "nd1"] } });
  });
});
