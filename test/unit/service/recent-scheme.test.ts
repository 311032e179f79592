// The recent-writes window keeps the LSH scheme of what it holds: a near-duplicate reached only through an
// LSH key is found there with any banding (before, window entries counted as lsh1-16x3, and the re-rank's
// scheme check dropped them for any other banding).
import { describe, expect, it } from "vitest";
import { createFingerprinter } from "../../../src/core/fingerprinter.js";
import { DedupService } from "../../../src/service/dedup-service.js";
import { parseDocInput } from "../../../src/service/input.js";
import { resolveDedupOptions } from "../../../src/service/options.js";
import { MemoryEngine } from "../../helpers/memory-engine.js";

describe("recent-writes window and LSH schemes", () => {
  for (const lsh of [undefined, { bands: 16, rows: 4 }]) {
    it(`finds a tiny one-word edit (no shared segment) in the window, banding ${lsh ? `${lsh.bands}x${lsh.rows}` : "default"}`, async () => {
      const fp = await createFingerprinter(lsh ? { lsh } : {});
      const a = fp.analyze("tp> a false positive");
      const b = fp.analyze("tp> a false jam");
      expect(a.segments.filter((s, i) => s === b.segments[i]).length).toBeLessThan(2); // not through the segments
      const service = new DedupService(new MemoryEngine(), fp, resolveDedupOptions({ index: `window-${lsh ? "custom" : "default"}` }));
      await service.ensureIndex();
      await service.index([parseDocInput({ id: "a", text: "tp> a false positive" })], "mark");
      // Not refreshed: only the window can show a.
      const [second] = await service.index([parseDocInput({ id: "b", text: "tp> a false jam" })], "mark");
      expect(second).toMatchObject({ status: "duplicate", duplicate_of: "a" });
    });
  }
});
