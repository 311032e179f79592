// save/load round trip and refusal of damaged files.
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync, appendFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { NeardupError } from "../../../src/core/errors.js";
import { SegmentIndex } from "../../../src/index/index.js";
import { flipBits, randomFingerprint, rng } from "./random.js";

const dir = mkdtempSync(join(tmpdir(), "neardup-index-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function sample(): SegmentIndex {
  const next = rng(5);
  const index = new SegmentIndex();
  for (let i = 0; i < 3000; i++) {
    const fp = randomFingerprint(next);
    index.insert(i % 3 === 0 ? `文档-${i}` : `doc-${i}`, fp, 1_700_000_000 + i * 0.5);
    if (i % 100 === 0) index.insert(`dup-${i}`, flipBits(fp, 3, next), 1_700_000_000 + i * 0.5);
  }
  index.remove("doc-1");
  index.expireBefore(1_700_000_010);
  return index;
}

function expectRefused(path: string, message: string | RegExp): void {
  let error: unknown;
  try {
    SegmentIndex.load(path);
  } catch (err) {
    error = err;
  }
  expect(error).toBeInstanceOf(NeardupError);
  expect((error as NeardupError).code).toBe("CORRUPT_FILE");
  expect((error as NeardupError).message).toMatch(message);
}

describe("save / load", () => {
  const path = join(dir, "index.ndx");
  const original = sample();
  original.save(path);

  it("round-trips every entry, time and lookup", () => {
    const loaded = SegmentIndex.load(path);
    expect(loaded.size).toBe(original.size);
    expect(loaded.entries()).toEqual(original.entries());
    for (const e of original.entries().slice(0, 200)) {
      expect(loaded.lookup(e.fingerprint, 5)).toEqual(original.lookup(e.fingerprint, 5));
    }
  });

  it("round-trips an empty index", () => {
    const p = join(dir, "empty.ndx");
    new SegmentIndex().save(p);
    expect(SegmentIndex.load(p).size).toBe(0);
  });

  it("refuses a file with one flipped byte (checksum)", () => {
    const p = join(dir, "flipped.ndx");
    const bytes = readFileSync(path);
    bytes[1000] = bytes[1000]! ^ 0x40;
    writeFileSync(p, bytes);
    expectRefused(p, /checksum mismatch/);
  });

  it("refuses a truncated file, naming the expected and actual length", () => {
    const p = join(dir, "truncated.ndx");
    writeFileSync(p, readFileSync(path));
    truncateSync(p, 5000);
    expectRefused(p, /truncated: the header says \d+ bytes, the file has 5000/);
    truncateSync(p, 10);
    expectRefused(p, /truncated/);
  });

  it("refuses trailing bytes, a wrong magic and an unknown version", () => {
    const trailing = join(dir, "trailing.ndx");
    writeFileSync(trailing, readFileSync(path));
    appendFileSync(trailing, "x");
    expectRefused(trailing, /1 unexpected bytes after the end/);

    const magic = join(dir, "magic.ndx");
    writeFileSync(magic, '{"not": "an index"}\n');
    expectRefused(magic, /not a neardup index file/);

    const version = join(dir, "version.ndx");
    const bytes = readFileSync(path);
    bytes.writeUInt32LE(99, 8);
    writeFileSync(version, bytes);
    expectRefused(version, /unsupported format version 99 \(this build reads version 1\)/);
  });

  it("an empty file is refused, a missing one is NOT_FOUND", () => {
    const p = join(dir, "zero.ndx");
    writeFileSync(p, "");
    expectRefused(p, /not a neardup index file/);
    expect(() => SegmentIndex.load(join(dir, "missing.ndx"))).toThrow(/does not exist/);
  });
});
