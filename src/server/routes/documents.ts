/** Endpoints that need the engine: check, index (single and bulk), search, clusters. */
import express, { Router, type ErrorRequestHandler, type Request } from "express";
import { z } from "zod";
import { NeardupError } from "../../core/errors.js";
import type { DedupService, IndexResult } from "../../service/dedup-service.js";
import { DEFAULT_TIME_SKEW_MS, LIMIT_RANGE, MAX_TIME_MS, RADIUS_RANGE, idSchema, parseDocInput, parseId, parsePolicy, parseTime, parseWith, type DocInput } from "../../service/input.js";
import { bulkItemErrors, utf8Only } from "../errors.js";
import { findLossyNumber, lossyMessage } from "../json-numbers.js";
import { duplicateKeyMessage, findDuplicateKey } from "../json-keys.js";
import { noQuery } from "../http-guards.js";
import { fromPeerDoc, toPeerAnswer, PEER_ROUTE } from "../peer.js";
import type { Policy } from "../../service/options.js";

/** A write forwarded by another sidecar (already validated there). */
const peerBody = z
  .object({
    policy: z.enum(["mark", "skip", "reject"]),
    items: z
      .array(
        z
          .object({
            id: z.string().min(1),
            id_given: z.boolean(),
            text: z.string(),
            fields: z.record(z.string(), z.unknown()).optional(),
            time: z.number().int().min(0).max(MAX_TIME_MS),
            analysis: z.unknown().optional(),
          })
          .strict(),
      )
      .min(1),
    labels: z.array(z.string()).optional(),
  })
  .strict();

const checkBody = z
  .object({
    text: z.string({ error: (i) => (i.input === undefined ? "is required" : "must be a string") }),
    id: idSchema.optional(),
    time: z.union([z.string(), z.number()]).optional(),
    limit: z.number().int().min(LIMIT_RANGE.min).max(LIMIT_RANGE.max).optional(),
  })
  .strict();

const searchBody = z
  .object({
    text: z.string().optional(),
    id: idSchema.optional(),
    radius: z.number().int().min(RADIUS_RANGE.min).max(RADIUS_RANGE.max).optional(),
    min_similarity: z.number().min(0).max(1).optional(),
    limit: z.number().int().min(LIMIT_RANGE.min).max(LIMIT_RANGE.max).optional(),
  })
  .strict()
  // parseWith puts the field first: "text give exactly one of text or id" was the message (audit 22a, F6).
  .check((ctx) => {
    const { text, id } = ctx.value;
    if ((text === undefined) === (id === undefined)) {
      const message = text === undefined ? "is required (or id): give exactly one of text or id" : "must not be given with id: give exactly one of text or id";
      ctx.issues.push({ code: "custom", input: ctx.value, path: ["text"], message });
    }
  });

function errorBody(err: NeardupError) {
  return { code: err.code, message: err.message, ...(err.field ? { field: err.field } : {}) };
}

/** The write routes' query: `policy` alone; anything else is a 400 naming it (it was silently ignored). */
function writePolicy(req: Request, fallback: Policy): Policy {
  for (const key of Object.keys(req.query as object)) {
    if (key !== "policy") throw new NeardupError("INVALID_INPUT", `${key} is not a known parameter (policy)`, { field: key });
  }
  return parsePolicy(req.query.policy, fallback);
}

/** The write routes' item limit (NEARDUP_MAX_BULK_ITEMS): a 413 naming the field. */
function tooManyItems(field: string, count: string, maxItems: number): NeardupError {
  return new NeardupError("TOO_LARGE", `${field} has ${count} documents; the limit is ${maxItems} (NEARDUP_MAX_BULK_ITEMS)`, { field });
}

/** A JSON bulk's items, those the body parser refused (a repeated key, a lossy number: errors.ts `bulkJsonBody`) replaced by their errors. */
function withItemErrors(req: Request, items: unknown[]): unknown[] {
  const refused = bulkItemErrors(req);
  return refused ? items.map((item, k) => refused.get(k) ?? item) : items;
}

