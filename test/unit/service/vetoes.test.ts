// The record and sheet vetoes through the service (core record.ts, sheet.ts): a log line of one template about
// another event, and a product page of one template about another item, are originals, whether the near twin
// is still in the recent-writes window or already in the engine; the same line logged again, and the same page
// posted again reformatted, are duplicates of the first. The engine's side is the stored sketch (format 3: a
// record's text; format 4: a sheet's fields).
import { describe, expect, it } from "vitest";
import { createFingerprinter } from "../../../src/core/fingerprinter.js";
import { DedupService } from "../../../src/service/dedup-service.js";
import { resolveDedupOptions } from "../../../src/service/options.js";
import { MemoryEngine } from "../../helpers/memory-engine.js";
import { VETO_CASES } from "../../helpers/vetoes.js";

describe.each(VETO_CASES)("the $name veto in the service", ({ first, other, again, format, option }) => {
  for (const where of ["window", "engine"] as const) {
    it(`the other one is an original, the same one again a duplicate (the first in the ${where})`, async () => {
      const fp = await createFingerprinter();
      const engine = new MemoryEngine();
      const writer = new DedupService(engine, fp, resolveDedupOptions({ index: "vetoes" }));
      await writer.ensureIndex();
      const now = Date.now();
      const doc = (id: string, text: string, dt: number) => ({ id, text, time: now + dt, idGiven: true, fields: undefined });
      await writer.index([doc("first", first, 0)], "skip");
      // A second sidecar's window is empty: its lookups ask the engine, which has the first after a refresh.
      let service = writer;
      if (where === "engine") {
        await engine.refresh("vetoes");
        service = new DedupService(engine, fp, resolveDedupOptions({ index: "vetoes" }));
        await service.ensureIndex();
        expect(service.recentWindow.entries).toBe(0);
      }
      const [o, a] = await service.index([doc("other", other, 20_000), doc("again", again, 125_000)], "skip");
      expect(o).toMatchObject({ status: "original", action: "indexed" });
      expect(a).toMatchObject({ status: "duplicate", action: "skipped", duplicate_of: "first" });
      const stored = await engine.get<{ neardup: { sketch: string } }>("vetoes", "other");
      expect(Buffer.from(stored!.neardup.sketch, "base64")[0]).toBe(format);
      // Without the veto the other one is the first one's duplicate: the test sees the veto at work.
      const plain = await createFingerprinter({ verdict: { ...fp.verdictOptions, [option]: false } });
      expect(plain.compare(first, other).duplicate).toBe(true);
    });
  }
});
