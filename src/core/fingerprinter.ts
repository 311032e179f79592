/**
 * The high-level API: `createFingerprinter()` once (async: loads the hash
 * module and the dictionaries), then sync `analyze` and `compare` on the hot path.
 */
import { NeardupError } from "./errors.js";
import { segments as toSegments, toHex } from "./fingerprint.js";
import type { Fingerprint } from "./fingerprint.js";
import { parseIdfDictionary } from "./idf.js";
import type { IdfTable } from "./idf.js";
import { codePointLength, normalizeText } from "./normalize.js";
import { createBigramTable } from "./bigram-table.js";
import { isRecord } from "./record.js";
import { sheetOf, type Sheet } from "./sheet.js";
import { createFeatureHasher, quantizeWeight, simhash128, simhash64, toHex128 } from "./simhash.js";
import { SimhashAccumulator } from "./simhash-accumulator.js";
import type { FeatureHasher, Fingerprint128 } from "./simhash.js";
import { addBigramFeatures, DEFAULT_SHORT_TEXT_LENGTH } from "./short-text.js";
import { createStopWords, parseStopWordList } from "./stopwords.js";
import type { StopWords } from "./stopwords.js";
import { ENGLISH_STOP_WORDS } from "./data/english-stop-words.js";
import type { SketchTerms } from "./sketch.js";
import type { SparseVector } from "./tfidf.js";
import { createTermCache } from "./term-cache.js";
import type { TermRecord } from "./term-cache.js";
import { createMixedTokenizer } from "./tokenize.js";
import type { HanSegmenter, Tokenizer } from "./tokenize.js";
import { bucketFor, decide, DEFAULT_VERDICT_OPTIONS, validateVerdictOptions } from "./verdict.js";
import type { Verdict, VerdictOptions } from "./verdict.js";
import { DEFAULT_MAX_TEXT_LENGTH, nothingVisible, validateText } from "./validate.js";
import { createLshKeyer, DEFAULT_LSH_OPTIONS, validateLshOptions } from "./lsh.js";
import { lookupBlockKeys } from "./block-keys.js";
import type { LshOptions } from "./lsh.js";

/** Version of the fingerprint algorithm (docs/fingerprint-spec.md); stored with every fingerprint. */
export const FINGERPRINT_VERSION = "nd4";

/**
 * Algorithm versions a lookup of this one also reads (spec §1.1): `nd2` only
 * adds normalization steps (markup, URL queries, traditional characters), so
 * a text without any of those has the same fingerprint in `nd1`; `nd3` only
 * adds one more (social-media decorations: links, mentions, hashtags, repost
 * markers, emoji), so a text without any has the same fingerprint in `nd2`;
 * `nd4` only adds another (log time stamps and syslog process ids), so a text
 * without any has the same fingerprint in `nd3`.
 * A window written by an older version stays found while it ages out.
 */
const COMPARABLE_VERSIONS: Record<string, readonly string[]> = { nd2: ["nd1"], nd3: ["nd2", "nd1"], nd4: ["nd3", "nd2", "nd1"] };

/** The stored versions (`neardup.version`) a lookup of `version` reads: itself, and its comparable predecessors with the same IDF table. */
export function comparableVersions(version: string): string[] {
  const plus = version.indexOf("+");
  const algorithm = plus < 0 ? version : version.slice(0, plus);
  const suffix = plus < 0 ? "" : version.slice(plus);
  return [version, ...(COMPARABLE_VERSIONS[algorithm] ?? []).map((v) => v + suffix)];
}

/**
 * The version stored with a fingerprint (`neardup.version`, spec §1.1): the
 * algorithm version alone with the bundled IDF table, or with the IDF
 * table's identity appended when another table is used (`nd4+idf.1a2b3c4d`;
 * `nd4+idf.custom` for a table without an identity). The IDF weighs every
 * feature, so fingerprints made with different tables are not comparable and
 * lookups read only the same table's versions ({@link comparableVersions}).
 */
export function analysisVersion(idf?: IdfTable): string {
  if (idf === undefined) return FINGERPRINT_VERSION;
  return `${FINGERPRINT_VERSION}+idf.${idf.identity ?? "custom"}`;
}

/** Dictionary resources; `src/resources/jieba.ts` loads the bundled ones. */
export interface CoreResources {
  /** jieba `cut(text, true)`. */
  segmentHan: HanSegmenter;
  /** Contents of an IDF dictionary in jieba's `term idf` format. */
  idfText: string;
  /** Contents of a stop-word list, one per line. */
  stopWordsText: string;
}

