/**
 * What one part of the node listens to on what the node shares (its relay links, its controller
 * channel), so that a part a reload removes stops hearing it: every listener added here goes at once.
 */
import type { EventEmitter } from 'node:events';

export class Subscriptions {
  private readonly added: { emitter: EventEmitter; event: string; listener: (...args: unknown[]) => void }[] = [];

  on<A extends unknown[]>(emitter: EventEmitter, event: string, listener: (...args: A) => void): void {
    // The emitter's events carry what each listener takes; it is called with exactly those.
    const added = listener as unknown as (...args: unknown[]) => void;
    emitter.on(event, added);
    this.added.push({ emitter, event, listener: added });
  }

  /** Removes every listener added so far. */
  clear(): void {
    for (const { emitter, event, listener } of this.added.splice(0)) emitter.off(event, listener);
  }
}
