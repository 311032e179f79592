import { describe, expect, it } from "vitest";
import { fromHex } from "../../../src/core/fingerprint.js";
import type { Candidate } from "../../../src/service/candidate.js";
import { RecentWrites } from "../../../src/service/recent.js";

const cand = (id: string, hex: string): Candidate => ({ id, simhash: fromHex(hex), time: 0, status: "original", duplicateOf: undefined });

describe("RecentWrites", () => {
  it("finds entries within the radius until they expire", () => {
    let now = 1000;
    const recent = new RecentWrites(100, () => now);
    recent.add(cand("a", "0000000000000000"));
    now = 1050;
    recent.add(cand("b", "0000000000000007"));
    expect(recent.lookup(fromHex("0000000000000001"), 3).map((c) => c.id).sort()).toEqual(["a", "b"]);
    expect(recent.lookup(fromHex("0000000000000001"), 1).map((c) => c.id)).toEqual(["a"]);
    now = 1101; // a is older than 100 ms
    expect(recent.lookup(fromHex("0000000000000001"), 3).map((c) => c.id)).toEqual(["b"]);
    expect(recent.size).toBe(1);
    now = 1200;
    expect(recent.lookup(fromHex("0000000000000001"), 3)).toEqual([]);
    expect(recent.size).toBe(0);
  });

  it("replaces an id added again, and its first expiry does not remove the newer entry", () => {
    let now = 0;
    const recent = new RecentWrites(100, () => now);
    recent.add(cand("a", "0000000000000000"));
    now = 80;
    recent.add(cand("a", "ffffffffffffffff"));
    now = 150; // the first add is expired, the second is not
    expect(recent.lookup(fromHex("0000000000000000"), 3)).toEqual([]);
    expect(recent.lookup(fromHex("ffffffffffffffff"), 0).map((c) => c.id)).toEqual(["a"]);
    recent.remove("a");
    expect(recent.get("a")).toBeUndefined();
  });
});
