/**
 * What crosses the thread boundary between the pool and its workers: plain,
 * structured-clone-safe data only (no classes, no getters).
 */
import { ERROR_CODES, NeardupError } from "../core/errors.js";
import type { ErrorCode } from "../core/errors.js";
import { analysisData, type Analysis, type AnalysisData, type FingerprinterOptions } from "../core/fingerprinter.js";
import { sketchTermsOf, type SketchTerms } from "../core/sketch.js";
import { CorpusIdf } from "../core/idf.js";
import type { CorpusIdfJson } from "../core/idf.js";
import type { LshOptions } from "../core/lsh.js";
import type { VerdictOptions } from "../core/verdict.js";
import type { ReportJob } from "./reports.js";

/**
 * Fingerprinter options a worker can rebuild: the data-only subset of
 * `FingerprinterOptions`, and a corpus IDF table (NEARDUP_IDF_FILE) as its
 * JSON. A custom tokenizer, resources or another kind of IDF table are
 * objects with code and cannot be sent to another thread.
 */
export interface PortableFingerprinterOptions {
  /** A `CorpusIdf` as `toJSON()`; the worker rebuilds it with `CorpusIdf.fromJSON`. */
  corpusIdf?: CorpusIdfJson;
  maxTextLength?: number;
  shortTextLength?: number;
  stopWords?: string[];
  bundledStopWords?: boolean;
  bigramIdf?: number;
  simhash128?: boolean;
  lsh?: LshOptions | false;
  verdict?: VerdictOptions;
}

const PORTABLE_KEYS = ["maxTextLength", "shortTextLength", "stopWords", "bundledStopWords", "bigramIdf", "simhash128", "lsh", "verdict"] as const;

/**
 * The portable form of `options`. @throws NeardupError INVALID_CONFIG naming an
 * option that cannot cross to a worker (tokenizer, resources, an IDF table that is not a `CorpusIdf`).
 */
export function portableOptions(options: FingerprinterOptions): PortableFingerprinterOptions {
  const out: PortableFingerprinterOptions = {};
  for (const k of Object.keys(options)) {
    if (k === "idf" && options.idf instanceof CorpusIdf) {
      out.corpusIdf = options.idf.toJSON();
      continue;
    }
    if (k === "idf" && options.idf === undefined) continue;
    if (!(PORTABLE_KEYS as readonly string[]).includes(k)) {
      throw new NeardupError("INVALID_CONFIG", `fingerprinter option ${k} cannot be used with worker threads (use 0 or 1 workers)`, { field: k });
    }
  }
  for (const k of PORTABLE_KEYS) {
    const v = options[k];
    if (v === undefined) continue;
    if (k === "stopWords") out.stopWords = [...(v as Iterable<string>)];
    else (out as Record<string, unknown>)[k] = v;
  }
  return out;
}

/** A NeardupError as plain data. */
export interface ErrorData {
  code: ErrorCode;
  message: string;
  field?: string;
  details?: Record<string, unknown>;
}

export function errorData(e: NeardupError): ErrorData {
  const d: ErrorData = { code: e.code, message: e.message };
  if (e.field !== undefined) d.field = e.field;
  if (e.details !== undefined) d.details = e.details;
  return d;
}

/** The NeardupError again: same code, message, field and details. */
export function fromErrorData(d: ErrorData): NeardupError {
  const code: ErrorCode = d.code in ERROR_CODES ? d.code : "ENVIRONMENT";
  const options: { field?: string; details?: Record<string, unknown> } = {};
  if (d.field !== undefined) options.field = d.field;
  if (d.details !== undefined) options.details = d.details;
  return new NeardupError(code, d.message, options);
}

/** The fingerprinter options again, as the worker builds its fingerprinter with them. */
export function fromPortableOptions(p: PortableFingerprinterOptions): FingerprinterOptions {
  const { corpusIdf, ...rest } = p;
  return corpusIdf === undefined ? rest : { ...rest, idf: CorpusIdf.fromJSON(corpusIdf) };
}

/** Analysis task: texts and their fields, in order. */
export interface AnalyzeTask {
  kind: "analyze";
  texts: string[];
  fields: (string | undefined)[];
  /** Send `termCounts` and `vector` back (default true); false when the caller reads neither (see `AnalyzeOptions`). */
  vectors?: boolean;
}

