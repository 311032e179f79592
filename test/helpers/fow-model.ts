/**
 * Issue 11, the model-based check of first one wins: random interleavings of
 * creates, re-submissions, slow lookups, slow and refused writes and
 * refreshes, run through the real DedupService on an engine (the in-memory
 * double in the unit tier, a real engine in the integration tier) with faults
 * injected around it, then checked against a brute-force model of first one
 * wins over everything that was stored and acknowledged.
 */
import fc from "fast-check";
import { expect } from "vitest";
import type { Fingerprinter } from "../../src/core/fingerprinter.js";
import { NeardupError } from "../../src/core/errors.js";
import { DedupService, type IndexResult } from "../../src/service/dedup-service.js";
import { parseDocInput } from "../../src/service/input.js";
import { resolveDedupOptions, type DedupOptions, type Policy } from "../../src/service/options.js";
import type { Engine } from "../../src/engine/types.js";
import { withFaults, type Faults as EngineFaults } from "./faulty-engine.js";
import { LONG_ZH, NEWS_EN, RECIPE_EN, englishVariants, variants } from "../fixtures/texts/near-duplicates.js";

/** The pool: three clusters of near-duplicates and two loners; each id always carries the same text. */
export const CLUSTERS: string[][] = [variants(LONG_ZH, 3), englishVariants(RECIPE_EN, 3), englishVariants(NEWS_EN, 2)];
export const POOL = [...CLUSTERS.flatMap((texts, c) => texts.map((text, v) => ({ id: `c${c}v${v}`, text, cluster: c })))];
const clusterOf = new Map(POOL.map((p) => [p.id, p.cluster]));

interface Op {
  arrival: number;
  id: string;
  policy: Policy;
  release: (() => void) | undefined;
  done: Promise<IndexResult | NeardupError>;
}

export class World {
  readonly engine: Engine;
  readonly faults: EngineFaults;
  readonly ops: Op[] = [];
  readonly writeReleases: (() => void)[] = [];
  /** Each refused write: its id, and how many requests had arrived when it was refused. */
  readonly refusals: { id: string; at: number }[] = [];
  service!: DedupService;
  constructor(
    readonly fp: Fingerprinter,
    engine: Engine,
    readonly index: string,
    /** Options of the service beside its index (the window mirror's runs). */
    readonly options: Partial<DedupOptions> = {},
  ) {
    ({ engine: this.engine, faults: this.faults } = withFaults(engine));
    this.faults.onRefuse = (id) => this.refusals.push({ id, at: this.ops.length });
  }
  async init() {
    this.service = new DedupService(this.engine, this.fp, resolveDedupOptions({ ...this.options, index: this.index }));
    await this.service.ensureIndex();
    await this.service.mirror?.refresh();
  }
  /** The neardup object of every stored pool document (a realtime read). */
  async stored(): Promise<Map<string, { status: string; duplicate_of?: string }>> {
    const docs = await this.engine.mget<{ neardup: { status: string; duplicate_of?: string } }>(this.index, POOL.map((p) => p.id), ["neardup"]);
    return new Map([...docs].map(([id, d]) => [id, d.neardup]));
  }
}

type Cmd = fc.AsyncCommand<object, World>;

interface Faults {
  slowLookup: boolean;
  slowWrite: boolean;
  refuseWrite: boolean;
}

/** A write request for one pool document, with the faults its lookup and write meet. */
export const submit = (doc: number, policy: Policy, f: Faults): Cmd => ({
  check: () => true,
  async run(_m, w) {
    let release: (() => void) | undefined;
    const gate = f.slowLookup ? new Promise<void>((r) => (release = r)) : undefined;
    const { id, text } = POOL[doc]!;
    if (f.slowWrite) w.writeReleases.push(w.faults.holdWrite(id));
    if (f.refuseWrite) w.faults.refuseNextWrite.add(id);
    w.faults.searchGate = gate ? () => gate : undefined;
    const done = w.service.index([parseDocInput({ id, text })], policy).then(
      (r) => r[0]!,
      (e: unknown) => e as NeardupError,
    );
    w.faults.searchGate = undefined;
    w.ops.push({ arrival: w.ops.length, id, policy, release, done });
    await new Promise((r) => setImmediate(r));
  },
  toString: () => `submit(${POOL[doc]!.id}, ${policy}${f.slowLookup ? ", slow lookup" : ""}${f.slowWrite ? ", slow write" : ""}${f.refuseWrite ? ", refused" : ""})`,
});

