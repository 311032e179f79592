/**
 * Forwarding writes between sidecars: a follower sends its write requests to
 * the sidecar holding the writer lease (src/service/writer-lease.ts) over the
 * internal route `POST /v1/internal/documents`, and turns the answer back into
 * results and errors, as if it had decided them itself.
 */
import { NeardupError, ERROR_CODES, fetchFailureReason, type ErrorCode } from "../core/errors.js";
import type { IndexResult } from "../service/dedup-service.js";
import type { DocInput } from "../service/input.js";
import type { Policy } from "../service/options.js";
import type { Forwarder } from "../service/writer-lease.js";
import type { Analysis } from "../core/fingerprinter.js";
import { toWire, type WireAnalysis } from "../workers/wire.js";

export const PEER_ROUTE = "/v1/internal/documents";

/** One document as it travels between sidecars. */
export interface PeerDoc {
  id: string;
  id_given: boolean;
  text: string;
  fields?: Record<string, unknown> | undefined;
  /** Epoch ms. */
  time: number;
  /** The sender's analysis of `text` (workers/wire.ts); the holder uses it when it fits, else analyses the text. */
  analysis?: WireAnalysis;
}

export interface PeerRequest {
  policy: Policy;
  items: PeerDoc[];
  labels?: string[] | undefined;
}

export type PeerAnswer = { result: IndexResult } | { error: { code: string; message: string; field?: string | undefined } };

export function toPeerDoc(doc: DocInput): PeerDoc {
  return { id: doc.id, id_given: doc.idGiven, text: doc.text, ...(doc.fields ? { fields: doc.fields } : {}), time: doc.time };
}

export function fromPeerDoc(doc: Omit<PeerDoc, "analysis">): DocInput {
  return { id: doc.id, idGiven: doc.id_given, text: doc.text, fields: doc.fields, time: doc.time };
}

export function toPeerAnswer(r: IndexResult | NeardupError): PeerAnswer {
  return r instanceof NeardupError ? { error: { code: r.code, message: r.message, field: r.field } } : { result: r };
}

function fromPeerAnswer(a: PeerAnswer): IndexResult | NeardupError {
  if ("result" in a) return a.result;
  const code = (a.error.code in ERROR_CODES ? a.error.code : "ENGINE_ERROR") as ErrorCode;
  return new NeardupError(code, a.error.message, { field: a.error.field });
}

/**
 * A forwarder over HTTP; `apiKey`, when set, is sent as a bearer token. With `analyze` (NEARDUP_PEER_ANALYSES
 * on), the documents go with this sidecar's analyses of their texts, which the holder then does not redo; a
 * text that fails here, or a full pool, goes without one.
 */
export function httpForwarder(options: {
  timeoutMs: number;
  apiKey?: string | undefined;
  analyze?: ((texts: { text: string }[]) => Promise<(Analysis | NeardupError)[]>) | undefined;
  /**
   * The holder's body limit (`NEARDUP_BODY_LIMIT`): a request that would pass it with its analyses goes
   * without them (they can triple a body of medium texts: a bulk under the limit got a 413 through a follower
   * and a 200 from the holder, multi-sidecar audit).
   */
  maxBodyBytes?: number | undefined;
}): Forwarder {
  /** Holders that refused `analysis` as an unknown field (a version before it, in a rolling upgrade). */
  const withoutAnalyses = new Set<string>();
  const send = async (url: string, docs: DocInput[], policy: Policy, labels: string[] | undefined, ended?: AbortSignal): Promise<(IndexResult | NeardupError)[]> => {
    const items = docs.map(toPeerDoc);
    const analyses = options.analyze && !withoutAnalyses.has(url) ? await options.analyze(docs.map((d) => ({ text: d.text }))).catch(() => []) : [];
    analyses.forEach((a, k) => {
      if (!(a instanceof NeardupError)) items[k]!.analysis = toWire(a);
    });
    const body: PeerRequest = { policy, items, labels };
    let json = JSON.stringify(body);
    if (analyses.length > 0 && options.maxBodyBytes !== undefined && Buffer.byteLength(json) > options.maxBodyBytes) {
      for (const item of items) delete item.analysis;
      json = JSON.stringify(body);
    }
    let response: Response;
    try {
      response = await fetch(new URL(PEER_ROUTE, url), {
        method: "POST",
        headers: { "content-type": "application/json", ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}) },
        body: json,
        signal: ended ? AbortSignal.any([AbortSignal.timeout(options.timeoutMs), ended]) : AbortSignal.timeout(options.timeoutMs),
      });
    } catch (err) {
      if (ended?.aborted) throw ended.reason as NeardupError;
      throw new NeardupError("RETRY", `the writer sidecar at ${url} did not answer (${fetchFailureReason(err)}); send again`, { cause: err });
    }
    const payload = (await response.json().catch(() => undefined)) as { items?: PeerAnswer[]; error?: { code: string; message: string; field?: string } } | undefined;
    if (response.status === 400 && analyses.length > 0 && /^items\[\d+\]\.analysis$/.test(payload?.error?.field ?? "")) {
      withoutAnalyses.add(url); // an older holder: the documents alone, from now on
      return send(url, docs, policy, labels, ended);
    }
    if (response.status === 401 || response.status === 403) {
      // Sending again will not help: the sidecars' keys are set up so.
      throw new NeardupError("INVALID_CONFIG", `the writer sidecar at ${url} refused this sidecar's forwarded write (HTTP ${response.status}): sidecars with API keys forward writes with NEARDUP_PEER_API_KEY, which must be a key with write scope on the writer`);
    }
    if (!response.ok || !payload?.items) {
      const e = payload?.error;
      if (e && e.code in ERROR_CODES) throw new NeardupError(e.code as ErrorCode, e.message, { field: e.field });
      throw new NeardupError("RETRY", `the writer sidecar at ${url} answered HTTP ${response.status}; send again`);
    }
    if (payload.items.length !== docs.length) throw new NeardupError("ENGINE_ERROR", `the writer sidecar at ${url} answered ${payload.items.length} results for ${docs.length} documents`);
    return payload.items.map(fromPeerAnswer);
  };
  return send;
}
