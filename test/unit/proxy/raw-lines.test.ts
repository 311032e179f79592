// Lines of a _bulk body that are not UTF-8 are held under placeholders and given back, byte for byte, when written.
import { describe, expect, it } from "vitest";
import { holdInvalidLines, ndjsonBytes } from "../../../src/proxy/raw-lines.js";

/** The bytes `ndjsonBytes` sends for one line, without its newline. */
const lineBytes = (line: string): Buffer => ndjsonBytes([line]).subarray(0, -1);

describe("raw lines (a _bulk body that is not all UTF-8)", () => {
  it("is nothing to hold for a UTF-8 body", () => {
    expect(holdInvalidLines(Buffer.from('{"index":{}}\n{"message":"café"}\n'))).toBeUndefined();
  });

  it("holds each invalid line under a placeholder, keeps the valid ones as text, and gives the bytes back until released", () => {
    const bad1 = Buffer.concat([Buffer.from('{"message":"caf'), Buffer.from([0xe9]), Buffer.from('"}\r')]);
    const bad2 = Buffer.from([0xff, 0xfe, 0x41]);
    const body = Buffer.concat([Buffer.from('{"index":{}}\n'), bad1, Buffer.from('\n{"index":{}}\n'), bad2, Buffer.from('\n{"index":{}}\n{"message":"ok"}\n')]);
    const held = holdInvalidLines(body)!;
    expect(held.lines).toBe(2);
    const lines = held.text.split("\n");
    expect(lines).toHaveLength(7);
    expect([lines[0], lines[2], lines[4], lines[5], lines[6]]).toEqual(['{"index":{}}', '{"index":{}}', '{"index":{}}', '{"message":"ok"}', ""]);
    // The placeholders are never JSON (a NUL first), and differ.
    expect(lines[1]!.charCodeAt(0)).toBe(0);
    expect(lines[3]).not.toBe(lines[1]);
    expect(() => JSON.parse(lines[1]!)).toThrow();
    expect(lineBytes(lines[1]!).equals(bad1)).toBe(true);
    expect(lineBytes(lines[3]!).equals(bad2)).toBe(true);
    expect(lineBytes('{"message":"ok"}').equals(Buffer.from('{"message":"ok"}'))).toBe(true);
    // The whole body, lines held and not, comes back byte for byte.
    expect(ndjsonBytes(lines.slice(0, -1)).equals(body)).toBe(true);
    held.release();
    // Released: a placeholder is just its own text (never sent: the request is over).
    expect(lineBytes(lines[1]!).equals(bad1)).toBe(false);
  });

  it("gives two requests' placeholders apart", () => {
    const body = Buffer.concat([Buffer.from([0xe9]), Buffer.from("\n")]);
    const [a, b] = [holdInvalidLines(body)!, holdInvalidLines(Buffer.concat([Buffer.from([0xe8]), Buffer.from("\n")]))!];
    const [la, lb] = [a.text.split("\n")[0]!, b.text.split("\n")[0]!];
    expect(la).not.toBe(lb);
    expect(lineBytes(la)[0]).toBe(0xe9);
    expect(lineBytes(lb)[0]).toBe(0xe8);
    a.release();
    b.release();
  });
});
