/**
 * The Elasticsearch-compatible endpoint: `POST|PUT /_bulk` and
 * `/{index}/_bulk` go through dedup (bulk.ts); every other request is streamed
 * to the engine and its answer streamed back as it is (status, headers such
 * as `X-Elastic-Product`, body), so the official clients take the proxy for
 * the engine it fronts. `POST /_neardup/internal/bulk` takes other sidecars'
 * chunks when this one holds an index's proxy writer lease (peer.ts).
 */
import http from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { promisify } from "node:util";
import zlib from "node:zlib";
import type { Logger } from "pino";
import type { Fingerprinter } from "../core/fingerprinter.js";
import type { Engine, EngineConnection } from "../engine/types.js";
import { DEFAULT_TIME_SKEW_MS } from "../service/input.js";
import type { DedupOptions } from "../service/options.js";
import type { Analyzer } from "../workers/index.js";
import { isNeardupError } from "../core/errors.js";
import { BulkHandler } from "./bulk.js";
import { onProxyClientError } from "./client-error.js";
import { holdInvalidLines } from "./raw-lines.js";
import { track, type Inflight } from "../server/client-error.js";
import { loggedThrottle } from "../server/log-throttle.js";
import { PEER_PATH } from "./peer.js";
import { InflightBudget } from "./budget.js";
import { drain } from "../server/drain.js";
import { BODY_IDLE_MS } from "../server/limits.js";
import { logLeaseEvents } from "../service/writer-lease.js";
import { ServicePool } from "./pool.js";
import type { IndexRule } from "./rules.js";
import { createUpstream, engineErrorBody, forwardHeaders, pipeThrough, send, type Upstream, type UpstreamDown } from "./upstream.js";
import type { DedupMetrics } from "../service/metrics.js";
import type { RecentWindows } from "../service/recent-windows.js";

/** Largest `_bulk` body read, decompressed or not: the engines' default `http.max_content_length`. */
export const MAX_BULK_BYTES = 100 * 1024 * 1024;

export interface ProxyOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** The engine to forward to (the client's own credentials are forwarded, never these). */
  connection: EngineConnection;
  rules: readonly IndexRule[];
  /** Shared service options; `policy` is the default for rules naming none. */
  dedup: DedupOptions;
  /** The connected engine adapter, once there is one (`undefined`: still connecting; `_bulk` answers 503). */
  engine: () => Engine | undefined;
  fingerprinter: () => Promise<Fingerprinter>;
  /** The analysis worker pool to share (NEARDUP_WORKERS > 1), made with the same fingerprinter options; absent: analysis in this thread. */
  analyzer?: () => Analyzer | undefined;
  /**
   * Most `_bulk` body bytes held at once, decoded (NEARDUP_MAX_INFLIGHT_BODY): bytes are counted as they arrive,
   * and a request whose next bytes would pass it while others hold some waits, its socket paused, for up to
   * `maxInflightWaitMs` (budget.ts), then gets `429` with `Retry-After` (the rest of its body is read and
   * dropped); one whose decoded (gzip) body would pass it gets the 429 at once. One request alone is always let
   * in. Default 64 MiB.
   */
  maxInflightBytes?: number;
  /**
   * Longest a `_bulk` body may go without a byte while the proxy reads it (not while it waits for the budget),
   * in ms; then 408 and the connection closes (NEARDUP_BODY_TIMEOUT_MS). Default 20 s. A sender that stalled
   * held its bytes of the budget until Node's 300 s request timeout, and every other client's bulk waited
   * behind it and got 429 (audit 18, F2).
   */
  bodyIdleMs?: number;
  /** Longest a `_bulk` body waits for the in-flight budget. Default 10 s. */
  maxInflightWaitMs?: number;
  /**
   * Most pass-through requests (everything but `_bulk`) in flight at once, from their arrival to the end of their
   * answer, queued for one of the engine sockets included; past it a request gets `429` with `Retry-After` at
   * once. Default 256. Queued requests piled up in memory without a bound (audit 24, F2).
   */
  maxPassThrough?: number;
  /** Source field read as each document's time. Default `@timestamp`. */
  timeField?: string;
  /** How far ahead of now a document time may be before the arrival time is used instead (NEARDUP_TIME_SKEW_MS). Default 5 minutes. */
  timeSkewMs?: number;
  /** Send the lease holder this sidecar's analyses with forwarded chunks (NEARDUP_PEER_ANALYSES); default true. */
  forwardAnalyses?: boolean;
  /**
   * First one wins across sidecars (NEARDUP_WRITER_LEASE=on): each index's
   * decisions go to the sidecar holding its proxy lease. `advertiseUrl`: where
   * other sidecars reach this proxy (default: its own URL). Off when absent.
   */
  lease?: { ttlMs: number; advertiseUrl?: string | undefined } | undefined;
  logger?: Logger;
  /** Dedup metrics the proxy's decisions count in (the sidecar's /metrics). */
  metrics?: DedupMetrics | undefined;
  /** The sidecar's recent-writes windows, which the proxy's services join (one budget, one gauge); absent: a budget each. */
  windows?: RecentWindows | undefined;
  /** Told of each event of the proxy's writer leases (a metric). */
  onLeaseEvent?: ((event: string) => void) | undefined;
  /** On close, how long `_bulk` requests in flight may finish before their connections are closed (NEARDUP_SHUTDOWN_TIMEOUT_MS). Default 15 s. */
  shutdownTimeoutMs?: number;
}

