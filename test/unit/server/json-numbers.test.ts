// Numbers JSON.parse would alter on their way to the engine are found, with where they are.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { findLossyNumber, findLossyNumberIn, isLossy, lossyMessage } from "../../../src/server/json-numbers.js";

/** The oracle, for integers under 1e20 (JSON.stringify writes them without an exponent): the literal it writes is another integer. */
function altered(literal: string): boolean {
  return BigInt(literal) !== BigInt(JSON.stringify(Number(literal)));
}

describe("lossy JSON numbers", () => {
  it("an integer literal is lossy exactly when its double is another integer; past the double range anything is", () => {
    expect(isLossy("9007199254740992")).toBe(false); // 2^53, exact
    expect(isLossy("9007199254740993")).toBe(true);
    expect(isLossy("-9007199254740993")).toBe(true);
    expect(isLossy("18446744073709551616")).toBe(true); // 2^64 is a double, but written 18446744073709552000
    expect(isLossy("18446744073709552000")).toBe(false); // as JSON.stringify writes it
    expect(isLossy("291351943332284200")).toBe(false);
    expect(isLossy("1000000000000000000000")).toBe(false); // written 1e+21: the same value
    expect(isLossy("1000000000000000000001")).toBe(true);
    expect(isLossy("123456789012345678901234567890")).toBe(true);
    expect(isLossy("0.1")).toBe(false);
    expect(isLossy("1e308")).toBe(false);
    expect(isLossy("1e309")).toBe(true);
    expect(isLossy("1" + "0".repeat(400))).toBe(true);
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 20n) + 1n, max: 10n ** 20n - 1n }), (n) => {
        expect(isLossy(String(n))).toBe(altered(String(n)));
      }),
      { numRuns: 2000 },
    );
  });

  it("names the path of the first lossy number, through strings that look like numbers and escaped keys", () => {
    const body = JSON.stringify({ text: "call 90071992547409931234 now", n: 1 }).replace('"n":1', '"n":1,"f":{"a\\"b":[0,{"c":9007199254740993}]}');
    expect(findLossyNumber(body)).toEqual({ path: 'f["a\\"b"][1].c', literal: "9007199254740993" });
    expect(findLossyNumber('[{"x":1},{"x":[1,2,99999999999999999999]}]', "items")).toEqual({ path: "items[1].x[2]", literal: "99999999999999999999" });
    expect(findLossyNumber("12345678901234567890")).toEqual({ path: "body", literal: "12345678901234567890" });
    expect(findLossyNumber('{"text":"12345678901234567890","e":"1e999"}')).toBeUndefined();
    expect(findLossyNumber('{"n":9007199254740992,"m":1.5e300,"t":true,"z":null}')).toBeUndefined();
    expect(findLossyNumberIn(Buffer.from('{"名前":{"値":123456789012345678}}'))).toEqual({ path: "名前.値", literal: "123456789012345678" });
  });

  it("finds a lossy number wherever it is in any JSON value, and nothing in one that has none", () => {
    const big = fc.bigInt({ min: 2n ** 53n + 1n, max: 10n ** 20n - 1n }).filter((n) => altered(String(n)));
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), big, fc.nat(), (value, n, seed) => {
        const text = JSON.stringify(value);
        expect(findLossyNumber(text)).toBeUndefined(); // JSON.stringify writes only numbers that survive
        // Put the big number in place of one value of the text: the first number, or as a new member of a top-level array.
        const withBig = Array.isArray(value) ? JSON.stringify([...value.slice(0, seed % (value.length + 1)), 0]).replace(/,?0\]$/, (m) => m.replace("0", String(n))) : `[${text},${n}]`;
        expect(findLossyNumber(withBig)?.literal).toBe(String(n));
      }),
      { numRuns: 500 },
    );
  });

  it("advises sending a string only for fields values; limit, radius, min_similarity and time get their range (audit 22a, F5: a string was then refused)", () => {
    const advice = /send it as a string/;
    for (const path of ["fields.order_id", "items[3].fields.n[0]", "[1].fields.a", 'fields["a b"]', "fields"]) expect(lossyMessage({ path, literal: "9007199254740993" })).toMatch(advice);
    expect(lossyMessage({ path: "limit", literal: "9007199254740993" })).toBe("limit must be an integer from 1 to 1000, got 9007199254740993");
    expect(lossyMessage({ path: "radius", literal: "1e400" })).toBe("radius must be an integer from 0 to 16, got 1e400");
    expect(lossyMessage({ path: "min_similarity", literal: "1e400" })).toBe("min_similarity must be a number from 0 to 1, got 1e400");
    expect(lossyMessage({ path: "items[2].time", literal: "1e400" })).toMatch(/^items\[2\]\.time must be an ISO-8601 date or epoch milliseconds \(a JSON number\) from 0 to 253402300799999 \(9999-12-31T23:59:59\.999Z\), got 1e400$/);
    // Anywhere else: what is wrong with the number, and no advice that does not fit (a string text is a text).
    for (const path of ["text", "constructor", "items[1].text", "body", "a.limit"]) {
      expect(lossyMessage({ path, literal: "1e400" })).toMatch(new RegExp(`^${path.replace(/[[\].]/g, "\\$&")} is 1e400, a number JSON cannot carry without changing it`));
      expect(lossyMessage({ path, literal: "1e400" })).not.toMatch(advice);
    }
  });
});
