/**
 * What crosses the thread boundary between the pool and its workers: plain,
 * structured-clone-safe data only (no classes, no getters).
 */
import { ERROR_CODES, NeardupError } from "../core/errors.js";
import type { ErrorCode } from "../core/errors.js";
import type { AnalysisData, FingerprinterOptions } from "../core/fingerprinter.js";
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
}

/** Per text: its analysis data, or the NeardupError it raised. */
export type AnalyzeResult = ({ ok: true; data: AnalysisData } | { ok: false; error: ErrorData })[];

/** Report task: what /v1/fingerprint or /v1/compare answers (reports.ts). */
export interface ReportTask {
  kind: "report";
  job: ReportJob;
}

/** The report, or the NeardupError it raised. */
export type ReportResult = { ok: true; report: unknown } | { ok: false; error: ErrorData };

export type Task = AnalyzeTask | ReportTask;
