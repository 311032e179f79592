/**
 * An in-memory table of MinHash LSH band keys (`BB:XXXXXXXX`, see
 * docs/fingerprint-spec.md §9): which ids hold a key. Beside the segment
 * index it finds near-duplicates whose simhashes are far apart. Memory is a
 * Map entry per distinct key plus a small Set per key: about 16 keys a
 * document at the default banding (docs/benchmarks.md has the measured cost).
 */
export class LshTable {
  private readonly byKey = new Map<string, Set<string>>();
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
      let ids = this.byKey.get(k);
      if (!ids) this.byKey.set(k, (ids = new Set()));
      ids.add(id);
    }
  }

  remove(id: string): void {
    const keys = this.keysOf.get(id);
    if (!keys) return;
    this.keysOf.delete(id);
    for (const k of keys) {
      const ids = this.byKey.get(k);
      ids?.delete(id);
      if (ids?.size === 0) this.byKey.delete(k);
    }
  }

  /** Ids sharing at least one of the keys, each once, in no particular order. */
  lookup(keys: readonly string[]): Set<string> {
    const out = new Set<string>();
    for (const k of keys) for (const id of this.byKey.get(k) ?? []) out.add(id);
    return out;
  }
}
