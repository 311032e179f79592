// The sheet veto (core sheet.ts): two sheets of `label: value` lines (product pages, spec sheets) that give
// one label two values, one of them with a digit, are two items, not near-duplicates. An outside quality
// audit (audit 20) found 147 of 150 product pages of one template with other specs (memory, storage,
// weight, screen size) called duplicates: under `skip` or `reject` the second product would have been lost.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { analysisData, createFingerprinter, type Fingerprinter } from "../../../src/core/fingerprinter.js";
import { sheetOf, sheetsDiffer, SHEET_MAX_TEXT } from "../../../src/core/sheet.js";
import { compareSketches, decodeSketch, encodeSketch, sketchOf } from "../../../src/core/sketch.js";
import { DEFAULT_VERDICT_OPTIONS, validateVerdictOptions } from "../../../src/core/verdict.js";
import { NeardupError } from "../../../src/core/errors.js";
import { fromWire, toWire } from "../../../src/workers/wire.js";

let fp: Fingerprinter;
let noVeto: Fingerprinter;
beforeAll(async () => {
  fp = await createFingerprinter();
  noVeto = await createFingerprinter({ verdict: { ...DEFAULT_VERDICT_OPTIONS, sheetVeto: false } });
});

interface Laptop {
  cpu: string;
  memory: string;
  disk: string;
  screen: string;
  weight: string;
}
const BASE: Laptop = { cpu: "Intel Core i5-13500H", memory: "16GB LPDDR5", disk: "512GB NVMe SSD", screen: "15.6英寸 2.8K OLED", weight: "约1.7kg" };

function zh(l: Laptop): string {
  return `【华硕官方旗舰店】华硕无畏 15英寸轻薄笔记本电脑 星空灰\n处理器：${l.cpu}\n内存：${l.memory}\n硬盘：${l.disk}\n屏幕：${l.screen}\n重量：${l.weight}\n适用场景：商务办公、学习网课。\n售后服务：全国联保，7天无理由退货，整机保修2年。`;
}

function en(l: Laptop): string {
  return `Acme Book 15 Laptop - Slate Gray\nProcessor: ${l.cpu}\nMemory: ${l.memory}\nStorage: ${l.disk}\nDisplay: ${l.screen.replace("英寸", "-inch")}\nWeight: ${l.weight.replace("约", "")}\nFree shipping on orders over $35. 30-day returns.\nNote: images are for illustration only.`;
}

const OTHER_ITEMS: Laptop[] = [
  { ...BASE, memory: "32GB LPDDR5" },
  { ...BASE, disk: "1TB NVMe SSD" },
  { ...BASE, weight: "约1.85kg" },
  { ...BASE, cpu: "Intel Core i7-13700H", memory: "8GB LPDDR5" },
];

