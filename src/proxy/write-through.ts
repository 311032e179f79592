/**
 * The engine the proxy hands to each of its dedup services. Reads go to the
 * shared adapter unchanged; writes (`bulk`) go out as the client sent them:
 * its action (`index` or `create`) and action metadata (`routing`, `pipeline`,
 * `if_seq_no`, ...), its query parameters (`refresh`, `pipeline`, `routing`,
 * `require_alias`, ...) and its credentials. The engine's own answer for each
 * item is kept for the proxy's response.
 *
 * The service decides and builds each document's source; the proxy says how
 * to write it with a {@link WritePlan} carried by the source it gives the
 * service ({@link withPlan}), so each write finds its own document's plan.
 */
import { NeardupError } from "../core/errors.js";
import { toBulkResult } from "../engine/responses.js";
import type { BulkOptions, BulkResult, Engine } from "../engine/types.js";
import { withFirstMembers } from "./json-text.js";
import { send, type Upstream } from "./upstream.js";

export interface WritePlan {
  op: "index" | "create";
  /** The index the client named: the write goes there, whatever name the service stands for (its write alias). */
  index?: string | undefined;
  /** The client's action metadata as a JSON object's text, values as sent; `_index` and `_id` are set from the write. */
  meta: string;
  /** Query string forwarded to `_bulk` (without `?`). */
  query: string;
  /** The client's headers to send (credentials, opaque id). */
  headers: Record<string, string | string[]>;
  /** The client's source line less its own `neardup` (ndjson.ts `lineToWrite`), written with the service's `neardup` added ({@link withNeardup}); else the service's source. */
  sourceLine?: string;
  /** The engine's own item for this write, once written. */
  result?: Record<string, unknown>;
  /** The whole-request status when the engine refused the write request itself. */
  refusal?: { status: number; body: unknown };
}

type RawItem = Record<string, Record<string, unknown>>;

export class WriteThrough {
  /** The engine to give the service. */
  readonly engine: Engine;

  constructor(
    inner: Engine,
    private readonly upstream: Upstream,
    private readonly timeoutMs: number,
  ) {
    const bulk = (operations: Record<string, unknown>[], options?: BulkOptions) => this.bulk(operations, options);
    this.engine = new Proxy(inner, {
      get(target, prop) {
        if (prop === "bulk") return bulk;
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  }

  private async bulk(operations: Record<string, unknown>[], options: BulkOptions = {}): Promise<BulkResult> {
    // Writes with the same query and credentials share one request.
    const groups = new Map<string, { plan: WritePlan | undefined; at: number; lines: string }[]>();
    for (let i = 0; i < operations.length; i += 2) {
      const action = operations[i]!;
      const op = Object.keys(action)[0]!;
      const meta = action[op] as { _index: string; _id: string };
      const source = operations[i + 1]!;
      const plan = planOf(source);
      const line = plan ? actionLine(plan, plan.index ?? meta._index, meta._id) : JSON.stringify(action);
      const key = plan ? JSON.stringify([plan.query, plan.headers.authorization ?? ""]) : "";
      const sourceText = plan?.sourceLine === undefined || source.neardup === undefined ? JSON.stringify(source) : withNeardup(plan.sourceLine, source.neardup);
      const entry = { plan, at: i / 2, lines: `${line}\n${sourceText}\n` };
      const group = groups.get(key);
      if (group) group.push(entry);
      else groups.set(key, [entry]);
    }
    const items: RawItem[] = new Array(operations.length / 2);
    let errors = false;
    for (const group of groups.values()) {
      const first = group[0]!.plan;
      // Each group leaves on its own, after the last one's answer: the writer's check runs before each.
      options.beforeSend?.();
      const response = await send(this.upstream, {
        method: "POST",
        path: `/_bulk${first?.query ? `?${first.query}` : ""}`,
        headers: { "content-type": "application/x-ndjson", ...(first?.headers ?? {}) },
        body: Buffer.from(group.map((e) => e.lines).join("")),
        timeoutMs: this.timeoutMs,
      });
      const body = parseJson(response.body);
      if (response.status !== 200 || !isBulkBody(body)) {
        for (const e of group) if (e.plan) e.plan.refusal = { status: response.status, body };
        const status = response.status;
        const code = status === 429 || status === 502 || status === 503 || status === 504 ? "ENGINE_UNAVAILABLE" : "ENGINE_ERROR";
        // A gateway's 502/504: the engine behind it may have taken the request.
        throw new NeardupError(code, `the engine at ${this.upstream.shown} refused the bulk write with HTTP ${status}`, { details: { status, outcomeUnknown: status === 502 || status === 504 } });
      }
      errors ||= body.errors;
      group.forEach((e, k) => {
        const item = body.items[k]!;
        items[e.at] = item;
        if (e.plan) e.plan.result = Object.values(item)[0];
      });
    }
    return toBulkResult({ errors, items: items as never });
  }
}

/**
 * The key under which a document's source, as given to the service, carries its {@link WritePlan}. The
 * service writes `{...source, neardup}`, which copies it; `JSON.stringify` leaves it out. So each write,
 * a retry included (`writeDocuments` writes again after re-creating a missing index), carries its own
 * document's plan. Plans queued by id paired a write with an earlier same-id document that was not
 * written (its bytes were stored), and a retry with another plan or none.
 */
const PLAN = Symbol("neardup.writePlan");

/** The source to give the service for a document written per `plan`. */
export function withPlan(source: Record<string, unknown>, plan: WritePlan): Record<string, unknown> {
  return { ...source, [PLAN]: plan };
}

function planOf(source: Record<string, unknown>): WritePlan | undefined {
  return (source as { [PLAN]?: WritePlan })[PLAN];
}

/** The client's action line for a write: its metadata's text as sent, with the write's `_index` and `_id` first. */
export function actionLine(plan: Pick<WritePlan, "op" | "meta">, index: string, id: string): string {
  return `{${JSON.stringify(plan.op)}:${withFirstMembers(plan.meta, `"_index":${JSON.stringify(index)},"_id":${JSON.stringify(id)}`)}}`;
}

/**
 * A client's source line (a JSON object) with `"neardup": ...` as its first
 * key, every other byte as sent. The line must not hold a `neardup` key of its own
 * (ndjson.ts `lineToWrite` takes it out).
 */
export function withNeardup(sourceLine: string, neardup: unknown): string {
  return withFirstMembers(sourceLine, `"neardup":${JSON.stringify(neardup)}`);
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
}

function isBulkBody(body: unknown): body is { errors: boolean; items: RawItem[] } {
  return typeof body === "object" && body !== null && Array.isArray((body as { items?: unknown }).items);
}
