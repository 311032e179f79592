/**
 * The `_bulk` proxy (issue 12) fed by real shippers outside Node:
 *  - the official Python client's helpers.streaming_bulk (elasticsearch8 / opensearch-py)
 *    from the venv that .ci/proxy.sh makes (.neardup/venv, or NEARDUP_TEST_PYTHON);
 *  - rsyslog's omelasticsearch, started here with its own config, work folder
 *    and pid file, shipping a log file through the proxy.
 * Both are required: a missing venv or rsyslogd fails the test with the fix.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MOM_A, NEWS_EN, OTHER_ZH, RECIPE_EN, englishVariants } from "../fixtures/texts/near-duplicates.js";
import { engineTargets, uniqueIndex } from "../helpers/engines.js";
import { startProxyFor, type ProxyHarness } from "../helpers/proxy.js";

const PYTHON = process.env.NEARDUP_TEST_PYTHON ?? resolve(".neardup/venv/bin/python");

function requirePython(): string {
  if (!existsSync(PYTHON)) throw new Error(`${PYTHON} is missing: run .ci/proxy.sh (it makes the venv with elasticsearch8 and opensearch-py), or set NEARDUP_TEST_PYTHON`);
  return PYTHON;
}

function requireRsyslogd(): string {
  for (const path of ["/usr/sbin/rsyslogd", "/sbin/rsyslogd"]) if (existsSync(path)) return path;
  throw new Error("rsyslogd is missing: run .ci/proxy.sh (it apt-installs rsyslog-elasticsearch)");
}

/** Runs a program with `input` on stdin; resolves its stdout (the proxy runs in this process: never block the event loop). */
function run(program: string, args: string[], input: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => (out += String(c)));
    child.stderr.on("data", (c: Buffer) => (err += String(c)));
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`${program} ${args.join(" ")} exited ${code}: ${err}`))));
    child.stdin.end(input);
  });
}

/** `what` is read when the wait times out, so that it can name what happened meanwhile (the shipper's output). */
async function waitFor<T>(what: () => string, probe: () => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> {
  for (let waited = 0; ; waited += 250) {
    const value = await probe();
    if (value !== undefined) return value;
    if (waited > timeoutMs) throw new Error(`timed out waiting for ${what()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe.each(engineTargets())("shippers through the _bulk proxy on $kind $version ($source)", (target) => {
  let h: ProxyHarness;
  const prefix = uniqueIndex("neardup-shippers");
  const indices: string[] = [];
  const dir = mkdtempSync(join(tmpdir(), "neardup-shippers-"));

  beforeAll(async () => {
    h = await startProxyFor(target, `${prefix}-reject-*:message:reject,${prefix}-*:message`);
  });
  afterAll(async () => {
    for (const index of indices) await h.engine.deleteIndex(index);
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("Python helpers.streaming_bulk sees 409 for rejected near-duplicates and success for the rest", async () => {
    const python = requirePython();
    const index = `${prefix}-reject-py`;
    indices.push(index);
    const [a, b, c] = englishVariants(RECIPE_EN, 3);
    const docs = [
      { id: "a", message: a },
      { id: "news", message: NEWS_EN },
      { id: "b", message: b },
      { id: "zh", message: OTHER_ZH },
      { id: "c", message: c },
    ];
    const out = await run(python, ["test/fixtures/proxy/streaming_bulk.py", target.kind, h.url, index], docs.map((d) => JSON.stringify(d)).join("\n"));
    const items = out.trim().split("\n").map((l) => JSON.parse(l) as { ok: boolean; op: string; item: Record<string, unknown> & { neardup?: Record<string, unknown>; error?: Record<string, unknown> } });
    expect(items.map((i) => [i.item._id, i.ok, i.item.status])).toEqual([
      ["a", true, 201],
      ["news", true, 201],
      ["b", false, 409],
      ["zh", true, 201],
      ["c", false, 409],
    ]);
    expect(items[2]!.item.error).toMatchObject({ type: "neardup_duplicate_exception", duplicate_of: "a" });
    expect(items[2]!.item.neardup).toMatchObject({ status: "duplicate", action: "rejected", duplicate_of: "a" });
  }, 180_000); // the client's own request timeout is 120 s

  it("rsyslog omelasticsearch ships a log file through the proxy; near-duplicate lines are marked", async () => {
    const rsyslogd = requireRsyslogd();
    const index = `${prefix}-syslog`;
    indices.push(index);
    const work = join(dir, `rsyslog-${target.kind}`);
    mkdirSync(work, { recursive: true });
    const log = join(work, "app.log");
    const lines = [MOM_A, ...englishVariants(RECIPE_EN, 3), NEWS_EN, OTHER_ZH];
    writeFileSync(log, lines.map((l) => `${l}\n`).join(""));
    const port = new URL(h.url).port;
    const conf = join(work, "rsyslog.conf");
    // The shipped example, with this test's folder, log file, proxy port and index.
    const example = readFileSync("examples/rsyslog/neardup-proxy.conf", "utf8");
    const config = example
      .replaceAll("/var/spool/rsyslog", work)
      .replaceAll("/var/log/app.log", log)
      .replace('serverport="9400"', `serverport="${port}"`)
      .replace('searchIndex="logs-app"', `searchIndex="${index}"`);
    expect(config).not.toBe(example);
    expect(config).toContain(`serverport="${port}"`);
    expect(config).toContain(`searchIndex="${index}"`);
    writeFileSync(conf, config);
    await run(rsyslogd, ["-N1", "-f", conf], ""); // config check: fails loudly on a bad config
    let daemon: ChildProcess | undefined;
    let output = "";
    try {
      daemon = spawn(rsyslogd, ["-n", "-f", conf, "-i", join(work, "rsyslogd.pid")], { stdio: ["ignore", "pipe", "pipe"] });
      daemon.stdout!.on("data", (c: Buffer) => (output += String(c)));
      daemon.stderr!.on("data", (c: Buffer) => (output += String(c)));
      const hits = await waitFor(() => `rsyslog to ship ${lines.length} lines (rsyslogd said: ${output})`, async () => {
        if (!(await h.engine.indexExists(index))) return undefined;
        await h.engine.refresh(index);
        const res = await h.engine.search<{ message: string; neardup?: Record<string, unknown> }>({ index, body: { size: 100, query: { match_all: {} } } });
        return res.hits.hits.length >= lines.length ? res.hits.hits : undefined;
      });
      expect(hits.length, JSON.stringify(hits.map((x) => [x._id, x._source!.message.slice(0, 30), x._source!.neardup?.status]))).toBe(lines.length);
      const byMessage = new Map(hits.map((hit) => [hit._source!.message, { id: hit._id, neardup: hit._source!.neardup! }]));
      const [a, b, c] = englishVariants(RECIPE_EN, 3);
      expect(byMessage.get(a)!.neardup).toMatchObject({ status: "original" });
      for (const copy of [b, c]) expect(byMessage.get(copy)!.neardup).toMatchObject({ status: "duplicate", duplicate_of: byMessage.get(a)!.id });
      for (const other of [MOM_A, NEWS_EN, OTHER_ZH]) expect(byMessage.get(other)!.neardup).toMatchObject({ status: "original" });
      expect(existsSync(join(work, "es-errors.json"))).toBe(false);
    } finally {
      if (daemon?.pid !== undefined && daemon.exitCode === null) {
        const gone = new Promise((r) => daemon!.once("exit", r));
        daemon.kill("SIGTERM");
        await gone;
      }
    }
  }, 180_000); // past the wait's 90 s: rsyslog suspends a failed action for 30 s before it sends again
});
