/**
 * An analysis as JSON, for another sidecar: a follower analyses the texts it
 * forwards to the index's lease holder, which then decides and writes them
 * without analysing them again (so more sidecars add analysis capacity).
 *
 * It carries what the write path reads: the fingerprint and its segments,
 * the keys, the counts, and the sketch's terms (their hashes and weights, as
 * base64 of the typed arrays' bytes). Not the normalized text, which the
 * receiver makes from the text it writes (a pure function of it), and not the
 * term Maps: the receiver analyses the text again in the rare case something
 * reads them (a candidate stored before contract v3).
 */
import { createHash } from "node:crypto";
import { segments as segmentsOf, toHex, type Fingerprint } from "../core/fingerprint.js";
import type { Analysis, Fingerprinter } from "../core/fingerprinter.js";
import { toHex128, type Fingerprint128 } from "../core/simhash.js";
import { codePointLength, normalizeText } from "../core/normalize.js";
import { isRecord } from "../core/record.js";
import { sheetOf } from "../core/sheet.js";
import { sketchTermsOf } from "../core/sketch.js";
import { textRefusal } from "../core/validate.js";
import { unpackAnalysis } from "./protocol.js";

export interface WireAnalysis {
  version: string;
  length: number;
  short: boolean;
  tokenCount: number;
  simhash: Fingerprint;
  /** With the `simhash128` option. */
  simhash128?: Fingerprint128;
  lsh: string[];
  lshScheme?: string;
  /** SHA-256 of the normalized text, base64: the analysis is of this text, and of no other. */
  textHash: string;
  /** The sketch's term hashes (`Uint32Array`) and weights (`Float32Array`), each as base64 of its bytes. */
  hashes: string;
  weights: string;
}

const textHash = (normalized: string) => createHash("sha256").update(normalized).digest("base64");
const base64Of = (a: Uint32Array | Float32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString("base64");

/** `a` for the wire; reads no term Map of an analysis made without them (a worker's, for the write path). */
export function toWire(a: Analysis): WireAnalysis {
  const terms = a.sketchTerms ?? sketchTermsOf(a.vector);
  const wire: WireAnalysis = {
    version: a.version,
    length: a.length,
    short: a.short,
    tokenCount: a.tokenCount,
    simhash: { hi: a.simhash.hi, lo: a.simhash.lo },
    lsh: a.lsh,
    textHash: textHash(a.normalized),
    hashes: base64Of(terms.hashes),
    weights: base64Of(terms.weights),
  };
  if (a.lshScheme !== undefined) wire.lshScheme = a.lshScheme;
  if (a.simhash128 !== undefined) wire.simhash128 = a.simhash128;
  return wire;
}

function typedFrom<T extends Uint32Array | Float32Array>(base64: unknown, make: (buffer: ArrayBuffer, n: number) => T): T | undefined {
  if (typeof base64 !== "string") return undefined;
  const bytes = Buffer.from(base64, "base64");
  if (bytes.length % 4 !== 0) return undefined;
  const copy = new ArrayBuffer(bytes.length); // aligned, and not a view of Node's shared pool
  new Uint8Array(copy).set(bytes);
  return make(copy, bytes.length / 4);
}

const isString = (v: unknown): v is string => typeof v === "string";

function fullFingerprint(f: Fingerprint128): { simhash128: Fingerprint128; hex128: string } {
  const simhash128 = { high: { hi: f.high.hi, lo: f.high.lo }, low: { hi: f.low.hi, lo: f.low.lo } };
  return { simhash128, hex128: toHex128(simhash128) };
}

const isHalf = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 0xffffffff;

/** What a fingerprinter's analyses carry beyond its version: the LSH scheme and a 128-bit simhash, learned once from a text. */
const shapes = new WeakMap<Fingerprinter, { lshScheme: string | undefined; simhash128: boolean }>();
function shapeOf(fingerprinter: Fingerprinter): { lshScheme: string | undefined; simhash128: boolean } {
  let shape = shapes.get(fingerprinter);
  if (!shape) {
    const probe = fingerprinter.analyze("neardup scheme probe");
    shape = { lshScheme: probe.lshScheme, simhash128: probe.simhash128 !== undefined };
    shapes.set(fingerprinter, shape);
  }
  return shape;
}

/**
 * The analysis of `text` from its wire form, as this sidecar's `fingerprinter` would have made it; undefined
 * when the form is malformed, of another fingerprint version (another IDF table, say), another LSH scheme or
 * short-text length, does not fit the text, or the text is one this fingerprinter refuses: the caller then
 * analyses the text itself (and refuses it).
 */
export function fromWire(value: unknown, text: string, fingerprinter: Fingerprinter): Analysis | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const w = value as Partial<Record<keyof WireAnalysis, unknown>>;
  const simhash = w.simhash as Partial<Record<keyof Fingerprint, unknown>> | null | undefined;
  const shape = shapeOf(fingerprinter);
  const simhash128 = w.simhash128 as { high?: Partial<Fingerprint>; low?: Partial<Fingerprint> } | null | undefined;
  if (
    w.version !== fingerprinter.version ||
    w.lshScheme !== shape.lshScheme ||
    (simhash128 !== undefined) !== shape.simhash128 ||
    (simhash128 !== undefined && ![simhash128?.high?.hi, simhash128?.high?.lo, simhash128?.low?.hi, simhash128?.low?.lo].every(isHalf)) ||
    !Number.isInteger(w.length) ||
    typeof w.short !== "boolean" ||
    w.short !== (w.length as number) < fingerprinter.shortTextLength ||
    !Number.isInteger(w.tokenCount) ||
    typeof simhash !== "object" ||
    simhash === null ||
    !isHalf(simhash.hi) ||
    !isHalf(simhash.lo) ||
    !Array.isArray(w.lsh) ||
    !w.lsh.every(isString)
  ) {
    return undefined;
  }
  // A text this fingerprinter refuses (longer than its NEARDUP_MAX_TEXT_CHARS, say) is refused here as ever.
  if (textRefusal(text, fingerprinter.maxTextLength, "text")) return undefined;
  const hashes = typedFrom(w.hashes, (b, n) => new Uint32Array(b, 0, n));
  const weights = typedFrom(w.weights, (b, n) => new Float32Array(b, 0, n));
  if (!hashes || !weights || hashes.length !== weights.length) return undefined;
  const { normalized, stamped } = normalizeText(text);
  if (codePointLength(normalized) !== w.length || w.textHash !== textHash(normalized)) return undefined; // made from another text
  const fingerprint = { hi: simhash.hi, lo: simhash.lo };
  const sheet = sheetOf(text);
  const data = unpackAnalysis(
    {
      data: {
        version: w.version,
        normalized,
        length: w.length as number,
        short: w.short,
        tokenCount: w.tokenCount as number,
        simhash: fingerprint,
        hex: toHex(fingerprint),
        segments: segmentsOf(fingerprint),
        lsh: w.lsh as string[],
        ...(w.lshScheme === undefined ? {} : { lshScheme: w.lshScheme as string }),
        ...(isRecord(stamped, w.length as number, text) ? { record: true as const } : {}),
        ...(sheet === undefined ? {} : { sheet }),
        ...(simhash128 ? fullFingerprint(simhash128 as Fingerprint128) : {}),
      },
      sketchTerms: { hashes, weights },
    },
    () => fingerprinter.analyze(text),
  );
  return fingerprinter.fromData(data);
}