export interface RunningProxy {
  url: string;
  /** Stops accepting; requests in flight finish (up to `shutdownTimeoutMs`), then its writer leases are released. */
  close(): Promise<void>;
  /** Its indices' writer leases and whether this sidecar holds each (`neardup_writer_lease_held`). */
  leases(): { index: string; held: boolean }[];
}

/**
 * `/_bulk` and `/{index}/_bulk`, any first segment (the engines take `/_all/_bulk` too: each action names its
 * index), with trailing slashes; and `//_bulk`, which the engines also serve as a `_bulk` (other paths
 * starting with `//` they refuse: those pass through, for the engine's own answer).
 */
const BULK_PATH = /^\/(?:\/(?=_bulk)|([^/]+)\/)?_bulk\/*$/;
const gunzip = promisify(zlib.gunzip);
const inflate = promisify(zlib.inflate);
const inflateRaw = promisify(zlib.inflateRaw);

async function decode(body: Buffer, encoding: string | undefined): Promise<Buffer | undefined> {
  const e = (encoding ?? "identity").trim().toLowerCase();
  if (e === "identity" || e === "") return body;
  if (e === "gzip" || e === "x-gzip") return gunzip(body, { maxOutputLength: MAX_BULK_BYTES });
  if (e === "deflate" || e === "x-deflate") return inflate(body, { maxOutputLength: MAX_BULK_BYTES }).catch(() => inflateRaw(body, { maxOutputLength: MAX_BULK_BYTES }));
  return undefined;
}

/**
 * The request body, each chunk charged to the in-flight budget as it arrives (`take`; an idle connection that
 * announced 100 MB holds nothing): `busy` when `take` refused a chunk, `tooLarge` past {@link MAX_BULK_BYTES};
 * either way the rest of the body is read and dropped. `stalled` when no byte came for `idleMs` while it was
 * read (not while it waited for the budget): the caller answers and closes the connection.
 */
