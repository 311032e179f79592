/**
 * The writer lease in readiness (audit 23, F1): a sidecar restarted after a crash waits out its dead
 * predecessor's lease (ttl + margin on its own clock) and refuses every write meanwhile, so until it has
 * been able to take writes once since it started (it held the lease and decided, or knew a live holder to
 * forward to) /readyz answers 503 with the wait and its expected end. After that a handover does not turn
 * it to 503 (a whole fleet would leave its load balancer during a failover); the body still shows the state.
 * The wait itself is never shortened: a predecessor guessed dead that is not makes two writers.
 */
import type { LeaseStatus, WriterLease } from "../service/writer-lease.js";
import type { ReadinessCondition } from "./readiness.js";

/** The lease state as /readyz shows it (snake_case, as the API's bodies). */
export function leaseBody(index: string, status: LeaseStatus): Record<string, unknown> {
  return {
    index,
    state: status.state,
    ...(status.holderUrl === undefined ? {} : { holder_url: status.holderUrl }),
    ...(status.secondsLeft === undefined ? {} : { seconds_left: status.secondsLeft }),
  };
}

/** Why writes cannot be taken yet, for the /readyz reason; `undefined` when they can. */
export function leaseWaitReason(index: string, status: LeaseStatus, ownUrl: string): string | undefined {
  switch (status.state) {
    case "held":
    case "forwarding":
      return undefined;
    case "unknown":
      return `writes to index ${index} wait: the writer lease has not been read yet`;
    case "taking_over":
      return `writes to index ${index} wait: this sidecar has just taken over the writer lease and decides once the engine shows its predecessor's writes (at least ${status.secondsLeft ?? 0} s more)`;
    case "waiting": {
      const left = `taken over once unrenewed for NEARDUP_LEASE_TTL_MS + 1 s, in about ${status.secondsLeft ?? 0} s`;
      if (status.holderUrl === ownUrl) return `writes to index ${index} wait (503 RETRY) for its writer lease, held by a predecessor at this sidecar's own address that crashed or was killed: it is ${left}`;
      return `writes to index ${index} wait (503 RETRY) for its writer lease, held by the sidecar at ${status.holderUrl ?? "an unknown address"}, not seen renewing it since this sidecar started: writes are forwarded there once it renews it (every NEARDUP_LEASE_TTL_MS / 3), else it is ${left}`;
    }
  }
}

/**
 * Readiness over the API's writer lease: `current` is the lease now in use (a new one after the engine comes
 * back). Whether writes were ever taken is kept across leases: {@link LeaseReadiness.note} before one is replaced.
 */
export class LeaseReadiness {
  private tookWrites = false;

  constructor(
    private readonly index: string,
    private readonly ownUrl: string,
    private readonly current: () => WriterLease | undefined,
  ) {}

  /** Remembers whether `lease` has let this sidecar take writes (call before it is replaced). */
  note(lease: WriterLease | undefined): void {
    if (lease?.hasTakenWrites) this.tookWrites = true;
  }

  /** The lease as it is now, or `undefined` with no lease. */
  status(): LeaseStatus | undefined {
    return this.current()?.status();
  }

  readonly condition: ReadinessCondition = () => {
    const lease = this.current();
    if (!lease) return {};
    this.note(lease);
    const status = lease.status();
    const details = { lease: leaseBody(this.index, status) };
    return this.tookWrites ? { details } : { notReady: leaseWaitReason(this.index, status, this.ownUrl), details };
  };
}
