// The record veto (core record.ts): two log records (texts that carried a time stamp or a syslog process id,
// shorter than RECORD_MAX_LENGTH once normalized) are duplicates only when they are the same record once
// normalized. An outside quality audit (audit 20) found lines of one template about another event (another
// user, order, status) called duplicates in 61% of pairs with stamps far apart and 74% seconds apart: under
// `skip` or `reject` the other event would have been lost.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { createFingerprinter, analysisData, type Fingerprinter } from "../../../src/core/fingerprinter.js";
import { isRecord, RECORD_MAX_LENGTH } from "../../../src/core/record.js";
import { compareSketches, DEFAULT_INLINE_TEXT_LENGTH, decodeSketch, encodeSketch, sketchOf } from "../../../src/core/sketch.js";
import { DEFAULT_VERDICT_OPTIONS, validateVerdictOptions } from "../../../src/core/verdict.js";
import { NeardupError } from "../../../src/core/errors.js";
import { fromWire, toWire } from "../../../src/workers/wire.js";

let fp: Fingerprinter;
let noVeto: Fingerprinter;
beforeAll(async () => {
  fp = await createFingerprinter();
  noVeto = await createFingerprinter({ verdict: { ...DEFAULT_VERDICT_OPTIONS, recordVeto: false } });
});

const SAME_EVENT: [string, string][] = [
  ["2024-04-22T03:03:31.195Z sshd[31395]: Failed password for invalid user jenkins from 123.218.28.214 port 9701 ssh2", "2024-11-11T23:26:37.126Z sshd[4410]: Failed password for invalid user jenkins from 123.218.28.214 port 9701 ssh2"],
  ["[2024-07-28T10:41:41.917Z] 用户 www-data 于 31.248.88.222 登录失败：密码错误（第1次）", "[2024-07-28T10:41:52.173Z] 用户 www-data 于 31.248.88.222 登录失败：密码错误（第1次）"],
  ['35.166.247.49 - - [25/Jul/2024:05:28:45 +0000] "GET /healthz HTTP/1.1" 502 851231', '35.166.247.49 - - [26/Jul/2024:11:02:13 +0000] "GET /healthz  HTTP/1.1" 502 851231'],
];

const OTHER_VALUE: [string, string][] = [
  ["2024-12-28T04:36:57.342Z ERROR [order-service] Payment failed for order 4381108153: card declined (code 301), user=jenkins", "2024-12-28T04:37:17.203Z ERROR [order-service] Payment failed for order 4381108153: card declined (code 301), user=postgres"],
  ["2024-03-14T20:33:06.062Z kernel: Out of memory: Killed process 47538 (java) total-vm:657813kB, anon-rss:1249kB", "2024-05-18T19:24:37.928Z kernel: Out of memory: Killed process 47538 (nginx) total-vm:657813kB, anon-rss:1249kB"],
  ["2024-09-20T01:59:06.221Z systemd[1]: postgres.service: Main process exited, code=exited, status=5/FAILURE", "2024-09-02T11:01:55.775Z systemd[1]: nginx.service: Main process exited, code=exited, status=5/FAILURE"],
  ["2024-06-04T11:11:41.480Z 订单 7181975676 支付成功，金额 5765.22 元，渠道：银联", "2024-06-04T11:13:39.600Z 订单 7181975676 支付成功，金额 9685.74 元，渠道：银联"],
  ['110.82.196.5 - - [17/Jun/2024:22:20:31 +0000] "GET /api/v1/users/me HTTP/1.1" 200 191451', '110.82.196.5 - - [17/Jun/2024:22:21:42 +0000] "GET /api/v1/users/me HTTP/1.1" 502 191451'],
];