function readBody(req: IncomingMessage, take: (bytes: number) => boolean | Promise<boolean>, idleMs: number): Promise<Buffer | "busy" | "tooLarge" | "stalled"> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    let idle: NodeJS.Timeout | undefined;
    const stopIdle = () => {
      if (idle) clearTimeout(idle);
      idle = undefined;
    };
    const watchIdle = () => {
      stopIdle();
      if (!done) idle = setTimeout(() => finish("stalled"), idleMs).unref();
    };
    const finish = (value: Buffer | "busy" | "tooLarge" | "stalled") => {
      if (done) return;
      done = true;
      stopIdle();
      if (typeof value === "string") {
        chunks.length = 0;
        req.removeListener("data", onData);
        if (value !== "stalled") req.resume();
      }
      resolve(value);
    };
    let waiting: Promise<boolean> | undefined;
    const onData = (c: Buffer) => {
      watchIdle();
      size += c.length;
      if (size > MAX_BULK_BYTES) return finish("tooLarge");
      const taken = take(c.length);
      if (taken === false) return finish("busy");
      chunks.push(c);
      if (taken === true) return;
      // Over the budget: no more bytes are read from this client until its chunk is taken (or refused).
      req.pause();
      stopIdle();
      waiting = taken.then((admitted) => {
        waiting = undefined;
        if (!admitted) finish("busy");
        else if (!done) {
          watchIdle();
          req.resume();
        }
        return admitted;
      });
    };
    req.on("data", onData);
    watchIdle();
    req.on("end", () => {
      stopIdle();
      if (waiting) void waiting.then((admitted) => admitted && finish(Buffer.concat(chunks)));
      else finish(Buffer.concat(chunks));
    });
    req.on("error", (err) => {
      if (!done) reject(err);
      done = true;
    });
    req.on("close", () => {
      if (!done && !req.complete) {
        done = true;
        reject(new Error("the client closed the connection before its body ended"));
      }
    });
  });
}

/**
 * The request target to send the engine: as the client sent it, or, for an absolute-form target
 * (`GET http://host/x`, as sent to a forward proxy), its path and query: the engine is the proxy's, not the client's to name.
 */
function originForm(req: IncomingMessage, url: URL): string {
  const target = req.url ?? "/";
  return target.startsWith("/") ? target : `${url.pathname}${url.search}`;
}

/**
 * The request's URL, or null when it cannot be parsed. The target is a path: `//_bulk` is the path
 * `//_bulk`, not a URL naming the host `_bulk` (which `new URL(path, base)` made of it: the bulk went through
 * undeduplicated). A fragment (`#`) is never sent by an HTTP client; the engines refuse it.
 */
function parseRequestUrl(path: string): URL | null {
  if (path.includes("#")) return null;
  try {
    // A target in absolute form (`http://host/_bulk`, as sent to a forward proxy) is a URL of its own.
    return path.startsWith("/") ? new URL(`http://proxy${path}`) : /^https?:\/\//i.test(path) ? new URL(path) : null;
  } catch {
    return null;
  }
}

/** A percent-encoded path segment, or null when it is not valid percent-encoding of UTF-8. */
function decodePathPart(part: string): string | null {
  try {
    return decodeURIComponent(part);
  } catch {
    return null;
  }
}

/** What a proxy log line about a request names (audit 23, F6). */
interface RequestContext {
  method: string;
  /** The index the path names, when it names one. */
  index?: string;
  /** The path with its index as `{index}` and nothing after the endpoint (`/{index}/_doc`): ids never reach a log. */
  path: string;
  /** The client's X-Opaque-Id (the engines' request id, echoed on their answers). */
  opaqueId?: string;
}

/** The {@link RequestContext} of a request to `url`. */
export function requestContext(req: IncomingMessage, url: URL): RequestContext {
  const [first, second] = url.pathname.split("/").filter((part) => part !== "");
  const named = first !== undefined && !first.startsWith("_");
  const index = named ? (decodePathPart(first) ?? first) : undefined;
  const endpoint = named ? second : first;
  const path = `${named ? "/{index}" : ""}${endpoint === undefined ? (named ? "" : "/") : `/${endpoint.startsWith("_") ? endpoint : "{id}"}`}`;
  const opaqueId = req.headers["x-opaque-id"];
  return { method: req.method ?? "GET", ...(index === undefined ? {} : { index: index.slice(0, 255) }), path, ...(typeof opaqueId === "string" ? { opaqueId: opaqueId.slice(0, 128) } : {}) };
}

