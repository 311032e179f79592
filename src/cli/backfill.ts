/**
 * `neardup backfill <index>`: deduplicates documents already stored in an
 * index. Reads them in time order (a point in time + `search_after`), runs
 * each through the same first-one-wins loop as `neardup dedup` (BatchDeduper),
 * and writes the `neardup` object (fingerprint, segments, LSH keys, verdict)
 * onto each document with bulk partial updates. The user's fields are left alone.
 * Each update is conditional on the version it was read at (`if_seq_no`): a
 * document written again meanwhile (through the proxy or the API, which
 * fingerprint what they write) or deleted is left as it is and counted, never
 * overwritten with the fingerprint of a text it no longer holds.
 *
 * Checkpoints: after each page is written, the number of documents done and
 * the last one's id go to a JSON file (written to a temporary file, then
 * renamed). A resumed run reads the index from the start again and replays
 * the documents already done through the in-memory index without writing
 * them (the verdicts of later documents depend on them), then writes on from
 * where the killed run stopped, so it ends with the same result as one run.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Writable } from "node:stream";
import { Option, type Command } from "commander";
import { NeardupError, isNeardupError } from "../core/errors.js";
import { createFingerprinter, type Analysis, type Fingerprinter } from "../core/fingerprinter.js";
import { connectEngine } from "../engine/connect.js";
import { totalHits } from "../engine/responses.js";
import type { Engine, SearchHit } from "../engine/types.js";
import { neardupSource, type Decision } from "../service/documents.js";
import { MAX_TIME_MS, isStorableTime, readSourceTime } from "../service/input.js";
import componentTemplate from "../../mappings/component-template.neardup.json" with { type: "json" };
import { BatchDeduper, type DedupRecord, type DedupSummary } from "./dedup.js";
import { parseDuration, parseFraction, parseNonNegativeInt, verdictFromFlags } from "./options.js";
import { createProgress } from "./progress.js";
import { loadIdfFile } from "../resources/idf-file.js";
import { parseSettings } from "../config/settings.js";

export interface BackfillOptions {
  index: string;
  /** Source field with the text. Default `text`. */
  textField: string;
  /** Date field giving the time order (documents without it come last, at the run's start time; those before 1970 first, at 1970-01-01). Default `@timestamp`. */
  timeField: string;
  /** Documents per page read and per bulk update. Default 1,000. */
  batchSize: number;
  /** Checkpoint file; `undefined`: none (no resume). */
  checkpoint: string | undefined;
  /** Compute and report, write nothing. */
  dryRun: boolean;
  radius?: number | undefined;
  windowMs?: number | undefined;
  maxCandidates?: number | undefined;
  /** Point-in-time keep-alive between pages. Default `5m`. */
  keepAlive?: string;
  /** Most documents of one time held until that time is read whole (then taken in id order). Default 50,000. */
  maxHeld?: number;
}

export interface BackfillIO {
  /** One message a call, without a trailing newline. */
  report: (message: string) => void;
  progress?: (done: number, total: number) => void;
  /** Called after each page is written and checkpointed, and waited for (tests stop a run here, or write beside it). */
  afterPage?: (done: number) => void | Promise<void>;
}

export interface BackfillResult {
  summary: DedupSummary;
  /** Documents replayed from a checkpoint without writing. */
  replayed: number;
  /** Documents updated (or, in a dry run, that would be). */
  written: number;
  /** Documents without a usable text, left alone. */
  skipped: number;
  /** Documents written again or deleted since the run read them: left as they are (audit 17, C2). */
  changed: number;
  /** In a dry run: the first changes it would make. */
  sample: DedupRecord[];
}

interface Checkpoint {
  version: 1;
  index: string;
  /** The options that shape verdicts: a resume with other ones would not end with the same result. */
  settings: Record<string, unknown>;
  done: number;
  lastId: string | null;
  complete: boolean;
}

