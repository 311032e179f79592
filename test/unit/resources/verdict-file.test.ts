/**
 * NEARDUP_VERDICT_FILE: the service's verdict options from a JSON file, checked on load (the last bucket's
 * `maxLength` written null), and used by the running service: a file that turns the containment rule off makes
 * a copy cut short no longer a duplicate in `/v1/compare`.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildConfig } from "../../../src/config/config.js";
import { DEFAULT_VERDICT_OPTIONS } from "../../../src/core/verdict.js";
import { loadVerdictFile } from "../../../src/resources/verdict-file.js";
import { createLogger } from "../../../src/server/logger.js";
import { startService, type RunningService } from "../../../src/server/service.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "neardup-verdict-file-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The defaults as the file holds them, with `change` applied to each bucket. */
function file(name: string, change: (b: Record<string, unknown>) => Record<string, unknown> = (b) => b): string {
  const buckets = DEFAULT_VERDICT_OPTIONS.buckets.map((b) => change({ ...b, maxLength: b.maxLength === Infinity ? null : b.maxLength }));
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify({ middleVeto: DEFAULT_VERDICT_OPTIONS.middleVeto, recordVeto: DEFAULT_VERDICT_OPTIONS.recordVeto, sheetVeto: DEFAULT_VERDICT_OPTIONS.sheetVeto, buckets }));
  return path;
}

async function thrown(p: Promise<unknown>): Promise<{ code: string; field?: string; message: string }> {
  try {
    await p;
  } catch (err) {
    return err as { code: string; field?: string; message: string };
  }
  throw new Error("expected an error");
}

describe("NEARDUP_VERDICT_FILE", () => {
  it("loads the defaults written as JSON back to the defaults", async () => {
    expect(await loadVerdictFile(file("defaults.json"))).toEqual(DEFAULT_VERDICT_OPTIONS);
  });

  it("refuses a missing file, text that is not JSON, and a bad option, naming the setting or the option's path", async () => {
    expect(await thrown(loadVerdictFile(join(dir, "missing.json")))).toMatchObject({ code: "INVALID_CONFIG", field: "NEARDUP_VERDICT_FILE", message: expect.stringContaining("cannot be read") });
    writeFileSync(join(dir, "bad.json"), "{buckets:");
    expect(await thrown(loadVerdictFile(join(dir, "bad.json")))).toMatchObject({ code: "INVALID_CONFIG", field: "NEARDUP_VERDICT_FILE", message: expect.stringContaining("not JSON") });
    writeFileSync(join(dir, "array.json"), "[]");
    expect(await thrown(loadVerdictFile(join(dir, "array.json")))).toMatchObject({ code: "INVALID_CONFIG", field: "NEARDUP_VERDICT_FILE" });
    const bad = file("bad-option.json", (b) => (b.name === "medium" ? { ...b, minContainment: 1.5 } : b));
    expect(await thrown(loadVerdictFile(bad))).toMatchObject({ code: "INVALID_CONFIG", field: "NEARDUP_VERDICT_FILE.buckets[2].minContainment" });
    const typo = file("typo.json", (b) => (b.name === "short" ? { ...b, minContainmnet: 0.9 } : b));
    expect(await thrown(loadVerdictFile(typo))).toMatchObject({ code: "INVALID_CONFIG", field: "NEARDUP_VERDICT_FILE.buckets[1].minContainmnet" });
    // A bucket that is not an object (audit 12: a bare TypeError stopped the service), and a name used twice.
    for (const [name, bucket, why] of [["null", null, "got null"], ["number", 5, "got number"], ["list", [], "got an array"]] as const) {
      writeFileSync(join(dir, `bucket-${name}.json`), JSON.stringify({ buckets: [bucket, { name: "rest", maxLength: null, searchRadius: 3, maxDistance: 3, minCosine: null, minEditSimilarity: null }] }));
      expect(await thrown(loadVerdictFile(join(dir, `bucket-${name}.json`))), name).toMatchObject({ code: "INVALID_CONFIG", field: "NEARDUP_VERDICT_FILE.buckets[0]", message: expect.stringContaining(why) });
    }
    const twice = file("twice.json", (b) => (b.name === "medium" ? { ...b, name: "short" } : b));
    expect(await thrown(loadVerdictFile(twice))).toMatchObject({ code: "INVALID_CONFIG", field: "NEARDUP_VERDICT_FILE.buckets[2].name" });
  });

  describe("in the running service", () => {
    let engine: Server;
    const services: RunningService[] = [];
    const start = async (verdictFile: string | undefined) => {
      const config = buildConfig({ NEARDUP_PORT: "0", NEARDUP_ENGINE_URL: `http://127.0.0.1:${(engine.address() as { port: number }).port}`, ...(verdictFile ? { NEARDUP_VERDICT_FILE: verdictFile } : {}) });
      const sink = new Writable({ write: (_c, _e, cb) => cb() });
      const service = await startService(config, { logger: createLogger("info", sink), retryDelayMs: 60_000, startLocalEngine: () => Promise.reject(new Error("not used")) });
      services.push(service);
      return service;
    };
    beforeAll(async () => {
      engine = createServer((_req, res) => res.writeHead(503, { "content-type": "application/json" }).end("{}"));
      await new Promise<void>((resolve) => engine.listen(0, "127.0.0.1", resolve));
    });
    afterAll(async () => {
      for (const s of services) await s.close();
      await new Promise((resolve) => engine.close(resolve));
    });

    it("a file that turns the containment rule off: a copy cut short is no longer a duplicate", async () => {
      const whole =
        "The committee met on Tuesday to review the budget for next year. After a long debate it approved the plan for new bicycle lanes across the city centre, and asked for a report on costs by March. Members also discussed the library's opening hours and the state of the old swimming pool.";
      const cut = whole.slice(0, Math.round(whole.length * 0.75));
      const compare = async (service: RunningService) => {
        const res = await fetch(`${service.url}/v1/compare`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ a: whole, b: cut }) });
        expect(res.status).toBe(200);
        return ((await res.json()) as { verdict: { duplicate: boolean; rule: string | null } }).verdict;
      };
      expect(await compare(await start(undefined))).toMatchObject({ duplicate: true, rule: "medium.contained" });
      expect(await compare(await start(file("off.json", (b) => ({ ...b, minContainment: null }))))).toMatchObject({ duplicate: false, rule: null });
    });

    it("a bad file stops the service at start, naming the option", async () => {
      const error = await thrown(start(file("bad-start.json", (b) => (b.name === "long" ? { ...b, minContainment: 0.9, minContainedShare: null } : b))));
      expect(error).toMatchObject({ code: "INVALID_CONFIG", field: "NEARDUP_VERDICT_FILE.buckets[3].minContainedShare" });
    });
  });
});