function json(res: ServerResponse, status: number, body: unknown, product: string | undefined): void {
  const text = JSON.stringify(body);
  const headers: Record<string, string> = { "content-type": "application/json; charset=UTF-8", "content-length": String(Buffer.byteLength(text)) };
  if (product) headers["x-elastic-product"] = product;
  res.writeHead(status, headers);
  res.end(text);
}

export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const upstream: Upstream = createUpstream(options.connection);
  const logger = options.logger;
  // Lines a client can cause at will, one a request: at most one of a kind per 10 s (audit 23, F8).
  const throttle = loggedThrottle(logger, "proxy");
  let handler: { engine: Engine; ready: Promise<BulkHandler> } | undefined;
  let pool: ServicePool | undefined;
  let ownUrl = "";
  /**
   * One handler (one service pool) per connected engine, made once even when
   * the first requests arrive together: two pools would be two services (and
   * two leases) deciding for one index.
   */
  const bulkHandler = (engine: Engine): Promise<BulkHandler> => {
    if (handler?.engine === engine) return handler.ready;
    void pool?.close();
    pool = undefined;
    const ready = (async () => {
      const lease = options.lease && {
        url: options.lease.advertiseUrl ?? ownUrl,
        ttlMs: options.lease.ttlMs,
        ...(logger ? { onEvent: logLeaseEvents(logger, {}, options.onLeaseEvent) } : options.onLeaseEvent ? { onEvent: options.onLeaseEvent } : {}),
      };
      const fingerprinter = await options.fingerprinter();
      pool = new ServicePool({
        engine,
        fingerprinter,
        upstream,
        dedup: options.dedup,
        timeoutMs: options.connection.requestTimeoutMs ?? 30_000,
        lease,
        analyzer: options.analyzer?.(),
        metrics: options.metrics,
        windows: options.windows,
        logger,
      });
      return new BulkHandler({
        upstream,
        rules: options.rules,
        pool,
        defaultPolicy: options.dedup.policy,
        maxBatch: options.dedup.maxBulkItems,
        timeoutMs: options.connection.requestTimeoutMs ?? 30_000,
        timeField: options.timeField ?? "@timestamp",
        timeSkewMs: options.timeSkewMs ?? DEFAULT_TIME_SKEW_MS,
        maxTextLength: fingerprinter.maxTextLength,
        forwardAnalyses: options.forwardAnalyses,
      });
    })();
    handler = { engine, ready };
    ready.catch(() => {
      if (handler?.ready === ready) handler = undefined;
    });
    return ready;
  };

  const down = (res: ServerResponse, product: string | undefined, context: RequestContext) => (err: UpstreamDown) => {
    logger?.warn({ err: err.message, ...context, status: 503 }, "proxy: engine unreachable");
    json(res, 503, engineErrorBody(503, "neardup_engine_unavailable_exception", err.message), product);
  };

  /**
   * A pass-through request the engine dropped (it took the connection and closed it without answering: a body it
   * cannot read, such as `Content-Encoding: gzip` on bytes that are not gzip) is a 502 saying so: the engine is up,
   * and a 503 "unreachable" named an outage that was not happening, which clients' transports retry (audit 22b,
   * F10). A connection refused, or never made, is still a 503.
   */
  const passDown = (res: ServerResponse, context: RequestContext) => (err: UpstreamDown) => {
    if (!err.dropped) return down(res, undefined, context)(err);
    const say = throttle.take("pass_dropped");
    if (say) logger?.info({ err: err.message, ...context, status: 502, ...say }, "proxy: the engine closed the connection without answering a pass-through request");
    const code = (err.cause as NodeJS.ErrnoException | undefined)?.code;
    json(res, 502, engineErrorBody(502, "neardup_engine_closed_connection_exception", `the engine at ${upstream.shown} closed the connection without answering this request (${code}), as it does with a body it cannot read; the connection was made, so this is no sign of an outage (/readyz says whether the engine is up)`), undefined);
  };

  const maxHeld = options.maxInflightBytes ?? 64 * 1024 * 1024;
  const budget = new InflightBudget(maxHeld, options.maxInflightWaitMs ?? 10_000);
  const busy = (res: ServerResponse, product: string | undefined) => {
    res.setHeader("retry-after", "1");
    json(res, 429, engineErrorBody(429, "es_rejected_execution_exception", `neardup: _bulk bodies in flight would exceed ${maxHeld} bytes (NEARDUP_MAX_INFLIGHT_BODY); retry in 1 s`), product);
  };

  const bodyIdleMs = options.bodyIdleMs ?? BODY_IDLE_MS;
  /** A body that stalled: 408 in the engine's shape, and the connection closed (the rest of its body is not waited for). */
  const stalled = (res: ServerResponse, product: string | undefined, sent = "nothing of it was sent to the engine") => {
    res.setHeader("connection", "close");
    res.once("finish", () => res.socket?.destroy());
    json(res, 408, engineErrorBody(408, "neardup_request_timeout_exception", `neardup: the request body stalled: no byte for ${bodyIdleMs} ms (NEARDUP_BODY_TIMEOUT_MS); ${sent}`), product);
  };

  const maxPassThrough = options.maxPassThrough ?? 256;
  let passing = 0;
  const passBusy = (res: ServerResponse) => {
    res.setHeader("retry-after", "1");
    json(res, 429, engineErrorBody(429, "es_rejected_execution_exception", `neardup: ${maxPassThrough} pass-through requests in flight, the most it forwards at once; retry in 1 s`), undefined);
  };

  const onBulk = async (req: IncomingMessage, res: ServerResponse, url: URL, pathIndex: string | undefined): Promise<void> => {
    const engine = options.engine();
    const product = engine?.kind === "elasticsearch" ? "Elasticsearch" : undefined;
    // The engines echo the client's X-Opaque-Id on every answer, which tracing matches answers by: the answers
    // the proxy makes itself echo it too (a bulk forwarded as sent carries the engine's own).
    const opaqueId = req.headers["x-opaque-id"];
    if (opaqueId !== undefined) res.setHeader("x-opaque-id", opaqueId);
    const id = budget.open();
    try {
      const held = () => budget.heldBy(id);
      await onHeldBulk(req, res, url, pathIndex, engine, product, (bytes) => budget.take(id, bytes), (decoded) => decoded <= held() || budget.tryTake(id, decoded - held()));
    } finally {
      budget.close(id);
    }
  };

  const onHeldBulk = async (
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    pathIndex: string | undefined,
    engine: Engine | undefined,
    product: string | undefined,
    take: (bytes: number) => true | Promise<boolean>,
    decodedSize: (bytes: number) => boolean,
  ): Promise<void> => {
    const raw = await readBody(req, take, bodyIdleMs);
    if (raw === "stalled") return stalled(res, product);
    if (raw === "busy") return busy(res, product);
    if (raw === "tooLarge") {
      json(res, 413, engineErrorBody(413, "content_too_long_exception", `request body is larger than ${MAX_BULK_BYTES} bytes`), product);
      return;
    }
    const forwardRaw = async (reason: string, answered?: () => Promise<void>, before?: () => Promise<void>) => {
      logger?.debug({ reason }, "proxy: _bulk forwarded as sent");
      try {
        await before?.();
        const r = await send(upstream, { method: req.method!, path: originForm(req, url), headers: forwardHeaders(req.headers, ["content-length"]), body: raw });
        if (r.status === 200) await answered?.();
        res.writeHead(r.status, forwardHeaders(r.headers, ["content-length"]));
        res.end(r.body);
      } catch (err) {
        down(res, product, requestContext(req, url))(err as UpstreamDown);
      }
    };
    // The engines read the media type in any case (`Application/X-NDJSON`): so does the proxy, or such a bulk went
    // through as sent, undeduplicated.
    const contentType = String(req.headers["content-type"] ?? "");
    const mediaType = contentType.split(";")[0]!.trim().toLowerCase();
    // SMILE (binary JSON) the engines take and neardup cannot read: forwarded as sent, its documents skipped dedup
    // (audit 22b: a `reject` index stored both near-duplicates). Refused, nothing written; other types the engine
    // refuses (YAML, CBOR, text/plain, none) still get its own answer.
    if (mediaType.includes("smile")) {
      const reason = `neardup's _bulk proxy reads only JSON/NDJSON bulk bodies, not Content-Type [${contentType}]; send the bulk as application/x-ndjson. Nothing was written`;
      json(res, 406, engineErrorBody(406, "neardup_unsupported_content_type_exception", reason), product);
      return;
    }
    if (!mediaType.includes("json")) return forwardRaw(`content-type ${JSON.stringify(contentType)} is not JSON`);
    let body: Buffer | undefined;
    try {
      body = await decode(raw, req.headers["content-encoding"]);
    } catch (err) {
      // A gzip or deflate body that does not decode (or decodes past the limit): the client's error, said as such.
      const tooLong = (err as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE";
      const status = tooLong ? 413 : 400;
      const reason = tooLong
        ? `request body decodes to more than ${MAX_BULK_BYTES} bytes`
        : `request body is not valid ${String(req.headers["content-encoding"])} (Content-Encoding): ${(err as Error).message}`;
      json(res, status, engineErrorBody(status, tooLong ? "content_too_long_exception" : "illegal_argument_exception", reason), product);
      return;
    }
    // An encoding neardup does not decode (`br`, `zstd`, `compress`, stacked or with parameters): neither engine decodes
    // one either. Forwarded, OpenSearch dropped a `zstd` request without answering (a 503 "engine unreachable"), and
    // both engines read a body labelled `br` as plain NDJSON, stored without dedup or marker (audit 23, F3 and F4); a
    // real brotli or zstd body they refuse. Refused here, nothing sent, in the engine's shape (as SMILE is, above).
    if (body === undefined) {
      const encoding = String(req.headers["content-encoding"]);
      const reason = `neardup's _bulk proxy decodes only gzip, x-gzip, deflate and x-deflate bodies, not Content-Encoding [${encoding}] (nor do the engines); send the bulk uncompressed or gzip-compressed. Nothing was written`;
      json(res, 415, engineErrorBody(415, "neardup_unsupported_content_encoding_exception", reason), product);
      return;
    }
    if (body !== raw && !decodedSize(body.length)) return busy(res, product);
    if (!engine) {
      json(res, 503, engineErrorBody(503, "neardup_engine_unavailable_exception", "neardup is not connected to the engine yet"), product);
      return;
    }
    // Lines that are not UTF-8 would be read with U+FFFD in their place: they are held and go to the engine as
    // sent, which refuses those items itself; the other items are checked as usual (raw-lines.ts).
    const invalid = holdInvalidLines(body);
    if (invalid) logger?.debug({ lines: invalid.lines }, "proxy: _bulk lines that are not UTF-8 go to the engine as sent");
    let answer;
    try {
      answer = await (await bulkHandler(engine)).handle({ pathIndex, query: url.searchParams, headers: req.headers, body: invalid?.text ?? body.toString("utf8") });
    } finally {
      invalid?.release();
    }
    if (answer.kind === "raw") return forwardRaw(answer.reason, answer.answered, answer.before);
    if (answer.kind === "engine") {
      res.writeHead(answer.status, forwardHeaders(answer.headers, ["content-length"]));
      res.end(answer.body);
      return;
    }
    if (answer.status === 503 || answer.status === 429) res.setHeader("retry-after", "5");
    json(res, answer.status, answer.body, product);
  };

  /** A chunk from another sidecar's proxy, this one holding the index's lease. */
  const onPeer = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const engine = options.engine();
    const id = budget.open();
    res.once("close", () => budget.close(id)); // held until answered, as a _bulk body is
    const raw = await readBody(req, (bytes) => budget.tryTake(id, bytes), bodyIdleMs);
    if (raw === "stalled") return stalled(res, undefined);
    if (raw === "busy") return busy(res, undefined);
    if (!engine || raw === "tooLarge") {
      json(res, engine ? 413 : 503, engineErrorBody(engine ? 413 : 503, "neardup_exception", engine ? "chunk too large" : "neardup is not connected to the engine yet"), undefined);
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(raw.toString("utf8"));
    } catch {
      json(res, 400, engineErrorBody(400, "neardup_invalid_input_exception", "the chunk is not JSON"), undefined);
      return;
    }
    try {
      json(res, 200, await (await bulkHandler(engine)).handleForwarded(body), undefined);
    } catch (err) {
      if (!isNeardupError(err) || (err.status !== 400 && err.status !== 413)) throw err;
      json(res, err.status, engineErrorBody(err.status, `neardup_${err.code.toLowerCase()}_exception`, err.message), undefined);
    }
  };

  const badRequest = (res: ServerResponse, reason: string) => json(res, 400, engineErrorBody(400, "illegal_argument_exception", reason), undefined);

  /** Each connection's request in progress, for the parser's errors (server/client-error.ts). */
  const inflight: Inflight = new WeakMap();
  const server = http.createServer((req, res) => {
    track(inflight, req, res);
    const url = parseRequestUrl(req.url ?? "/");
    if (url === null) {
      badRequest(res, `invalid request path ${JSON.stringify((req.url ?? "").slice(0, 200))}`);
      req.resume();
      return;
    }
    if (url.pathname === PEER_PATH && req.method === "POST") {
      onPeer(req, res).catch((err: unknown) => {
        logger?.error({ err: String(err) }, "proxy: forwarded chunk failed");
        if (!res.headersSent) json(res, 500, engineErrorBody(500, "neardup_exception", "internal error in the neardup proxy"), undefined);
        else res.destroy();
      });
      return;
    }
    const m = BULK_PATH.exec(url.pathname);
    if (m && (req.method === "POST" || req.method === "PUT")) {
      const pathIndex = m[1] === undefined ? undefined : decodePathPart(m[1]);
      if (pathIndex === null) {
        badRequest(res, `invalid index name in the path: ${JSON.stringify(m[1]!.slice(0, 200))} is not valid percent-encoding`);
        req.resume();
        return;
      }
      onBulk(req, res, url, pathIndex).catch((err: unknown) => {
        // A client that went away mid-body is not the proxy's failure; nothing of its body was sent to the engine.
        if (req.destroyed || (err as Error | undefined)?.message === "aborted") {
          const say = throttle.take("client_gone");
          if (say) logger?.info({ err: String(err), ...say }, "proxy: _bulk client went away before its body ended; nothing sent to the engine");
        } else logger?.error({ err: String(err) }, "proxy: _bulk failed");
        if (!res.headersSent) json(res, 500, engineErrorBody(500, "neardup_exception", "internal error in the neardup proxy"), undefined);
        else res.destroy();
      });
      return;
    }
    if (passing >= maxPassThrough) {
      passBusy(res);
      req.resume();
      return;
    }
    passing += 1;
    res.once("close", () => (passing -= 1));
    pipeThrough(upstream, req, res, passDown(res, requestContext(req, url)), originForm(req, url), { bodyIdleMs, onStalled: () => stalled(res, undefined, "the engine request was dropped before its body ended") });
  });
  server.on("clientError", onProxyClientError(inflight, () => (options.engine()?.kind === "elasticsearch" ? "Elasticsearch" : undefined), logger, throttle));
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${options.host.includes(":") ? `[${options.host}]` : options.host}:${port}`;
  ownUrl = url;
  logger?.info({ url, rules: options.rules.map((r) => `${r.pattern}:${r.textField}${r.policy ? `:${r.policy}` : ""}`) }, "neardup _bulk proxy listening");
  return {
    url,
    leases: () => pool?.leases() ?? [],
    async close() {
      // Not cut at once: a bulk cut mid-way is answered to nobody, and its client sends it again.
      await drain(server, options.shutdownTimeoutMs ?? 15_000, logger);
      await pool?.close(options.shutdownTimeoutMs ?? 15_000);
      upstream.close();
    },
  };
}
