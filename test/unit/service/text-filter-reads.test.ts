/**
 * A lookup that only decides (a check, a write, a search without a minimum
 * similarity) does not read a stored text whose sketch's filter shows that no
 * rule needing the text can hold (core text-filter.ts); a search that reports
 * lesser similarities still reads it, and a sketch without a filter (format 1)
 * is read as before.
 */
import { describe, expect, it } from "vitest";
import { createFingerprinter } from "../../../src/core/fingerprinter.js";
import { decodeSketch, encodeSketch } from "../../../src/core/sketch.js";
import { editSimilarity } from "../../../src/core/similarity/index.js";
import { neardupSource } from "../../../src/service/documents.js";
import { DedupService } from "../../../src/service/dedup-service.js";
import { resolveDedupOptions } from "../../../src/service/options.js";
import { farPairs } from "../../helpers/edit-pairs.js";
import { countingTextReads } from "../../helpers/grouped-hits.js";
import { MemoryEngine } from "../../helpers/memory-engine.js";

describe("text reads with text filters", () => {
  it("a check settles a candidate the filter rules out without its text; a search for lesser similarities reads it", async () => {
    const fp = await createFingerprinter();
    const [pair] = farPairs(fp, 1);
    const stored = pair!.a;
    const query = pair!.b;
    const a = fp.analyze(stored);
    const now = Date.now();
    for (const format of [2, 1]) {
      const neardup = neardupSource(a, { status: "original" }, now - 1000, "a");
      if (format === 1) neardup.sketch = encodeSketch({ ...decodeSketch(neardup.sketch!), filter: undefined });
      expect(Buffer.from(neardup.sketch!, "base64")[0]).toBe(format);
      const memory = new MemoryEngine();
      const { engine, reads } = countingTextReads(memory);
      const service = new DedupService(engine, fp, resolveDedupOptions({ index: "filters" }));
      await service.ensureIndex();
      await memory.bulk([{ index: { _index: "filters", _id: "a" } }, { text: stored, neardup }]);
      await memory.refresh("filters");
      const check = await service.check(query, { time: now });
      expect(check, `format ${format}`).toMatchObject({ status: "original", candidates: 1 });
      expect((await service.search({ text: query, limit: 10 })).matches).toEqual([]);
      // Format 2: no read for the check or the search; format 1: one each, as before filters.
      expect(reads(), `format ${format}`).toBe(format === 2 ? 0 : 2);
      const wide = await service.search({ text: query, minSimilarity: 0, limit: 10 });
      expect(wide.matches.map((m) => m.id)).toEqual(["a"]);
      expect(wide.matches[0]!.similarity).toBeCloseTo(editSimilarity(a.normalized, fp.analyze(query).normalized), 3);
      expect(reads()).toBe(format === 2 ? 1 : 3);
      // A write's decision reads no text either (format 2).
      const before = reads();
      const [written] = await service.index([{ id: "b", text: query, time: now, idGiven: true, fields: undefined }], "mark");
      expect(written).toMatchObject({ status: "original" });
      expect(reads() - before).toBe(format === 2 ? 0 : 1);
    }
  });
});
