/**
 * Writes' lookups among many documents of a few templates (log lines) share
 * their first pages read oldest first (`sharedFirstPages`): a few grouped
 * searches instead of one a lookup. Whatever the templates and the order in
 * which lines were stored, each lookup's earliest duplicate is the one it
 * finds asked alone, and the one a lookup that reads every candidate finds;
 * and it holds every candidate older than where it stopped reading.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { Fingerprinter } from "../../../src/core/index.js";
import { fetchCandidates, OLDEST_FIRST_PAGE, PAGE_GROWTH, SHARED_PAGE, type Lookup, type LookupResult } from "../../../src/service/candidates/index.js";
import { KeyStatistics } from "../../../src/service/candidates/keys.js";
import { neardupSource } from "../../../src/service/documents.js";
import { chooseOriginal, compareCandidates } from "../../../src/service/rank.js";
import { sharedFingerprinter } from "../../helpers/api.js";
import { countingFirstPages } from "../../helpers/first-pages.js";
import { MemoryEngine } from "../../helpers/memory-engine.js";

const WINDOW = 24 * 3600 * 1000;
const NOW = Date.UTC(2026, 11, 5);

/** Log line templates: a few fields change per line. */
const TEMPLATES = [
  (n: number) => `pam_unix(sshd:session): session opened for user user${n % 37}(uid=${1000 + (n % 91)}) by (uid=0)`,
  (n: number) => `CRON[${10000 + n * 7}]: (user${n % 23}) CMD (/usr/local/bin/backup.sh --target s3://bucket-${n % 11} --quiet)`,
  (n: number) => `kernel: [${100 + n}.${(n * 7919) % 1000000}] eth0: link up, 1000Mbps, full-duplex, lpa 0x${(n * 31).toString(16)}`,
  (n: number) => `GET /api/v1/items/${n * 13}?page=${n % 20} HTTP/1.1 200 ${n % 5000} "-" "Mozilla/5.0 (X11; Linux x86_64)" rt=0.${n % 1000}`,
  // Lines that share the template's keys but are near-duplicates only within a block of numbers (their words
  // change every 64): a lookup's earliest duplicate can lie past its shared page, and it must read on.
  (n: number) => `sshd[${n}]: Failed password for invalid user ${block(n)} from 10.0.0.${n % 255} port 22 ssh2`,
];

const WORDS = ["amber", "basalt", "cobalt", "dune", "ember", "fjord", "glacier", "harbor", "iris", "juniper", "kelp", "lagoon", "meadow", "nectar", "orchid", "prairie"];
/** Six words fixed for each block of 64 numbers, different from block to block. */
function block(n: number): string {
  const b = Math.floor(n / 64);
  return Array.from({ length: 6 }, (_, k) => WORDS[(b * 7 + k * 5 + ((b * k) % 3)) % WORDS.length]).join(" ");
}

let fp: Fingerprinter;
beforeAll(async () => {
  fp = await sharedFingerprinter();
});

/** The earliest duplicate a lookup's candidates hold (the decision's original), by id. */
async function earliest(l: Lookup, result: LookupResult): Promise<string | undefined> {
  const matches = await compareCandidates(fp, l.analysis, result.candidates, l.radius, { untilDuplicate: true });
  return chooseOriginal(matches)?.match.candidate.id;
}