/** Items of a bulk body: a JSON array, or NDJSON (one document a line). Unparseable lines become per-item errors. */
function bulkItems(req: Request, maxItems: number): unknown[] {
  let items: unknown[];
  if (typeof req.body === "string") {
    // Non-blank lines with their line numbers, refused past the limit before any line is parsed:
    // millions of tiny lines are a 413 at once, not seconds of parsing first.
    const lines: [number, string][] = [];
    const raw = req.body.split("\n");
    for (let i = 0; i < raw.length; i++) {
      const line = raw[i]!.trim();
      if (line === "") continue;
      if (lines.length === maxItems) throw tooManyItems("body", `more than ${maxItems}`, maxItems);
      lines.push([i + 1, line]);
    }
    items = lines.map(([number, line], k) => {
      let item: unknown;
      try {
        item = JSON.parse(line) as unknown;
      } catch (err) {
        return new NeardupError("INVALID_INPUT", `line ${number} is not valid JSON: ${(err as Error).message}`, { field: `items[${k}]` });
      }
      const lossy = findLossyNumber(line, `items[${k}]`);
      if (lossy) return new NeardupError("INVALID_INPUT", lossyMessage(lossy), { field: lossy.path });
      const repeated = findDuplicateKey(line, `items[${k}]`);
      return repeated === undefined ? item : new NeardupError("INVALID_INPUT", duplicateKeyMessage(repeated), { field: repeated });
    });
  } else if (Array.isArray(req.body)) {
    items = withItemErrors(req, req.body);
  } else if (req.body && typeof req.body === "object" && Array.isArray((req.body as { items?: unknown }).items)) {
    const extra = Object.keys(req.body as object).find((k) => k !== "items");
    if (extra !== undefined) throw new NeardupError("INVALID_INPUT", `${extra} is not a known field of a bulk body`, { field: extra });
    items = withItemErrors(req, (req.body as { items: unknown[] }).items);
  } else {
    throw new NeardupError("INVALID_INPUT", "bulk body must be a JSON array of documents, {\"items\": [...]}, or NDJSON (application/x-ndjson)", { field: "body" });
  }
  if (items.length === 0) throw new NeardupError("INVALID_INPUT", "bulk body has no documents", { field: "body" });
  if (items.length > maxItems) throw tooManyItems("body", String(items.length), maxItems);
  return items;
}

/**
 * The router cannot decode a path parameter that is not percent-encoded UTF-8
 * (`%ED%A0%80` is a lone surrogate): that is a 400 naming the id, not a 500.
 */
const badPathParam: ErrorRequestHandler = (err, _req, _res, next) => {
  if (err instanceof URIError && (err as URIError & { status?: number }).status === 400) {
    next(new NeardupError("INVALID_INPUT", `id in the path is not percent-encoded UTF-8 (${err.message})`, { field: "id" }));
    return;
  }
  next(err);
};

function statusOf(r: IndexResult): number {
  return r.action === "indexed" ? 201 : r.action === "skipped" ? 200 : 409;
}

export interface DocumentRouteOptions {
  bodyLimit: string;
  /**
   * Has the texts of /v1/check and /v1/search analysed off the event loop before
   * the service sees them; returns the release of the entries. Default: none.
   * (Write requests are analysed by the service's own `Analyzer`.)
   */
  prefetch?: (texts: readonly string[]) => Promise<() => void>;
  /** Largest accepted distance of a document time into the future, ms. Default 300,000. */
  timeSkewMs?: number;
}