function settingsOf(o: BackfillOptions, thresholds: Record<string, unknown>): Record<string, unknown> {
  return { textField: o.textField, timeField: o.timeField, radius: o.radius ?? null, windowMs: o.windowMs ?? null, maxCandidates: o.maxCandidates ?? 100, ...thresholds };
}

function readCheckpoint(path: string): Checkpoint | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, "utf8")) as Checkpoint;
  } catch (err) {
    throw new NeardupError("CORRUPT_FILE", `checkpoint ${path} is not valid JSON: delete it to start over`, { field: "checkpoint", cause: err });
  }
}

function writeCheckpoint(path: string, c: Checkpoint): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(`${path}.tmp`, JSON.stringify(c, null, 2));
  renameSync(`${path}.tmp`, path);
}

/**
 * A hit's time: the value the engine sorted it by (its time field in epoch ms, as the engine read it), so
 * the decisions follow the order the documents are read in; `fallback` (the run's start) for a document
 * without a time, which {@link TIME_SORT} puts last. A time before 1970, which the service does not store
 * (OpenSearch reads a negative epoch number as a year), counts as 1970-01-01: those documents are read
 * first, and a later time than theirs must stay later, or the window would hold every time after them.
 */
function timeOf(hit: SearchHit<unknown>, fallback: number): number {
  const value = hit.sort?.[0];
  const read = typeof value === "string" ? readSourceTime(value) : value; // a keyword time field sorts by its text
  const ms = typeof read === "number" && Number.isInteger(read) && read < 0 ? 0 : read;
  return typeof ms === "number" && ms !== MAX_TIME_MS && isStorableTime(ms) ? ms : fallback;
}

/** Most documents held back while their time may go on in the next page; a time shared by more is taken in pieces. */
const MAX_HELD = 50_000;

/** What the engine sorted a hit by (its time, or its text for a keyword time field). */
function sortKey(hit: SearchHit<unknown>): string {
  return JSON.stringify(hit.sort?.[0] ?? null);
}

/** Where the run of hits sharing the last hit's time starts (hits are in time order). */
function openTimeStart(hits: readonly SearchHit<unknown>[]): number {
  const last = sortKey(hits[hits.length - 1]!);
  let k = hits.length;
  while (k > 0 && sortKey(hits[k - 1]!) === last) k--;
  return k;
}