/**
 * An analysis as a worker sends it back. Structured clone copies a Map by
 * calling into JavaScript once per entry, and `termCounts` and `vector` hold
 * the same terms: here the terms go once, as a list, with two parallel
 * number arrays; and the sketch's terms, built in the worker, go as typed
 * arrays. The receiving thread builds the Maps only if something reads them
 * (the write path does not: it needs the sketch, the simhash and the keys).
 */
export interface PackedAnalysis {
  data: Omit<AnalysisData, "termCounts" | "vector" | "sketchTerms">;
  /** `termCounts` and `vector`, unless the task asked for no vectors. */
  vectors?: PackedVectors;
  sketchTerms: SketchTerms;
  /** The lookup-only keys (`Analysis.lookupLsh`, spec §9.2), which `analysisData` leaves out: made in the worker, not again here. */
  lookupLsh?: string[];
}

/** The two Maps of an analysis as one list of terms and parallel numbers. */
export interface PackedVectors {
  /** Keys of `termCounts`, in order. */
  terms: string[];
  counts: Float64Array;
  /** Keys of `vector` when they are not `terms` (the built-in weighing makes them the same). */
  vectorTerms?: string[];
  weights: Float64Array;
}

function sameKeys(a: ReadonlyMap<string, number>, terms: readonly string[]): boolean {
  if (a.size !== terms.length) return false;
  let i = 0;
  for (const k of a.keys()) if (k !== terms[i++]) return false;
  return true;
}

/** An analysis packed for another thread (see `PackedAnalysis`); without `termCounts` and `vector` when `vectors` is false. */
export function packAnalysis(a: Analysis, vectors = true): PackedAnalysis {
  const { termCounts, vector, sketchTerms, ...data } = analysisData(a); // never reads the lazy `features`
  const packed: PackedAnalysis = { data, sketchTerms: sketchTerms ?? sketchTermsOf(vector) };
  if (a.lookupLsh !== undefined) packed.lookupLsh = a.lookupLsh;
  if (!vectors) return packed;
  const terms = [...termCounts.keys()];
  packed.vectors = { terms, counts: Float64Array.from(termCounts.values()), weights: Float64Array.from(vector.values()) };
  if (!sameKeys(vector, terms)) packed.vectors.vectorTerms = [...vector.keys()];
  return packed;
}

function toMap(keys: readonly string[], values: Float64Array): Map<string, number> {
  const map = new Map<string, number>();
  for (let i = 0; i < keys.length; i++) map.set(keys[i]!, values[i]!);
  return map;
}

/**
 * The analysis data again, for `Fingerprinter.fromData`: `termCounts` and
 * `vector` are built when first read, from the packed vectors or, when they
 * were not sent, from `again()` (the same text analysed in this thread: the
 * same Maps, at the price of the analysis).
 */
export function unpackAnalysis(p: PackedAnalysis, again?: () => Analysis): AnalysisData {
  let termCounts: ReadonlyMap<string, number> | undefined;
  let vector: ReadonlyMap<string, number> | undefined;
  const v = p.vectors;
  const redo = (): Analysis => {
    if (!again) throw new Error("the analysis was packed without vectors and cannot be analysed again here");
    const a = again();
    termCounts ??= a.termCounts;
    vector ??= a.vector;
    return a;
  };
  return {
    ...p.data,
    get termCounts(): ReadonlyMap<string, number> {
      return (termCounts ??= v ? toMap(v.terms, v.counts) : redo().termCounts);
    },
    get vector(): ReadonlyMap<string, number> {
      return (vector ??= v ? toMap(v.vectorTerms ?? v.terms, v.weights) : redo().vector);
    },
    sketchTerms: p.sketchTerms,
    ...(p.lookupLsh === undefined ? {} : { lookupLsh: p.lookupLsh }),
  };
}

/** Per text: its packed analysis, or the NeardupError it raised. */
export type AnalyzeResult = ({ ok: true; packed: PackedAnalysis } | { ok: false; error: ErrorData })[];

/** Report task: what /v1/fingerprint or /v1/compare answers (reports.ts). */
export interface ReportTask {
  kind: "report";
  job: ReportJob;
}

/** The report, or the NeardupError it raised. */
export type ReportResult = { ok: true; report: unknown } | { ok: false; error: ErrorData };

export type Task = AnalyzeTask | ReportTask;
