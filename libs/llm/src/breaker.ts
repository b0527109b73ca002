/**
 * Circuit breaker: after `threshold` consecutive failures the breaker opens
 * and refuses calls for `cooldownMs`; then it half-opens and lets exactly one
 * trial call through. The trial's success closes it, its failure re-opens it.
 * An unreachable model so costs a few calls per cooldown, not one per chunk.
 */
export type BreakerState = 'closed' | 'open' | 'half-open';

export class CircuitBreaker {
  private failures = 0;
  private openedAt = 0;
  private state: BreakerState = 'closed';
  private trialInFlight = false;
  /** Times the breaker opened. */
  opened = 0;

  constructor(
    readonly threshold: number,
    readonly cooldownMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** null: go ahead (the caller must report the result); else why the call is refused. */
  admit(): string | null {
    if (this.state === 'open' && this.now() - this.openedAt >= this.cooldownMs) {
      this.state = 'half-open';
    }
    if (this.state === 'closed') return null;
    if (this.state === 'half-open' && !this.trialInFlight) {
      this.trialInFlight = true;
      return null;
    }
    const left = Math.max(0, this.cooldownMs - (this.now() - this.openedAt));
    return this.state === 'half-open'
      ? 'circuit breaker half-open: a trial call is in flight'
      : `circuit breaker open after ${this.failures} consecutive failures; next try in ${Math.ceil(left / 1000)}s`;
  }

  succeeded(): void {
    this.failures = 0;
    this.trialInFlight = false;
    this.state = 'closed';
  }

  failed(): void {
    this.failures++;
    const trial = this.trialInFlight;
    this.trialInFlight = false;
    if (trial || this.failures >= this.threshold) {
      if (this.state !== 'open') this.opened++;
      this.state = 'open';
      this.openedAt = this.now();
    }
  }

  get current(): BreakerState {
    return this.state;
  }
}