/** Hits in time order with each time's hits in id order (code unit order): an order the engine's own does not change. */
function inIdOrderPerTime<T>(hits: SearchHit<T>[]): SearchHit<T>[] {
  const keys = new Map<SearchHit<T>, number>();
  let run = 0;
  hits.forEach((h, i) => keys.set(h, i > 0 && sortKey(hits[i - 1]!) === sortKey(h) ? run : (run = i)));
  return hits.sort((a, b) => keys.get(a)! - keys.get(b)! || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
}

function decisionOf(r: DedupRecord): Decision {
  if (r.status === "original") return { status: "original" };
  return { status: "duplicate", duplicateOf: r.duplicate_of!, distance: r.distance!, similarity: r.similarity!, reason: r.reason! };
}

/**
 * Time order, documents without a time last. `missing: "_last"` sorts them at 2^63 - 1, which JSON.parse
 * rounds to 2^63: sent back in `search_after`, the engines refuse it (or wrap it) and the run never ends.
 * The last storable time (9999-12-31) puts them last with a value a double holds; `numeric_type: "date"`
 * keeps every value in milliseconds (a `date_nanos` field's nanoseconds are past 2^53 too).
 */
const TIME_SORT: Record<string, unknown> = { order: "asc", unmapped_type: "date", missing: MAX_TIME_MS, numeric_type: "date" };
/** For a time field the engines cannot sort as a date (a `keyword`: `numeric_type` is refused there): its text order, documents without it last. */
const TEXT_TIME_SORT: Record<string, unknown> = { order: "asc", unmapped_type: "keyword", missing: "_last" };

export async function runBackfill(engine: Engine, fingerprinter: Fingerprinter, options: BackfillOptions, thresholds: Record<string, unknown>, io: BackfillIO): Promise<BackfillResult> {
  const keepAlive = options.keepAlive ?? "5m";
  // The fingerprint version too: a resume with another IDF table (or after an upgrade to another version) would mix them.
  const settings = { ...settingsOf(options, thresholds), version: fingerprinter.version };
  let resumeFrom: Checkpoint | undefined;
  if (options.checkpoint && !options.dryRun) {
    const found = readCheckpoint(options.checkpoint);
    if (found) {
      if (found.index !== options.index || JSON.stringify(found.settings) !== JSON.stringify(settings)) {
        throw new NeardupError("INVALID_INPUT", `checkpoint ${options.checkpoint} was made for index ${found.index} with ${JSON.stringify(found.settings)}: use the same options, or delete it to start over`, { field: "checkpoint" });
      }
      if (found.complete) io.report(`checkpoint ${options.checkpoint} says the backfill of ${options.index} is complete; run it again with --no-resume (or delete the checkpoint)`);
      resumeFrom = found;
    }
  }
  const result: BackfillResult = { summary: { documents: 0, duplicates: 0, duplicateRate: 0, largestClusters: [] }, replayed: 0, written: 0, skipped: 0, changed: 0, sample: [] };
  if (resumeFrom?.complete) return result;

  // BatchDeduper analyses each text; keep that analysis for the fields written.
  let last: Analysis | undefined;
  const memo: Fingerprinter = { ...fingerprinter, analyze: (text, field) => (last = fingerprinter.analyze(text, field)) };
  const deduper = new BatchDeduper(memo, { radius: options.radius, windowMs: options.windowMs, maxCandidates: options.maxCandidates });
  const started = Date.now();
  const skipWrites = resumeFrom?.done ?? 0;
  if (skipWrites > 0) io.report(`resuming: replaying the ${skipWrites} documents already done (no writes), then writing on`);

  // The order is the time field's: one the index does not map would sort every document as "no time" (in
  // whatever order the engine returns them) and pick other originals without a word (ops audit).
  const indices = await engine.resolveIndices(options.index);
  if (indices.length > 0 && !(await engine.mapsField(options.index, options.timeField))) {
    throw new NeardupError("INVALID_INPUT", `${options.index} does not map the time field ${JSON.stringify(options.timeField)} (in every index it names): give --time-field a date field it has`, { field: "time-field" });
  }
  // Documents are keyed by id: an id in two of the indices a pattern or alias names would be its own duplicate.
  const owners = indices.length > 1 ? new Map<string, string>() : undefined;

  // The neardup fields get their mapping (keywords, not analysed text) before the first write.
  if (!options.dryRun) await engine.putMapping(options.index, structuredClone(componentTemplate.template.mappings));
  // A point in time shows what the last refresh made searchable: without one now, a document written in the last
  // refresh interval (by a run killed a moment ago, or live) was read at its older version, and its update then
  // refused as a conflict with the newer one (left as it is: counted as changed).
  await engine.refresh(options.index).catch(() => undefined);
  let pitId = await engine.openPointInTime(options.index, keepAlive);
  let seen = 0;
  let total = 0;
  // Two stages overlap: while page k is written (and then checkpointed), page
  // k+1 is read and decided. A page is checkpointed only after its write and
  // every earlier one succeeded.
  let timeSort = TIME_SORT;
  const fetchPage = (after: unknown[] | undefined, first: boolean) =>
    engine.searchPointInTime<Record<string, unknown>>(pitId, keepAlive, {
      size: options.batchSize,
      _source: [options.textField],
      seq_no_primary_term: true,
      sort: [{ [options.timeField]: timeSort }],
      track_total_hits: first,
      ...(after ? { search_after: after } : {}),
    });
  let writing: Promise<void> = Promise.resolve();
  try {
    let next = fetchPage(undefined, true).catch((err: unknown) => {
      // The engine refused the request (Elasticsearch does not say why in the top-level error): a time field
      // that is not a date is the one thing a first page can get a 400 for that the text sort does not.
      if (!isNeardupError(err) || (err.details as { status?: number } | undefined)?.status !== 400) throw err;
      timeSort = TEXT_TIME_SORT;
      return fetchPage(undefined, true);
    });
    // Documents of one time are taken in id order, once that time has been read whole: the engine's order
    // among them is its own (Elasticsearch's follows where a document sits, which the run's own updates move),
    // so a resumed run would replay other documents than those done (CLI audit: 5,000 left unmarked).
    const held: SearchHit<Record<string, unknown>>[] = [];
    /** Documents done in times read whole: what a checkpoint may count (a resumed run replays exactly those). */
    let whole = 0;
    let checkpointed = skipWrites;
    /** The id of the last document counted in `seen`, and of the last one in `whole`. */
    let lastSeenId: string | null = null;
    let wholeId: string | null = null;
    /** The time being taken in pieces (more documents share it than `maxHeld`), if any. */
    let inPieces: string | undefined;
    for (let page = 0; ; page++) {
      const response = await next;
      pitId = response.pitId;
      if (page === 0) total = totalHits(response);
      const read = response.hits.hits;
      const end = read.length === 0;
      if (!end) {
        next = fetchPage(read[read.length - 1]!.sort, false);
        next.catch(() => undefined); // awaited on the next turn; a failure then stops the run
      }
      if (end && held.length === 0) break;
      held.push(...read);
      // A time taken in pieces is whole once another time follows it.
      if (inPieces !== undefined && (end || sortKey(held[0]!) !== inPieces)) {
        whole = seen;
        wholeId = lastSeenId;
        inPieces = undefined;
      }
      // The last time read may go on in the next page: it waits, unless more documents than `maxHeld` share it.
      let open = end ? held.length : openTimeStart(held);
      if (open === 0) {
        if (held.length < (options.maxHeld ?? MAX_HELD)) continue;
        open = held.length;
        inPieces = sortKey(held[0]!);
      }
      const hits = inIdOrderPerTime(held.splice(0, open));
      const operations: Record<string, unknown>[] = [];
      for (const hit of hits) {
        seen++;
        lastSeenId = hit._id;
        if (seen === skipWrites && resumeFrom?.lastId && resumeFrom.lastId !== hit._id) {
          io.report(`warning: the index changed since the checkpoint (expected ${resumeFrom.lastId} at ${seen}, found ${hit._id}); verdicts may differ from a single run`);
        }
        const text = hit._source?.[options.textField];
        if (typeof text !== "string" || text.trim() === "") {
          result.skipped++;
          continue;
        }
        const time = timeOf(hit, started);
        const owner = owners?.get(hit._id);
        if (owner !== undefined && owner !== hit._index) {
          throw new NeardupError("INVALID_INPUT", `id ${JSON.stringify(hit._id)} is in both ${owner} and ${hit._index}, behind ${options.index}: documents are told apart by id, so backfill one index at a time`, { field: "index" });
        }
        owners?.set(hit._id, hit._index);
        let record: DedupRecord;
        try {
          record = deduper.check({ id: hit._id, text, time });
        } catch (err) {
          if (!isNeardupError(err)) throw err;
          result.skipped++;
          io.report(`${hit._id}: ${err.message}`);
          continue;
        }
        if (seen <= skipWrites) {
          result.replayed++;
          continue;
        }
        result.written++;
        if (options.dryRun) {
          if (record.status === "duplicate" && result.sample.length < 10) result.sample.push(record);
          continue;
        }
        operations.push(updateAction(hit), { doc: { neardup: neardupSource(last!, decisionOf(record), time, hit._id) } });
      }
      await writing;
      const done = seen;
      // A time more than `maxHeld` documents share is taken in pieces, and checkpointed only once read whole.
      if (inPieces === undefined) {
        whole = seen;
        wholeId = lastSeenId;
      }
      const checkpoint: Checkpoint | undefined =
        options.checkpoint && !options.dryRun && whole > checkpointed
          ? { version: 1, index: options.index, settings, done: whole, lastId: wholeId, complete: false }
          : undefined;
      if (checkpoint) checkpointed = whole;
      writing = writePage(engine, operations).then((changed) => {
        result.changed += changed;
        result.written -= changed;
        if (checkpoint) writeCheckpoint(options.checkpoint!, checkpoint);
        io.progress?.(done, total);
        return io.afterPage?.(done);
      });
      writing.catch(() => undefined); // awaited before the next write and at the end
      if (end) break;
    }
    await writing;
  } finally {
    await writing.catch(() => undefined);
    await engine.closePointInTime(pitId).catch(() => undefined);
  }
  // Documents read, and not one with a text: the text field is most likely not the one named (CLI audit: the run
  // said "updated 0 documents" and marked itself complete, and then refused the right command for other options).
  if (seen > 0 && result.skipped === seen) {
    throw new NeardupError("INVALID_INPUT", `none of the ${seen} documents of ${options.index} has a text in ${JSON.stringify(options.textField)}: give --text-field the field that holds the text`, { field: "text-field" });
  }
  if (options.checkpoint && !options.dryRun) writeCheckpoint(options.checkpoint, { version: 1, index: options.index, settings, done: seen, lastId: null, complete: true });
  result.summary = deduper.summary();
  return result;
}

/**
 * Writes a page's updates; resolves how many documents had changed since they were read: written again (a
 * version conflict with the version read) or deleted (`document_missing_exception`). Those are left as they are:
 * an update over a document written again meanwhile put the fingerprint of its old text on its new one, and a
 * near-duplicate of the new text was a second original (audit 17, C2: backfill beside live writes through the proxy).
 */
async function writePage(engine: Engine, operations: Record<string, unknown>[]): Promise<number> {
  if (operations.length === 0) return 0;
  const bulk = await engine.bulk(operations);
  const changedSinceRead = (type: string | undefined) => type === "version_conflict_engine_exception" || type === "document_missing_exception";
  const failed = bulk.items.filter((i) => i.error && !changedSinceRead(i.error.type));
  if (failed.length > 0) {
    const f = failed[0]!;
    throw new NeardupError("ENGINE_ERROR", `${failed.length} updates in this page were refused, e.g. ${f.id}: ${f.error!.type}: ${f.error!.reason}; the checkpoint stays before this page`);
  }
  return bulk.items.filter((i) => i.error && changedSinceRead(i.error.type)).length;
}

function updateAction(hit: SearchHit<unknown>): Record<string, unknown> {
  const routing = (hit as { _routing?: string })._routing;
  const version = hit._seq_no === undefined || hit._primary_term === undefined ? {} : { if_seq_no: hit._seq_no, if_primary_term: hit._primary_term };
  return { update: { _index: hit._index, _id: hit._id, ...(routing === undefined ? {} : { routing }), ...version } };
}

/** The PEM text of `--engine-ca-file`, or a clear error naming the flag. */
function readCaFile(path: string | undefined): string | undefined {
  if (!path) return undefined;
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    throw new NeardupError("INVALID_INPUT", `--engine-ca-file ${JSON.stringify(path)} cannot be read: ${(err as Error).message}`, { field: "--engine-ca-file", cause: err });
  }
}

