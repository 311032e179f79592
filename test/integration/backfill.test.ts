/**
 * `neardup backfill` (issue 12) against the real engines: on an index of
 * generated short texts, its verdicts equal those of `neardup dedup` on the
 * same documents in the same (time) order, and a run killed halfway (a real
 * process, SIGKILL) resumes from its checkpoint and ends with the same result.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBackfill } from "../../src/cli/backfill.js";
import { CorpusIdfBuilder } from "../../src/core/index.js";
import type { DedupRecord } from "../../src/cli/dedup.js";
import { runDedup } from "../../src/cli/run-dedup.js";
import type { Engine } from "../../src/engine/index.js";
import { sharedFingerprinter } from "../helpers/api.js";
import { connectTarget, engineTargets, uniqueIndex } from "../helpers/engines.js";
import { shortTexts, type ShortDoc } from "../helpers/short-texts.js";

/** Documents in the test index (the 100,000-document run is bench/proxy.ts). */
const N = Number(process.env.NEARDUP_TEST_BACKFILL_DOCS ?? 10_000);
const BATCH = 500;

async function expectedVerdicts(docs: ShortDoc[]): Promise<Map<string, DedupRecord>> {
  const input = Readable.from(docs.map((d) => `${JSON.stringify(d)}\n`));
  const output = new PassThrough();
  const chunks: string[] = [];
  output.on("data", (c: Buffer) => chunks.push(String(c)));
  await runDedup(await sharedFingerprinter(), { fields: { textField: "message", idField: "id", timeUnit: "ms" }, format: "jsonl" }, { input, output, report: () => undefined });
  const records = chunks.join("").trim().split("\n").map((l) => JSON.parse(l) as DedupRecord);
  return new Map(records.map((r) => [r.id, r]));
}

async function storedVerdicts(engine: Engine, index: string): Promise<Map<string, Record<string, unknown>>> {
  await engine.refresh(index);
  const out = new Map<string, Record<string, unknown>>();
  let pit = await engine.openPointInTime(index, "1m");
  let after: unknown[] | undefined;
  for (;;) {
    const page = await engine.searchPointInTime<{ neardup?: Record<string, unknown> }>(pit, "1m", { size: 5000, _source: ["neardup"], sort: [{ "@timestamp": "asc" }], ...(after ? { search_after: after } : {}) });
    pit = page.pitId;
    if (page.hits.hits.length === 0) break;
    for (const h of page.hits.hits) out.set(h._id, h._source?.neardup ?? {});
    after = page.hits.hits.at(-1)!.sort;
  }
  await engine.closePointInTime(pit);
  return out;
}

function compare(expected: Map<string, DedupRecord>, stored: Map<string, Record<string, unknown>>): string[] {
  const diffs: string[] = [];
  for (const [id, r] of expected) {
    const s = stored.get(id) ?? {};
    const want = { status: r.status, duplicate_of: r.duplicate_of ?? undefined, distance: r.distance ?? undefined, similarity: r.similarity ?? undefined, reason: r.reason ?? undefined };
    const got = { status: s.status, duplicate_of: s.duplicate_of, distance: s.distance, similarity: s.similarity, reason: s.reason };
    if (JSON.stringify(want) !== JSON.stringify(got)) diffs.push(`${id}: want ${JSON.stringify(want)} got ${JSON.stringify(got)}`);
  }
  return diffs;
}

