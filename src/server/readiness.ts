/**
 * What /readyz reports: ready once the engine answers and the templates are
 * installed, and from then on the result of a cached health probe run every
 * few seconds (a request to /readyz never waits for the engine).
 */
import { redactText } from "../engine/errors.js";

export class Readiness {
  private state: { ready: boolean; reason: string } = { ready: false, reason: "starting" };
  private timer: NodeJS.Timeout | undefined;

  get ready(): boolean {
    return this.state.ready;
  }

  get reason(): string {
    return this.state.reason;
  }

  markReady(reason = "ok"): void {
    this.state = { ready: true, reason: redactText(reason) };
  }

  /** The reason is shown to any caller of /readyz: credentials are stripped from it. */
  markNotReady(reason: string): void {
    this.state = { ready: false, reason: redactText(reason) };
  }

  /**
   * Runs `probe` every `intervalMs` (each bounded by `timeoutMs`, default the
   * interval): resolved text => ready with that reason, thrown error => not
   * ready with its message. `onResult` sees each outcome (metrics, breaker).
   * Replaces any earlier watch.
   */
  watch(probe: () => Promise<string>, intervalMs: number, onResult: (ok: boolean, reason: string) => void = () => undefined, timeoutMs = intervalMs): void {
    this.stopWatching();
    let running = false;
    const tick = async (): Promise<void> => {
      if (running) return;
      running = true;
      let timeout: NodeJS.Timeout | undefined;
      try {
        const reason = await Promise.race([
          probe(),
          new Promise<never>((_, reject) => {
            timeout = setTimeout(() => reject(new Error(`the engine health probe took longer than ${timeoutMs} ms`)), timeoutMs);
          }),
        ]);
        if (this.timer) this.markReady(reason);
        onResult(true, reason);
      } catch (err) {
        const reason = `engine health probe failed: ${err instanceof Error ? err.message : String(err)}`;
        if (this.timer) this.markNotReady(reason);
        onResult(false, reason);
      } finally {
        clearTimeout(timeout);
        running = false;
      }
    };
    this.timer = setInterval(() => void tick(), intervalMs);
    this.timer.unref();
  }

  stopWatching(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
