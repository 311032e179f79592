/**
 * An in-memory table of MinHash LSH band keys (`BB:XXXXXXXX`, see
 * docs/fingerprint-spec.md §9): which ids hold a key. Beside the segment
 * index it finds near-duplicates whose simhashes are far apart. Memory is a
 * Map entry per distinct key: about 16 keys a document at the default
 * banding (docs/benchmarks.md has the measured cost).
 *
 * Most keys are held by one document, so a key's holder is kept as the id
 * itself, and only a key held by two or more gets a Set: a Set per key was
 * most of the table's cost (16 allocations a document, then garbage).
 */
export class LshTable {
  /** A key's holders: the id when it is the only one, else a Set of two or more. */
  private readonly byKey = new Map<string, string | Set<string>>();
  private readonly keysOf = new Map<string, readonly string[]>();

  /** Ids with keys. */
  get size(): number {
    return this.keysOf.size;
  }

  /** Records the keys of `id`, replacing any it had. */
  add(id: string, keys: readonly string[]): void {
    this.remove(id);
    if (keys.length === 0) return;
    this.keysOf.set(id, keys);
    for (const k of keys) {
      const held = this.byKey.get(k);
      if (held === undefined) this.byKey.set(k, id);
      else if (typeof held !== "string") held.add(id);
      else if (held !== id) this.byKey.set(k, new Set([held, id]));
    }
  }

  remove(id: string): void {
    const keys = this.keysOf.get(id);
    if (!keys) return;
    this.keysOf.delete(id);
    for (const k of keys) {
      const held = this.byKey.get(k);
      if (held === undefined) continue;
      if (typeof held === "string") {
        if (held === id) this.byKey.delete(k);
      } else if (held.delete(id) && held.size === 1) {
        for (const last of held) this.byKey.set(k, last);
      }
    }
  }

  /** Ids sharing at least one of the keys, each once, in no particular order. */
  lookup(keys: readonly string[]): Set<string> {
    const out = new Set<string>();
    for (const k of keys) {
      const held = this.byKey.get(k);
      if (held === undefined) continue;
      if (typeof held === "string") out.add(held);
      else for (const id of held) out.add(id);
    }
    return out;
  }
}