export interface FingerprinterOptions {
  /** Largest accepted input in UTF-16 code units. Default 1,000,000. */
  maxTextLength?: number;
  /** Texts shorter than this (code points, normalized) get char-bigram features too. Default 300. */
  shortTextLength?: number;
  /** Extra stop words, added to the bundled lists. Default none. */
  stopWords?: Iterable<string>;
  /** Use the bundled Chinese (jieba) and English stop-word lists. Default true. */
  bundledStopWords?: boolean;
  /** IDF source. Default: jieba's bundled `idf.utf8`, unknown terms at its median. */
  idf?: IdfTable;
  /** IDF given to bigram features. Default: the bundled dictionary's median IDF. */
  bigramIdf?: number;
  /** Also compute the 128-bit simhash (`simhash128`). Default false. */
  simhash128?: boolean;
  /**
   * LSH keys (`Analysis.lsh`, spec §9): `bands` MinHash band keys from
   * `bands * rows` permutations, then the word keys of short texts (§9.1), or
   * false for none. Default `{ bands: 16, rows: 3 }`.
   */
  lsh?: LshOptions | false;
  /** Verdict buckets and thresholds. Default `DEFAULT_VERDICT_OPTIONS`. */
  verdict?: VerdictOptions;
  /** Tokenizer replacing the default jieba + word-boundary one. */
  tokenizer?: Tokenizer;
  /** Preloaded resources (tests, custom dictionaries). Default: load the bundled jieba files. */
  resources?: CoreResources;
}

const OPTION_KEYS: readonly (keyof FingerprinterOptions)[] = [
  "maxTextLength", "shortTextLength", "stopWords", "bundledStopWords", "idf", "bigramIdf", "simhash128", "lsh", "verdict", "tokenizer", "resources",
];

/** Everything computed for one text. */
export interface Analysis {
  /** `analysisVersion(idf)`: `FINGERPRINT_VERSION`, plus the IDF table's identity when it is not the bundled one. */
  version: string;
  /** The normalized text (docs/fingerprint-spec.md §2). */
  normalized: string;
  /** Length of `normalized` in code points. */
  length: number;
  /** Whether the short-text feature set was used (length < shortTextLength). */
  short: boolean;
  /** Number of word tokens, stop words included (the TF denominator). */
  tokenCount: number;
  /** Word counts, stop words removed. */
  termCounts: ReadonlyMap<string, number>;
  /** TF-IDF word vector (for cosine). */
  vector: SparseVector;
  /** Simhash features: the word vector, plus bigram features for short texts (built when first read). */
  readonly features: SparseVector;
  simhash: Fingerprint;
  /** `simhash` as 16 lowercase hex characters. */
  hex: string;
  /** Four 4-char hex segments, seg0 = most significant. */
  segments: [string, string, string, string];
  /** 128-bit simhash (32 hex chars) when the `simhash128` option is on. */
  simhash128?: Fingerprint128;
  hex128?: string;
  /** MinHash LSH band keys `BB:XXXXXXXX` (spec §9), one per band, then the word keys `w:...` of a text of at most 70 code points (§9.1); [] when the `lsh` option is false. */
  lsh: string[];
  /** The LSH scheme of `lsh` (`lsh2-16x3`, core `lshSchemeOf`); absent when the `lsh` option is false. */
  lshScheme?: string;
  /**
   * Lookup-only keys (spec §9.2, "Lookup-only keys": the block keys a stored text one unit longer or shorter
   * would share with this one), when there are any: a lookup matches `lsh` and these against the stored keys
   * (`lookupKeysOf`); they are never stored, and the scheme does not include them. Absent: none, or not carried
   * (plain data, `analysisData`; another sidecar's wire form): `lookupKeysOf` makes them from `normalized`.
   */
  lookupLsh?: string[];
  /** The re-rank sketch's terms, when the thread that analysed the text built them (`sketchTermsOf(vector)`); else built from `vector` when first needed. */
  sketchTerms?: SketchTerms;
  /**
   * A log record (record.ts): the text carried a log time stamp or a syslog process id (normalization step 7
   * removed it), is one line and is shorter than `RECORD_MAX_LENGTH` once normalized. Two records are
   * duplicates only when they are the same record once normalized (verdict.ts, `recordVeto`). Absent: not a record.
   */
  record?: true;
  /**
   * A sheet of `label: value` lines (sheet.ts): its fields, hashed. Two sheets that give one label two spec
   * values are not duplicates (verdict.ts, `sheetVeto`). Absent: not a sheet.
   */
  sheet?: Sheet;
}