interface BackfillFlags {
  engineUrl: string;
  engineUsername?: string;
  enginePassword?: string;
  engineApiKey?: string;
  engineCaFile?: string;
  textField: string;
  timeField: string;
  batchSize: number;
  checkpoint?: string;
  resume: boolean;
  dryRun?: boolean;
  radius?: number;
  maxDistance?: number;
  minCosine?: number;
  minEditSimilarity?: number;
  /** A duration; `false`: `--no-window`; undefined: the service's (`windowHours`). */
  window?: number | false;
  /** The service's window in hours (NEARDUP_WINDOW_HOURS; unset: its default). */
  windowHours?: string;
  maxCandidates: number;
  progress: boolean;
  idf?: string;
  verdictFile?: string;
}

/** Adds `backfill` to the program. */
export function addBackfillCommand(program: Command, env: { stdout: Writable; stderr: Writable & { isTTY?: boolean } }): void {
  program
    .command("backfill")
    .description("Add neardup fingerprints and verdicts to the documents already in an index, oldest first (resumable).")
    .argument("<index>", "index (or alias) to backfill")
    .addOption(new Option("--engine-url <url>", "Elasticsearch or OpenSearch URL").env("NEARDUP_ENGINE_URL").makeOptionMandatory())
    .addOption(new Option("--engine-username <name>", "basic auth user").env("NEARDUP_ENGINE_USERNAME"))
    .addOption(new Option("--engine-password <password>", "basic auth password").env("NEARDUP_ENGINE_PASSWORD"))
    .addOption(new Option("--engine-api-key <key>", "Elasticsearch API key (base64 id:key), sent as Authorization: ApiKey").env("NEARDUP_ENGINE_API_KEY"))
    .addOption(new Option("--engine-ca-file <path>", "PEM CA certificate for an https engine URL (a private CA)").env("NEARDUP_ENGINE_CA_FILE"))
    .option("--text-field <name>", "source field with the text", "text")
    .option("--time-field <name>", "date field giving the order (oldest first)", "@timestamp")
    .option("--batch-size <n>", "documents per page and per bulk update (1..10000)", parseNonNegativeInt("--batch-size", 10_000, 1), 1000)
    .option("--checkpoint <file>", "checkpoint file (default .neardup/backfill-<index>.json)")
    .option("--no-resume", "start over even when a checkpoint exists")
    .option("--dry-run", "print what would change (duplicates, largest clusters); write nothing")
    .option("--radius <bits>", "Hamming radius for candidates (default: by text length)", parseNonNegativeInt("--radius", 64))
    .option("--max-distance <bits>", "duplicate when simhash distance <= this", parseNonNegativeInt("--max-distance", 64))
    .option("--min-cosine <x>", "duplicate when TF-IDF cosine >= this", parseFraction("--min-cosine"))
    .option("--min-edit-similarity <x>", "duplicate when edit similarity >= this", parseFraction("--min-edit-similarity"))
    .option("--window <duration>", "compare only with documents this much older, e.g. 2d (default: the service's window, NEARDUP_WINDOW_HOURS, 48h)", parseDuration)
    .option("--no-window", "compare with every earlier document")
    .addOption(new Option("--window-hours <hours>", "the service's window, in hours: --window's default").env("NEARDUP_WINDOW_HOURS").hideHelp())
    .option("--max-candidates <n>", "most candidates verified per document", parseNonNegativeInt("--max-candidates"), 100)
    .addOption(new Option("--idf <file>", "IDF table from `neardup idf fit`: the one the service uses (its NEARDUP_IDF_FILE), or the service will not compare what this writes").env("NEARDUP_IDF_FILE"))
    .addOption(new Option("--verdict-file <file>", "verdict options as JSON: the service's (its NEARDUP_VERDICT_FILE), so that backfilled verdicts are the ones it decides (default: the built-in rules); the threshold flags apply on top").env("NEARDUP_VERDICT_FILE"))
    .option("--no-progress", "no progress bar")
    .addHelpText("after", "\nExamples:\n  $ neardup backfill logs-2026.12 --text-field message --dry-run\n  $ NEARDUP_ENGINE_URL=http://localhost:9200 neardup backfill articles --text-field body --time-field published\n")
    .action(async (index: string, flags: BackfillFlags) => {
      process.exitCode = await backfillCommand(index, flags, env);
    });
}

