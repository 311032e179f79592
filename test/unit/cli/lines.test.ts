import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readLines, skippedBecause } from "../../../src/cli/lines.js";

async function collect(chunks: (Buffer | string)[], max?: number) {
  const out = [];
  for await (const line of readLines((async function* () {
    yield* chunks;
  })(), max)) out.push(line);
  return out;
}

describe("readLines", () => {
  it("ends a line at \\n only: a lone \\r stays in the line (readline split there), a \\r before \\n is dropped", async () => {
    const lines = await collect(["one\rstill one\r\ntwo\n", '{"text":"a",\r"id":1}\n', "last"]);
    expect(lines.map((l) => l.text)).toEqual(["one\rstill one", "two", '{"text":"a",\r"id":1}', "last"]);
    expect(lines.map((l) => l.bytes)).toEqual([15, 4, 21, 4]);
  });

  it("skips a line past the limit without holding it, and goes on (a 630 MB line was a RangeError)", async () => {
    const lines = await collect(["short\n", "x".repeat(6), "x".repeat(6), "x\n", "after\n"], 10);
    expect(lines).toEqual([
      { text: "short", bytes: 6 },
      { text: undefined, bytes: 14 },
      { text: "after", bytes: 6 },
    ]);
    expect((await collect(["x".repeat(11)], 10))[0]).toEqual({ text: undefined, bytes: 11 });
    expect((await collect(["x".repeat(10), "\n"], 10))[0]).toEqual({ text: "x".repeat(10), bytes: 11 });
  });

  it("gives no text for a line that is not UTF-8, and says so (decoded, its bad bytes all read as U+FFFD)", async () => {
    const lines = await collect([Buffer.from("ok\n"), Buffer.from([0x6e, 0x69, 0xf1, 0x6f, 0x0a]), Buffer.from("é\n")]);
    expect(lines).toEqual([{ text: "ok", bytes: 3 }, { text: undefined, bytes: 5, notUtf8: true }, { text: "é", bytes: 3 }]);
    expect(skippedBecause(lines[1]!)).toContain("not valid UTF-8");
  });

  it("gives the lines split('\\n') gives, whatever the chunks and however a character's bytes are cut", async () => {
    const text = fc.array(fc.oneof(fc.string({ unit: "grapheme" }), fc.constantFrom("\n", "\r\n", "\r", "é", "漢", "😀")), { maxLength: 30 }).map((parts) => parts.join(""));
    await fc.assert(
      fc.asyncProperty(text, fc.array(fc.nat(40), { maxLength: 6 }), async (s, cuts) => {
        const bytes = Buffer.from(s, "utf8");
        const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        const chunks = [0, ...at, bytes.length].slice(1).map((end, k, ends) => bytes.subarray(k === 0 ? 0 : ends[k - 1], end));
        const expected = s.split("\n").map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
        if (s.endsWith("\n") || s === "") expected.pop();
        if (expected[0]?.startsWith("\ufeff")) expected[0] = expected[0].slice(1);
        expect((await collect(chunks)).map((l) => l.text)).toEqual(expected);
      }),
    );
  });

  it("drops a UTF-8 byte order mark at the start only, whole or cut across chunks, and counts its bytes", async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    expect(await collect([Buffer.concat([bom, Buffer.from("a\n\ufeffb\n")])])).toEqual([
      { text: "a", bytes: 5 },
      { text: "\ufeffb", bytes: 5 },
    ]);
    expect(await collect([bom.subarray(0, 1), bom.subarray(1), "x"])).toEqual([{ text: "x", bytes: 4 }]);
    expect(await collect(["\n", "\ufeffy\n"])).toEqual([
      { text: "", bytes: 1 },
      { text: "\ufeffy", bytes: 5 },
    ]);
  });

  it("refuses a UTF-16 input with a message that says what to do", async () => {
    await expect(collect([Buffer.from([0xff, 0xfe, 0x61, 0x00])])).rejects.toThrow(/UTF-16.*convert it to UTF-8/);
    await expect(collect([Buffer.from([0xfe]), Buffer.from([0xff, 0x00, 0x61])])).rejects.toThrow(/UTF-16/); // the mark cut across chunks
    expect(await collect([Buffer.from("a")])).toEqual([{ text: "a", bytes: 1 }]);
    expect(await collect([Buffer.from("a"), Buffer.from("\nb\n")])).toEqual([{ text: "a", bytes: 2 }, { text: "b", bytes: 2 }]);
  });
});
