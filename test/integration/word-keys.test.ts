/**
 * Issue 14: near-duplicates of tiny texts that share no MinHash band key (one
 * word replaced, inserted or deleted in a text of 15-30 characters) are found
 * end to end through the engine by the word keys of LSH scheme lsh2; two or
 * three characters replaced in a Chinese text of 14-20 characters (audit 22,
 * F1) by the block keys of lsh3; one character replaced and one or two
 * inserted or deleted (audit 22a, tiny3_ins3.py) by the lookup block keys (spec §9.2,
 * lookup-only: the stored keys are lsh3's); and a document stored under lsh1
 * (band keys only) is still found through its band keys by an lsh3 lookup.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Engine } from "../../src/engine/index.js";
import { DedupService } from "../../src/service/dedup-service.js";
import { neardupSource } from "../../src/service/documents.js";
import { resolveDedupOptions } from "../../src/service/options.js";
import { sharedFingerprinter } from "../helpers/api.js";
import { connectTarget, engineTargets, uniqueIndex } from "../helpers/engines.js";

// Stored text, then its edited copy: pairs of the quality benchmark the band keys missed.
const PAIRS: [string, string][] = [
  ["tp> a false positive", "tp> a false jam"],
  ["dear sir or madam", "dear screenshots or madam"],
  ["so, anyone who isn't", "so, anyone who remit isn't"],
  ["水邊閑詠處,雲島月斜明。(均見《粤詩", "水邊閑詠處,雲島月斜明。(均旂《粤詩"],
];
// Stored text, then a copy with characters replaced: pairs the band and word keys missed (audit 22, F1).
const REPLACED: [string, string][] = [
  ["今天上海文化，苹果经济创新啊", "今天哦海文化，苹啦经济创新啊"],
  ["工作报告妈妈，图书馆朋友健康啊", "工作报告妈妈，呀书馆朋友吧康啊"],
  ["国大上不位由流个然知回日最四些根利大基而", "国大上不位鑫流个然知回日淼四些根利大基而"],
];
// Stored text, then a copy with one character replaced and one or two inserted or deleted: pairs no stored key of
// the copy reaches (audit 22a: the first three were indexed as originals), found through the lookup block keys.
const SHIFTED: [string, string][] = [
  ["音乐发展科技，下雨上海新闻，上海学校历史啊", "音乐发哦科技，下雨上海新闻，上海吧学校历史啊"],
  ["发展运动上海，美食历史运动，医院回家今天啊", "发展运动上海，美食历史吗动，吧医院回家今天啊"],
  ["新闻电影公园，教育美食新闻，教育发展城市啊", "新闻电影吧园，喊教育美食新闻，教育发展城市啊"],
  ["计划计划飞机，新闻音乐吧院，朋友文化吧音乐啊", "计划计划飞机，新闻音乐医院，朋友文化音乐啊"],
  ["历史妈吧计划呀，运动城市教育，学校飞机苹果啊", "历史妈妈计划，运动城市教育，学校飞机苹果啊"],
  // One replaced and two inserted.
  ["火车北京历史回家，学校城市旅游科技，科技飞机我们科技啊", "火车北京历史回家，吗校城市旅游科技，叫科技飞机呢我们科技啊"],
];
const LONG = "A text stored by an older sidecar under lsh1, with band keys only, long enough for its keys to be band keys alone.";

describe.each(engineTargets())("word keys of short texts on $kind $version", (target) => {
  let engine: Engine;
  const index = uniqueIndex("neardup-it-word-keys");

  beforeAll(async () => {
    engine = await connectTarget(target);
    const fp = await sharedFingerprinter();
    const writer = new DedupService(engine, fp, resolveDedupOptions({ index }));
    await writer.ensureIndex();
    const stored = [
      ...PAIRS.map(([text], i) => ({ id: `tiny${i}`, text })),
      ...REPLACED.map(([text], i) => ({ id: `replaced${i}`, text })),
      ...SHIFTED.map(([text], i) => ({ id: `shifted${i}`, text })),
    ];
    const docs = stored.map(({ id, text }) => ({ id, idGiven: true, text, time: Date.now() - 60_000, fields: undefined }));
    const results = await writer.index(docs, "mark");
    expect(results.map((r) => ("id" in r ? `${r.id} ${r.status}` : r.message))).toEqual(stored.map(({ id }) => `${id} original`));
    // An lsh1 document: band keys only, a simhash far from the lookup's, so only its band keys can reach it.
    const a = fp.analyze(LONG);
    const source = neardupSource(a, { status: "original" }, Date.now() - 60_000, "lsh1-doc") as unknown as Record<string, unknown>;
    delete source.id; // written before contract v4
    delete source.lsh_list;
    const far = (BigInt("0x" + a.hex) ^ 0xffffffffffffffffn).toString(16).padStart(16, "0");
    Object.assign(source, { simhash: far, seg0: far.slice(0, 4), seg1: far.slice(4, 8), seg2: far.slice(8, 12), seg3: far.slice(12, 16), lsh: a.lsh.slice(0, 16), lsh_scheme: "lsh1-16x3" });
    expect((await engine.bulk([{ index: { _index: index, _id: "lsh1-doc" } }, { text: LONG, neardup: source }], { refresh: true })).errors).toBe(false);
    await engine.refresh(index);
  });
  afterAll(async () => {
    await engine.deleteIndex(index);
    await engine.close();
  });

  it("finds the stored tiny text from its one-word edit through the engine", async () => {
    // A fresh service: nothing in its recent-writes window, every candidate comes from the engine.
    const reader = new DedupService(engine, await sharedFingerprinter(), resolveDedupOptions({ index }));
    for (const [i, [, edited]] of PAIRS.entries()) {
      const check = await reader.check(edited);
      expect(check.duplicate_of, edited).toBe(`tiny${i}`);
    }
  }, 120_000);

  it("finds the stored Chinese text from a copy with characters replaced through the engine (block keys)", async () => {
    const fp = await sharedFingerprinter();
    const reader = new DedupService(engine, fp, resolveDedupOptions({ index }));
    for (const [i, [text, edited]] of REPLACED.entries()) {
      expect(fp.compare(text, edited).duplicate, edited).toBe(true);
      const check = await reader.check(edited);
      expect(check.duplicate_of, edited).toBe(`replaced${i}`);
    }
  }, 120_000);

  it("finds the stored Chinese text from a copy with one character replaced and one or two inserted or deleted through the engine (lookup block keys)", async () => {
    const fp = await sharedFingerprinter();
    const reader = new DedupService(engine, fp, resolveDedupOptions({ index }));
    for (const [i, [text, edited]] of SHIFTED.entries()) {
      expect(fp.compare(text, edited).duplicate, edited).toBe(true);
      // No stored key of the copy is a stored key of the text: only its lookup-only keys can reach it.
      const [s, e] = [fp.analyze(text), fp.analyze(edited)];
      expect(e.lsh.filter((k) => s.lsh.includes(k)), edited).toEqual([]);
      const check = await reader.check(edited);
      expect(check.duplicate_of, edited).toBe(`shifted${i}`);
    }
  }, 120_000);

  it("finds an lsh1 document through its band keys", async () => {
    const reader = new DedupService(engine, await sharedFingerprinter(), resolveDedupOptions({ index }));
    const check = await reader.check(LONG.replace("older sidecar", "old sidecar"));
    expect(check.duplicate_of).toBe("lsh1-doc");
  }, 120_000);
});
