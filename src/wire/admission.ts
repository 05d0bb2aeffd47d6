/**
 * What a peer may cost the controller before it has proved anything. A source may start only so many
 * TLS handshakes a second. Every connection starts unauthenticated: it has an absolute deadline (not an
 * idle timer, which one byte every few seconds would keep alive) to present a splice preamble the relay
 * accepts or a certificate of a member; a source may hold only so many such connections; and when the
 * total is reached the oldest one makes room, so that a flood of slow connections cannot lock out
 * members, whose handshakes take milliseconds.
 *
 * A source is an IPv4 address or an IPv6 /64 (see sourceKeyOf): one host may hold a whole /64, so
 * counting its addresses apart would let it multiply every per-source bound.
 */
import type { Socket } from 'node:net';
import { CounterMap } from '../shared/counter-map.ts';
import { RateLimiter } from '../shared/rate-limiter.ts';
import { admissionDeadlineMs, admissionPerSource, admissionTotal, handshakesPerSource } from './limits.ts';
import { sourceKeyOf } from './source-key.ts';

export interface AdmissionLimits {
  /** Time from accept to a proven identity (splice secret or member certificate). @default admissionDeadlineMs */
  readonly deadlineMs: number;
  /** Unauthenticated connections one source (an IPv4 address, an IPv6 /64) may hold. @default admissionPerSource */
  readonly perSource: number;
  /** Unauthenticated connections in all. @default admissionTotal */
  readonly total: number;
  /**
   * TLS handshakes per second, and the burst, that one source (an IPv4 address, an IPv6 /64) may
   * start. A handshake costs about a millisecond of CPU and memory the allocator does not always give
   * back, so a flood of them is cut before it starts; splice halves, which cost no cryptography, are
   * not counted. @default handshakesPerSource
   */
  readonly handshakesPerSource: { readonly perSecond: number; readonly burst: number };
}

export const defaultAdmissionLimits: AdmissionLimits = {
  deadlineMs: admissionDeadlineMs,
  perSource: admissionPerSource,
  total: admissionTotal,
  handshakesPerSource,
};

export interface AdmissionStats {
  readonly unauthenticated: number;
  readonly refusedRate: number;
  readonly refusedPerSource: number;
  readonly evicted: number;
  readonly expired: number;
}

interface Waiting {
  readonly source: string;
  readonly timer: NodeJS.Timeout;
}

export class Admission {
  /** In accept order: the first entry is the oldest. */
  private readonly waiting = new Map<Socket, Waiting>();
  private readonly perSource = new CounterMap<string>();
  private counts = { refusedRate: 0, refusedPerSource: 0, evicted: 0, expired: 0 };
  private readonly handshakes: RateLimiter;

  constructor(private readonly limits: AdmissionLimits = defaultAdmissionLimits) {
    this.handshakes = new RateLimiter(limits.handshakesPerSource.perSecond, limits.handshakesPerSource.burst);
  }

  /** Whether the connection may start a TLS handshake; when not, it is destroyed. */
  allowHandshake(socket: Socket): boolean {
    if (this.handshakes.take(sourceKeyOf(socket.remoteAddress))) return true;
    this.counts.refusedRate += 1;
    socket.destroy();
    return false;
  }

  /** Takes a new connection in, or destroys it; false when it was refused. */
  admit(socket: Socket): boolean {
    const source = sourceKeyOf(socket.remoteAddress);
    if (this.perSource.get(source) >= this.limits.perSource) {
      this.counts.refusedPerSource += 1;
      socket.destroy();
      return false;
    }
    while (this.waiting.size >= this.limits.total) {
      const oldest = this.waiting.keys().next().value as Socket;
      this.counts.evicted += 1;
      this.release(oldest);
      oldest.destroy();
    }
    const timer = setTimeout(() => {
      if (!this.waiting.has(socket)) return;
      this.counts.expired += 1;
      this.release(socket);
      socket.destroy();
    }, this.limits.deadlineMs);
    timer.unref();
    this.waiting.set(socket, { source, timer });
    this.perSource.add(source);
    socket.once('close', () => this.release(socket));
    return true;
  }

  /** The connection proved who it is: it no longer counts against the limits, and has no deadline. */
  release(socket: Socket): void {
    const entry = this.waiting.get(socket);
    if (!entry) return;
    clearTimeout(entry.timer);
    this.waiting.delete(socket);
    this.perSource.remove(entry.source);
  }

  stats(): AdmissionStats {
    return { unauthenticated: this.waiting.size, ...this.counts };
  }
}