/**
 * An analysis as plain data: every field of `Analysis` except the lazy
 * `features` getter. Structured clone (postMessage, worker threads) keeps its
 * Maps and their order; `Fingerprinter.fromData` makes it an `Analysis` again.
 */
export type AnalysisData = Omit<Analysis, "features">;

const lookupKeyLists = new WeakMap<Pick<Analysis, "lsh">, { lsh: readonly string[]; keys: readonly string[] }>();

/**
 * The keys a lookup of `a` matches against the stored keys (`neardup.lsh`, the recent-writes window, the mirror):
 * its own keys `lsh`, then its lookup-only keys (`lookupLsh`, spec §9.2; computed from `normalized` when the
 * analysis came without them). Stored keys are `lsh` alone: `lsh` itself when there are no others, else the same
 * array for one analysis each time.
 */
export function lookupKeysOf(a: Pick<Analysis, "lsh" | "lookupLsh"> & { normalized?: string | undefined }): readonly string[] {
  if (a.lsh.length === 0) return a.lsh;
  const known = lookupKeyLists.get(a);
  if (known !== undefined && known.lsh === a.lsh) return known.keys;
  const extra = a.lookupLsh ?? (typeof a.normalized === "string" ? lookupBlockKeys(a.normalized) : []);
  if (extra.length === 0) return a.lsh;
  // A shifted block of repeated units can be one of the text's own block keys: each key once (the reach rule counts shared keys).
  const own = new Set(a.lsh);
  const keys = [...a.lsh, ...extra.filter((k) => !own.has(k))];
  lookupKeyLists.set(a, { lsh: a.lsh, keys });
  return keys;
}

/**
 * The plain-data form of an analysis (see `AnalysisData`); `features` is left out, not computed, and so are the
 * lookup-only keys `lookupLsh` (not part of the analysis's record, which the golden corpus pins: the worker
 * threads' packed form carries them beside it, protocol.ts; without them `lookupKeysOf` makes them again).
 */
export function analysisData(a: Analysis): AnalysisData {
  const data: AnalysisData = {
    version: a.version,
    normalized: a.normalized,
    length: a.length,
    short: a.short,
    tokenCount: a.tokenCount,
    termCounts: a.termCounts,
    vector: a.vector,
    simhash: { hi: a.simhash.hi, lo: a.simhash.lo },
    hex: a.hex,
    segments: a.segments,
    lsh: a.lsh,
  };
  if (a.simhash128 !== undefined) data.simhash128 = a.simhash128;
  if (a.hex128 !== undefined) data.hex128 = a.hex128;
  if (a.lshScheme !== undefined) data.lshScheme = a.lshScheme;
  if (a.sketchTerms !== undefined) data.sketchTerms = a.sketchTerms;
  if (a.record) data.record = true;
  if (a.sheet !== undefined) data.sheet = a.sheet;
  return data;
}

export interface Fingerprinter {
  readonly version: string;
  /**
   * An `Analysis` from its plain data (from another thread), with the lazy
   * `features` of this fingerprinter's options. @throws NeardupError INVALID_INPUT for another version
   */
  fromData(data: AnalysisData): Analysis;
  /** Normalizes, tokenizes, weighs and fingerprints one text. @throws NeardupError INVALID_INPUT / TOO_LARGE */
  analyze(text: string, field?: string): Analysis;
  /** Verdict for two texts or analyses. */
  compare(a: string | Analysis, b: string | Analysis): Verdict;
  /** Normalized word tokens of a text (stop words included). */
  tokenize(text: string): string[];
  /** The Hamming radius to search for a text of this length (from its verdict bucket). */
  searchRadius(length: number): number;
  readonly verdictOptions: VerdictOptions;
  readonly stopWords: StopWords;
  readonly idf: IdfTable;
  readonly shortTextLength: number;
  readonly maxTextLength: number;
}

function positiveInteger(v: unknown, field: string): number {
  if (!Number.isInteger(v) || (v as number) < 1) {
    throw new NeardupError("INVALID_CONFIG", `${field} must be a positive integer, got ${JSON.stringify(v)}`, { field });
  }
  return v as number;
}

