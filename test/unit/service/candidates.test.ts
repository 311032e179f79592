import fc from "fast-check";
import { flip } from "../../helpers/bits.js";
import { describe, expect, it } from "vitest";
import { fromHex, hamming, segments } from "../../../src/core/fingerprint.js";
import { candidateQuery, reachableHits, segmentTerms, sharedSegments } from "../../../src/service/candidates/index.js";
import type { Analysis } from "../../../src/core/fingerprinter.js";

const fpArb = fc.record({ hi: fc.integer({ min: 0, max: 0xffffffff }), lo: fc.integer({ min: 0, max: 0xffffffff }) });


describe("segmentTerms", () => {
  it("is the four exact segments for radius <= 3", () => {
    const fp = fromHex("0123456789abcdef");
    expect(segmentTerms(fp, 3)).toEqual({ "neardup.seg0": ["0123"], "neardup.seg1": ["4567"], "neardup.seg2": ["89ab"], "neardup.seg3": ["cdef"] });
  });

  it("has 17 values a segment for radius 4..7 and 137 for 8..11", () => {
    const fp = fromHex("ffff0000aaaa5555");
    expect(Object.values(segmentTerms(fp, 6)).map((v) => v.length)).toEqual([17, 17, 17, 17]);
    expect(Object.values(segmentTerms(fp, 8)).map((v) => v.length)).toEqual([137, 137, 137, 137]);
  });

  it("matches every fingerprint within the radius (pigeonhole), property", () => {
    fc.assert(
      fc.property(fpArb, fc.integer({ min: 0, max: 11 }), fc.uniqueArray(fc.integer({ min: 0, max: 63 }), { maxLength: 11 }), (fp, radius, bits) => {
        const other = flip(fp, bits.slice(0, radius));
        expect(hamming(fp, other)).toBeLessThanOrEqual(radius);
        const terms = segmentTerms(fp, radius);
        const segs = segments(other);
        expect(segs.some((s, i) => terms[`neardup.seg${i}`]!.includes(s))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

const scheme = { version: "nd1", lshScheme: "lsh1-16x3" };

describe("sharedSegments", () => {
  it("counts equal 16-bit segments, property against segments()", () => {
    fc.assert(
      fc.property(fpArb, fc.uniqueArray(fc.integer({ min: 0, max: 63 }), { maxLength: 6 }), (fp, bits) => {
        const other = flip(fp, bits);
        const a = segments(fp);
        const b = segments(other);
        expect(sharedSegments(fp, other)).toBe(a.filter((s, i) => s === b[i]).length);
      }),
      { numRuns: 300 },
    );
  });
});

describe("candidateQuery", () => {
  it("scores one per shared key, filters to the scheme and window, leaves out the document itself, sorts for paging and reads only doc values", () => {
    const body = candidateQuery({ simhash: fromHex("0123456789abcdef"), radius: 3, lsh: [], scheme, since: 1000, excludeId: "me", size: 50 });
    expect(body).toEqual({
      size: 50,
      track_total_hits: false,
      _source: false,
      docvalue_fields: [
        "neardup.id",
        "neardup.simhash",
        "neardup.lsh",
        "neardup.lsh_scheme",
        "neardup.status",
        "neardup.duplicate_of",
        "neardup.sketch",
        { field: "neardup.timestamp", format: "epoch_millis" },
      ],
      query: {
        bool: {
          should: [
            { constant_score: { filter: { term: { "neardup.seg0": "0123" } }, boost: 1 } },
            { constant_score: { filter: { term: { "neardup.seg1": "4567" } }, boost: 1 } },
            { constant_score: { filter: { term: { "neardup.seg2": "89ab" } }, boost: 1 } },
            { constant_score: { filter: { term: { "neardup.seg3": "cdef" } }, boost: 1 } },
          ],
          minimum_should_match: 1,
          filter: [{ term: { "neardup.version": "nd1" } }, { range: { "neardup.timestamp": { gte: 1000, format: "epoch_millis" } } }],
          must_not: [{ ids: { values: ["me"] } }],
        },
      },
      sort: [{ _score: "desc" }, { "neardup.timestamp": "asc" }, { "neardup.simhash": "asc" }],
    });
    // Ids from doc values: no stored field is read at all.
    const v4 = candidateQuery({ simhash: fromHex("0123456789abcdef"), radius: 3, lsh: [], scheme, since: 1000, size: 50, docValuesOnly: true });
    expect(v4).toMatchObject({ _source: false, stored_fields: "_none_" });
    expect(v4.docvalue_fields).toContain("neardup.lsh_list"); // one binary doc value, not the keyword's sorted set
    expect(v4.docvalue_fields).not.toContain("neardup.lsh");
  });

  it("adds one clause per LSH key, limited to the comparable schemes (lsh1, lsh2 and lsh3 of the banding; no lsh_scheme = lsh1-16x3)", () => {
    const body = candidateQuery({ simhash: fromHex("0123456789abcdef"), radius: 0, lsh: ["00:0000abcd", "01:ffff0000"], scheme, since: 0, size: 10, searchAfter: [2, 5, "x"] }) as {
      query: { bool: { should: Record<string, unknown>[] } };
      search_after: unknown[];
    };
    const should = body.query.bool.should;
    // With LSH keys at radius <= 3, two of the four segments are needed (segmentsNeeded); the keys in one clause.
    expect(should).toHaveLength(2);
    expect(should[0]).toMatchObject({ bool: { minimum_should_match: 2 } });
    expect(should[1]).toEqual({
      bool: {
        should: [
          { constant_score: { filter: { term: { "neardup.lsh": "00:0000abcd" } }, boost: 1 } },
          { constant_score: { filter: { term: { "neardup.lsh": "01:ffff0000" } }, boost: 1 } },
        ],
        minimum_should_match: 1,
        // The scheme filter once for every key (it was in each key's clause).
        filter: [{ bool: { should: [{ terms: { "neardup.lsh_scheme": ["lsh1-16x3", "lsh3-16x3", "lsh2-16x3"] } }, { bool: { must_not: [{ exists: { field: "neardup.lsh_scheme" } }] } }], minimum_should_match: 1 } }],
      },
    });
    expect(body.search_after).toEqual([2, 5, "x"]);
    const other = candidateQuery({ simhash: fromHex("0123456789abcdef"), radius: 0, lsh: ["00:0000abcd"], scheme: { version: "nd1", lshScheme: "lsh2-20x4" }, since: 0, size: 10 }) as typeof body;
    expect(JSON.stringify(other.query.bool.should[1])).toContain('{"terms":{"neardup.lsh_scheme":["lsh2-20x4","lsh3-20x4","lsh1-20x4"]}}');
    const custom = candidateQuery({ simhash: fromHex("0123456789abcdef"), radius: 0, lsh: ["00:0000abcd"], scheme: { version: "nd1", lshScheme: "other-1x1" }, since: 0, size: 10 }) as typeof body;
    expect(JSON.stringify(custom.query.bool.should[1])).toContain('{"term":{"neardup.lsh_scheme":"other-1x1"}}');
    expect(JSON.stringify(other.query.bool.should[1])).not.toContain("exists");
  });

  it("uses terms clauses beyond radius 3", () => {
    const body = candidateQuery({ simhash: fromHex("0123456789abcdef"), radius: 4, lsh: [], scheme, since: 0, size: 10 }) as {
      query: { bool: { should: { constant_score: { filter: { terms?: Record<string, string[]> } } }[]; must_not?: unknown } };
    };
    const should = body.query.bool.should;
    expect(should.every((c) => c.constant_score.filter.terms && Object.values(c.constant_score.filter.terms)[0]!.length === 17)).toBe(true);
    expect(body.query.bool.must_not).toBeUndefined();
  });
});

describe("reachableHits (grouped query: which hits each lookup may reach)", () => {
  it("lists, in hit order and once each, every hit that shares an LSH key or has a segment within the lookup's neighbours; property against a scan", () => {
    const key = fc.constantFrom("00:aa", "01:bb", "02:cc", "03:dd", "04:ee");
    const hitArb = fc.record({ simhash: fpArb, lsh: fc.option(fc.array(key, { maxLength: 4 }), { nil: undefined }) });
    fc.assert(
      fc.property(fc.array(fc.record({ simhash: fpArb, lsh: fc.array(key, { maxLength: 4 }), radius: fc.constantFrom(0, 3, 5) }), { minLength: 1, maxLength: 6 }), fc.array(hitArb, { maxLength: 30 }), fc.array(fc.nat(63), { maxLength: 3 }), (ls, rawHits, bits) => {
        const lookups = ls.map((l) => ({ analysis: { simhash: l.simhash, lsh: l.lsh } as unknown as Analysis, time: 0, excludeId: undefined, radius: l.radius }));
        // Some hits near a lookup's simhash, so that the segment path is exercised.
        const hits = rawHits.map((h, k) => (k % 3 === 0 ? { ...h, simhash: flip(ls[k % ls.length]!.simhash, bits) } : h));
        const members = lookups.map((_, i) => i).filter((i) => i % 2 === 0 || lookups.length < 3);
        const got = reachableHits(lookups, members, hits);
        expect([...got.keys()].sort()).toEqual([...members].sort());
        for (const i of members) {
          const l = lookups[i]!;
          const terms = segmentTerms(l.analysis.simhash, l.radius);
          const expected = hits.flatMap((h, k) => ((h.lsh ?? []).some((x) => l.analysis.lsh.includes(x)) || segments(h.simhash).some((s, j) => terms[`neardup.seg${j}`]!.includes(s)) ? [k] : []));
          expect(got.get(i)).toEqual(expected);
        }
      }),
    );
  });
});
