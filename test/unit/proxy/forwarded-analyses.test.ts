/**
 * A follower sends its analyses with each chunk it forwards (NEARDUP_PEER_ANALYSES): the lease holder
 * decides and writes those documents without analysing their texts again, with the verdicts its own
 * analyses give; an analysis that does not fit the text is ignored and the text analysed.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { createFingerprinter, type Fingerprinter } from "../../../src/core/fingerprinter.js";
import { BulkHandler } from "../../../src/proxy/bulk.js";
import type { ServicePool } from "../../../src/proxy/pool.js";
import { parseIndexRules } from "../../../src/proxy/rules.js";
import type { Upstream } from "../../../src/proxy/upstream.js";
import { DedupService } from "../../../src/service/dedup-service.js";
import { resolveDedupOptions } from "../../../src/service/options.js";
import { toWire } from "../../../src/workers/wire.js";
import { englishVariants, LONG_ZH, NEWS_EN, variants } from "../../fixtures/texts/near-duplicates.js";
import { MemoryEngine } from "../../helpers/memory-engine.js";

describe("a forwarded chunk with the follower's analyses", () => {
  let fp: Fingerprinter;
  beforeAll(async () => {
    fp = await createFingerprinter();
  });

  /** A holder over an engine double, counting the texts its fingerprinter analyses. */
  async function holder() {
    const analysed: string[] = [];
    const counting: Fingerprinter = { ...fp, analyze: (text: string, field?: string) => (analysed.push(text), fp.analyze(text, field)) };
    const service = new DedupService(new MemoryEngine(), counting, resolveDedupOptions({ index: "logs-a", textField: "message" }));
    await service.ensureIndex();
    const pool = { get: () => Promise.resolve({ service, writer: {}, lease: undefined }) } as unknown as ServicePool;
    const handler = new BulkHandler({ upstream: {} as Upstream, rules: parseIndexRules("logs-*:message"), pool, defaultPolicy: "mark", maxBatch: 500, timeoutMs: 5000, maxTextLength: 1_000_000, timeField: "@timestamp", timeSkewMs: 60_000 });
    return { handler, analysed };
  }

  const texts = [...variants(LONG_ZH, 3), ...englishVariants(NEWS_EN, 2)];
  const chunk = (analyses: (string | undefined)[]) => ({
    index: "logs-a",
    policy: "mark",
    query: "",
    headers: {},
    mayCreate: true,
    docs: texts.map((text, k) => ({
      op: "index",
      id: `d${k}`,
      idGiven: true,
      time: 1000 + k,
      meta: "{}",
      source: { message: text },
      text,
      ...(analyses[k] === undefined ? {} : { analysis: JSON.parse(JSON.stringify(toWire(fp.analyze(analyses[k]!)))) as unknown }),
    })),
  });
  const verdicts = (answer: unknown) => (answer as { items: { neardup: { status: string; duplicate_of: string | null } }[] }).items.map((i) => [i.neardup.status, i.neardup.duplicate_of]);

  it("decides without analysing the texts again, with the verdicts of its own analyses", async () => {
    const withAnalyses = await holder();
    const sent = await withAnalyses.handler.handleForwarded(chunk(texts));
    expect(withAnalyses.analysed.filter((t) => texts.includes(t))).toEqual([]);
    const alone = await holder();
    const own = await alone.handler.handleForwarded(chunk([]));
    expect(alone.analysed.filter((t) => texts.includes(t))).toHaveLength(texts.length);
    expect(verdicts(sent)).toEqual(verdicts(own));
    expect(verdicts(own)).toEqual([["original", null], ["duplicate", "d0"], ["duplicate", "d0"], ["original", null], ["duplicate", "d3"]]);
  });

  it("analyses a text whose analysis does not fit it (made from another text) and decides as if none came", async () => {
    const h = await holder();
    const swapped = await h.handler.handleForwarded(chunk(texts.map((_, k) => texts[(k + 3) % texts.length])));
    expect(h.analysed.filter((t) => texts.includes(t))).toHaveLength(texts.length);
    expect(verdicts(swapped)).toEqual([["original", null], ["duplicate", "d0"], ["duplicate", "d0"], ["original", null], ["duplicate", "d3"]]);
  });
});
