// A `create` write in the recent-writes window: it fails when its id is stored, so it never stands in for that version.
import { describe, expect, it } from "vitest";
import { fromHex } from "../../../src/core/fingerprint.js";
import type { Candidate } from "../../../src/service/candidate.js";
import { RecentWrites } from "../../../src/service/recent.js";

const candidate = (id: string, hex: string): Candidate => ({ id, simhash: fromHex(hex), lsh: [], time: 1, status: "original", duplicateOf: undefined });

describe("RecentWrites and create writes", () => {
  it("a create of an id the window holds does not replace its entry, whether that write is in flight or acknowledged", () => {
    const recent = new RecentWrites({ holdMs: 30_000, clock: () => 1_000 });
    const first = recent.add(candidate("1", "00000000000000ff"));
    const create = recent.add(candidate("1", "ffffffffffffff00"), undefined, undefined, true);
    expect(recent.get("1")).toBe(first);
    expect(recent.pendingCreate("1")).toBe(false);
    recent.settle(create, false); // the engine's 409
    expect(recent.get("1")).toBe(first);
    recent.settle(first, true);
    const again = recent.add(candidate("1", "ffffffffffffff00"), undefined, undefined, true);
    expect(recent.get("1")).toBe(first);
    recent.settle(again, false);
    expect(recent.get("1")).toBe(first);
  });

  it("a create of an id the window does not hold enters it, but gives way to the engine's hit of that id until acknowledged", async () => {
    let now = 1_000;
    const recent = new RecentWrites({ holdMs: 30_000, refreshMs: 1_000, clock: () => now });
    const create = recent.add(candidate("7", "00000000000000ff"), undefined, undefined, true);
    expect(recent.get("7")).toBe(create);
    expect(recent.pendingCreate("7")).toBe(true);
    expect(recent.supersedes("7", now)).toBe(false); // an index write in flight would supersede the hit
    const index = recent.add(candidate("8", "00000000000000ff"));
    expect(recent.supersedes("8", now)).toBe(true);
    recent.settle(index, true);
    recent.settle(create, true); // it was new after all: an acknowledged write, like any other
    expect(await create.stored).toBe(true);
    expect(recent.pendingCreate("7")).toBe(false);
    expect(recent.supersedes("7", now)).toBe(true); // the engine's search may not show it yet
    now += 2_000;
    expect(recent.supersedes("7", now)).toBe(true); // nor after the interval, until a refresh is known to have ended
    recent.confirmVisible(1_000, now);
    expect(recent.supersedes("7", now)).toBe(false);
  });
});
