/** Issue 11: the model-based check of first one wins (test/helpers/fow-model.ts) on the in-memory engine double. */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { createFingerprinter, type Fingerprinter } from "../../../src/core/fingerprinter.js";
import { MemoryEngine } from "../../helpers/memory-engine.js";
import { POOL, World, checkModel, commands, submit, submitMany } from "../../helpers/fow-model.js";

describe("first one wins, model-based (DedupService on an engine double)", () => {
  let fp: Fingerprinter;
  beforeAll(async () => {
    fp = await createFingerprinter();
    // The pool's premise, from the core: near-duplicates within a cluster, none across.
    for (const a of POOL) for (const b of POOL) if (a.id < b.id) expect(fp.compare(fp.analyze(a.text), fp.analyze(b.text)).duplicate, `${a.id} ~ ${b.id}`).toBe(a.cluster === b.cluster);
  });

  it("random interleavings keep one original per cluster, in arrival order, with every acknowledgement true", async () => {
    await fc.assert(
      fc.asyncProperty(commands(30), async (cmds) => {
        const world = new World(fp, new MemoryEngine(), "model");
        await world.init();
        await fc.asyncModelRun(() => ({ model: {}, real: world }), cmds);
        await checkModel(world);
      }),
      { numRuns: 1500 },
    );
  }, 120_000);

  it("a request whose lookups wait while an original's write is refused does not keep a stale root: one original (found by the property above)", async () => {
    const at = (id: string) => POOL.findIndex((p) => p.id === id);
    for (let k = 0; k < 3; k++) {
      const world = new World(fp, new MemoryEngine(), "model");
      await world.init();
      // c0v1's write is held, then refused; c0v0 waits on it as its duplicate; a request with both starts meanwhile, its lookups held.
      await submit(at("c0v1"), "mark", { slowLookup: false, slowWrite: true, refuseWrite: true }).run({}, world);
      await submitMany([at("c0v0")], "mark", false).run({}, world);
      await submitMany([at("c0v1"), at("c0v0")], "mark", true).run({}, world);
      await checkModel(world);
    }
  });
});
