/**
 * The recent-writes window reads a lookup that started lately from its fresh
 * tables alone (entries in flight or visible for less than FRESH_MS). Property:
 * whatever the adds, settlements, deletes and clock, every lookup returns
 * exactly the entries a scan of the whole window returns: in the window, not
 * visible to the lookup yet, and reached by its probe.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fromHex } from "../../../src/core/fingerprint.js";
import type { Candidate } from "../../../src/service/candidate.js";
import { reaches } from "../../../src/service/candidates/probe.js";
import { FRESH_MS, RecentWrites, type RecentEntry } from "../../../src/service/recent.js";

const HEXES = ["0000000000000000", "0000000000000007", "00000000000000ff", "ffff000000000000", "123456789abcdef0"];
const KEYS = ["00:a", "01:b", "02:c", "03:d"];

const op = fc.oneof(
  fc.record({ kind: fc.constant("add" as const), id: fc.integer({ min: 0, max: 3 }), hex: fc.constantFrom(...HEXES), keys: fc.subarray(KEYS) }),
  fc.record({ kind: fc.constant("settle" as const), pick: fc.nat(), ok: fc.boolean() }),
  fc.record({ kind: fc.constant("forget" as const), id: fc.integer({ min: 0, max: 7 }) }),
  fc.record({ kind: fc.constant("wait" as const), ms: fc.oneof(fc.integer({ min: 0, max: 1500 }), fc.integer({ min: 0, max: 2 * FRESH_MS })) }),
  fc.record({ kind: fc.constant("lookup" as const), hex: fc.constantFrom(...HEXES), keys: fc.subarray(KEYS), age: fc.oneof(fc.integer({ min: 0, max: FRESH_MS }), fc.integer({ min: 0, max: 4 * FRESH_MS })) }),
);

describe("RecentWrites fresh tables", () => {
  it("a lookup returns what a scan of the whole window returns, however recent its start", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80 }), (ops) => {
        let now = 1_000_000;
        const recent = new RecentWrites({ holdMs: 2 * FRESH_MS, refreshMs: 500, clock: () => now });
        const pending: RecentEntry[] = [];
        for (const o of ops) {
          if (o.kind === "add") {
            const candidate: Candidate = { id: `d${o.id}`, simhash: fromHex(o.hex), lsh: o.keys, time: now, status: "original", duplicateOf: undefined };
            pending.push(recent.add(candidate));
          } else if (o.kind === "settle" && pending.length > 0) {
            recent.settle(pending.splice(o.pick % pending.length, 1)[0]!, o.ok);
          } else if (o.kind === "forget") {
            recent.forget(`d${o.id}`);
          } else if (o.kind === "wait") {
            now += o.ms;
          } else if (o.kind === "lookup") {
            const probe = { simhash: fromHex(o.hex), radius: 3, lsh: o.keys };
            const startedAt = now - o.age;
            const got = recent.lookup(probe, startedAt).map((e) => e.candidate.id).sort();
            const scan: string[] = [];
            for (let i = 0; i < 8; i++) {
              const entry = recent.get(`d${i}`);
              if (!entry || (entry.visibleAt !== undefined && entry.visibleAt <= startedAt)) continue;
              if (reaches(probe, entry.candidate)) scan.push(entry.candidate.id);
            }
            expect(got).toEqual(scan.sort());
          }
        }
      }),
      {
        numRuns: 500,
        examples: [[[{ kind: "add", id: 0, hex: HEXES[0]!, keys: [] }, { kind: "settle", pick: 0, ok: true }, { kind: "wait", ms: 1000 }, { kind: "lookup", hex: HEXES[0]!, keys: [], age: 800 }]]],
      },
    );
  });
});