describe("sheets of fields", () => {
  it("a text is a sheet when most of it is distinct `label: value` lines", () => {
    expect(sheetOf(zh(BASE))?.length).toBe(7 * 3);
    expect(sheetOf(en(BASE))?.length).toBe(6 * 3);
    // Prose, a paragraph with colons in it, a time of day: no sheet.
    expect(sheetOf("The council met at 10:30. Agenda: budget, transport: roads and rail; housing: the new plan.")).toBeUndefined();
    expect(sheetOf("会议通知：明天下午开会。\n地点：三楼会议室。")).toBeUndefined(); // two fields
    // A dialogue repeats its speakers.
    expect(sheetOf("Alice: are we still on for 7?\nBob: yes, 7 at the usual place\nAlice: great, see you\nBob: bring the 2 tickets")).toBeUndefined();
    // A mail's headers above a longer body.
    const mail = `From: jm@example.com\nTo: list@example.com\nSubject: release 2.1\nDate: Mon, 2 Sep 2002\n\n${"The release went out this morning and the mirrors are catching up; please report anything odd on the list. ".repeat(3)}`;
    expect(sheetOf(mail)).toBeUndefined();
    // URLs and long values are not fields.
    expect(sheetOf("see: http://a.example/1\nhttp://b.example/2\nhttps://c.example/3\nnote: x1")).toBeUndefined();
    expect(sheetOf(`A: ${"word ".repeat(40)}1\nB: ${"word ".repeat(40)}2\nC: ${"word ".repeat(40)}3`)).toBeUndefined();
    expect(sheetOf(`${zh(BASE)}\n${"x".repeat(SHEET_MAX_TEXT)}`)).toBeUndefined();
  });

  it("any text gives no sheet or fields sorted by label, three numbers each (property)", () => {
    const piece = fc.constantFrom("内存", "Memory", "a", "：", ":", " ", "\n", "\r\n", "16GB", "1.7", ".", "//", "http", "，", "x".repeat(30), "\u2028", "😀", "é");
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), (parts) => {
        const sheet = sheetOf(parts.join(""));
        if (sheet === undefined) return;
        expect(sheet.length % 3).toBe(0);
        expect(sheet.length).toBeGreaterThanOrEqual(9);
        for (let i = 3; i < sheet.length; i += 3) expect(sheet[i]!).toBeGreaterThanOrEqual(sheet[i - 3]!);
        for (let i = 2; i < sheet.length; i += 3) expect([0, 1]).toContain(sheet[i]);
      }),
      { numRuns: 500 },
    );
  });

  it("values compare as normalized text: width, case, spaces, punctuation and traditional characters change no value", () => {
    const a = sheetOf(zh(BASE))!;
    const variants = [
      zh(BASE).replace(/：/g, ":").replace("16GB", "16 GB"),
      zh(BASE).replace("16GB", "１６ＧＢ").replace("512GB", "512gb"),
      zh(BASE).replace("处理器", "處理器").replace("硬盘", "硬盤"),
      zh(BASE).replace(/\n/g, "\r\n").replace("约1.7kg", "约 1.7 kg。"),
      // Lines moved, a field left out, a field added, other boilerplate.
      zh(BASE).split("\n").reverse().join("\n"),
      zh(BASE).replace(/\n重量：[^\n]*/, ""),
      `${zh(BASE)}\n颜色：星空灰`,
      zh(BASE).replace("全国联保，7天无理由退货，整机保修2年。", "全国联保，15天无理由退货。"),
    ];
    for (const v of variants) {
      const b = sheetOf(v);
      expect(b, v).toBeDefined();
      expect(sheetsDiffer(a, b!), v).toBe(false);
    }
    // Another value that is no spec, a colour or the terms of service, is not another item by this rule.
    expect(sheetsDiffer(sheetOf(`${zh(BASE)}\n颜色：星空灰`)!, sheetOf(`${zh(BASE)}\n颜色：皓月银`)!)).toBe(false);
    expect(sheetsDiffer(a, sheetOf(zh(BASE).replace("7天无理由退货", "15天无理由退货"))!)).toBe(false);
    expect(sheetsDiffer(a, sheetOf(zh(BASE).replace("16GB LPDDR5", "16GB LPDDR5, 2 slots free"))!)).toBe(false);
    expect(sheetsDiffer(a, sheetOf(zh(BASE).replace("16GB LPDDR5", "16GB LPDDR5X"))!)).toBe(true);
    // What changes on one item or names one message is no spec (outside audit 21, on real texts of this machine).
    const page = (lines: string) => sheetOf(`${zh(BASE)}\n${lines}`)!;
    for (const [x, y] of [
      ["价格：5999元", "价格：5899元"],
      ["月销：1.2万", "月销：1.5万"],
      ["评价：2000+条", "评价：3000+条"],
      ["更新：2024年6月1日", "更新：2024年7月3日"],
      ["更新：3小时前", "更新：5小时前"],
      ["Updated: June 3, 2024", "Updated: July 9, 2024"],
      ["Message-ID: <200205050926.KAA16291@webnote.net>", "Message-ID: <200205071026.LAA23489@webnote.net>"],
      ["MD5sum: 9e107d9d372bb6826bd81d3542a419d6", "MD5sum: e4d909c290d0fb1ca068ffaddf22cbd0"],
      ["Copyright: 2015-2022 José Padilla", "Copyright: 2015-2023 José Padilla"],
      // Stock and sales figures in words change on one item between crawls.
      ["库存：有货 23件", "库存：有货 17件"],
      ["庫存：僅剩3件", "庫存：僅剩2件"],
      ["Availability: 23 in stock", "Availability: 17 in stock"],
      ["Availability: only 3 left", "Availability: only 5 left"],
      ["Sales: 1234 sold", "Sales: 1301 sold"],
      ["Rating: 4.8 (2000 reviews)", "Rating: 4.9 (2113 reviews)"],
    ]) expect(sheetsDiffer(page(x!), page(y!)), `${x} / ${y}`).toBe(false);
    // A version is a spec without a letter; a JSON line's quotes and comma do not hide it; a dotted date and an address are no versions.
    expect(sheetsDiffer(page("Version: 1.36-1"), page("Version: 1.36-2"))).toBe(true);
    expect(sheetsDiffer(page('"version": "4.4.0",'), page('"version": "4.2.0",'))).toBe(true);
    expect(sheetsDiffer(page("日期：01.06.2024"), page("日期：03.07.2024"))).toBe(false);
    expect(sheetsDiffer(page("Host: 10.0.0.1"), page("Host: 10.0.0.2"))).toBe(false);
    // Part numbers and model codes stay specs.
    expect(sheetsDiffer(page("型号：MQKP3CH/A"), page("型号：MQKQ3CH/A"))).toBe(true);
    expect(sheetsDiffer(page("Battery: 5000mAh"), page("Battery: 4500mAh"))).toBe(true);
    // A stock word or a count after a letter does not end a spec.
    expect(sheetsDiffer(page("Ports: USB-C x2 left"), page("Ports: USB-C x3 left"))).toBe(true);
    // Bare numbers change on one item between two crawls: a price, a count, a rating, a date.
    const listing = (price: string, sold: string, rating: string, date: string) => `${zh(BASE)}\n价格：${price}\n已售：${sold}\n评分：${rating}\n上架：${date}`;
    expect(sheetsDiffer(sheetOf(listing("¥4999", "12,000", "4.8", "2024-06-01"))!, sheetOf(listing("¥4899", "12,500", "4.9", "2024-07-15"))!)).toBe(false);
  });

  it("two items of one template are vetoed; the same item reformatted stays a duplicate", () => {
    for (const render of [zh, en]) {
      for (const item of OTHER_ITEMS) {
        const a = render(BASE);
        const b = render(item);
        expect(noVeto.compare(a, b).duplicate, `${a} / ${b}`).toBe(true);
        const v = fp.compare(a, b);
        expect(v.duplicate).toBe(false);
        expect(v.vetoed).toBe(`${v.bucket}.sheet`);
      }
      const copy = render(BASE).replace(/\n/g, "\n ").replace("30-day", "30 day").replace("7天", "七天");
      expect(fp.compare(render(BASE), copy)).toMatchObject({ duplicate: true, vetoed: null });
    }
  });

  it("the veto only ever turns a duplicate of two differing sheets into a non-duplicate (property)", () => {
    const laptop = fc.record({
      cpu: fc.constantFrom("Intel Core i5-13500H", "Intel Core i7-13700H", "AMD Ryzen 7 7840HS"),
      memory: fc.constantFrom("16GB LPDDR5", "32GB LPDDR5", "16 GB LPDDR5"),
      disk: fc.constantFrom("512GB NVMe SSD", "1TB NVMe SSD"),
      screen: fc.constantFrom("15.6英寸 2.8K OLED", "14英寸 2.5K"),
      weight: fc.constantFrom("约1.7kg", "约1.85kg", "约 1.7 kg"),
    });
    fc.assert(
      fc.property(laptop, laptop, fc.constantFrom(zh, en), (l1, l2, render) => {
        const x = fp.analyze(render(l1));
        const y = fp.analyze(render(l2));
        const withVeto = fp.compare(x, y);
        const without = noVeto.compare(x, y);
        if (sheetsDiffer(x.sheet!, y.sheet!)) {
          expect(withVeto.duplicate).toBe(false);
          if (without.duplicate) expect(withVeto.vetoed).toBe(`${without.bucket}.sheet`);
        } else expect(withVeto).toEqual(without);
      }),
      { numRuns: 150 },
    );
  });

  it("the stored sketch keeps the sheet, and the sketch verdict is the analysis verdict", () => {
    for (const render of [zh, en]) {
      for (const item of [BASE, ...OTHER_ITEMS]) {
        const x = fp.analyze(render(BASE));
        const y = fp.analyze(render(item));
        for (const inline of [Infinity, 300, 10]) {
          const stored = decodeSketch(encodeSketch(sketchOf(y, inline)));
          expect(Array.from(stored.sheet!)).toEqual(Array.from(y.sheet!));
          expect(stored.text).toBe(inline > y.length ? y.normalized : undefined);
          expect(stored.filter === undefined).toBe(inline > y.length);
          const sketched = compareSketches({ simhash: x.simhash, sketch: sketchOf(x, Infinity) }, { simhash: y.simhash, sketch: stored }, fp.verdictOptions, true);
          const decided = fp.compare(x, y);
          if (sketched !== undefined) expect({ duplicate: sketched.duplicate, vetoed: sketched.vetoed }).toEqual({ duplicate: decided.duplicate, vetoed: decided.vetoed });
          else expect(inline).toBeLessThan(y.length); // without the text, a text rule may need it read
        }
      }
    }
    // A record is one line and a sheet at least three: a one-line record with labels is no sheet.
    const line = fp.analyze("2024-06-04T11:11:41.480Z order: 7181975676 amount: 5765.22 channel: unionpay");
    expect({ record: line.record, sheet: line.sheet }).toEqual({ record: true, sheet: undefined });
    const plain = encodeSketch(sketchOf(fp.analyze("An ordinary sentence without fields.")));
    expect(Buffer.from(plain, "base64")[0]).toBe(1);
    expect(decodeSketch(plain).sheet).toBeUndefined();
  });

  it("a malformed sheet sketch is refused with the field named", () => {
    const good = Buffer.from(encodeSketch(sketchOf(fp.analyze(zh(BASE)), 10)), "base64");
    expect(good[0]).toBe(4);
    expect(() => decodeSketch(good.subarray(0, good.length - 40).toString("base64"))).toThrow(/neardup\.sketch/);
  });

  it("an analysis keeps its sheet through plain data and a peer's wire form", () => {
    const a = fp.analyze(zh(BASE));
    expect(Array.from(fp.fromData(analysisData(a)).sheet!)).toEqual(Array.from(a.sheet!));
    expect(Array.from(fromWire(toWire(a), zh(BASE), fp)!.sheet!)).toEqual(Array.from(a.sheet!));
    expect(fromWire(toWire(fp.analyze("plain text")), "plain text", fp)?.sheet).toBeUndefined();
  });

  it("sheetVeto must be a boolean or null", () => {
    expect(() => validateVerdictOptions({ ...DEFAULT_VERDICT_OPTIONS, sheetVeto: "yes" as unknown as boolean })).toThrow(NeardupError);
    expect(() => validateVerdictOptions({ ...DEFAULT_VERDICT_OPTIONS, sheetVeto: "yes" as unknown as boolean })).toThrow(/verdict\.sheetVeto/);
    expect(validateVerdictOptions({ ...DEFAULT_VERDICT_OPTIONS, sheetVeto: null }).sheetVeto).toBeNull();
  });
});
