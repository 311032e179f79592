/**
 * What finding sheets costs an analysis (core sheet.ts, the sheet veto): `sheetOf`
 * on 20,000 overlapping 200-character windows of the bench corpus (most have
 * fewer than 3 colons and are passed over in one scan), and on one product page
 * of 8 lines (each field line normalized again). CPU time, 5 passes.
 *
 *   npx tsx bench/sheet-cost.ts
 */
import { sheetOf } from "../src/core/sheet.js";
import { loadBenchCorpus } from "./corpus.js";

const corpus = Array.from(loadBenchCorpus().text);
const texts = Array.from({ length: 20_000 }, (_, i) => corpus.slice(i * 50, i * 50 + 200).join(""));
const sheets = texts.filter((t) => sheetOf(t) !== undefined).length;
let t = process.cpuUsage();
for (let pass = 0; pass < 5; pass++) for (const text of texts) sheetOf(text);
const perText = process.cpuUsage(t).user / (5 * texts.length);
const page = "【华硕官方旗舰店】华硕无畏 15英寸轻薄笔记本电脑 星空灰\n处理器：Intel Core i5-13500H\n内存：16GB LPDDR5\n硬盘：512GB NVMe SSD\n屏幕：15.6英寸 2.8K OLED\n重量：约1.7kg\n适用场景：商务办公、学习网课。\n售后服务：全国联保，7天无理由退货，整机保修2年。";
t = process.cpuUsage();
for (let i = 0; i < 20_000; i++) sheetOf(page);
const perPage = process.cpuUsage(t).user / 20_000;
console.log(`corpus windows: ${sheets} sheets of ${texts.length}, ${perText.toFixed(2)} µs a text; a product page of 8 lines: ${perPage.toFixed(1)} µs`);
