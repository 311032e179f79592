/** What is read of one recent-writes window. */
export interface WindowHeld {
  readonly size: number;
  readonly bytes: number;
}

/**
 * The recent-writes windows of one sidecar's services (the HTTP API's, and one for each index its proxy
 * deduplicates): one memory budget (NEARDUP_RECENT_WINDOW_BYTES) and one pair of gauges for them all. Each proxy
 * index had a budget of its own, and the gauges showed the API's window alone (audit 24, F4: six indices held
 * 27 MB against a 4 MB budget while `neardup_recent_window_bytes` said 0).
 */
export class RecentWindows {
  private readonly windows = new Set<() => WindowHeld>();

  /** Adds a window, read at each ask (a service may replace its window); returns what removes it. */
  add(read: () => WindowHeld): () => void {
    this.windows.add(read);
    return () => this.windows.delete(read);
  }

  /** Windows held. */
  get count(): number {
    return this.windows.size;
  }

  /** Documents in all of them. */
  get size(): number {
    let size = 0;
    for (const read of this.windows) size += read().size;
    return size;
  }

  /** Rough bytes of all of them. */
  get bytes(): number {
    let bytes = 0;
    for (const read of this.windows) bytes += read().bytes;
    return bytes;
  }
}
