/**
 * The index file format, version 1 (all numbers little-endian):
 *
 *   offset 0   8 bytes  magic "NDUPINDX"
 *          8   u32      format version (1)
 *         12   u32      flags (0)
 *         16   f64      entry count
 *         24   f64      total file length in bytes
 *         32   records, `count` times, in insertion order:
 *                u32 hi, u32 lo, f64 time, u32 id length in bytes, UTF-8 id
 *   length-4   u32      CRC-32 (zlib polynomial) of every byte before it
 *
 * The length in the header tells truncation apart from corruption; the
 * checksum is verified over the whole file before any record is parsed, so a
 * damaged file never yields a partial index. Writes go to a temporary file
 * renamed into place, so a crash mid-write leaves the previous file intact.
 */
import { closeSync, fstatSync, openSync, readSync, renameSync, rmSync, writeSync } from "node:fs";
import { crc32 } from "node:zlib";
import { NeardupError } from "../core/errors.js";

const MAGIC = Buffer.from("NDUPINDX", "latin1");
export const INDEX_FORMAT_VERSION = 1;
const HEADER_BYTES = 32;
const RECORD_FIXED = 20;
const TRAILER_BYTES = 4;
const MAX_ID_BYTES = 1 << 20;
const IO_BYTES = 1 << 22;

export type EmitEntry = (hi: number, lo: number, time: number, id: string) => void;

function corrupt(path: string, what: string, cause?: unknown): NeardupError {
  return new NeardupError("CORRUPT_FILE", `index file ${path}: ${what}`, { field: "path", cause, details: { path } });
}

/** Writes `count` entries produced by `forEach` (called twice: once to size the file, once to write it). */
export function writeIndexFile(path: string, count: number, forEach: (emit: EmitEntry) => void): void {
  let total = HEADER_BYTES + TRAILER_BYTES;
  forEach((_hi, _lo, _time, id) => {
    total += RECORD_FIXED + Buffer.byteLength(id, "utf8");
  });
  const tmp = `${path}.tmp-${process.pid}`;
  const fd = openSync(tmp, "w");
  try {
    const buf = Buffer.allocUnsafe(IO_BYTES);
    let used = 0;
    let crc = 0;
    const flush = (): void => {
      crc = crc32(buf.subarray(0, used), crc);
      let off = 0;
      while (off < used) off += writeSync(fd, buf, off, used - off);
      used = 0;
    };
    MAGIC.copy(buf, 0);
    buf.writeUInt32LE(INDEX_FORMAT_VERSION, 8);
    buf.writeUInt32LE(0, 12);
    buf.writeDoubleLE(count, 16);
    buf.writeDoubleLE(total, 24);
    used = HEADER_BYTES;
    let written = 0;
    forEach((hi, lo, time, id) => {
      if (used + RECORD_FIXED + id.length * 3 > IO_BYTES) flush();
      buf.writeUInt32LE(hi, used);
      buf.writeUInt32LE(lo, used + 4);
      buf.writeDoubleLE(time, used + 8);
      const n = buf.write(id, used + RECORD_FIXED, "utf8");
      buf.writeUInt32LE(n, used + 16);
      used += RECORD_FIXED + n;
      written++;
    });
    if (written !== count) throw new Error(`writeIndexFile: expected ${count} entries, got ${written}`);
    flush();
    buf.writeUInt32LE(crc, 0);
    used = TRAILER_BYTES;
    let off = 0;
    while (off < used) off += writeSync(fd, buf, off, used - off);
    closeSync(fd);
    renameSync(tmp, path);
  } catch (err) {
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
    rmSync(tmp, { force: true });
    throw err;
  }
}

function readFully(fd: number, buf: Buffer, length: number, position: number): number {
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buf, got, length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return got;
}

/** Verifies and parses an index file, calling `onEntry` for each record in order. */
export function readIndexFile(path: string, onEntry: EmitEntry): void {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new NeardupError("NOT_FOUND", `index file ${path} does not exist`, { field: "path", cause: err });
    throw err;
  }
  try {
    const size = fstatSync(fd).size;
    const buf = Buffer.allocUnsafe(IO_BYTES);
    const head = readFully(fd, buf, HEADER_BYTES, 0);
    if (head < MAGIC.length || !buf.subarray(0, MAGIC.length).equals(MAGIC)) {
      throw corrupt(path, `not a neardup index file (expected magic "NDUPINDX")`);
    }
    if (head < HEADER_BYTES) throw corrupt(path, `truncated: ${size} bytes, shorter than the ${HEADER_BYTES}-byte header`);
    const version = buf.readUInt32LE(8);
    if (version !== INDEX_FORMAT_VERSION) {
      throw corrupt(path, `unsupported format version ${version} (this build reads version ${INDEX_FORMAT_VERSION})`);
    }
    const count = buf.readDoubleLE(16);
    const total = buf.readDoubleLE(24);
    if (!Number.isSafeInteger(count) || count < 0 || !Number.isSafeInteger(total) || total < HEADER_BYTES + TRAILER_BYTES) {
      throw corrupt(path, `bad header (count ${count}, length ${total})`);
    }
    if (size < total) throw corrupt(path, `truncated: the header says ${total} bytes, the file has ${size}`);
    if (size > total) throw corrupt(path, `${size - total} unexpected bytes after the end (the header says ${total} bytes)`);

    // Pass 1: checksum over everything but the trailer.
    const body = size - TRAILER_BYTES;
    let crc = 0;
    for (let pos = 0; pos < body; ) {
      const n = readFully(fd, buf, Math.min(IO_BYTES, body - pos), pos);
      if (n === 0) throw corrupt(path, `truncated while reading at offset ${pos}`);
      crc = crc32(buf.subarray(0, n), crc);
      pos += n;
    }
    readFully(fd, buf, TRAILER_BYTES, body);
    const stored = buf.readUInt32LE(0);
    if (stored !== crc >>> 0) {
      throw corrupt(path, `checksum mismatch (stored ${stored.toString(16)}, computed ${(crc >>> 0).toString(16)}): the file is damaged`);
    }

    // Pass 2: parse records through a sliding buffer.
    let pos = HEADER_BYTES;
    let start = 0;
    let end = 0;
    const ensure = (n: number): void => {
      if (end - start >= n) return;
      buf.copy(buf, 0, start, end);
      end -= start;
      start = 0;
      const want = Math.min(IO_BYTES - end, body - (pos + end));
      if (want > 0) end += readFully(fd, buf.subarray(end), want, pos + end);
      if (end < n) throw corrupt(path, `record runs past the end of the data at offset ${pos}`);
    };
    for (let i = 0; i < count; i++) {
      ensure(RECORD_FIXED);
      const hi = buf.readUInt32LE(start);
      const lo = buf.readUInt32LE(start + 4);
      const time = buf.readDoubleLE(start + 8);
      const len = buf.readUInt32LE(start + 16);
      if (len === 0 || len > MAX_ID_BYTES) throw corrupt(path, `record ${i} at offset ${pos} has an id of ${len} bytes`);
      start += RECORD_FIXED;
      pos += RECORD_FIXED;
      ensure(len);
      const id = buf.toString("utf8", start, start + len);
      start += len;
      pos += len;
      try {
        onEntry(hi, lo, time, id);
      } catch (err) {
        throw corrupt(path, `record ${i} at offset ${pos - len - RECORD_FIXED} is invalid: ${(err as Error).message}`, err);
      }
    }
    if (pos !== body) throw corrupt(path, `${body - pos} bytes left over after ${count} records`);
  } finally {
    closeSync(fd);
  }
}
