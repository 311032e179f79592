/** Issue 11: the model-based check of first one wins (test/helpers/fow-model.ts), a smaller run against each real engine. */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Engine } from "../../src/engine/types.js";
import { sharedFingerprinter } from "../helpers/api.js";
import { connectTarget, engineTargets, uniqueIndex } from "../helpers/engines.js";
import { World, checkModel, commands } from "../helpers/fow-model.js";

describe.each(engineTargets())("first one wins, model-based, on $kind $version ($source)", (target) => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await connectTarget(target);
  });
  afterAll(async () => {
    await engine.close();
  });

  it.each([
    ["", {}],
    [" (lookups from the window mirror)", { mirrorDocs: 10_000 }],
  ])("random interleavings keep one original per cluster, in arrival order, with every acknowledgement true%s", async (_, options) => {
    const fp = await sharedFingerprinter();
    const indices: string[] = [];
    try {
      await fc.assert(
        fc.asyncProperty(commands(15), async (cmds) => {
          const index = uniqueIndex("neardup-model");
          indices.push(index);
          const world = new World(fp, engine, index, options);
          await world.init();
          await fc.asyncModelRun(() => ({ model: {}, real: world }), cmds);
          await checkModel(world);
          if ("mirrorDocs" in options) expect(world.service.mirror?.state).toBe("ready");
        }),
        { numRuns: 12 },
      );
    } finally {
      for (const index of indices) await engine.deleteIndex(index);
    }
  }, 240_000);
});