describe.each(engineTargets())("backfill on $kind $version ($source)", (target) => {
  let engine: Engine;
  const index = uniqueIndex("neardup-backfill");
  const docs = shortTexts(N);
  let expected: Map<string, DedupRecord>;
  const dir = mkdtempSync(join(tmpdir(), "neardup-backfill-"));

  beforeAll(async () => {
    engine = await connectTarget(target);
    await engine.createIndex(index, { mappings: { properties: { "@timestamp": { type: "date" }, message: { type: "text" } } }, settings: { number_of_shards: 1, number_of_replicas: 0 } });
    // Stored in a shuffled order, so only the time order can give the right verdicts.
    const shuffled = [...docs].sort((a, b) => ((a.time * 7919) % 10007) - ((b.time * 7919) % 10007));
    for (let i = 0; i < shuffled.length; i += 2000) {
      const ops = shuffled.slice(i, i + 2000).flatMap((d) => [{ index: { _index: index, _id: d.id } }, { message: d.message, "@timestamp": new Date(d.time).toISOString(), host: "web-1" }]);
      const res = await engine.bulk(ops);
      expect(res.errors).toBe(false);
    }
    await engine.refresh(index);
    expected = await expectedVerdicts(docs);
  });
  afterAll(async () => {
    await engine.deleteIndex(index);
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("--dry-run reports the duplicates it would mark and writes nothing", async () => {
    const result = await runBackfill(engine, await sharedFingerprinter(), { index, textField: "message", timeField: "@timestamp", batchSize: BATCH, checkpoint: undefined, dryRun: true }, {}, { report: () => undefined });
    const duplicates = [...expected.values()].filter((r) => r.status === "duplicate").length;
    expect(duplicates).toBeGreaterThan(N / 10);
    expect(result.summary).toMatchObject({ documents: N, duplicates });
    expect(result.sample.length).toBe(10);
    const stored = await storedVerdicts(engine, index);
    expect([...stored.values()].every((n) => Object.keys(n).length === 0)).toBe(true);
  });

  it("a run killed halfway resumes from its checkpoint and ends equal to `neardup dedup` in time order", async () => {
    const checkpoint = join(dir, `${target.kind}.json`);
    const args = ["tsx", "src/cli/main.ts", "backfill", index, "--text-field", "message", "--batch-size", String(BATCH), "--checkpoint", checkpoint, "--no-progress", "--no-window"]; // `neardup dedup` below has no window
    const child = spawn("npx", args, { env: { ...process.env, NEARDUP_ENGINE_URL: target.url }, stdio: ["ignore", "ignore", "pipe"], detached: true });
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => (stderr += String(c)));
    const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
    // Kill it (SIGKILL, the whole process group) once its checkpoint passes the middle.
    let killedAt = 0;
    for (let waited = 0; waited < 300_000 && killedAt === 0; waited += 100) {
      await new Promise((r) => setTimeout(r, 100));
      if (!existsSync(checkpoint)) continue;
      const c = JSON.parse(readFileSync(checkpoint, "utf8")) as { done: number; complete: boolean };
      expect(c.complete, stderr).toBe(false);
      if (c.done >= N / 2) {
        process.kill(-child.pid!, "SIGKILL");
        killedAt = c.done;
      }
    }
    await exited;
    expect(killedAt, stderr).toBeGreaterThanOrEqual(N / 2);
    expect(killedAt).toBeLessThan(N);

    const midway = await storedVerdicts(engine, index);
    const written = [...midway.values()].filter((n) => n.status !== undefined).length;
    expect(written).toBeGreaterThanOrEqual(killedAt);
    expect(written).toBeLessThan(N);

    const reports: string[] = [];
    const result = await runBackfill(engine, await sharedFingerprinter(), { index, textField: "message", timeField: "@timestamp", batchSize: BATCH, checkpoint, dryRun: false }, {}, { report: (m) => reports.push(m) });
    expect(reports.join("\n")).toContain(`replaying the ${killedAt} documents`);
    expect(result.replayed).toBe(killedAt);
    expect(result.written).toBe(N - killedAt);
    expect(JSON.parse(readFileSync(checkpoint, "utf8"))).toMatchObject({ complete: true, done: N });

    const stored = await storedVerdicts(engine, index);
    expect(stored.size).toBe(N);
    expect(compare(expected, stored).slice(0, 5)).toEqual([]);
    const sample = await engine.get<Record<string, unknown>>(index, "doc-0");
    expect(sample).toMatchObject({ message: docs[0]!.message, host: "web-1", neardup: { simhash: expect.stringMatching(/^[0-9a-f]{16}$/), seg0: expect.any(String) } });
  });

  it("refuses a time field the index does not map, and ids that repeat across the indices a pattern names, before writing anything wrong (ops audit)", async () => {
    const fingerprinter = await sharedFingerprinter();
    const run = (target: string, timeField = "@timestamp") => runBackfill(engine, fingerprinter, { index: target, textField: "message", timeField, batchSize: 50, checkpoint: undefined, dryRun: false }, {}, { report: () => undefined });
    await expect(run(index, "nope")).rejects.toMatchObject({ code: "INVALID_INPUT", field: "time-field", message: expect.stringContaining('"nope"') });
    // A text field no document has: refused at the end, not a run "complete" with 0 updated (CLI audit).
    const checkpoint = join(dir, `${target.kind}-no-text.json`);
    await expect(runBackfill(engine, fingerprinter, { index, textField: "body", timeField: "@timestamp", batchSize: 5000, checkpoint, dryRun: true }, {}, { report: () => undefined })).rejects.toMatchObject({ code: "INVALID_INPUT", field: "text-field", message: expect.stringContaining('"body"') });
    expect(existsSync(checkpoint)).toBe(false);
    const base = uniqueIndex("neardup-backfill-twin");
    try {
      for (const twin of [`${base}-a`, `${base}-b`]) {
        await engine.createIndex(twin, { mappings: { properties: { "@timestamp": { type: "date" }, message: { type: "text" } } }, settings: { number_of_shards: 1, number_of_replicas: 0 } });
        expect(await engine.bulk(docs.slice(0, 5).flatMap((d) => [{ index: { _index: twin, _id: d.id } }, { message: d.message, "@timestamp": new Date(d.time).toISOString() }]))).toMatchObject({ errors: false });
        await engine.refresh(twin);
      }
      await expect(run(`${base}-*`)).rejects.toMatchObject({ code: "INVALID_INPUT", message: expect.stringMatching(/is in both .*-a and .*-b|is in both .*-b and .*-a/) });
      const stored = await engine.mget<{ neardup?: { duplicate_of?: string } }>(`${base}-b`, docs.slice(0, 5).map((d) => d.id));
      for (const [id, source] of stored) expect(source.neardup?.duplicate_of, id).not.toBe(id); // never its own duplicate
    } finally {
      await engine.deleteIndex(`${base}-a`);
      await engine.deleteIndex(`${base}-b`);
    }
  });

  it("--idf (or NEARDUP_IDF_FILE) writes the fingerprint version of that table, the one a service with it compares (CLI audit: always the bundled table's)", async () => {
    const other = uniqueIndex("neardup-backfill-idf");
    try {
      await engine.createIndex(other, { mappings: { properties: { "@timestamp": { type: "date" }, message: { type: "text" } } }, settings: { number_of_shards: 1, number_of_replicas: 0 } });
      expect((await engine.bulk(docs.slice(0, 20).flatMap((d) => [{ index: { _index: other, _id: d.id } }, { message: d.message, "@timestamp": new Date(d.time).toISOString() }]), { refresh: true })).errors).toBe(false);
      const builder = new CorpusIdfBuilder();
      for (const d of docs.slice(0, 200)) builder.add(d.message.split(" "));
      const table = builder.build();
      const file = join(dir, "idf.json");
      writeFileSync(file, JSON.stringify(table.toJSON()));
      const child = spawn("npx", ["tsx", "src/cli/main.ts", "backfill", other, "--text-field", "message", "--no-progress", "--checkpoint", join(dir, "idf-ck.json")], { env: { ...process.env, NEARDUP_ENGINE_URL: target.url, NEARDUP_IDF_FILE: file }, stdio: ["ignore", "ignore", "pipe"] });
      let stderr = "";
      child.stderr.on("data", (c: Buffer) => (stderr += String(c)));
      const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
      expect(code, stderr).toBe(0);
      await engine.refresh(other);
      expect(await engine.get(other, docs[0]!.id)).toMatchObject({ neardup: { version: `nd4+idf.${table.identity}` } });
    } finally {
      await engine.deleteIndex(other);
    }
  }, 120_000);

  it("runs on a keyword time field, in its text order, each document at its own time (the date sort is refused there)", async () => {
    const other = uniqueIndex("neardup-backfill-kw");
    try {
      await engine.createIndex(other, { mappings: { properties: { "@timestamp": { type: "keyword" }, message: { type: "text" } } }, settings: { number_of_shards: 1, number_of_replicas: 0 } });
      const few = docs.slice(0, 12);
      expect((await engine.bulk(few.flatMap((d) => [{ index: { _index: other, _id: d.id } }, { message: d.message, "@timestamp": new Date(d.time).toISOString() }])))).toMatchObject({ errors: false });
      await engine.refresh(other);
      const result = await runBackfill(engine, await sharedFingerprinter(), { index: other, textField: "message", timeField: "@timestamp", batchSize: 5, checkpoint: undefined, dryRun: false }, {}, { report: () => undefined });
      expect(result.written).toBe(few.length);
      await engine.refresh(other);
      for (const d of few) expect((await engine.get<{ neardup: { timestamp: string } }>(other, d.id))!.neardup.timestamp, d.id).toBe(new Date(d.time).toISOString());
    } finally {
      await engine.deleteIndex(other);
    }
  });

  it("a run stopped inside a run of equal times resumes to the result of one run: equal times go in id order, and the checkpoint stays before a time not read whole, without a warning (CLI audit: on Elasticsearch 5,000 documents were left unmarked)", async () => {
    const other = uniqueIndex("neardup-backfill-ties");
    const reports: string[] = [];
    let fp: Awaited<ReturnType<typeof sharedFingerprinter>>;
    const run = (checkpoint: string | undefined, stopAt?: number, maxHeld?: number) =>
      runBackfill(engine, fp, { index: other, textField: "message", timeField: "@timestamp", batchSize: 100, checkpoint, dryRun: false, maxHeld }, {}, {
        report: (m) => reports.push(m),
        afterPage: (done) => {
          if (stopAt !== undefined && done >= stopAt) throw new Error("stopped by the test");
        },
      });
    try {
      fp = await sharedFingerprinter();
      await engine.createIndex(other, { mappings: { properties: { "@timestamp": { type: "date" }, message: { type: "text" } } }, settings: { number_of_shards: 1, number_of_replicas: 0 } });
      // 1,500 documents at three times (600, 600, 300), stored in an order that is not the ids' order.
      const few = docs.slice(0, 1500).map((d, k) => ({ ...d, time: Date.UTC(2026, 0, 1 + (k < 600 ? 0 : k < 1200 ? 1 : 2)) }));
      const shuffled = [...few].sort((a, b) => ((Number(a.id.slice(4)) * 7919) % 10007) - ((Number(b.id.slice(4)) * 7919) % 10007));
      const ops = shuffled.flatMap((d) => [{ index: { _index: other, _id: d.id } }, { message: d.message, "@timestamp": new Date(d.time).toISOString() }]);
      expect((await engine.bulk(ops)).errors).toBe(false);
      await engine.refresh(other);
      const inOrder = [...few].sort((a, b) => a.time - b.time || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      const want = await expectedVerdicts(inOrder);
      expect([...want.values()].filter((r) => r.status === "duplicate").length).toBeGreaterThan(50);

      const checkpoint = join(dir, `${target.kind}-ties.json`);
      await expect(run(checkpoint, 300)).rejects.toThrow("stopped by the test"); // inside the first time's 600
      const stopped = JSON.parse(readFileSync(checkpoint, "utf8")) as { done: number };
      expect(stopped.done % 600).toBe(0); // never inside a time that was not read whole
      await run(checkpoint, 900).catch(() => undefined); // again, now inside the second time
      const result = await run(checkpoint);
      expect(result.written + result.replayed).toBe(1500);
      expect(reports.filter((m) => m.startsWith("warning"))).toEqual([]);
      const stored = await storedVerdicts(engine, other);
      expect([...stored.values()].filter((n) => n.status === undefined)).toEqual([]);
      expect(compare(want, stored).slice(0, 5)).toEqual([]);

      // A time shared by more documents than are held is taken in pieces: checkpoints still never fall inside it.
      const pieces = join(dir, `${target.kind}-pieces.json`);
      await engine.bulk(few.flatMap((d) => [{ update: { _index: other, _id: d.id } }, { script: { source: "ctx._source.remove('neardup')" } }]), { refresh: true });
      await expect(run(pieces, 250, 150)).rejects.toThrow("stopped by the test");
      expect(existsSync(pieces)).toBe(false); // stopped inside the first time: no checkpoint yet
      await expect(run(pieces, 700, 150)).rejects.toThrow("stopped by the test");
      expect((JSON.parse(readFileSync(pieces, "utf8")) as { done: number }).done).toBe(600);
      const again = await run(pieces, undefined, 150);
      expect(again.written + again.replayed).toBe(1500);
      expect([...(await storedVerdicts(engine, other)).entries()].filter(([, n]) => n.status === undefined).map(([id]) => id)).toEqual([]);
    } finally {
      await engine.deleteIndex(other);
    }
  });

  it("leaves a document written again or deleted since it was read as it is, and goes on (audit 17, C2: the fingerprint of its old text overwrote the new one's)", async () => {
    const other = uniqueIndex("neardup-backfill-live");
    try {
      await engine.createIndex(other, { mappings: { properties: { "@timestamp": { type: "date" }, message: { type: "text" } } }, settings: { number_of_shards: 1, number_of_replicas: 0 } });
      const few = docs.slice(0, 20);
      expect((await engine.bulk(few.flatMap((d) => [{ index: { _index: other, _id: d.id } }, { message: d.message, "@timestamp": new Date(d.time).toISOString() }])))).toMatchObject({ errors: false });
      await engine.refresh(other);
      const [rewritten, deleted] = [few[15]!, few[16]!];
      const NEW = "a text written while the backfill ran, through some other path";
      let fired = false;
      const result = await runBackfill(engine, await sharedFingerprinter(), { index: other, textField: "message", timeField: "@timestamp", batchSize: 5, checkpoint: undefined, dryRun: false }, {}, {
        report: () => undefined,
        afterPage: async (done) => {
          if (fired || done < 5 || done >= 15) return;
          fired = true;
          // After the run's point in time was opened: its pages still hold the old versions.
          await engine.bulk([{ index: { _index: other, _id: rewritten.id } }, { message: NEW, "@timestamp": new Date(rewritten.time).toISOString() }, { delete: { _index: other, _id: deleted.id } }], { refresh: true });
        },
      });
      expect(fired).toBe(true);
      expect(result.changed).toBe(2);
      expect(result.written).toBe(few.length - 2);
      await engine.refresh(other);
      const stored = await engine.get<{ message: string; neardup?: unknown }>(other, rewritten.id);
      expect(stored).toMatchObject({ message: NEW });
      expect(stored!.neardup).toBeUndefined(); // not the old text's fingerprint
      expect(await engine.get(other, deleted.id)).toBeUndefined();
      expect(await engine.get(other, few[17]!.id)).toMatchObject({ neardup: { simhash: expect.any(String) } });
    } finally {
      await engine.deleteIndex(other);
    }
  });

  it("reads documents without the time field last, across pages, and finishes (their sort value, 2^63 - 1, came back rounded and the next page failed)", async () => {
    const other = uniqueIndex("neardup-backfill-notime");
    try {
      await engine.createIndex(other, { mappings: { properties: { "@timestamp": { type: "date" }, message: { type: "text" } } }, settings: { number_of_shards: 1, number_of_replicas: 0 } });
      const few = docs.slice(0, 30);
      const ops = few.flatMap((d, k) => [{ index: { _index: other, _id: d.id } }, k % 3 === 0 ? { message: d.message } : { message: d.message, "@timestamp": new Date(d.time).toISOString() }]);
      expect((await engine.bulk(ops)).errors).toBe(false);
      await engine.refresh(other);
      const result = await runBackfill(engine, await sharedFingerprinter(), { index: other, textField: "message", timeField: "@timestamp", batchSize: 4, checkpoint: undefined, dryRun: false }, {}, { report: () => undefined });
      expect(result.written).toBe(few.length);
      await engine.refresh(other);
      for (const d of few) expect(await engine.get<{ neardup?: unknown }>(other, d.id), d.id).toMatchObject({ neardup: { simhash: expect.any(String) } });
    } finally {
      await engine.deleteIndex(other);
    }
  });

  it("a document dated before 1970 is decided at 1970-01-01, read first, and leaves the window of the later ones alone (CLI audit: it was decided at the run's start, which held every later time at that start, so the window never let go)", async () => {
    const other = uniqueIndex("neardup-backfill-pre1970");
    try {
      await engine.createIndex(other, { mappings: { properties: { "@timestamp": { type: "date" }, message: { type: "text" } } }, settings: { number_of_shards: 1, number_of_replicas: 0 } });
      const [a, b] = [docs[0]!.message, `${docs[0]!.message} ok`];
      const stored = [
        { id: "old", message: docs[1]!.message, "@timestamp": "1969-07-20T20:17:00Z" },
        { id: "first", message: a, "@timestamp": "2020-01-01T00:00:00Z" },
        { id: "later", message: b, "@timestamp": "2020-01-11T00:00:00Z" }, // ten days later: outside a 2-day window
      ];
      expect((await engine.bulk(stored.flatMap(({ id, ...source }) => [{ index: { _index: other, _id: id } }, source]))).errors).toBe(false);
      await engine.refresh(other);
      const fp = await sharedFingerprinter();
      expect(fp.compare(a, b).duplicate).toBe(true);
      const result = await runBackfill(engine, fp, { index: other, textField: "message", timeField: "@timestamp", batchSize: 2, checkpoint: undefined, dryRun: false, windowMs: 2 * 86_400_000 }, {}, { report: () => undefined });
      expect(result.written).toBe(3);
      await engine.refresh(other);
      const neardup = async (id: string) => (await engine.get<{ neardup: { status: string; timestamp: unknown } }>(other, id))!.neardup;
      expect(await neardup("later")).toMatchObject({ status: "original" });
      expect(new Date((await neardup("old")).timestamp as string | number).getTime()).toBe(0);
    } finally {
      await engine.deleteIndex(other);
    }
  });

  it("compares within the service's window by default (NEARDUP_WINDOW_HOURS, 48 h), and with every earlier document under --no-window (ops audit: no window unless --window, where the API and proxy have 48 h)", async () => {
    const other = uniqueIndex("neardup-backfill-window");
    const fp = await sharedFingerprinter();
    const [a, b] = [docs[0]!.message, `${docs[0]!.message} ok`];
    expect(fp.compare(a, b).duplicate).toBe(true);
    const run = async (args: string[], env: Record<string, string> = {}): Promise<string> => {
      await engine.createIndex(other, { mappings: { properties: { "@timestamp": { type: "date" }, message: { type: "text" } } }, settings: { number_of_shards: 1, number_of_replicas: 0 } });
      const stored = [
        { id: "first", message: a, "@timestamp": "2020-01-01T00:00:00Z" },
        { id: "later", message: b, "@timestamp": "2020-01-05T00:00:00Z" }, // four days later
      ];
      expect((await engine.bulk(stored.flatMap(({ id, ...source }) => [{ index: { _index: other, _id: id } }, source]), { refresh: true })).errors).toBe(false);
      const child = spawn("npx", ["tsx", "src/cli/main.ts", "backfill", other, "--text-field", "message", "--no-progress", "--no-resume", "--checkpoint", join(dir, "window-ck.json"), ...args], { env: { ...process.env, NEARDUP_ENGINE_URL: target.url, ...env }, stdio: ["ignore", "ignore", "pipe"] });
      let stderr = "";
      child.stderr.on("data", (c: Buffer) => (stderr += String(c)));
      const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
      expect(code, stderr).toBe(0);
      await engine.refresh(other);
      const status = (await engine.get<{ neardup: { status: string } }>(other, "later"))!.neardup.status;
      await engine.deleteIndex(other);
      return status;
    };
    try {
      expect(await run([])).toBe("original");
      expect(await run(["--no-window"])).toBe("duplicate");
      expect(await run([], { NEARDUP_WINDOW_HOURS: "120" })).toBe("duplicate");
      expect(await run(["--window", "2d"], { NEARDUP_WINDOW_HOURS: "120" })).toBe("original");
    } finally {
      await engine.deleteIndex(other).catch(() => undefined);
    }
  }, 180_000);
});