/**
 * One write request for several pool documents (distinct ids, one time, so
 * they are decided in id order: their arrival order here), its lookups slow or
 * not: decisions within a request and across requests keep arrival order.
 */
export const submitMany = (docs: number[], policy: Policy, slowLookup: boolean): Cmd => ({
  check: () => true,
  async run(_m, w) {
    let release: (() => void) | undefined;
    const gate = slowLookup ? new Promise<void>((r) => (release = r)) : undefined;
    const picked = [...new Set(docs)].map((d) => POOL[d]!).sort((a, b) => (a.id < b.id ? -1 : 1));
    const time = new Date().toISOString();
    w.faults.searchGate = gate ? () => gate : undefined;
    const all = w.service.index(picked.map(({ id, text }) => parseDocInput({ id, text, time })), policy);
    w.faults.searchGate = undefined;
    picked.forEach(({ id }, i) => {
      const done = all.then(
        (r) => r[i]!,
        (e: unknown) => e as NeardupError,
      );
      w.ops.push({ arrival: w.ops.length, id, policy, release: i === 0 ? release : undefined, done });
    });
    await new Promise((r) => setImmediate(r));
  },
  toString: () => `submitMany(${[...new Set(docs)].map((d) => POOL[d]!.id).join(" ")}, ${policy}${slowLookup ? ", slow lookup" : ""})`,
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

/** Command sequences of at most `maxCommands`. */
export const commands = (maxCommands: number) =>
  fc.commands(
  [
    fc
      .tuple(fc.nat(POOL.length - 1), fc.constantFrom<Policy>("mark", "skip", "reject"), fc.record({ slowLookup: fc.boolean(), slowWrite: fc.boolean(), refuseWrite: fc.boolean() }))
      .map(([d, p, f]) => submit(d, p, f)),
    fc
      .tuple(fc.array(fc.nat(POOL.length - 1), { minLength: 2, maxLength: 4 }), fc.constantFrom<Policy>("mark", "skip", "reject"), fc.boolean())
      .map(([ds, p, slow]) => submitMany(ds, p, slow)),
    fc.nat(8).map(release),
    fc.constant(null).map(releaseWrites),
    fc.constant(null).map(refresh),
  ],
  { maxCommands },
);

/** Brute-force first one wins over what was stored and acknowledged. */
export async function checkModel(w: World): Promise<void> {
  for (const op of w.ops) op.release?.();
  for (const r of w.writeReleases.splice(0)) r();
  for (const h of w.faults.heldWrites.values()) h.release();
  const results = await Promise.all(w.ops.map((o) => o.done));
  const stored = await w.stored();

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
  // 4. Arrival order: a cluster's original is its earliest-arriving stored document. A near-duplicate whose
  // original the engine refused is decided again when that refusal comes, as if sent then (dedup-service `write`):
  // its arrival is anywhere from its own to the latest refusal in its cluster since.
  for (let c = 0; c < CLUSTERS.length; c++) {
    const members = [...firstStored].filter(([id]) => clusterOf.get(id) === c && stored.has(id));
    const original = members.find(([id]) => stored.get(id)?.status === "original");
    if (members.length === 0) continue;
    expect(original, `cluster ${c}: no stored original among ${members.map(([id]) => id).join(",")}`).toBeDefined();
    const refusedAt = w.refusals.filter((r) => clusterOf.get(r.id) === c).map((r) => r.at);
    const latest = (arrival: number) => Math.max(arrival, ...refusedAt.filter((at) => at >= arrival));
    for (const [id, arrival] of members) expect(latest(arrival), `cluster ${c}: ${id} arrived before the original ${original![0]}`).toBeGreaterThanOrEqual(original![1]);
  }
}
