import { describe, expect, it } from "vitest";
import { fromHex } from "../../../src/core/fingerprint.js";
import type { Candidate } from "../../../src/service/candidate.js";
import { RecentWrites } from "../../../src/service/recent.js";
import { createFingerprinter } from "../../../src/core/fingerprinter.js";
import { lookupProbe } from "../../../src/service/candidates/index.js";

const cand = (id: string, hex: string, lsh: string[] = [], duplicateOf?: string): Candidate => ({
  id,
  simhash: fromHex(hex),
  lsh,
  time: 0,
  status: duplicateOf ? "duplicate" : "original",
  duplicateOf,
});
const probe = (hex: string, radius: number, lsh: string[] = []) => ({ simhash: fromHex(hex), radius, lsh });
const ids = (entries: { candidate: Candidate }[]) => entries.map((e) => e.candidate.id).sort();

describe("RecentWrites", () => {
  it("keeps an entry while its write is in flight, however long, then until a refresh is known to have shown it, then for the hold", () => {
    let now = 1000;
    const recent = new RecentWrites({ holdMs: 100, refreshMs: 50, clock: () => now });
    const a = recent.add(cand("a", "0000000000000000"));
    now = 100_000; // the write is slow: still pending, still seen
    expect(ids(recent.lookup(probe("0000000000000001", 3), 0))).toEqual(["a"]);
    recent.settle(a, true); // acknowledged at 100,000
    expect(a.ackedAt).toBe(100_000);
    expect(recent.unconfirmedSince()).toBe(100_000);
    // The refresh interval has passed, but no refresh is known to have ended: under load the engine's
    // refresh ends late, and a lookup that skipped the entry then missed a document the engine did not show.
    now = 100_500;
    expect(ids(recent.lookup(probe("0000000000000001", 3), 100_400))).toEqual(["a"]);
    recent.confirmVisible(99_999, 100_600); // a refresh that started before the acknowledgement: confirms nothing
    expect(recent.unconfirmedSince()).toBe(100_000);
    recent.confirmVisible(100_000, 100_700); // one that started after it had ended by 100,700
    expect(a.visibleAt).toBe(100_700);
    expect(recent.unconfirmedSince()).toBeUndefined();
    expect(ids(recent.lookup(probe("0000000000000001", 3), 100_699))).toEqual(["a"]); // a lookup started before it was visible
    expect(recent.lookup(probe("0000000000000001", 3), 100_700)).toEqual([]); // the engine showed it to that lookup
    now = 100_799;
    expect(recent.size).toBe(1);
    now = 100_801; // visible + hold passed
    recent.lookup(probe("0000000000000001", 3), 0);
    expect(recent.size).toBe(0);
  });

  it("confirms entries in acknowledgement order, up to the acknowledgements before the refresh started", () => {
    let now = 0;
    const recent = new RecentWrites({ holdMs: 1000, clock: () => now });
    const entries = ["a", "b", "c"].map((id, k) => {
      now = 10 * (k + 1);
      const e = recent.add(cand(id, "0000000000000000"));
      recent.settle(e, true);
      return e;
    }); // acknowledged at 10, 20, 30
    recent.confirmVisible(20, 40);
    expect(entries.map((e) => e.visibleAt)).toEqual([40, 40, Infinity]);
    expect(recent.unconfirmedSince()).toBe(30);
    expect(ids(recent.lookup(probe("0000000000000000", 3), 40))).toEqual(["c"]);
  });

  it("a delete takes the id's entry out and supersedes the engine's hits of it until the engine shows the delete; a new write of the id ends that", () => {
    let now = 1000;
    const recent = new RecentWrites({ holdMs: 100, refreshMs: 50, clock: () => now });
    recent.settle(recent.add(cand("a", "0000000000000000")), true);
    expect(recent.supersedes("a", 1000)).toBe(true); // its own newer entry: the engine may show an older version
    expect(recent.supersedes("b", 1000)).toBe(false);
    expect(recent.supersedes("a", 2000)).toBe(true); // settled, but not known to be searchable yet
    recent.confirmVisible(1000, 1050);
    now = 2000;
    expect(recent.supersedes("a", 2000)).toBe(false); // settled, visible, held: the engine's hit is this version
    recent.forget("a"); // the engine acknowledged a delete at 2,000: its search may show "a" until a refresh ends
    expect(recent.lookup(probe("0000000000000001", 3), 0)).toEqual([]);
    expect(recent.unconfirmedSince()).toBe(2000);
    expect(recent.supersedes("a", 2500)).toBe(true); // well past the interval: still not known to be shown
    recent.confirmVisible(2000, 2050);
    expect(recent.supersedes("a", 2049)).toBe(true);
    expect(recent.supersedes("a", 2050)).toBe(false); // a lookup from then on no longer sees it in the engine
    recent.forget("never-written"); // deletes of ids this window never held count too
    expect(recent.supersedes("never-written", 2000)).toBe(true);
    const again = recent.add(cand("a", "00000000000000ff")); // written again: its entry decides, as for any re-submission
    expect(recent.supersedes("a", 0)).toBe(true);
    recent.settle(again, true);
    recent.confirmVisible(2000, 2050);
    expect(recent.supersedes("a", 2050)).toBe(false);
    now = 2151; // past visible + hold: the delete is forgotten
    expect(recent.size).toBe(0);
    expect(recent.supersedes("never-written", 0)).toBe(false);
  });

  it("a failed write takes out, in the same step, the entries that waited for it (and theirs); none enters after", async () => {
    // The gap this closes: original o fails, its duplicate d is still in the window until d's own write
    // step runs; a decision in between picked d's cluster, found no entry for o, and wrote a duplicate of o.
    const recent = new RecentWrites({ holdMs: 1000, clock: () => 0 });
    const o = recent.add(cand("o", "0000000000000000"));
    const d = recent.add(cand("d", "0000000000000001", [], "o"), o);
    const dd = recent.add(cand("dd", "0000000000000003", [], "o"), d);
    const other = recent.add(cand("x", "0000000000000007", [], "o")); // decided while o was visible: waits for nothing
    expect(ids(recent.lookup(probe("0000000000000000", 3), 0))).toEqual(["d", "dd", "o", "x"]);
    recent.settle(o, false);
    expect(ids(recent.lookup(probe("0000000000000000", 3), 0))).toEqual(["x"]);
    expect(recent.get("d")).toBeUndefined();
    expect(await d.stored).toBe(false);
    expect(await dd.stored).toBe(false);
    recent.settle(d, false); // its own write step comes later: nothing more happens
    recent.settle(other, true);
    expect(await other.stored).toBe(true);
    // Decided against o's entry (as a lookup saw it) after o failed: never enters the window.
    const late = recent.add(cand("late", "0000000000000000", [], "o"), o);
    expect(await late.stored).toBe(false);
    expect(recent.get("late")).toBeUndefined();
    expect(recent.hasDuplicates("o")).toBe(true); // x still points at o
  });

  it("a failed re-submission brings back the entry it replaced while that one may still be needed", async () => {
    let now = 0;
    const recent = new RecentWrites({ holdMs: 100, refreshMs: 10, clock: () => now });
    const v1 = recent.add(cand("a", "0000000000000000"));
    recent.settle(v1, true); // stored; the engine may not show it yet
    const v2 = recent.add(cand("a", "0000000000000000")); // sent again
    expect(recent.get("a")).toBe(v2);
    recent.settle(v2, false); // refused: the engine keeps v1
    expect(recent.get("a")).toBe(v1);
    expect(ids(recent.lookup(probe("0000000000000001", 3), 5))).toEqual(["a"]);
    recent.confirmVisible(0, 10); // a refresh shows v1 from 10
    now = 111; // v1's hold is over: it expires as before
    expect(recent.size).toBe(0);
    // A replaced entry still in flight comes back too; one that failed does not.
    const w1 = recent.add(cand("b", "0000000000000000"));
    const w2 = recent.add(cand("b", "0000000000000000"));
    recent.settle(w2, false);
    expect(recent.get("b")).toBe(w1);
    const w3 = recent.add(cand("b", "0000000000000000"));
    recent.settle(w1, false);
    recent.settle(w3, false);
    expect(recent.get("b")).toBeUndefined();
  });

  it("a failed write takes its own entry out and resolves its promise false; a success resolves true", async () => {
    const recent = new RecentWrites({ holdMs: 1000, clock: () => 0 });
    const a = recent.add(cand("a", "0000000000000000"));
    const b = recent.add(cand("b", "0000000000000003"));
    recent.settle(a, false);
    recent.settle(b, true);
    expect(await a.stored).toBe(false);
    expect(await b.stored).toBe(true);
    expect(ids(recent.lookup(probe("0000000000000000", 3), -1))).toEqual(["b"]);
  });

  it("a failed older write of an id never removes the newer entry of that id", async () => {
    const recent = new RecentWrites({ holdMs: 1000, clock: () => 0 });
    const v1 = recent.add(cand("a", "0000000000000000"));
    const v2 = recent.add(cand("a", "ffffffffffffffff"));
    recent.settle(v1, false);
    expect(await v1.stored).toBe(false);
    expect(recent.get("a")).toBe(v2);
    expect(ids(recent.lookup(probe("ffffffffffffffff", 0), 0))).toEqual(["a"]);
    expect(recent.lookup(probe("0000000000000000", 3), 0)).toEqual([]); // the old version's keys are gone
  });

  it("finds entries sharing an LSH key however far their simhash is", () => {
    const recent = new RecentWrites({ holdMs: 1000, clock: () => 0 });
    recent.add(cand("far", "ffffffffffffffff", ["00:00000001", "01:00000002"]));
    expect(recent.lookup(probe("0000000000000000", 3, ["05:aaaaaaaa"]), 0)).toEqual([]);
    expect(ids(recent.lookup(probe("0000000000000000", 3, ["01:00000002"]), 0))).toEqual(["far"]);
    recent.add(cand("far", "ffffffffffffffff", ["02:00000003"])); // replaced: the old keys go
    expect(recent.lookup(probe("0000000000000000", 3, ["01:00000002"]), 0)).toEqual([]);
  });

  it("knows which originals have duplicates in the window, and forgets them with the entries", () => {
    const recent = new RecentWrites({ holdMs: 1000, clock: () => 0 });
    const b = recent.add(cand("b", "0000000000000001", [], "a"));
    expect(recent.hasDuplicates("a")).toBe(true);
    expect(recent.hasDuplicates("b")).toBe(false);
    recent.settle(b, false);
    expect(recent.hasDuplicates("a")).toBe(false);
  });

  it("counts the bytes it holds and gives them back", () => {
    const recent = new RecentWrites({ holdMs: 1000, clock: () => 0 });
    const a = recent.add(cand("a", "0000000000000000"));
    expect(recent.bytes).toBeGreaterThan(0);
    recent.settle(a, false);
    expect(recent.bytes).toBe(0);
  });

  it("tells whether a lookup is recent enough to be completed from the window", () => {
    let now = 0;
    const recent = new RecentWrites({ holdMs: 100, clock: () => now });
    now = 99;
    expect(recent.covers(0)).toBe(true);
    now = 100;
    expect(recent.covers(0)).toBe(false);
  });

  it("reaches what the engine lookup reaches: a plan's alone keys one at a time, its other keys two at a time, the radius always", () => {
    const recent = new RecentWrites({ holdMs: 1000, clock: () => 0 });
    recent.add(cand("rare", "ffffffffffffffff", ["00:r"]));
    recent.add(cand("one-common", "ffffffffffffffff", ["01:c"]));
    recent.add(cand("two-common", "ffffffffffffffff", ["01:c", "02:d"]));
    recent.add(cand("near", "0000000000000003", []));
    const keys = ["00:r", "01:c", "02:d"];
    expect(ids(recent.lookup(probe("0000000000000000", 3, keys), 0))).toEqual(["near", "one-common", "rare", "two-common"]);
    const planned = { ...probe("0000000000000000", 3, keys), alone: new Set(["00:r"]) };
    expect(ids(recent.lookup(planned, 0))).toEqual(["near", "rare", "two-common"]);
  });

  it("within the radius, reaches only with the segments the engine query asks for (two of four for a text with band keys)", () => {
    const recent = new RecentWrites({ holdMs: 1000, clock: () => 0 });
    recent.add(cand("one-segment-differs", "0000000000000007")); // 3 bits, all in the last segment: shares 3
    recent.add(cand("three-segments-differ", "0000000100010001")); // 3 bits in three segments: shares 1
    recent.add(cand("keyed", "0000000100010001", ["00:k"])); // the same, and a shared band key
    const keys = ["00:k"];
    expect(ids(recent.lookup(probe("0000000000000000", 3, keys), 0))).toEqual(["keyed", "one-segment-differs", "three-segments-differ"]);
    const engineRule = { ...probe("0000000000000000", 3, keys), segments: 2 };
    expect(ids(recent.lookup(engineRule, 0))).toEqual(["keyed", "one-segment-differs"]);
  });

  it("a lookup takes its lookup-only keys (spec §9.2) to the window: one character replaced and one inserted, no stored key shared", async () => {
    const fp = await createFingerprinter();
    const stored = fp.analyze("发展运动上海，美食历史运动，医院回家今天啊");
    const edited = fp.analyze("发展运动上海，美食历史吗动，吧医院回家今天啊");
    expect(edited.lsh.filter((k) => stored.lsh.includes(k))).toEqual([]);
    const recent = new RecentWrites({ holdMs: 1000, clock: () => 0 });
    // Its simhash far from the lookup's: only a key can reach it.
    recent.add({ ...cand("stored", "ffffffffffffffff", stored.lsh), simhash: { hi: ~edited.simhash.hi >>> 0, lo: ~edited.simhash.lo >>> 0 } });
    expect(ids(recent.lookup({ ...lookupProbe(edited, 3), lsh: edited.lsh }, 0))).toEqual([]);
    expect(ids(recent.lookup(lookupProbe(edited, 3), 0))).toEqual(["stored"]);
  });
});
