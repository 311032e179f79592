/**
 * What the engine would refuse in a `_bulk`, asked before neardup creates an index for it (audit 22b, F5: the
 * proxy created a rule-matched index, then the engine refused the request, and the index stayed, empty; the
 * engine alone creates nothing). Asked of the engine itself, with the client's own query, headers and
 * credentials, so the answer is each engine's, whatever its version knows:
 *
 * - the request as a whole ({@link requestRefusal}): its query parameters (`refresh=maybe`, `timeout=abc`,
 *   `wait_for_active_shards=abc`, a parameter the engine does not know, which differ between the engines) and
 *   its content type (OpenSearch refuses `application/vnd.elasticsearch+x-ndjson; compatible-with=8` with 406),
 *   by sending the same request with a body of no items: an engine that takes the request answers
 *   `no requests added`, one that refuses it answers what it answers the client;
 * - the ingest pipelines its items name ({@link PipelineCheck}): the engine refuses each item whose pipeline does
 *   not exist (a per-item 400) and creates nothing for it.
 */
import type { IncomingHttpHeaders } from "node:http";
import { describeEngineError } from "../engine/errors.js";
import { forwardHeaders, send, type Upstream, type UpstreamResponse } from "./upstream.js";

/** Media types both engines take for a `_bulk` with no compatibility parameter: a request with only these and no query is not asked about. */
const PLAIN_TYPES = new Set(["application/x-ndjson", "application/json"]);
const PLAIN_ACCEPT = new Set(["", "*/*", "application/json"]);

function mediaType(value: string | string[] | undefined): string {
  return String(value ?? "").split(";")[0]!.trim().toLowerCase();
}

/** Whether the engines can refuse the request as a whole for its query or headers (not for its body). */
export function mayBeRefused(query: URLSearchParams, headers: IncomingHttpHeaders): boolean {
  return [...query.keys()].length > 0 || !PLAIN_TYPES.has(mediaType(headers["content-type"])) || !PLAIN_ACCEPT.has(mediaType(headers.accept));
}

/**
 * The engine's own answer when it refuses this `_bulk` request as a whole for its query parameters or headers
 * (a 4xx other than for credentials); `undefined` when it takes it, or cannot tell (unreachable, 401/403, 5xx:
 * the request then goes on as before, and the engine answers it). The request sent has no items and writes nothing.
 */
export async function requestRefusal(
  upstream: Upstream,
  request: { pathIndex: string | undefined; query: URLSearchParams; headers: IncomingHttpHeaders },
  timeoutMs: number,
): Promise<UpstreamResponse | undefined> {
  const query = request.query.toString();
  const path = `${request.pathIndex === undefined ? "" : `/${encodeURIComponent(request.pathIndex)}`}/_bulk${query ? `?${query}` : ""}`;
  let answer: UpstreamResponse;
  try {
    answer = await send(upstream, { method: "POST", path, headers: forwardHeaders(request.headers, ["content-length", "content-encoding", "accept-encoding"]), body: Buffer.from("\n"), timeoutMs });
  } catch {
    return undefined;
  }
  if (answer.status !== 400 && answer.status !== 406 && answer.status !== 415) return undefined;
  // (Asked without the client's Accept-Encoding: the answer is read here, and given to the client as it came.)
  // The answer to a request the engine takes: its items' check, which comes after the query's and the headers'.
  const error = describeEngineError(parseJson(answer.body));
  if (answer.status === 400 && error?.type === "action_request_validation_exception" && /no requests added/.test(error.reason)) return undefined;
  return answer;
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
}

/** How long a pipeline found stays known to exist. One not found is asked again each time (it may be created any moment). */
export const PIPELINE_TTL_MS = 5_000;

/**
 * Which ingest pipelines exist (`GET _ingest/pipeline/<name>`, with the client's credentials), those found
 * kept {@link PIPELINE_TTL_MS}. A pipeline the engine cannot say about (no right to read pipelines, unreachable)
 * counts as existing: the items go on as before, and the engine answers them.
 */
export class PipelineCheck {
  private readonly found = new Map<string, number>();

  constructor(
    private readonly upstream: Upstream,
    private readonly timeoutMs: number,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The names among `names` that do not exist; `""` (which the engines refuse) is one of them. */
  async missing(names: Iterable<string>, headers: IncomingHttpHeaders): Promise<Set<string>> {
    const missing = new Set<string>();
    await Promise.all(
      [...new Set(names)].map(async (name) => {
        if (!(await this.exists(name, headers))) missing.add(name);
      }),
    );
    return missing;
  }

  private async exists(name: string, headers: IncomingHttpHeaders): Promise<boolean> {
    if (name === "") return false;
    const at = this.found.get(name);
    if (at !== undefined && this.clock() - at < PIPELINE_TTL_MS) return true;
    let answer: UpstreamResponse;
    try {
      answer = await send(this.upstream, { method: "GET", path: `/_ingest/pipeline/${encodeURIComponent(name)}`, headers: forwardHeaders(headers, ["content-length", "content-encoding", "content-type", "accept-encoding"]), timeoutMs: this.timeoutMs });
    } catch {
      return true;
    }
    if (answer.status === 404) return false;
    if (answer.status !== 200) return true;
    let body: unknown;
    try {
      body = JSON.parse(answer.body.toString("utf8"));
    } catch {
      return true;
    }
    // A name with `*` is a pattern to this API: the pipeline is the one of exactly that id.
    const exists = typeof body === "object" && body !== null && Object.hasOwn(body, name);
    if (exists) this.found.set(name, this.clock());
    return exists;
  }
}