/** Checks option names and values; @throws NeardupError INVALID_CONFIG naming the option. */
export function validateFingerprinterOptions(options: FingerprinterOptions): void {
  if (options === null || typeof options !== "object") throw new NeardupError("INVALID_CONFIG", "fingerprinter options must be an object");
  for (const k of Object.keys(options)) {
    if (!OPTION_KEYS.includes(k as keyof FingerprinterOptions)) throw new NeardupError("INVALID_CONFIG", `unknown option ${k}`, { field: k });
  }
  if (options.maxTextLength !== undefined) positiveInteger(options.maxTextLength, "maxTextLength");
  if (options.shortTextLength !== undefined && options.shortTextLength !== 0) positiveInteger(options.shortTextLength, "shortTextLength");
  if (options.bigramIdf !== undefined && !(typeof options.bigramIdf === "number" && options.bigramIdf > 0 && Number.isFinite(options.bigramIdf))) {
    throw new NeardupError("INVALID_CONFIG", `bigramIdf must be a positive number, got ${JSON.stringify(options.bigramIdf)}`, { field: "bigramIdf" });
  }
  if (options.verdict !== undefined) validateVerdictOptions(options.verdict);
  if (options.lsh !== undefined && options.lsh !== false) validateLshOptions(options.lsh);
}