describe("shared first pages of writes' lookups", () => {
  it("find each lookup's earliest duplicate, the one it finds alone and the one a full read finds", async () => {
    let sharedPages = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.nat(TEMPLATES.length - 1), { minLength: 1000, maxLength: 1200 }),
        fc.array(fc.tuple(fc.nat(TEMPLATES.length - 1), fc.nat(1200)), { minLength: 20, maxLength: 40 }),
        async (stored, probes) => {
          const memory = new MemoryEngine();
          await memory.createIndex("logs");
          const ops = stored.flatMap((t, k) => {
            const text = TEMPLATES[t]!(k);
            return [{ index: { _index: "logs", _id: `s${k}` } }, { text, neardup: neardupSource(fp.analyze(text), { status: "original" }, NOW - 100_000 + k * 10, `s${k}`) }];
          });
          await memory.bulk(ops);
          await memory.refresh("logs");
          const { engine, sizes } = countingFirstPages(memory);
          // Statistics of a service that has seen a wide lookup lately (as a running one among log lines has).
          const keyStatistics = new KeyStatistics(memory, "logs");
          keyStatistics.observe(1000);
          const source = { index: "logs", textField: "text", windowMs: WINDOW, maxCandidates: 1000, verdict: fp.verdictOptions, lshKeyBudget: 200, keyStatistics };
          // A probe of the block template comes from the later blocks, whose lines lie past the first shared pages.
          const lookups = probes.map(([t, n]): Lookup => ({ analysis: fp.analyze(TEMPLATES[t]!(t === TEMPLATES.length - 1 ? 600 + (n % 600) : n) + " again"), time: NOW, excludeId: undefined, radius: 3, untilDuplicate: true }));
          const together = await fetchCandidates(engine, source, lookups);
          sharedPages += sizes.filter((n) => n === SHARED_PAGE).length;
          for (const [i, l] of lookups.entries()) {
            const [alone] = await fetchCandidates(memory, source, [l]);
            const [all] = await fetchCandidates(memory, source, [{ ...l, untilDuplicate: false }]);
            const expected = await earliest({ ...l, untilDuplicate: false }, all!);
            expect(await earliest(l, together[i]!), `lookup ${i}`).toBe(expected);
            expect(await earliest(l, alone!), `lookup ${i} alone`).toBe(expected);
            // Read oldest first, a lookup holds every candidate older than where it stopped (all of them when it did not stop).
            for (const result of [together[i]!, alone!]) {
              const held = new Set(result.candidates.map((c) => c.id));
              const owed = all!.candidates.filter((c) => result.readBefore === undefined || c.time < result.readBefore);
              expect(owed.filter((c) => !held.has(c.id)).map((c) => c.id), `lookup ${i}: candidates before ${result.readBefore}`).toEqual([]);
            }
          }
        },
      ),
      { numRuns: 8 },
    );
    // The premise: the lookups did share first pages (their templates' keys are held by over 128 documents).
    expect(sharedPages).toBeGreaterThan(0);
  }, 300_000);

  it("a lookup alone whose earliest duplicate lies past its first page reads pages that grow, not a full page", async () => {
    // Oldest first: 40 decoys that hold every band key of the probe (and their own unrelated simhash and sketch:
    // reached, never duplicates), then 20 near-duplicates of the probe, then 200 more decoys.
    const real = (k: number) => `Accepted publickey for alice from 10.0.0.${k} port 22 ssh2: RSA SHA256:abc`;
    const probe = fp.analyze(real(99));
    const keys = fp.analyze(real(0)).lsh;
    const unrelated = (k: number) => `decoy ${k}: ${WORDS.map((w, j) => `${w}${(k * 31 + j * 7) % 97}`).join(" ")}`;
    const memory = new MemoryEngine();
    await memory.createIndex("logs");
    const kinds = [...Array.from({ length: 40 }, () => "decoy"), ...Array.from({ length: 20 }, () => "real"), ...Array.from({ length: 200 }, () => "decoy")];
    const ops = kinds.flatMap((kind, k) => {
      const text = kind === "real" ? real(k) : unrelated(k);
      const neardup = neardupSource(fp.analyze(text), { status: "original" }, NOW - 100_000 + k * 10, `s${k}`);
      if (kind === "decoy") Object.assign(neardup, { lsh: [...keys], lsh_list: Buffer.from(keys.join(" "), "utf8").toString("base64") });
      return [{ index: { _index: "logs", _id: `s${k}` } }, { text, neardup }];
    });
    expect(fp.compare(probe, fp.analyze(real(40))).duplicate).toBe(true);
    expect(fp.compare(probe, fp.analyze(unrelated(0))).duplicate).toBe(false);
    await memory.bulk(ops);
    await memory.refresh("logs");
    const source = { index: "logs", textField: "text", windowMs: WINDOW, maxCandidates: 1000, verdict: fp.verdictOptions };
    const l: Lookup = { analysis: probe, time: NOW, excludeId: undefined, radius: 3, untilDuplicate: true };
    const [alone] = await fetchCandidates(memory, source, [l]);
    expect(await earliest(l, alone!)).toBe("s40");
    // The first page of 16 decoys, then one of 64 holding s40: settled there (a full page was all 260 documents).
    expect(alone!.hits).toBe(OLDEST_FIRST_PAGE + OLDEST_FIRST_PAGE * PAGE_GROWTH);
    expect(alone!.readBefore).toBeDefined();
  });
});
