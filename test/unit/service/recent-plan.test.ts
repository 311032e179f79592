// The recent-writes window reaches what the engine lookup reaches. With a key plan (keys.ts: band keys
// too common to be read alone must be shared two at a time), a document sharing one common band key and
// nothing else is not a candidate through the engine; before, the window still took every key alone, so
// the same pair was compared or not depending on whether the earlier write was still in flight.
import { describe, expect, it } from "vitest";
import { hamming } from "../../../src/core/fingerprint.js";
import { createFingerprinter } from "../../../src/core/fingerprinter.js";
import { lookupProbe, reaches } from "../../../src/service/candidates/index.js";
import { DedupService } from "../../../src/service/dedup-service.js";
import { parseDocInput } from "../../../src/service/input.js";
import { resolveDedupOptions } from "../../../src/service/options.js";
import { MemoryEngine } from "../../helpers/memory-engine.js";

/** Term statistics that call every band key common: a plan under any budget below `df` pairs them all. */
class CommonKeysEngine extends MemoryEngine {
  constructor(private readonly df: number) {
    super();
  }
  override async termDocFrequencies(_indices: readonly string[], _field: string, terms: readonly string[]): Promise<Map<string, number>> {
    return new Map(terms.map((t) => [t, this.df]));
  }
}

const ORIGINAL = "the committee will review the annual budget report on monday and publish the final figures for every regional office before the end of the month";
/** Eight words replaced: one band key shared with ORIGINAL, simhash 19 bits away. */
const ONE_KEY = "the committee alpha review kilo alpha budget report on echo and oscar alpha final figures for every regional office before the end of the month";
/** Two words replaced: most band keys shared, simhash 7 bits away (beyond the radius). */
const MANY_KEYS = "mike committee will review the annual budget report on monday and publish the final figures for india regional office before the end of the month";

/** `/v1/check`'s candidate count for `text` after ORIGINAL was written, with ORIGINAL in the window or in the engine. */
async function candidatesFor(text: string, from: "window" | "engine", budget: number): Promise<number> {
  const engine = new CommonKeysEngine(1000);
  const index = `plan-${from}`;
  const service = new DedupService(engine, await createFingerprinter({}), resolveDedupOptions({ index, lshKeyBudget: budget }));
  await service.ensureIndex();
  if (from === "engine") {
    engine.indices.get(index)!.refreshMs = 0; // acknowledged means searchable: the window does not hold it for later lookups
    await service.learnRefreshInterval();
  }
  await service.index([parseDocInput({ id: "a", text: ORIGINAL })], "mark");
  if (from === "engine") {
    await engine.refresh(index);
    await new Promise((r) => setTimeout(r, 5)); // the check starts after the write became visible
  }
  expect(service.recentWindow.entries).toBe(1);
  const result = await service.check(text);
  return result.candidates;
}

describe("the recent-writes window applies the lookup's key plan", () => {
  it("the texts are what the test needs", async () => {
    const fp = await createFingerprinter({});
    const [a, one, many] = [ORIGINAL, ONE_KEY, MANY_KEYS].map((t) => fp.analyze(t));
    expect(one!.lsh.filter((k) => a!.lsh.includes(k))).toHaveLength(1);
    expect(many!.lsh.filter((k) => a!.lsh.includes(k)).length).toBeGreaterThanOrEqual(2);
    for (const b of [one!, many!]) expect(hamming(a!.simhash, b.simhash)).toBeGreaterThan(3);
  });

  it("one shared common key: a candidate neither from the window nor from the engine", async () => {
    expect(await candidatesFor(ONE_KEY, "engine", 200)).toBe(0);
    expect(await candidatesFor(ONE_KEY, "window", 200)).toBe(0);
  });

  it("two or more shared common keys: a candidate from both", async () => {
    expect(await candidatesFor(MANY_KEYS, "engine", 200)).toBe(1);
    expect(await candidatesFor(MANY_KEYS, "window", 200)).toBe(1);
  });

  it("without the rule (budget 0) every key reaches alone, from both", async () => {
    expect(await candidatesFor(ONE_KEY, "engine", 0)).toBe(1);
    expect(await candidatesFor(ONE_KEY, "window", 0)).toBe(1);
  });

  it("the lookup's probe asks two of four segments within the radius when the text has band keys, as the engine query does", async () => {
    const fp = await createFingerprinter({});
    const a = fp.analyze(ORIGINAL);
    const flip = (x: number, bits: number[]) => bits.reduce((v, b) => (v ^ (1 << b)) >>> 0, x);
    // 3 bits away, in three segments (one shared), with no band key: the engine query does not reach it.
    const far = { simhash: { hi: flip(a.simhash.hi, [0, 16]), lo: flip(a.simhash.lo, [0]) }, lsh: [] };
    const near = { simhash: { hi: flip(a.simhash.hi, [0, 1]), lo: flip(a.simhash.lo, [0]) }, lsh: [] }; // 3 bits, two segments shared
    expect(lookupProbe(a, 3).segments).toBe(2);
    expect(reaches(lookupProbe(a, 3), far)).toBe(false);
    expect(reaches(lookupProbe(a, 3), near)).toBe(true);
    expect(reaches(lookupProbe({ ...a, lsh: [] }, 3), far)).toBe(true); // no band keys: any segment
  });
});