/** Builds a fingerprinter from loaded resources and a hasher (sync; for callers that already have both). */
export function buildFingerprinter(options: FingerprinterOptions, resources: CoreResources, hasher: FeatureHasher): Fingerprinter {
  validateFingerprinterOptions(options);
  const maxTextLength = options.maxTextLength ?? DEFAULT_MAX_TEXT_LENGTH;
  const shortTextLength = options.shortTextLength ?? DEFAULT_SHORT_TEXT_LENGTH;
  const verdictOptions = options.verdict ?? DEFAULT_VERDICT_OPTIONS;
  const dictionary = parseIdfDictionary(resources.idfText);
  const idf = options.idf ?? dictionary;
  const bigramIdf = options.bigramIdf ?? dictionary.unknownIdf;
  const version = analysisVersion(options.idf);
  const bundled = options.bundledStopWords ?? true;
  const stopWords = createStopWords(bundled ? parseStopWordList(resources.stopWordsText) : [], bundled ? ENGLISH_STOP_WORDS : [], options.stopWords ?? []);
  const tokenizer = options.tokenizer ?? createMixedTokenizer(resources.segmentHan);
  const with128 = options.simhash128 ?? false;
  const lsh = options.lsh === false ? null : createLshKeyer(options.lsh ?? DEFAULT_LSH_OPTIONS);

  const acc = new SimhashAccumulator();
  const bigramTable = createBigramTable(hasher);
  const terms = createTermCache(stopWords, idf, hasher);
  /** The records of the current text's distinct terms, in first-occurrence order (reused). */
  let records: TermRecord[] = [];

  /**
   * `countTerms(tokens, stopWords)` and `tfidfVector(counts, tokens.length, idf)`
   * in one pass over the tokens, with each term's stop-word flag, IDF and hash
   * looked up once in the term cache; the records of the distinct terms are
   * left in `records`, in the Maps' order, for `fingerprint`.
   */
  const weigh = (tokens: readonly string[]): { termCounts: Map<string, number>; vector: Map<string, number> } => {
    const termCounts = new Map<string, number>();
    records.length = 0;
    for (const t of tokens) {
      const c = termCounts.get(t);
      if (c !== undefined) {
        termCounts.set(t, c + 1);
        continue;
      }
      const r = terms.get(t);
      if (r.stop) continue;
      termCounts.set(t, 1);
      records.push(r);
    }
    const vector = new Map<string, number>();
    const documentLength = tokens.length;
    if (documentLength > 0) {
      let k = 0;
      // Exactly tfidfVector's weight: (count / documentLength) * idf(term).
      for (const [t, c] of termCounts) vector.set(t, (c / documentLength) * records[k++]!.idf);
    }
    return { termCounts, vector };
  };

  /**
   * `simhash64(short ? addBigramFeatures(vector, ...) : vector)` without
   * building the feature Map: words straight from the vector (their hashes from
   * `records`, parallel to it), bigrams through the typed-array table. Falls
   * back to the Map path for what the table does not handle, and when a word
   * starts with a space (it could collide with a bigram key, which the Map
   * path resolves by overwriting).
   */
  const fingerprint = (vector: SparseVector, normalized: string, short: boolean): Fingerprint => {
    acc.reset();
    let spaced = false;
    let k = 0;
    for (const [term, w] of vector) {
      const r = records[k++]!;
      if (term.charCodeAt(0) === 0x20) spaced = true;
      const q = quantizeWeight(w);
      if (q !== 0) acc.add(r.hi, r.lo, q);
    }
    if (!short) return acc.result();
    if (!spaced && bigramTable.addBigrams(acc, normalized, bigramIdf)) return acc.result();
    return simhash64(addBigramFeatures(vector, normalized, bigramIdf), hasher);
  };

  /**
   * `data` with the `features` getter: built on first read (the fingerprint does not need the Map).
   * `termCounts` and `vector` are read from `d` when first read, so that data whose Maps are built
   * on demand (an analysis from a worker thread) builds them only if something needs them.
   */
  const withFeatures = (d: AnalysisData): Analysis => {
    let features: SparseVector | undefined;
    const a: Analysis = {
      version: d.version,
      normalized: d.normalized,
      length: d.length,
      short: d.short,
      tokenCount: d.tokenCount,
      get termCounts(): ReadonlyMap<string, number> {
        return d.termCounts;
      },
      get vector(): SparseVector {
        return d.vector;
      },
      get features(): SparseVector {
        features ??= d.short ? addBigramFeatures(d.vector, d.normalized, bigramIdf) : d.vector;
        return features;
      },
      simhash: d.simhash,
      hex: d.hex,
      segments: d.segments,
      lsh: d.lsh,
    };
    if (d.simhash128 !== undefined) a.simhash128 = d.simhash128;
    if (d.hex128 !== undefined) a.hex128 = d.hex128;
    if (d.lshScheme !== undefined) a.lshScheme = d.lshScheme;
    if (d.lookupLsh !== undefined) a.lookupLsh = d.lookupLsh;
    if (d.sketchTerms !== undefined) a.sketchTerms = d.sketchTerms;
    if (d.record) a.record = true;
    if (d.sheet !== undefined) a.sheet = d.sheet;
    return a;
  };

  const analyze = (text: string, field = "text"): Analysis => {
    validateText(text, maxTextLength, field);
    const { normalized, stamped } = normalizeText(text);
    if (normalized === "") throw nothingVisible(field);
    const length = codePointLength(normalized);
    const tokens = tokenizer.tokenize(normalized);
    const { termCounts, vector } = weigh(tokens);
    const short = length < shortTextLength;
    const simhash = fingerprint(vector, normalized, short);
    if (records.length > 4096) records = []; // do not keep a huge text's records alive
    const analysis = withFeatures({
      version,
      normalized,
      length,
      short,
      tokenCount: tokens.length,
      termCounts,
      vector,
      simhash,
      hex: toHex(simhash),
      segments: toSegments(simhash),
      lsh: lsh === null ? [] : lsh.keys(normalized),
    });
    if (lsh !== null) {
      analysis.lshScheme = lsh.scheme;
      if (analysis.lsh.length > 0) {
        const lookup = lsh.lookupKeys(normalized);
        if (lookup.length > 0) analysis.lookupLsh = lookup;
      }
    }
    if (isRecord(stamped, length, text)) analysis.record = true;
    const sheet = sheetOf(text);
    if (sheet !== undefined) analysis.sheet = sheet;
    if (with128) {
      analysis.simhash128 = simhash128(analysis.features, hasher);
      analysis.hex128 = toHex128(analysis.simhash128);
    }
    return analysis;
  };

  return {
    version,
    analyze,
    fromData(data) {
      if (data.version !== version) {
        throw new NeardupError("INVALID_INPUT", `analysis has fingerprint version ${JSON.stringify(data.version)}, expected ${version}`, { field: "version" });
      }
      return withFeatures(data);
    },
    compare(a, b) {
      const x = typeof a === "string" ? analyze(a, "a") : a;
      const y = typeof b === "string" ? analyze(b, "b") : b;
      return decide(x, y, verdictOptions);
    },
    tokenize(text) {
      validateText(text, maxTextLength);
      return tokenizer.tokenize(normalizeText(text).normalized);
    },
    searchRadius(length) {
      return bucketFor(verdictOptions, length).searchRadius;
    },
    verdictOptions,
    stopWords,
    idf,
    shortTextLength,
    maxTextLength,
  };
}

/**
 * Creates a fingerprinter: validates options (unknown option -> INVALID_CONFIG),
 * loads the XXH64 module and, unless `options.resources` is given, the bundled
 * jieba dictionaries. Create one per process and reuse it.
 */
export async function createFingerprinter(options: FingerprinterOptions = {}): Promise<Fingerprinter> {
  validateFingerprinterOptions(options);
  const hasher = await createFeatureHasher();
  // The bundled files are read outside core (src/resources); imported lazily so
  // callers that pass their own resources never load jieba.
  const resources = options.resources ?? (await (await import("../resources/jieba.js")).loadJiebaResources());
  return buildFingerprinter(options, resources, hasher);
}
