/**
 * What /readyz reports: ready once the engine answers and the templates are
 * installed, and from then on the result of a cached health probe run every
 * few seconds (a request to /readyz never waits for the engine).
 */
import { redactText } from "../engine/errors.js";

/**
 * A further condition on readiness, looked at on each read while the engine is ready: `notReady` (a reason) turns
 * /readyz to 503; `details` are added to its body either way (the writer lease's state, audit 23 F1).
 */
export type ReadinessCondition = () => { notReady?: string | undefined; details?: Record<string, unknown> | undefined };

export class Readiness {
  private state: { ready: boolean; reason: string } = { ready: false, reason: "starting" };
  private timer: NodeJS.Timeout | undefined;
  private condition: ReadinessCondition | undefined;

  get ready(): boolean {
    return this.state.ready && this.condition?.().notReady === undefined;
  }

  get reason(): string {
    const notReady = this.state.ready ? this.condition?.().notReady : undefined;
    return notReady === undefined ? this.state.reason : redactText(notReady);
  }

  /** What the condition adds to the /readyz body (none while the engine is not ready). */
  get details(): Record<string, unknown> {
    return (this.state.ready ? this.condition?.().details : undefined) ?? {};
  }

  /** Sets (or, with `undefined`, removes) the {@link ReadinessCondition}. */
  setCondition(condition: ReadinessCondition | undefined): void {
    this.condition = condition;
  }

  /** Ready, the reason and the details, with the condition looked at once. */
  snapshot(): { ready: boolean; reason: string; details: Record<string, unknown> } {
    if (!this.state.ready || !this.condition) return { ready: this.state.ready, reason: this.state.reason, details: {} };
    const { notReady, details } = this.condition();
    return notReady === undefined ? { ready: true, reason: this.state.reason, details: details ?? {} } : { ready: false, reason: redactText(notReady), details: details ?? {} };
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
