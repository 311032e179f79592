/**
 * A circuit breaker in front of the engine. After `failures` consecutive
 * ENGINE_UNAVAILABLE errors it opens: engine calls then fail at once with
 * ENGINE_UNAVAILABLE (503 + Retry-After) instead of each waiting for a
 * connection timeout against a down engine. After `openMs` one trial call is
 * let through (half-open); success closes the breaker, failure re-opens it.
 * A successful health probe also closes it.
 */
import { hasErrorCode, NeardupError } from "../core/errors.js";
import type { Engine } from "../engine/index.js";
import { guardCalls } from "../engine/guard.js";

export type BreakerState = "closed" | "open" | "half-open";

export interface BreakerOptions {
  /** Consecutive unavailable failures that open the breaker. Default 5. */
  failures?: number;
  /** How long it stays open before a trial call, ms. Default 10,000. */
  openMs?: number;
  now?: () => number;
  onStateChange?: (state: BreakerState) => void;
  /** Called for each call refused while open. */
  onReject?: () => void;
}

export class CircuitBreaker {
  private consecutive = 0;
  private openedAt = 0;
  private current: BreakerState = "closed";
  private trialInFlight = false;
  private readonly failures: number;
  private readonly openMs: number;
  private readonly now: () => number;

  constructor(private readonly options: BreakerOptions = {}) {
    this.failures = options.failures ?? 5;
    this.openMs = options.openMs ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  get state(): BreakerState {
    return this.current;
  }

  private set(state: BreakerState): void {
    if (state === this.current) return;
    this.current = state;
    this.options.onStateChange?.(state);
  }

  /** Throws ENGINE_UNAVAILABLE while open; lets one trial through once the open time is over. */
  private admit(operation: string): { trial: boolean } {
    if (this.current === "closed") return { trial: false };
    const elapsed = this.now() - this.openedAt;
    if (this.current === "open" && elapsed >= this.openMs) this.set("half-open");
    if (this.current === "half-open" && !this.trialInFlight) {
      this.trialInFlight = true;
      return { trial: true };
    }
    this.options.onReject?.();
    const retryAfterSeconds = Math.max(1, Math.ceil((this.openMs - elapsed) / 1000));
    throw new NeardupError("ENGINE_UNAVAILABLE", `${operation}: the engine is failing (circuit breaker open after ${this.failures} consecutive failures); not calling it for ${retryAfterSeconds} s`, {
      details: { operation, breaker: "open", retryAfterSeconds },
    });
  }

  recordSuccess(): void {
    this.consecutive = 0;
    this.set("closed");
  }

  recordFailure(): void {
    this.consecutive++;
    if (this.current === "half-open" || this.consecutive >= this.failures) {
      this.openedAt = this.now();
      this.set("open");
    }
  }

  /** Runs `call` under the breaker; only ENGINE_UNAVAILABLE errors count as failures (a 404 or a 409 is an engine that works). */
  async run<T>(operation: string, call: () => Promise<T>): Promise<T> {
    const { trial } = this.admit(operation);
    try {
      const value = await call();
      this.recordSuccess();
      return value;
    } catch (err) {
      if (hasErrorCode(err, "ENGINE_UNAVAILABLE")) this.recordFailure();
      else if (trial) this.recordSuccess();
      throw err;
    } finally {
      if (trial) this.trialInFlight = false;
    }
  }
}

/** The engine with every call (all but `kind`, `info`, `close`) run under the breaker. */
export function withBreaker(engine: Engine, breaker: CircuitBreaker): Engine {
  return guardCalls(engine, (operation, call) => breaker.run(operation, call));
}
