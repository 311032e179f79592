// Sheets through the service (core sheet.ts): a product page of one template about another item is an
// original, whether its near twin is still in the recent-writes window or already in the engine; the
// same page posted again reformatted is its duplicate. The engine's side is the stored sketch (format 4).
import { describe, expect, it } from "vitest";
import { createFingerprinter } from "../../../src/core/fingerprinter.js";
import { DedupService } from "../../../src/service/dedup-service.js";
import { resolveDedupOptions } from "../../../src/service/options.js";
import { MemoryEngine } from "../../helpers/memory-engine.js";
import { SHEET_AGAIN, SHEET_FIRST, SHEET_OTHER_ITEM } from "../../helpers/sheets.js";

describe("sheets in the service", () => {
  for (const where of ["window", "engine"] as const) {
    it(`another item is an original, the same page again a duplicate (the first in the ${where})`, async () => {
      const fp = await createFingerprinter();
      const engine = new MemoryEngine();
      const writer = new DedupService(engine, fp, resolveDedupOptions({ index: "sheets" }));
      await writer.ensureIndex();
      const now = Date.now();
      const doc = (id: string, text: string, dt: number) => ({ id, text, time: now + dt, idGiven: true, fields: undefined });
      await writer.index([doc("first", SHEET_FIRST, 0)], "skip");
      let service = writer;
      if (where === "engine") {
        await engine.refresh("sheets");
        service = new DedupService(engine, fp, resolveDedupOptions({ index: "sheets" }));
        await service.ensureIndex();
        expect(service.recentWindow.entries).toBe(0);
      }
      const [other, again] = await service.index([doc("other", SHEET_OTHER_ITEM, 20_000), doc("again", SHEET_AGAIN, 125_000)], "skip");
      expect(other).toMatchObject({ status: "original", action: "indexed" });
      expect(again).toMatchObject({ status: "duplicate", action: "skipped", duplicate_of: "first" });
      const stored = await engine.get<{ neardup: { sketch: string } }>("sheets", "other");
      expect(Buffer.from(stored!.neardup.sketch, "base64")[0]).toBe(4);
      // Without the veto the other item is the first one's duplicate: the test sees the veto at work.
      const plain = await createFingerprinter({ verdict: { ...fp.verdictOptions, sheetVeto: false } });
      expect(plain.compare(SHEET_FIRST, SHEET_OTHER_ITEM).duplicate).toBe(true);
    });
  }
});
