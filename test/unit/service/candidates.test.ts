import fc from "fast-check";
import { flip } from "../../helpers/bits.js";
import { describe, expect, it } from "vitest";
import { fromHex, hamming, segments } from "../../../src/core/fingerprint.js";
import { candidateQuery, segmentTerms } from "../../../src/service/candidates.js";

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

describe("candidateQuery", () => {
  it("filters to the window, leaves out the document itself and reads only doc values", () => {
    const body = candidateQuery({ simhash: fromHex("0123456789abcdef"), radius: 3, lsh: [], since: 1000, excludeId: "me", size: 50 });
    expect(body).toEqual({
      size: 50,
      track_total_hits: false,
      _source: false,
      docvalue_fields: ["neardup.simhash", "neardup.lsh", "neardup.status", "neardup.duplicate_of", { field: "neardup.timestamp", format: "epoch_millis" }],
      query: {
        bool: {
          filter: [
            {
              bool: {
                should: [
                  { term: { "neardup.seg0": "0123" } },
                  { term: { "neardup.seg1": "4567" } },
                  { term: { "neardup.seg2": "89ab" } },
                  { term: { "neardup.seg3": "cdef" } },
                ],
                minimum_should_match: 1,
              },
            },
            { range: { "neardup.timestamp": { gte: 1000, format: "epoch_millis" } } },
          ],
          must_not: [{ ids: { values: ["me"] } }],
        },
      },
    });
  });

  it("adds the LSH band keys as one more way to match", () => {
    const body = candidateQuery({ simhash: fromHex("0123456789abcdef"), radius: 0, lsh: ["00:0000abcd", "01:ffff0000"], since: 0, size: 10 }) as {
      query: { bool: { filter: [{ bool: { should: Record<string, unknown>[] } }] } };
    };
    const should = body.query.bool.filter[0].bool.should;
    expect(should).toHaveLength(5);
    expect(should[4]).toEqual({ terms: { "neardup.lsh": ["00:0000abcd", "01:ffff0000"] } });
  });

  it("uses terms clauses beyond radius 3", () => {
    const body = candidateQuery({ simhash: fromHex("0123456789abcdef"), radius: 4, lsh: [], since: 0, size: 10 }) as {
      query: { bool: { filter: [{ bool: { should: { terms?: Record<string, string[]> }[] } }]; must_not?: unknown } };
    };
    const should = body.query.bool.filter[0].bool.should;
    expect(should.every((c) => c.terms && Object.values(c.terms)[0]!.length === 17)).toBe(true);
    expect(body.query.bool.must_not).toBeUndefined();
  });
});