async function backfillCommand(index: string, flags: BackfillFlags, env: { stdout: Writable; stderr: Writable & { isTTY?: boolean } }): Promise<number> {
  const checkpoint = flags.dryRun ? undefined : (flags.checkpoint ?? `.neardup/backfill-${index}.json`);
  // The service's window unless told otherwise: backfilled verdicts then agree with what the API and proxy decide.
  const windowMs = flags.window === false ? undefined : (flags.window ?? parseSettings({ NEARDUP_WINDOW_HOURS: flags.windowHours }).NEARDUP_WINDOW_HOURS * 3_600_000);
  if (checkpoint && !flags.resume && existsSync(checkpoint)) renameSync(checkpoint, `${checkpoint}.old`);
  const thresholds = { maxDistance: flags.maxDistance, minCosine: flags.minCosine, minEditSimilarity: flags.minEditSimilarity };
  // The fingerprint version names the IDF table (nd4+idf.<identity>): the service compares only its own table's.
  const idf = flags.idf ? await loadIdfFile(flags.idf) : undefined;
  const fingerprinter = await createFingerprinter({ verdict: await verdictFromFlags(flags.verdictFile, thresholds), ...(idf ? { idf } : {}) });
  const engine = await connectEngine({ url: flags.engineUrl, username: flags.engineUsername, password: flags.enginePassword, apiKey: flags.engineApiKey, caCert: readCaFile(flags.engineCaFile) });
  const tty = flags.progress && env.stderr.isTTY === true;
  let progress: ReturnType<typeof createProgress> | undefined;
  const startedAt = performance.now();
  try {
    const result = await runBackfill(
      engine,
      fingerprinter,
      { index, textField: flags.textField, timeField: flags.timeField, batchSize: flags.batchSize, checkpoint, dryRun: flags.dryRun === true, radius: flags.radius, windowMs, maxCandidates: flags.maxCandidates },
      JSON.parse(JSON.stringify(thresholds)) as Record<string, unknown>,
      {
        report: (m) => {
          progress?.clear();
          env.stderr.write(`neardup: ${m}\n`);
        },
        progress: (done, total) => {
          if (tty) progress ??= createProgress(env.stderr, total);
          progress?.update(done, done);
        },
      },
    );
    progress?.stop();
    const s = result.summary;
    const seconds = (performance.now() - startedAt) / 1000;
    const lines = [
      `${flags.dryRun ? "dry run: would update" : "updated"} ${result.written} documents of ${index}` + (result.replayed ? ` (${result.replayed} replayed from the checkpoint)` : "") + (result.skipped ? `, ${result.skipped} without text left alone` : "") +
        (result.changed ? `, ${result.changed} written again or deleted since they were read left as they are` : ""),
      `${s.duplicates} near-duplicates of ${s.documents} (${(s.duplicateRate * 100).toFixed(1)}%), ${Math.round(s.documents / Math.max(seconds, 0.001))} docs/s`,
      ...(s.largestClusters.length ? [`largest clusters: ${s.largestClusters.map((c) => `${c.id} (${c.size})`).join(", ")}`] : []),
      ...result.sample.map((r) => `would mark ${r.id} as a duplicate of ${r.duplicate_of} (distance ${r.distance}, similarity ${r.similarity}, ${r.reason})`),
    ];
    (flags.dryRun ? env.stdout : env.stderr).write(lines.join("\n") + "\n");
    return 0;
  } catch (err) {
    progress?.stop();
    // "Resume" only where a resume can help: not for a refusal of the command itself (a missing index, a
    // checkpoint made with other options, a field it does not map), which the same command meets again.
    const resumable = checkpoint !== undefined && !(isNeardupError(err) && ["INVALID_INPUT", "NOT_FOUND", "CORRUPT_FILE"].includes(err.code));
    env.stderr.write(`neardup: backfill stopped: ${isNeardupError(err) ? err.message : String(err)}${resumable ? ` (resume with the same command; checkpoint ${checkpoint})` : ""}\n`);
    return 1;
  } finally {
    await engine.close();
  }
}
