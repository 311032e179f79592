// Log records through the service (core record.ts): a line of one template about another event is an
// original, whether its near twin is still in the recent-writes window or already in the engine; the
// same event logged again is its duplicate. The engine's side is the stored sketch (format 3).
import { describe, expect, it } from "vitest";
import { createFingerprinter } from "../../../src/core/fingerprinter.js";
import { DedupService } from "../../../src/service/dedup-service.js";
import { resolveDedupOptions } from "../../../src/service/options.js";
import { MemoryEngine } from "../../helpers/memory-engine.js";

const FIRST = "2024-12-28T04:36:57.342Z ERROR [order-service] Payment failed for order 4381108153: card declined (code 301), user=jenkins";
const OTHER_USER = "2024-12-28T04:37:17.203Z ERROR [order-service] Payment failed for order 4381108153: card declined (code 301), user=postgres";
const AGAIN = "2024-12-28T04:39:02.911Z ERROR [order-service] Payment failed for order 4381108153: card declined (code 301), user=jenkins";

describe("log records in the service", () => {
  for (const where of ["window", "engine"] as const) {
    it(`another event is an original, the same event again a duplicate (the first in the ${where})`, async () => {
      const fp = await createFingerprinter();
      const engine = new MemoryEngine();
      const writer = new DedupService(engine, fp, resolveDedupOptions({ index: "records" }));
      await writer.ensureIndex();
      const now = Date.now();
      const doc = (id: string, text: string, dt: number) => ({ id, text, time: now + dt, idGiven: true, fields: undefined });
      await writer.index([doc("first", FIRST, 0)], "skip");
      // A second sidecar's window is empty: its lookups ask the engine, which has the first after a refresh.
      let service = writer;
      if (where === "engine") {
        await engine.refresh("records");
        service = new DedupService(engine, fp, resolveDedupOptions({ index: "records" }));
        await service.ensureIndex();
        expect(service.recentWindow.entries).toBe(0);
      }
      const [other, again] = await service.index([doc("other", OTHER_USER, 20_000), doc("again", AGAIN, 125_000)], "skip");
      expect(other).toMatchObject({ status: "original", action: "indexed" });
      expect(again).toMatchObject({ status: "duplicate", action: "skipped", duplicate_of: "first" });
      const stored = await engine.get<{ neardup: { sketch: string } }>("records", "other");
      expect(Buffer.from(stored!.neardup.sketch, "base64")[0]).toBe(3);
    });
  }
});
