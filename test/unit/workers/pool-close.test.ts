// Closing the analysis pool while its threads are in work (a sidecar stopped during ingest).
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";

function runChild(delays: string): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "test/fixtures/pool-close-child.ts", delays], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

describe("analyzer pool close", () => {
  it("finishes the texts in work before the threads stop, and the process lives (a thread terminated inside jieba aborted it)", async () => {
    const { code, signal, stdout, stderr } = await runChild("20,50,80,110,140");
    // Before: exit 134 (SIGABRT: "terminate called after throwing an instance of ...") in about half the rounds.
    expect({ code, signal, stderr: stderr.slice(-500) }).toEqual({ code: 0, signal: null, stderr: "" });
    const rounds = stdout.trim().split("\n").map((l) => JSON.parse(l) as { analysed: number; of: number; refusedAfterClose: boolean });
    expect(rounds).toHaveLength(5);
    for (const r of rounds) expect(r).toEqual({ delayMs: expect.any(Number), analysed: r.of, of: 12, refusedAfterClose: true });
  }, 180_000);
});
