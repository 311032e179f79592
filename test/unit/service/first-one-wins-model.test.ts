/**
 * Issue 11, model-based: random interleavings of creates, re-submissions,
 * refused writes, slow engine lookups and refreshes, run through the real
 * DedupService on an in-memory engine double, then checked against a
 * brute-force model of first one wins over everything that was stored and
 * acknowledged.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { createFingerprinter, type Fingerprinter } from "../../../src/core/fingerprinter.js";
import { NeardupError } from "../../../src/core/errors.js";
import { DedupService, type IndexResult } from "../../../src/service/dedup-service.js";
import { parseDocInput } from "../../../src/service/input.js";
import { resolveDedupOptions, type Policy } from "../../../src/service/options.js";
import { MemoryEngine } from "../../helpers/memory-engine.js";
import { LONG_ZH, NEWS_EN, RECIPE_EN, englishVariants, variants } from "../../fixtures/texts/near-duplicates.js";

/** The pool: three clusters of near-duplicates and two loners; each id always carries the same text. */
const CLUSTERS: string[][] = [variants(LONG_ZH, 3), englishVariants(RECIPE_EN, 3), englishVariants(NEWS_EN, 2)];
const POOL = [...CLUSTERS.flatMap((texts, c) => texts.map((text, v) => ({ id: `c${c}v${v}`, text, cluster: c })))];
const clusterOf = new Map(POOL.map((p) => [p.id, p.cluster]));

interface Op {
  arrival: number;
  id: string;
  policy: Policy;
  release: (() => void) | undefined;
  done: Promise<IndexResult | NeardupError>;
}

class World {
  readonly engine = new MemoryEngine();
  readonly index = "model";
  readonly ops: Op[] = [];
  readonly writeReleases: (() => void)[] = [];
  service!: DedupService;
  constructor(readonly fp: Fingerprinter) {}
  async init() {
    this.service = new DedupService(this.engine, this.fp, resolveDedupOptions({ index: this.index }));
    await this.service.ensureIndex();
  }
}

type Cmd = fc.AsyncCommand<object, World>;

interface Faults {
  slowLookup: boolean;
  slowWrite: boolean;
  refuseWrite: boolean;
}

/** A write request for one pool document, with the faults its lookup and write meet. */
const submit = (doc: number, policy: Policy, f: Faults): Cmd => ({
  check: () => true,
  async run(_m, w) {
    let release: (() => void) | undefined;
    const gate = f.slowLookup ? new Promise<void>((r) => (release = r)) : undefined;
    const { id, text } = POOL[doc]!;
    if (f.slowWrite) w.writeReleases.push(w.engine.holdWrite(id));
    if (f.refuseWrite) w.engine.refuseNextWrite.add(id);
    w.engine.searchGate = gate ? () => gate : undefined;
    const done = w.service.index([parseDocInput({ id, text })], policy).then(
      (r) => r[0]!,
      (e: unknown) => e as NeardupError,
    );
    w.engine.searchGate = undefined;
    w.ops.push({ arrival: w.ops.length, id, policy, release, done });
    await new Promise((r) => setImmediate(r));
  },
  toString: () => `submit(${POOL[doc]!.id}, ${policy}${f.slowLookup ? ", slow lookup" : ""}${f.slowWrite ? ", slow write" : ""}${f.refuseWrite ? ", refused" : ""})`,
});

const release = (k: number): Cmd => ({
  check: () => true,
  async run(_m, w) {
    const gated = w.ops.filter((o) => o.release);
    const op = gated[k % Math.max(1, gated.length)];
    op?.release?.();
    if (op) op.release = undefined;
    await new Promise((r) => setTimeout(r, 1));
  },
  toString: () => `release(${k})`,
});

const releaseWrites = (): Cmd => ({
  check: () => true,
  async run(_m, w) {
    for (const r of w.writeReleases.splice(0)) r();
    await new Promise((r) => setTimeout(r, 1));
  },
  toString: () => "releaseWrites()",
});

const refresh = (): Cmd => ({
  check: () => true,
  async run(_m, w) {
    await w.engine.refresh(w.index);
  },
  toString: () => "refresh()",
});

