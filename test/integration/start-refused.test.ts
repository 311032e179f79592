/**
 * Settings the engine's state refuses stop the service at start with the reason, exit 1, as documented
 * (docs audit: it retried every 2 s for ever, /readyz 503, and every call answered "the engine is not ready").
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { engineTargets, uniqueIndex } from "../helpers/engines.js";

const run = promisify(execFile);
const cwd = new URL("../../", import.meta.url).pathname;

describe.each(engineTargets())("start-up refused by the engine's state on $kind $version ($source)", (target) => {
  it.each([
    ["a recent-writes window no longer than the index's refresh interval", { NEARDUP_RECENT_WINDOW_MS: "500" }, /NEARDUP_RECENT_WINDOW_MS, 500 ms\) must be longer than the refresh interval/],
    ["rollover with no template for the rolled indices", { NEARDUP_INDEX_ROLLOVER: "true" }, /no index template gives the indices rolled over/],
  ])("%s: exit 1, naming it", async (_what, env, why) => {
    const index = uniqueIndex("neardup-start-refused");
    let result: { code: number; stderr: string };
    try {
      const { stderr } = await run(process.execPath, ["--import", "tsx", "src/server/main.ts"], {
        cwd,
        env: { PATH: process.env.PATH, NEARDUP_ENGINE_URL: target.url, NEARDUP_INDEX: index, NEARDUP_PORT: "0", NEARDUP_WORKERS: "1", ...env },
        timeout: 90_000,
      });
      result = { code: 0, stderr };
    } catch (err) {
      const e = err as { code: number; stderr: string; killed?: boolean };
      result = { code: e.killed ? -1 : e.code, stderr: e.stderr };
    } finally {
      await fetch(`${target.url}/${index}*`, { method: "DELETE" }).catch(() => undefined);
    }
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/neardup failed to start: INVALID_CONFIG: /);
    expect(result.stderr).toMatch(why);
  }, 120_000);
});
