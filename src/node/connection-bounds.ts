/**
 * How many connections to its target an outlet holds at once: per inlet node (its session streams and
 * warm streams on every path, across all its sessions) and in all. Each is a descriptor, so both stay
 * well below the process's descriptor limit, whatever was asked for: a member the outlet allows can
 * then never make it run out of descriptors for its relays, its renewal or other inlets.
 */
import { CounterMap } from '../shared/counter-map.ts';
import { reservedDescriptors, targetConnections, targetConnectionsPerInlet } from './limits.ts';

export interface ConnectionBounds {
  /** Target connections one inlet node may hold open at once. @default targetConnectionsPerInlet */
  readonly perInlet: number;
  /** Target connections the outlet holds open at once, for every inlet together. @default targetConnections */
  readonly total: number;
}

export const defaultConnectionBounds: ConnectionBounds = {
  perInlet: targetConnectionsPerInlet,
  total: targetConnections,
};

/**
 * The bounds to use: those asked for, held to half of what the descriptor limit leaves beyond the
 * reserve (an outlet's warm stream costs two descriptors, its raw connection and the target's).
 * `clamped` says the limit lowered them.
 */
export function boundsWithin(
  requested: ConnectionBounds,
  descriptorLimit: number | undefined,
): { bounds: ConnectionBounds; clamped: boolean } {
  if (descriptorLimit === undefined || !Number.isFinite(descriptorLimit)) return { bounds: requested, clamped: false };
  const room = Math.max(16, Math.floor((descriptorLimit - Math.min(reservedDescriptors, descriptorLimit / 2)) / 2));
  const total = Math.min(requested.total, room);
  const perInlet = Math.min(requested.perInlet, total);
  return { bounds: { perInlet, total }, clamped: total < requested.total || perInlet < requested.perInlet };
}

/**
 * The soft limit on open descriptors from /proc/self/limits' text ("Max open files  20000  20000  files");
 * undefined when unlimited or absent.
 */
export function descriptorLimitOf(limitsText: string): number | undefined {
  const soft = /^Max open files\s+(\S+)/m.exec(limitsText)?.[1];
  return soft === undefined || soft === 'unlimited' ? undefined : Number(soft);
}

/** Counts what each inlet holds, and says whether one more fits. */
export class ConnectionCounter {
  private readonly byInlet = new CounterMap<string>();

  constructor(readonly bounds: ConnectionBounds) {}

  get total(): number {
    return this.byInlet.total;
  }

  /** Takes one for `inlet`, or says which bound it would pass. */
  claim(inlet: string): 'ok' | 'inlet' | 'total' {
    if (this.byInlet.get(inlet) >= this.bounds.perInlet) return 'inlet';
    if (this.byInlet.total >= this.bounds.total) return 'total';
    this.byInlet.add(inlet);
    return 'ok';
  }

  release(inlet: string): void {
    this.byInlet.remove(inlet);
  }
}