const commands = fc.commands(
  [
    fc
      .tuple(fc.nat(POOL.length - 1), fc.constantFrom<Policy>("mark", "skip", "reject"), fc.record({ slowLookup: fc.boolean(), slowWrite: fc.boolean(), refuseWrite: fc.boolean() }))
      .map(([d, p, f]) => submit(d, p, f)),
    fc.nat(8).map(release),
    fc.constant(null).map(releaseWrites),
    fc.constant(null).map(refresh),
  ],
  { maxCommands: 30 },
);

/** Brute-force first one wins over what was stored and acknowledged. */
async function checkModel(w: World): Promise<void> {
  for (const op of w.ops) op.release?.();
  for (const r of w.writeReleases.splice(0)) r();
  for (const h of w.engine.heldWrites.values()) h.release();
  const results = await Promise.all(w.ops.map((o) => o.done));
  const stored = new Map<string, { status: string; duplicate_of?: string }>();
  for (const [id, d] of w.engine.indices.get(w.index)!.docs) stored.set(id, (d.source as { neardup: { status: string; duplicate_of?: string } }).neardup);

  // 1. A duplicate points at a stored original, never at itself.
  for (const [id, n] of stored) {
    if (n.status !== "duplicate") continue;
    expect(n.duplicate_of, `${id} points at itself`).not.toBe(id);
    expect(stored.get(n.duplicate_of!)?.status, `${id} points at ${n.duplicate_of}, which is not a stored original`).toBe("original");
    expect(clusterOf.get(n.duplicate_of!)).toBe(clusterOf.get(id));
  }
  // 2. One original per cluster among stored documents.
  for (let c = 0; c < CLUSTERS.length; c++) {
    const originals = [...stored].filter(([id, n]) => clusterOf.get(id) === c && n.status === "original");
    expect(originals.length, `cluster ${c} originals ${originals.map(([id]) => id).join(",")}`).toBeLessThanOrEqual(1);
  }
  // 3. Every acknowledgement holds: an indexed document is stored as answered; a skipped or rejected one points at a stored original.
  const firstStored = new Map<string, number>();
  results.forEach((r, i) => {
    if (r instanceof NeardupError) {
      expect(["RETRY", "ENGINE_ERROR", "INVALID_INPUT"]).toContain(r.code);
      return;
    }
    if (r.action === "indexed") {
      expect(stored.get(r.id)?.status, `acknowledged ${r.id} as ${r.status}`).toBe(r.status);
      if (!firstStored.has(r.id)) firstStored.set(r.id, w.ops[i]!.arrival);
    } else {
      expect(stored.get(r.duplicate_of!)?.status, `${r.id} ${r.action} as a duplicate of ${r.duplicate_of}`).toBe("original");
    }
    if (r.status === "duplicate") expect(r.duplicate_of).not.toBe(r.id);
  });
  // 4. Arrival order: a cluster's original is its earliest-arriving stored document.
  for (let c = 0; c < CLUSTERS.length; c++) {
    const members = [...firstStored].filter(([id]) => clusterOf.get(id) === c && stored.has(id)).sort((a, b) => a[1] - b[1]);
    if (members.length === 0) continue;
    expect(stored.get(members[0]![0])?.status, `cluster ${c}: earliest stored ${members[0]![0]}`).toBe("original");
  }
}

describe("first one wins, model-based (DedupService on an engine double)", () => {
  let fp: Fingerprinter;
  beforeAll(async () => {
    fp = await createFingerprinter();
    // The pool's premise, from the core: near-duplicates within a cluster, none across.
    for (const a of POOL) for (const b of POOL) if (a.id < b.id) expect(fp.compare(fp.analyze(a.text), fp.analyze(b.text)).duplicate, `${a.id} ~ ${b.id}`).toBe(a.cluster === b.cluster);
  });

  it("random interleavings keep one original per cluster, in arrival order, with every acknowledgement true", async () => {
    await fc.assert(
      fc.asyncProperty(commands, async (cmds) => {
        const world = new World(fp);
        await world.init();
        await fc.asyncModelRun(() => ({ model: {}, real: world }), cmds);
        await checkModel(world);
      }),
      { numRuns: 200 },
    );
  }, 120_000);
});
