/**
 * Inverse document frequency tables (spec §5).
 *
 * Two sources share one interface:
 *  - the dictionary table bundled with jieba (`idf.utf8`: `term idf` per line,
 *    natural-log IDF values). Unknown terms get the median IDF of the table,
 *    the rule jieba's own keyword extractor uses: an unseen word is treated as
 *    an ordinary word, neither a stop word nor a rare one.
 *  - a corpus table fit from the user's documents: N documents and, per term,
 *    the number of documents containing it (df). IDF is the smoothed
 *    `ln((1 + N) / (1 + df)) + 1` (scikit-learn's `smooth_idf=True`): as if one
 *    extra document contained every term, so no division by zero and every
 *    IDF >= 1. An unknown term has df = 0, so it gets the largest IDF,
 *    `ln(1 + N) + 1`: in a corpus, an unseen word is the rarest kind.
 */
import { NeardupError } from "./errors.js";
import { hasChineseVariant } from "./chinese-variants.js";
import { normalize } from "./normalize.js";

export interface IdfTable {
  /** IDF of a normalized term; never throws, unknown terms follow the table's rule. */
  idf(term: string): number;
  /**
   * What the table is, for the fingerprint version (`nd4+idf.<identity>`):
   * 8 lowercase hex characters of a hash of its content. Tables without one
   * are named `custom` in the version.
   */
  readonly identity?: string;
}

/**
 * FNV-1a (32-bit) of a string's UTF-16 code units, as 8 lowercase hex
 * characters: a content hash for table identities (not for security).
 */
export function fnv1a32Hex(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, "0");
}

/** A fixed term -> IDF table with one value for unknown terms. */
export interface DictionaryIdf extends IdfTable {
  readonly size: number;
  /** The IDF given to terms not in the table (default: the median). */
  readonly unknownIdf: number;
}

/** Median of a non-empty list (mean of the two middle values for even lengths). */
export function median(values: number[]): number {
  const s = Float64Array.from(values).sort();
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/**
 * Parses jieba's `idf.utf8` format (`term<space>idf` per line). Terms are
 * normalized; if two lines normalize to one term the first wins.
 *
 * @throws NeardupError CORRUPT_FILE naming the first malformed line.
 */
export function parseIdfDictionary(content: string, unknownIdf?: number): DictionaryIdf {
  const table = new Map<string, number>();
  /** Terms set by a line written in traditional characters: a line of the term as written (simplified) takes over. */
  const folded = new Set<string>();
  const values: number[] = [];
  const lines = content.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === "") continue;
    const sp = line.lastIndexOf(" ");
    const value = sp > 0 ? Number(line.slice(sp + 1)) : NaN;
    if (!Number.isFinite(value) || value < 0) {
      throw new NeardupError("CORRUPT_FILE", `IDF dictionary line ${i + 1} must be "term idf", got ${JSON.stringify(line.slice(0, 80))}`);
    }
    const written = line.slice(0, sp);
    const term = normalize(written);
    const variant = hasChineseVariant(written);
    if (!table.has(term) || (folded.has(term) && !variant)) {
      table.set(term, value);
      if (variant) folded.add(term);
      else folded.delete(term);
    }
    values.push(value);
  }
  if (table.size === 0) throw new NeardupError("CORRUPT_FILE", "IDF dictionary has no entries");
  const unknown = unknownIdf ?? median(values);
  return {
    size: table.size,
    unknownIdf: unknown,
    idf: (term) => table.get(term) ?? unknown,
  };
}

/** Serialized form of a corpus IDF table (`format` and `version` are checked on load). */
export interface CorpusIdfJson {
  format: "neardup-idf";
  version: 1;
  /** Number of documents. */
  n: number;
  /** Document frequency per term. */
  df: Record<string, number>;
}

/** Document counts fit from a corpus; immutable, `add`/`merge` return new tables. */
export class CorpusIdf implements IdfTable {
  private constructor(
    /** Number of documents seen. */
    readonly n: number,
    private readonly df: ReadonlyMap<string, number>,
  ) {}

  private cachedIdentity: string | undefined;

  /** `fnv1a32Hex` of the canonical JSON (`toJSON`, terms sorted): equal tables have equal identities. */
  get identity(): string {
    this.cachedIdentity ??= fnv1a32Hex(JSON.stringify(this.toJSON()));
    return this.cachedIdentity;
  }

