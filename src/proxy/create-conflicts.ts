/**
 * `create` items that `skip` leaves out, whose `_id` already exists: the engine refuses such a `create` with a
 * per-item `409 version_conflict_engine_exception`, whatever its text, so the proxy answers that, not `200 noop`
 * (audit 22b, F9: a client counting conflicts on `create`, as idempotent shippers do, saw a success for a
 * document that was never its own). Which exist is read in one realtime `_mget` per chunk, for those ids only,
 * with the client's credentials; nothing is written.
 */
import type { ItemBody } from "./items.js";
import type { ProxyDoc } from "./peer.js";
import { send, type Upstream } from "./upstream.js";

/** Whether the document is written only if its id is new: a `create`, or an `index` with `op_type: create`. */
export function isCreateOnly(doc: Pick<ProxyDoc, "op" | "meta">): boolean {
  if (doc.op === "create") return true;
  const meta = parseObject(doc.meta);
  return meta?.op_type === "create";
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

interface Found {
  _index?: unknown;
  _id?: unknown;
  _version?: unknown;
  found?: unknown;
}

/**
 * The engine's own 409 item for each of `docs` (given ids, into `index`) whose id exists, by position in `docs`.
 * A read that fails answers nothing: those items keep the answer they had.
 */
export async function createConflicts(upstream: Upstream, index: string, docs: readonly ProxyDoc[], headers: Record<string, string | string[]>, timeoutMs: number): Promise<Map<number, ItemBody>> {
  const conflicts = new Map<number, ItemBody>();
  if (docs.length === 0) return conflicts;
  const auth = readHeaders(headers);
  const asked = docs.map((d) => {
    const routing = parseObject(d.meta)?.routing;
    return { _id: d.id, _source: false, ...(typeof routing === "string" || typeof routing === "number" ? { routing: String(routing) } : {}) };
  });
  const found = await readJson<{ docs?: Found[] }>(upstream, "POST", `/${encodeURIComponent(index)}/_mget`, auth, timeoutMs, { docs: asked });
  if (!Array.isArray(found?.docs) || found.docs.length !== docs.length) return conflicts;
  const where = new Map<string, Promise<{ uuid?: string; shards?: number }>>();
  await Promise.all(
    found.docs.map(async (doc, k) => {
      if (doc.found !== true || typeof doc._index !== "string") return;
      const concrete = doc._index;
      let info = where.get(concrete);
      if (!info) where.set(concrete, (info = indexInfo(upstream, concrete, auth, timeoutMs)));
      const { uuid, shards } = await info;
      const shard = shards === 1 ? "0" : shards === undefined ? undefined : await shardOf(upstream, concrete, asked[k]!.routing ?? docs[k]!.id, auth, timeoutMs);
      const id = docs[k]!.id;
      const reason = `[${id}]: version conflict, document already exists (current version [${String(doc._version)}])`;
      const error = { type: "version_conflict_engine_exception", reason, index: concrete, ...(shard === undefined ? {} : { shard }), ...(uuid === undefined ? {} : { index_uuid: uuid }) };
      conflicts.set(k, { _index: concrete, _id: id, status: 409, error });
    }),
  );
  return conflicts;
}

/** The client's credentials and tracing headers, for reads made on its behalf (not its content type, which is NDJSON). */
function readHeaders(headers: Record<string, string | string[]>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = { "content-type": "application/json" };
  for (const [name, value] of Object.entries(headers)) if (name !== "content-type" && name !== "accept") out[name] = value;
  return out;
}

async function readJson<T>(upstream: Upstream, method: string, path: string, headers: Record<string, string | string[]>, timeoutMs: number, body?: unknown): Promise<T | undefined> {
  try {
    const res = await send(upstream, { method, path, headers, timeoutMs, ...(body === undefined ? {} : { body: Buffer.from(JSON.stringify(body)) }) });
    return res.status === 200 ? (JSON.parse(res.body.toString("utf8")) as T) : undefined;
  } catch {
    return undefined;
  }
}

async function indexInfo(upstream: Upstream, index: string, headers: Record<string, string | string[]>, timeoutMs: number): Promise<{ uuid?: string; shards?: number }> {
  const path = `/${encodeURIComponent(index)}/_settings/index.uuid,index.number_of_shards`;
  const body = await readJson<Record<string, { settings?: { index?: { uuid?: unknown; number_of_shards?: unknown } } }>>(upstream, "GET", path, headers, timeoutMs);
  const settings = body?.[index]?.settings?.index;
  const shards = Number(settings?.number_of_shards);
  return { ...(typeof settings?.uuid === "string" ? { uuid: settings.uuid } : {}), ...(Number.isInteger(shards) && shards > 0 ? { shards } : {}) };
}

/** The shard a routing value goes to in an index of several (`_search_shards?routing=`). */
async function shardOf(upstream: Upstream, index: string, routing: string, headers: Record<string, string | string[]>, timeoutMs: number): Promise<string | undefined> {
  const body = await readJson<{ shards?: { shard?: unknown; primary?: unknown }[][] }>(upstream, "GET", `/${encodeURIComponent(index)}/_search_shards?routing=${encodeURIComponent(routing)}`, headers, timeoutMs);
  const shard = body?.shards?.[0]?.[0]?.shard;
  return typeof shard === "number" ? String(shard) : undefined;
}