export function documentRoutes(service: () => DedupService, options: DocumentRouteOptions): Router {
  const skew = options.timeSkewMs ?? DEFAULT_TIME_SKEW_MS;
  /** Runs `work` with `texts` prefetched, releasing them after. */
  const withTexts = async <T>(texts: readonly string[], work: () => Promise<T>): Promise<T> => {
    const release = options.prefetch ? await options.prefetch(texts) : () => undefined;
    try {
      return await work();
    } finally {
      release();
    }
  };
  const router = Router({ caseSensitive: true });

  router.post("/check", async (req, res) => {
    noQuery(req);
    const body = parseWith(checkBody, req.body);
    const time = parseTime(body.time, "time", Date.now(), skew);
    const svc = service();
    res.json(await withTexts([body.text], () => svc.check(body.text, { id: body.id, time, limit: body.limit })));
  });

  router.post("/documents", async (req, res) => {
    const svc = service();
    const policy = writePolicy(req, svc.options.policy);
    const doc = parseDocInput(req.body, "", Date.now(), skew);
    const [result] = await svc.index([doc], policy);
    if (result instanceof NeardupError) throw result;
    if (result!.action === "rejected") {
      res.status(409).json({
        error: { code: "CONFLICT", message: `document is a near-duplicate of ${JSON.stringify(result!.duplicate_of)} (${result!.reason}); policy reject`, field: "text" },
        result,
      });
      return;
    }
    res.status(statusOf(result!)).json(result);
  });

  router.post("/documents/_bulk", express.text({ type: "application/x-ndjson", limit: options.bodyLimit, verify: utf8Only }), async (req, res) => {
    const svc = service();
    const policy = writePolicy(req, svc.options.policy);
    const started = Date.now();
    const raw = bulkItems(req, svc.options.maxBulkItems);
    const now = Date.now();
    const out: ({ status: number; result: IndexResult } | { status: number; error: ReturnType<typeof errorBody> })[] = new Array(raw.length);
    const valid: { doc: DocInput; position: number }[] = [];
    raw.forEach((item, position) => {
      try {
        if (item instanceof NeardupError) throw item;
        valid.push({ doc: parseDocInput(item, `items[${position}]`, now, skew), position });
      } catch (err) {
        if (!(err instanceof NeardupError)) throw err;
        out[position] = { status: err.status, error: errorBody(err) };
      }
    });
    // Every item refused here: nothing to decide. A follower forwarded the empty list to the holder, whose
    // refusal ("items must have at least 1 items") became the whole answer (audit 22a, F3).
    const results =
      valid.length === 0
        ? []
        : await svc.index(
            valid.map((v) => v.doc),
            policy,
            valid.map((v) => `items[${v.position}]`),
          );
    results.forEach((r, i) => {
      const position = valid[i]!.position;
      out[position] = r instanceof NeardupError ? { status: r.status, error: errorBody(r) } : { status: statusOf(r), result: r };
    });
    res.json({ took: Date.now() - started, errors: out.some((o) => "error" in o || o.status === 409), items: out });
  });

  router.post(PEER_ROUTE.replace(/^\/v1/, ""), async (req, res) => {
    noQuery(req);
    const body = parseWith(peerBody, req.body);
    const max = service().options.maxBulkItems;
    if (body.items.length > max) throw tooManyItems("items", String(body.items.length), max);
    // Checked as the public routes check them (the sending sidecar did; a client calling this route directly did not).
    // Times as the public routes allow them, with a minute more for the clocks of two sidecars.
    const now = Date.now() + 60_000;
    body.items.forEach((item, k) => parseDocInput({ id: item.id, text: item.text, fields: item.fields, time: item.time }, `items[${k}]`, now, skew));
    const svc = service();
    // The sender's analyses, where they fit the texts and this sidecar's fingerprinter: not analysed again.
    const docs = body.items.map((item) => ({ ...fromPeerDoc(item), analysis: item.analysis === undefined ? undefined : svc.analysisFromWire(item.analysis, item.text) }));
    const results = await svc.index(docs, body.policy, body.labels, { forwarded: true });
    res.json({ items: results.map(toPeerAnswer) });
  });

  router.post("/search", async (req, res) => {
    noQuery(req);
    const body = parseWith(searchBody, req.body);
    const svc = service();
    const result = await withTexts(body.text === undefined ? [] : [body.text], () =>
      svc.search({ text: body.text, id: body.id, radius: body.radius, minSimilarity: body.min_similarity, limit: body.limit ?? 10 }),
    );
    res.json(result);
  });

  router.get("/documents/:id/duplicates", async (req, res) => {
    noQuery(req);
    const id = parseId(req.params.id); // a bad id is a 400 even while the engine is not ready
    res.json(await service().cluster(id));
  });

  router.use(badPathParam);
  return router;
}