  static empty(): CorpusIdf {
    return new CorpusIdf(0, new Map());
  }

  /** Fits a table from documents given as term lists (duplicates within a document count once). */
  static fit(documents: Iterable<Iterable<string>>): CorpusIdf {
    const df = new Map<string, number>();
    let n = 0;
    for (const doc of documents) {
      n++;
      for (const t of new Set(doc)) df.set(t, (df.get(t) ?? 0) + 1);
    }
    return new CorpusIdf(n, df);
  }

  /** A table from counts already taken (`CorpusIdfBuilder`). */
  static fromCounts(n: number, df: ReadonlyMap<string, number>): CorpusIdf {
    return new CorpusIdf(n, new Map(df));
  }

  /** Document frequency of a term (0 if unseen). */
  documentFrequency(term: string): number {
    return this.df.get(term) ?? 0;
  }

  get size(): number {
    return this.df.size;
  }

  /** Smoothed IDF `ln((1 + N) / (1 + df)) + 1`. */
  idf(term: string): number {
    return Math.log((1 + this.n) / (1 + (this.df.get(term) ?? 0))) + 1;
  }

  /** The table of the union of both corpora (counts add). */
  merge(other: CorpusIdf): CorpusIdf {
    const df = new Map(this.df);
    for (const [t, c] of other.df) df.set(t, (df.get(t) ?? 0) + c);
    return new CorpusIdf(this.n + other.n, df);
  }

  toJSON(): CorpusIdfJson {
    const df: Record<string, number> = {};
    for (const t of [...this.df.keys()].sort()) df[t] = this.df.get(t)!;
    return { format: "neardup-idf", version: 1, n: this.n, df };
  }

  /** Loads a table saved by `toJSON` (as a parsed object or JSON text). @throws NeardupError CORRUPT_FILE */
  static fromJSON(input: unknown): CorpusIdf {
    let value = input;
    if (typeof input === "string") {
      try {
        value = JSON.parse(input);
      } catch (cause) {
        throw new NeardupError("CORRUPT_FILE", "IDF table is not valid JSON", { cause });
      }
    }
    const v = value as Partial<CorpusIdfJson> | null;
    if (v === null || typeof v !== "object" || v.format !== "neardup-idf") {
      throw new NeardupError("CORRUPT_FILE", 'IDF table must have format "neardup-idf"');
    }
    if (v.version !== 1) throw new NeardupError("CORRUPT_FILE", `IDF table version must be 1, got ${JSON.stringify(v.version)}`);
    if (!Number.isInteger(v.n) || v.n! < 0) throw new NeardupError("CORRUPT_FILE", `IDF table n must be a non-negative integer, got ${JSON.stringify(v.n)}`);
    if (v.df === null || typeof v.df !== "object") throw new NeardupError("CORRUPT_FILE", "IDF table df must be an object");
    const df = new Map<string, number>();
    for (const [t, c] of Object.entries(v.df)) {
      if (!Number.isInteger(c) || c < 1 || c > v.n!) {
        throw new NeardupError("CORRUPT_FILE", `IDF table df[${JSON.stringify(t)}] must be an integer in 1..${v.n}, got ${JSON.stringify(c)}`);
      }
      df.set(t, c);
    }
    return new CorpusIdf(v.n!, df);
  }
}

/** Counts documents one at a time (streaming `neardup idf fit`); `build` returns the table. */
export class CorpusIdfBuilder {
  private n = 0;
  private readonly df = new Map<string, number>();

  /** Adds one document given as its terms (a term repeated within it counts once). */
  add(terms: Iterable<string>): void {
    this.n++;
    for (const t of new Set(terms)) this.df.set(t, (this.df.get(t) ?? 0) + 1);
  }

  get documents(): number {
    return this.n;
  }

  get terms(): number {
    return this.df.size;
  }

  /** The table; terms seen in fewer than `minDf` documents are left out (they then count as unseen). */
  build(minDf = 1): CorpusIdf {
    if (minDf <= 1) return CorpusIdf.fromCounts(this.n, this.df);
    const kept = new Map<string, number>();
    for (const [t, c] of this.df) if (c >= minDf) kept.set(t, c);
    return CorpusIdf.fromCounts(this.n, kept);
  }
}
