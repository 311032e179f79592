import { describe, expect, it } from "vitest";
import { fromHex } from "../../../src/core/fingerprint.js";
import type { Candidate } from "../../../src/service/candidate.js";
import { RecentWrites } from "../../../src/service/recent.js";

const cand = (id: string, hex: string, lsh: string[] = []): Candidate => ({ id, simhash: fromHex(hex), lsh, time: 0, status: "original", duplicateOf: undefined });
const probe = (hex: string, radius: number, lsh: string[] = []) => ({ simhash: fromHex(hex), radius, lsh });

describe("RecentWrites", () => {
  it("finds entries within the radius until they expire", () => {
    let now = 1000;
    const recent = new RecentWrites(100, () => now);
    recent.add(cand("a", "0000000000000000"));
    now = 1050;
    recent.add(cand("b", "0000000000000007"));
    expect(recent.lookup(probe("0000000000000001", 3)).map((c) => c.id).sort()).toEqual(["a", "b"]);
    expect(recent.lookup(probe("0000000000000001", 1)).map((c) => c.id)).toEqual(["a"]);
    now = 1101; // a is older than 100 ms
    expect(recent.lookup(probe("0000000000000001", 3)).map((c) => c.id)).toEqual(["b"]);
    expect(recent.size).toBe(1);
    now = 1200;
    expect(recent.lookup(probe("0000000000000001", 3))).toEqual([]);
    expect(recent.size).toBe(0);
  });

  it("also finds entries sharing an LSH key however far their simhash is, and forgets the keys on removal", () => {
    const recent = new RecentWrites(1000, () => 0);
    recent.add(cand("far", "ffffffffffffffff", ["00:00000001", "01:00000002"]));
    expect(recent.lookup(probe("0000000000000000", 3, ["05:aaaaaaaa"]))).toEqual([]);
    expect(recent.lookup(probe("0000000000000000", 3, ["01:00000002"])).map((c) => c.id)).toEqual(["far"]);
    recent.add(cand("far", "ffffffffffffffff", ["02:00000003"])); // replaced: the old keys go
    expect(recent.lookup(probe("0000000000000000", 3, ["01:00000002"]))).toEqual([]);
    expect(recent.lookup(probe("0000000000000000", 3, ["02:00000003"])).map((c) => c.id)).toEqual(["far"]);
    recent.remove("far");
    expect(recent.lookup(probe("0000000000000000", 3, ["02:00000003"]))).toEqual([]);
  });

  it("replaces an id added again, and its first expiry does not remove the newer entry", () => {
    let now = 0;
    const recent = new RecentWrites(100, () => now);
    recent.add(cand("a", "0000000000000000"));
    now = 80;
    recent.add(cand("a", "ffffffffffffffff"));
    now = 150; // the first add is expired, the second is not
    expect(recent.lookup(probe("0000000000000000", 3))).toEqual([]);
    expect(recent.lookup(probe("ffffffffffffffff", 0)).map((c) => c.id)).toEqual(["a"]);
    recent.remove("a");
    expect(recent.get("a")).toBeUndefined();
  });
});
