/**
 * What is stored, as the engine and this sidecar's acknowledged writes say together: whether a document
 * exists, and the cluster a document belongs to (`GET /v1/clusters/{id}`). The recent-writes window holds the
 * writes the engine's search may not show yet; the engine the rest.
 */
import { NeardupError } from "../core/errors.js";
import type { Engine } from "../engine/types.js";
import { getDocument } from "./documents.js";
import { readSourceTime } from "./input.js";
import { byTimeThenId } from "./rank.js";
import type { RecentWrites } from "./recent.js";

type NeardupStatus = { status?: string; duplicate_of?: string };

export interface ClusterMember {
  id: string;
  status: string;
  distance: number | null;
  similarity: number | null;
}

interface Found {
  id: string;
  time: number;
  distance: number | null;
  similarity: number | null;
}

export class StoredReads {
  /** `recent` is read at each call: the service may replace its window (`DedupService.learnRefreshInterval`). */
  constructor(
    private readonly engine: Engine,
    private readonly index: string,
    private readonly recent: () => RecentWrites,
  ) {}

  /** Whether a document of this id is stored: in the recent-writes window, else in the engine (`getDocument`: every index of the window, and a realtime GET for one not searchable yet). */
  async isStored(id: string): Promise<boolean> {
    return this.recent().get(id) !== undefined || (await getDocument(this.engine, this.index, id)) !== undefined;
  }

  /**
   * The cluster a document belongs to: its original and every document marked a duplicate of it, oldest
   * first. Members whose writes this sidecar had acknowledged are there at once, before the engine's next
   * refresh shows them to the search. When the original is gone (deleted while its duplicates stay), its
   * duplicates became the originals of later near-duplicates (`DedupService.withStoredRoot`): those are members
   * too, so every member asked gives the same cluster.
   */
  async cluster(id: string, limit = 1000): Promise<{ original: string; members: ClusterMember[] }> {
    const stored = await getDocument<{ neardup?: NeardupStatus }>(this.engine, this.index, id);
    if (!stored) throw new NeardupError("NOT_FOUND", `document ${JSON.stringify(id)} does not exist in ${this.index}`, { field: "id" });
    let original = this.originalOf(id, stored.neardup) ?? id;
    let originalStored = original === id;
    if (!originalStored) {
      // The original named may be a duplicate itself, of a root that is gone: the cluster is that root's.
      const named = await this.storedStatus(original);
      const root = named && this.originalOf(original, named.neardup);
      if (root !== undefined) original = root;
      originalStored = root === undefined ? named !== undefined : await this.isStored(root);
    }
    const found = await this.duplicatesOf([original], limit);
    if (!originalStored && found.length > 0) {
      const seen = new Set(found.map((m) => m.id));
      for (const m of await this.duplicatesOf(found.slice(0, limit).map((m) => m.id), limit)) if (!seen.has(m.id)) found.push(m);
    }
    found.sort(byTimeThenId);
    // The original itself, unless it is gone: it was listed as a member.
    const members: ClusterMember[] = [
      ...(originalStored ? [{ id: original, status: "original", distance: null, similarity: null }] : []),
      ...found.slice(0, limit).map(({ id: member, distance, similarity }) => ({ id: member, status: "duplicate", distance, similarity })),
    ];
    return { original, members };
  }

  /** The original a document's status names, this sidecar's acknowledged write of it first; `undefined` for an original. */
  private originalOf(id: string, stored: NeardupStatus | undefined): string | undefined {
    const own = this.recent().acknowledged(id)?.candidate;
    const status = own ? { status: own.status, duplicate_of: own.duplicateOf } : stored;
    return status?.status === "duplicate" && status.duplicate_of ? status.duplicate_of : undefined;
  }

  /** A document's neardup status as stored (the recent-writes window's for one not searchable yet), `undefined` when it is gone. */
  private async storedStatus(id: string): Promise<{ neardup?: NeardupStatus } | undefined> {
    const own = this.recent().get(id)?.candidate;
    if (own) return { neardup: { status: own.status, duplicate_of: own.duplicateOf } };
    return getDocument<{ neardup?: NeardupStatus }>(this.engine, this.index, id);
  }

  /** The documents marked duplicates of any of `originals`, as the engine and this sidecar's acknowledged writes say. */
  private async duplicatesOf(originals: string[], limit: number): Promise<Found[]> {
    const targets = new Set(originals);
    const recent = this.recent();
    const response = await this.engine.search<{ neardup: { distance?: number; similarity?: number; timestamp?: number | string } }>({
      index: this.index,
      ignoreUnavailable: true,
      body: {
        size: limit,
        _source: ["neardup.distance", "neardup.similarity", "neardup.timestamp"],
        query: { terms: { "neardup.duplicate_of": originals } },
        sort: [{ "neardup.timestamp": "asc" }],
      },
    });
    // An id re-sent after a rollover is stored in two indices behind the alias: listed once, as its newest copy
    // (the hits come oldest first).
    const byId = new Map<string, Found>();
    for (const h of response.hits.hits) {
      const newer = recent.acknowledged(h._id)?.candidate;
      if (newer !== undefined && (newer.duplicateOf === undefined || !targets.has(newer.duplicateOf))) continue;
      byId.delete(h._id);
      byId.set(h._id, { id: h._id, time: readSourceTime(h._source?.neardup.timestamp), distance: h._source?.neardup.distance ?? null, similarity: h._source?.neardup.similarity ?? null });
    }
    const found = [...byId.values()];
    const seen = new Set(found.map((m) => m.id));
    for (const original of originals) {
      for (const e of recent.storedDuplicatesOf(original)) {
        if (!seen.has(e.candidate.id)) found.push({ id: e.candidate.id, time: e.candidate.time, distance: e.match?.distance ?? null, similarity: e.match?.similarity ?? null });
        seen.add(e.candidate.id);
      }
    }
    return found;
  }
}
