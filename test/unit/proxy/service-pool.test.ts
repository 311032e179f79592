// The proxy's services are let go when unused: every index ever written kept one, with a lease renewed for ever.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFingerprinter, type Fingerprinter } from "../../../src/core/fingerprinter.js";
import { ServicePool } from "../../../src/proxy/pool.js";
import { parseIndexRules } from "../../../src/proxy/rules.js";
import { createUpstream, type Upstream } from "../../../src/proxy/upstream.js";
import { LEASE_INDEX, type LeaseDoc } from "../../../src/service/writer-lease.js";
import { resolveDedupOptions } from "../../../src/service/options.js";
import { MemoryEngine } from "../../helpers/memory-engine.js";

/** An engine whose alias `logs` writes to one index (its only write alias), `logs-1` until `rollTo` moves it. */
function rollingAlias(): { engine: MemoryEngine; rollTo: (index: string) => void } {
  const engine = new MemoryEngine();
  let writeIndex = "logs-1";
  engine.aliasIndices = async (name: string) => (name === "logs" ? [{ index: writeIndex, writeIndex: true }] : []);
  engine.writeAliasesOf = async (index: string) => (index === writeIndex ? ["logs"] : []);
  return { engine, rollTo: (index) => void (writeIndex = index) };
}

describe("ServicePool", () => {
  let fingerprinter: Fingerprinter;
  let upstream: Upstream;
  beforeAll(async () => {
    fingerprinter = await createFingerprinter();
    upstream = createUpstream({ url: "http://127.0.0.1:9" } as never); // never called: nothing is written
  }, 60_000);
  afterAll(() => upstream.close());

  /** A pool over `engine` with `extra` options (no idle sweep, the default dedup options), closed after `use`. */
  async function withPool(engine: MemoryEngine, extra: Partial<ConstructorParameters<typeof ServicePool>[0]>, use: (pool: ServicePool) => Promise<void>): Promise<void> {
    const pool = new ServicePool({ engine, fingerprinter, upstream, dedup: resolveDedupOptions({ index: "unused" }), timeoutMs: 5000, idleMs: 0, ...extra });
    try {
      await use(pool);
    } finally {
      await pool.close();
    }
  }

  it("lets go of a service not asked for idleMs once quiet, releases its lease, and makes a new one on the next write", async () => {
    const engine = new MemoryEngine();
    let now = 1_000_000;
    const pool = new ServicePool({ engine, fingerprinter, upstream, dedup: resolveDedupOptions({ index: "unused" }), timeoutMs: 5000, lease: { url: "http://127.0.0.1:1", ttlMs: 3000 }, idleMs: 60_000, clock: () => now });
    const [rule] = parseIndexRules("logs-*:message");
    try {
      const a = await pool.get("logs-a", rule!);
      const b = await pool.get("logs-b", rule!);
      expect(pool.size).toBe(2);
      expect((await engine.getVersioned<LeaseDoc>(LEASE_INDEX, "proxy:logs-a"))?.source.released).toBeFalsy();
      now += 59_000;
      await pool.get("logs-b", rule!); // asked again: not idle
      expect(await pool.sweep()).toEqual([]);
      now += 2_000;
      expect(await pool.sweep()).toEqual(["logs-a"]);
      expect(pool.size).toBe(1);
      // Released: another sidecar takes the index over at once instead of after a whole ttl.
      expect((await engine.getVersioned<LeaseDoc>(LEASE_INDEX, "proxy:logs-a"))?.source.released).toBe(true);
      const again = await pool.get("logs-a", rule!);
      expect(again.service).not.toBe(a.service);
      expect((await pool.get("logs-b", rule!)).service).toBe(b.service);
    } finally {
      await pool.close();
    }
  });

  it("forgets what it learnt of names past their 5 s at the next sweep, except a live service's name (audit 24, F5: one entry per name a client sent, for ever)", async () => {
    const engine = new MemoryEngine();
    let now = 1_000_000;
    const [rule] = parseIndexRules("logs-*:message");
    await withPool(engine, { clock: () => now }, async (pool) => {
      for (let i = 0; i < 500; i++) expect(await pool.writeIndexOf(`other-${i}`)).toBeUndefined();
      const live = await pool.get("logs-live", rule!);
      expect(pool.namesKnown).toBeGreaterThanOrEqual(501);
      now += 4_000;
      await pool.sweep();
      expect(pool.namesKnown).toBeGreaterThanOrEqual(501); // not yet stale
      now += 2_000;
      await pool.sweep();
      expect(pool.namesKnown).toBe(1); // the live service's own name
      expect(await pool.existing("logs-live")).toBe(live);
    });
  });

  it("keeps an idle service that is not quiet (a write in its recent-writes window)", async () => {
    const engine = new MemoryEngine();
    let now = 1_000_000;
    const pool = new ServicePool({ engine, fingerprinter, upstream, dedup: resolveDedupOptions({ index: "unused" }), timeoutMs: 5000, idleMs: 60_000, clock: () => now });
    const [rule] = parseIndexRules("logs-*:message");
    try {
      const a = await pool.get("logs-a", rule!);
      let quiet = false;
      a.service.quiet = () => quiet;
      now += 120_000;
      expect(await pool.sweep()).toEqual([]);
      quiet = true;
      expect(await pool.sweep()).toEqual(["logs-a"]);
      expect(pool.existing("logs-a")).toBeUndefined();
    } finally {
      await pool.close();
    }
  });

  it("gives an index that an alias writes to the alias's service, unless their rules differ; after a rollover the old index is itself again", async () => {
    const { engine, rollTo } = rollingAlias();
    let now = 1_000_000;
    const [rule, body] = parseIndexRules("logs*:message,logs*:body");
    await withPool(engine, { clock: () => now }, async (pool) => {
      const viaAlias = await pool.get("logs", rule!);
      expect((await pool.get("logs-1", rule!)).service).toBe(viaAlias.service);
      expect(await pool.existing("logs-1")).toBe(viaAlias);
      expect(viaAlias.service.options.index).toBe("logs");
      rollTo("logs-2");
      now += 4_000;
      expect((await pool.get("logs-1", rule!)).service).toBe(viaAlias.service); // the name is kept a while
      now += 2_000;
      const old = await pool.get("logs-1", rule!);
      expect(old.service).not.toBe(viaAlias.service);
      expect(old.service.options.index).toBe("logs-1");
      expect((await pool.get("logs-2", rule!)).service).toBe(viaAlias.service);
    });
    // Rules that differ (another text field for the index's name than for the alias's): kept apart.
    await withPool(engine, { clock: () => now }, async (apart) => {
      const viaAlias = await apart.get("logs", rule!);
      const direct = await apart.get("logs-2", body!);
      expect(direct.service).not.toBe(viaAlias.service);
      expect(direct.service.options.textField).toBe("body");
    });
  });

  it("takes an alias with no single write index as itself, without asking for write aliases; an index under its one write alias", async () => {
    const engine = new MemoryEngine();
    engine.aliasIndices = async (name: string) => (name === "both" ? [{ index: "a-1", writeIndex: true }, { index: "b-1", writeIndex: true }] : []);
    const aliasesAsked: string[] = [];
    engine.writeAliasesOf = async (index: string) => (aliasesAsked.push(index), index === "a-1" ? ["both"] : []);
    const [rule] = parseIndexRules("*:message");
    await withPool(engine, {}, async (pool) => {
      expect((await pool.get("both", rule!)).service.options.index).toBe("both");
      expect(aliasesAsked).toEqual([]);
      expect((await pool.get("a-1", rule!)).service.options.index).toBe("both");
      expect(aliasesAsked).toEqual(["a-1"]);
    });
  });

  it("a service's name is worked out from a fresh alias lookup, not one kept for ordering: a rollover between the two does not give the alias its old index's service", async () => {
    const { engine, rollTo } = rollingAlias();
    let now = 1_000_000;
    const [rule] = parseIndexRules("logs*:message");
    await withPool(engine, { clock: () => now }, async (pool) => {
      expect(await pool.spaceOf("logs")).toBe("logs-1"); // kept 5 s for ordering a request's items
      rollTo("logs-2"); // rolled over
      now += 1_000;
      expect((await pool.get("logs", rule!)).service.options.index).toBe("logs");
      expect(await pool.spaceOf("logs")).toBe("logs-2");
    });
  });

  it("an alias's write index (writeIndexOf) and the index its writes go to (spaceOf) come from one alias lookup a name, kept 5 s, with no write-alias lookup; an index, a name with several write indices, and an engine that cannot tell give none", async () => {
    const engine = new MemoryEngine();
    let writeIndex = "logs-1";
    const asked: string[] = [];
    let down = false;
    engine.aliasIndices = async (name: string) => {
      asked.push(name);
      if (down) throw new Error("engine unreachable");
      return name === "logs" ? [{ index: writeIndex, writeIndex: true }] : name === "both" ? [{ index: "a-1", writeIndex: true }, { index: "b-1", writeIndex: true }] : [];
    };
    const aliasesAsked: string[] = [];
    engine.writeAliasesOf = async (index: string) => (aliasesAsked.push(index), index === writeIndex ? ["logs"] : []);
    let now = 1_000_000;
    await withPool(engine, { clock: () => now }, async (pool) => {
      expect(await pool.writeIndexOf("logs")).toBe("logs-1");
      expect(await pool.spaceOf("logs")).toBe("logs-1");
      expect(await pool.writeIndexOf("logs-1")).toBeUndefined(); // an index
      expect(await pool.writeIndexOf("both")).toBeUndefined();
      expect(await pool.spaceOf("both")).toBe("both");
      expect(asked.sort()).toEqual(["both", "logs", "logs-1"]);
      writeIndex = "logs-2";
      now += 4_000;
      expect(await pool.writeIndexOf("logs")).toBe("logs-1"); // kept
      now += 2_000;
      expect(await pool.writeIndexOf("logs")).toBe("logs-2");
      expect(await pool.spaceOf("logs")).toBe("logs-2");
      expect(asked.filter((n) => n === "logs")).toHaveLength(2);
      down = true;
      now += 6_000;
      expect(await pool.writeIndexOf("logs")).toBeUndefined();
      expect(await pool.spaceOf("logs")).toBe("logs");
      // Neither needs the index's write aliases (only a service's name does): one request a name, not two.
      expect(aliasesAsked).toEqual([]);
    });
  });

  it("refuses an index whose lease the HTTP API of a sidecar holds (audit 12: the API and a proxy on one index kept two originals), not one released or long expired", async () => {
    const engine = new MemoryEngine();
    let now = 1_000_000;
    const [rule] = parseIndexRules("shared*:text");
    const lease = (extra: Partial<LeaseDoc> = {}, key = "shared") => engine.putDocument(LEASE_INDEX, key, { holder: "h", url: "http://api-sidecar:8080", term: 1, expires_at: Date.now() + 10_000, ...extra });
    await withPool(engine, { clock: () => now }, async (pool) => {
      await lease();
      await expect(pool.get("shared", rule!)).rejects.toMatchObject({ code: "INVALID_CONFIG", field: "NEARDUP_PROXY_INDICES", message: expect.stringContaining("HTTP API of the sidecar at http://api-sidecar:8080") });
      await lease({ released: true });
      now += 6_000; // past the name's cache
      expect((await pool.get("shared", rule!)).service.options.index).toBe("shared");
      await lease({ expires_at: Date.now() - 60_000 }, "shared-2"); // its holder stopped a minute ago without releasing it
      expect((await pool.get("shared-2", rule!)).service.options.index).toBe("shared-2");
      await lease({}, "shared-3");
      await expect(pool.get("shared-3", rule!)).rejects.toMatchObject({ code: "INVALID_CONFIG" });
    });
  });

  it("audit 14, F3: an API lease taken while the proxy set the index up is read again once the proxy's own lease is taken: the proxy gives way and releases its lease", async () => {
    const engine = new MemoryEngine();
    const put = engine.putDocument.bind(engine);
    let apiTook = false;
    // The API sidecar takes its lease right after the proxy's first read, as the proxy takes its own.
    engine.putDocument = async (index, id, source, options) => {
      const written = await put(index, id, source, options);
      if (index === LEASE_INDEX && id === "proxy:race" && !apiTook) {
        apiTook = true;
        await put(LEASE_INDEX, "race", { holder: "h", url: "http://api-sidecar:8080", term: 1, expires_at: Date.now() + 10_000 });
      }
      return written;
    };
    const [rule] = parseIndexRules("race*:text");
    await withPool(engine, { lease: { url: "http://127.0.0.1:1", ttlMs: 3000 } }, async (pool) => {
      await expect(pool.get("race", rule!)).rejects.toMatchObject({ code: "INVALID_CONFIG", field: "NEARDUP_PROXY_INDICES", message: expect.stringContaining("http://api-sidecar:8080") });
      expect(apiTook).toBe(true);
      expect((await engine.getVersioned<LeaseDoc>(LEASE_INDEX, "proxy:race"))?.source.released).toBe(true);
    });
  });

  it("audit 13: another alias over the write index, and the index, share the write alias's service; an alias of a name neardup does not take is not used; the API's rollover never reaches a proxy index; the API's lease is found through an alias", async () => {
    const engine = new MemoryEngine();
    // logs-1 is written through `logs` (is_write_index), read through `logs-read` (no flag), and has `logs+x`.
    engine.aliasIndices = async (name: string) => (name === "logs" || name === "logs-read" ? [{ index: "logs-1", writeIndex: true }] : name === "other+x" ? [{ index: "other-1", writeIndex: true }] : []);
    engine.writeAliasesOf = async (index: string) => (index === "logs-1" ? ["logs"] : index === "other-1" ? ["other+x"] : []);
    engine.resolveIndices = async (name: string) => (name === "logs" || name === "logs-read" ? ["logs-1"] : [name]);
    engine.aliasesOf = async (index: string) => (index === "logs" || index === "logs-1" ? ["logs", "logs-read"] : []);
    const [rule] = parseIndexRules("*:message");
    await withPool(engine, { dedup: resolveDedupOptions({ index: "unused", rollover: true }) }, async (pool) => {
      const viaAlias = await pool.get("logs", rule!);
      expect(viaAlias.service.options).toMatchObject({ index: "logs", rollover: false });
      expect((await pool.get("logs-read", rule!)).service).toBe(viaAlias.service);
      expect((await pool.get("logs-1", rule!)).service).toBe(viaAlias.service);
      // `other+x` is no name neardup deduplicates: its index is taken under its own name.
      expect((await pool.get("other-1", rule!)).service.options.index).toBe("other-1");
    });
    // A sidecar's API decides logs-1 (its NEARDUP_INDEX): the proxy's writes through `logs` are refused.
    await engine.putDocument(LEASE_INDEX, "logs-1", { holder: "h", url: "http://api:8080", term: 1, expires_at: Date.now() + 10_000 });
    await withPool(engine, {}, async (guarded) => {
      await expect(guarded.get("logs-read", rule!)).rejects.toMatchObject({ code: "INVALID_CONFIG", message: expect.stringContaining("http://api:8080") });
    });
  });
});

