/**
 * Exponential backoff with jitter for reconnecting: no busy loop when a peer is gone, a quick return
 * when it comes back.
 */
import { reconnectInitialMs, reconnectJitter, reconnectMaxMs } from './limits.ts';

export interface BackoffOptions {
  /** @default reconnectInitialMs */
  readonly initialMs?: number;
  /** @default reconnectMaxMs */
  readonly maxMs?: number;
  /** Random spread, as a fraction of the delay. @default reconnectJitter */
  readonly jitter?: number;
}

export class Backoff {
  private attempt = 0;
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly jitter: number;

  constructor(options: BackoffOptions = {}) {
    this.initialMs = options.initialMs ?? reconnectInitialMs;
    this.maxMs = options.maxMs ?? reconnectMaxMs;
    this.jitter = options.jitter ?? reconnectJitter;
  }

  /** The delay before the next attempt; each call lengthens the next one, up to the maximum. */
  next(): number {
    const base = Math.min(this.maxMs, this.initialMs * 2 ** this.attempt);
    this.attempt += 1;
    return Math.round(base * (1 - this.jitter + Math.random() * 2 * this.jitter));
  }

  /** How many attempts have failed since the last success. */
  get failures(): number {
    return this.attempt;
  }

  reset(): void {
    this.attempt = 0;
  }
}