describe("log records", () => {
  it("a text is a record when normalization removed a stamp or a process id and it is short", () => {
    expect(fp.analyze(SAME_EVENT[0]![0]).record).toBe(true);
    expect(fp.analyze("sshd[42016]: Accepted publickey for deploy from 10.0.0.7").record).toBe(true);
    expect(fp.analyze("会议 14:30 开始，请准时参加").record).toBeUndefined(); // no seconds: no stamp
    expect(fp.analyze("Failed password for invalid user jenkins from 123.218.28.214").record).toBeUndefined();
    const article = `Updated 2024-06-26 10:32:05. ${"The council approved the new budget for the regional transport network after a long debate. ".repeat(5)}`;
    expect(fp.analyze(article).length).toBeGreaterThanOrEqual(RECORD_MAX_LENGTH);
    expect(fp.analyze(article).record).toBeUndefined();
    expect(isRecord(true, RECORD_MAX_LENGTH - 1, "x")).toBe(true);
    expect(isRecord(true, RECORD_MAX_LENGTH, "x")).toBe(false);
    expect(isRecord(false, 10, "x")).toBe(false);
    // One line, its ends aside: a shipper's trailing newline is still one line, a mail's quote and its text are not.
    expect(fp.analyze(`${SAME_EVENT[0]![0]}\n`).record).toBe(true);
    expect(fp.analyze("On Wed, Aug 28, 2002 at 12:14:24AM +0100, Justin Mason wrote:\n\nHey, look at that!").record).toBeUndefined();
    expect(fp.analyze("On Fri, Aug 02, 2002 at 12:23:04PM +0100,").record).toBe(true);
    // A stored record's sketch always holds its text, which the veto compares.
    expect(RECORD_MAX_LENGTH).toBeLessThanOrEqual(DEFAULT_INLINE_TEXT_LENGTH);
  });

  it("the same event logged again is a duplicate; another event of the template is vetoed", () => {
    for (const [a, b] of SAME_EVENT) expect(fp.compare(a, b)).toMatchObject({ duplicate: true, vetoed: null });
    for (const [a, b] of OTHER_VALUE) {
      const v = fp.compare(a, b);
      expect(v.duplicate, `${a} / ${b}`).toBe(false);
      expect(v.vetoed).toBe(`${v.bucket}.record`);
      // Without the veto these pairs are what the audit found: duplicates by a prose rule.
      expect(noVeto.compare(a, b).duplicate).toBe(true);
    }
  });

  it("only two records: prose edits, a record against a plain text and long stamped texts keep their verdicts", () => {
    expect(fp.compare("妈妈说明天要下雨，记得带伞啦", "妈妈说明天要下雨，记得带伞呀").duplicate).toBe(true);
    const plain = "Failed password for invalid user postgres from 15.227.61.253 port 42455 ssh2";
    const stamped = "2024-03-26T18:22:58.654Z Failed password for invalid user bob from 15.227.61.253 port 42455 ssh2";
    expect(fp.compare(plain, stamped)).toEqual(noVeto.compare(plain, stamped));
    const body = "The council approved the new budget for the regional transport network after a long debate. ".repeat(5);
    const a = `Updated 2024-06-26 10:32:05. ${body} Reporting by Jane.`;
    const b = `Updated 2024-06-26 11:02:44. ${body} Reporting by John.`;
    expect(fp.compare(a, b).duplicate).toBe(true);
    // Pairs of the quality benchmark: a mail's quote line forwarded, a feed item with its Date line edited.
    expect(fp.compare("On Fri, Aug 02, 2002 at 12:23:04PM +0100,", "FW: \n\nOn Fri, Aug 02, 2002 at 12:23:04PM +0100,").duplicate).toBe(true);
    const item = "URL: http://www.newsisfree.com/click/-0,8613664,159/\nDate: 2002-10-06T18:12:56+01:00\n\nIn the second of our series from the GDC Europe, we talk with Microsoft's Bill Fulton about usability testing for games.";
    expect(fp.compare(item, item.replace("Microsoft's Bill", "Microsoft's trought Bill")).duplicate).toBe(true);
  });

  it("the veto only ever turns a duplicate of two differing records into a non-duplicate (property)", () => {
    const stamp = fc.tuple(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 10, max: 28 }), fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 })).map(([mo, d, h, mi]) => `2024-${String(mo).padStart(2, "0")}-${d}T${String(h).padStart(2, "0")}:${String(mi).padStart(2, "0")}:07.120Z `);
    const line = fc.tuple(fc.option(stamp, { nil: "" }), fc.constantFrom("postgres", "bob", "jenkins"), fc.constantFrom("15.227.61.253", "55.40.217.11"), fc.constantFrom("", " ssh2")).map(([s, user, ip, tail]) => `${s}sshd: Failed password for invalid user ${user} from ${ip} port 42455${tail}`);
    fc.assert(
      fc.property(line, line, (a, b) => {
        const x = fp.analyze(a);
        const y = fp.analyze(b);
        const withVeto = fp.compare(x, y);
        const without = noVeto.compare(x, y);
        if (x.record && y.record && x.normalized !== y.normalized) {
          expect(withVeto.duplicate).toBe(false);
          if (without.duplicate) expect(withVeto.vetoed).toBe(`${without.bucket}.record`);
        } else {
          expect(withVeto).toEqual(without);
        }
        if (x.record && y.record && x.normalized === y.normalized) expect(withVeto.duplicate).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it("the stored sketch keeps the record and the sketch verdict is the analysis verdict", () => {
    for (const [a, b] of [...SAME_EVENT, ...OTHER_VALUE]) {
      const x = fp.analyze(a);
      const y = fp.analyze(b);
      const stored = decodeSketch(encodeSketch(sketchOf(y)));
      expect(stored.record).toBe(true);
      expect(stored.text).toBe(y.normalized);
      const sketched = compareSketches({ simhash: x.simhash, sketch: sketchOf(x, Infinity) }, { simhash: y.simhash, sketch: stored }, fp.verdictOptions, true);
      const decided = fp.compare(x, y);
      expect({ duplicate: sketched?.duplicate, vetoed: sketched?.vetoed }).toEqual({ duplicate: decided.duplicate, vetoed: decided.vetoed });
    }
    // A record keeps its text in a sketch of any inline length (the recent-writes window's is the edit limit).
    const short = sketchOf(fp.analyze(OTHER_VALUE[0]![0]), 10);
    expect({ record: short.record, text: short.text !== undefined, filter: short.filter }).toEqual({ record: true, text: true, filter: undefined });
    // A plain text's sketch is as before: no record flag, the old format byte.
    const plain = encodeSketch(sketchOf(fp.analyze("Failed password for invalid user jenkins")));
    expect(Buffer.from(plain, "base64")[0]).toBe(1);
    expect(decodeSketch(plain).record).toBeUndefined();
  });

  it("an analysis keeps its record through plain data and a peer's wire form", () => {
    const a = fp.analyze(OTHER_VALUE[0]![0]);
    expect(fp.fromData(analysisData(a)).record).toBe(true);
    expect(fromWire(toWire(a), OTHER_VALUE[0]![0], fp)?.record).toBe(true);
    const plain = fp.analyze("Failed password for invalid user jenkins");
    expect(fromWire(toWire(plain), "Failed password for invalid user jenkins", fp)?.record).toBeUndefined();
  });

  it("recordVeto must be a boolean or null", () => {
    expect(() => validateVerdictOptions({ ...DEFAULT_VERDICT_OPTIONS, recordVeto: "yes" as unknown as boolean })).toThrow(NeardupError);
    expect(() => validateVerdictOptions({ ...DEFAULT_VERDICT_OPTIONS, recordVeto: "yes" as unknown as boolean })).toThrow(/verdict\.recordVeto/);
    expect(validateVerdictOptions({ ...DEFAULT_VERDICT_OPTIONS, recordVeto: null }).recordVeto).toBeNull();
  });
});
