/**
 * How the inlet gets a session or warm stream through the relays: which relay it tries first, how long
 * each may take, and which relays failed lately and so wait at the back of the order.
 */
import type { Socket } from 'node:net';
import { PortalError, RuntimeFailure, printable } from '../shared/errors.ts';
import { dialSplice } from '../wire/splice.ts';
import { isPeerRefusal } from './inlet-session-failure.ts';
import { lastRelayAttemptMs, relayAttemptMs, relayTroubleMaxMs, relayTroubleMs } from './limits.ts';
import type { RelayLink, RelayLinks } from './relay-links.ts';

export interface RelayAttemptsOptions {
  /** The relays of the project. */
  readonly relays: RelayLinks;
  /** The relay name whose outlets the inlet asks for. */
  readonly via: string;
  /** The inlet's allow, which the relay checks on the outlet's behalf. */
  readonly allow: string;
}

/** A relay that failed an attempt lately, as /show gives it. */
export interface RelayTroubleShow {
  readonly id: string;
  readonly failures: number;
  readonly reason: string;
  readonly until: string;
}

/** The relay has no registration of the pool's outlet asked for: another relay may. */
export const isOutletElsewhere = (error: unknown): boolean =>
  error instanceof PortalError && error.code === 'OUTLET_NOT_HERE';

export class RelayAttempts {
  /** Relays that failed an attempt lately, by relay id: tried after the others until `until`. */
  private readonly relayTrouble = new Map<string, { failures: number; until: number; reason: string }>();

  constructor(private readonly options: RelayAttemptsOptions) {}

  /**
   * A session or warm stream to an outlet of `via` through the first relay that gives one: each relay
   * in `relayOrder`, with `relayAttemptMs` for the whole attempt (grant, dial, handshake, verdicts)
   * while another could still be tried. A relay that grants splices and carries nothing, or stopped
   * answering, costs that long once and is then tried last for a while; a refusal on one relay
   * (PEER_NOT_ALLOWED, or the outlet's verdict) keeps the inlet from none of the others.
   */
  async through<T>(
    preferred: RelayLink | undefined,
    halfOpen: boolean,
    open: (raw: Socket, timeoutMs: number) => Promise<T>,
    discard: (value: T) => void,
    outlet?: string,
  ): Promise<{ value: T; link: RelayLink }> {
    const order = this.relayOrder(preferred);
    const onlyRelay = this.options.relays.all().length <= 1;
    let last: unknown = new RuntimeFailure('RELAY_UNREACHABLE', 'no relay of the project is reachable right now', {
      hint: 'check the relays; the node reconnects by itself',
    });
    for (const [index, link] of order.entries()) {
      const budgetMs = index < order.length - 1 ? relayAttemptMs : this.lastAttemptBudget(link, onlyRelay);
      try {
        const value = await this.attempt(link, halfOpen, open, discard, budgetMs, outlet);
        this.relayTrouble.delete(link.entry.id);
        return { value, link };
      } catch (error) {
        last = error;
        // An outlet of the pool that is not on this relay is no fault of the relay's.
        if (!isPeerRefusal(error) && !isOutletElsewhere(error)) this.troubleWith(link, (error as Error).message);
      }
    }
    throw last;
  }

  /**
   * A relay failed an attempt (or a session through it died): tried after the others, for longer each
   * time in a row.
   */
  troubleWith(link: RelayLink, reason: string): void {
    const failures = (this.relayTrouble.get(link.entry.id)?.failures ?? 0) + 1;
    const forMs = Math.min(relayTroubleMaxMs, relayTroubleMs * 2 ** (failures - 1));
    this.relayTrouble.set(link.entry.id, {
      failures,
      until: Date.now() + forMs,
      reason: printable(reason.slice(0, 300)),
    });
    // Bounded by the relays a node links (RelayLinks); forget those no longer up.
    if (this.relayTrouble.size > 64) {
      const up = new Set(this.options.relays.all().map((known) => known.entry.id));
      for (const id of this.relayTrouble.keys()) if (!up.has(id)) this.relayTrouble.delete(id);
    }
  }

  /** Relays that failed an attempt lately, tried after the others until `until`. */
  describe(): RelayTroubleShow[] {
    return [...this.relayTrouble.entries()]
      .filter(([, trouble]) => trouble.until > Date.now())
      .map(([id, trouble]) => ({
        id,
        failures: trouble.failures,
        reason: trouble.reason,
        until: new Date(trouble.until).toISOString(),
      }));
  }

  /**
   * Relays in the order they are tried: the preferred one (the last session's) first, then the others
   * that are up, and last those that failed an attempt lately, the soonest forgiven first.
   */
  private relayOrder(preferred: RelayLink | undefined): RelayLink[] {
    const now = Date.now();
    const troubledUntil = (link: RelayLink) => this.relayTrouble.get(link.entry.id)?.until ?? 0;
    const up = this.options.relays.up();
    const healthy = up.filter((link) => troubledUntil(link) <= now);
    const ordered =
      preferred && healthy.includes(preferred) ? [preferred, ...healthy.filter((link) => link !== preferred)] : healthy;
    const troubled = up.filter((link) => troubledUntil(link) > now).sort((a, b) => troubledUntil(a) - troubledUntil(b));
    return [...ordered, ...troubled];
  }

  /**
   * The budget of the last relay left in an attempt: all of it for the only relay the node knows (a
   * slow path is better than none); otherwise 2 s, doubling while it keeps failing, so that a stalled
   * relay does not hold the inlet while another one it knows is still connecting.
   */
  private lastAttemptBudget(link: RelayLink, onlyRelay: boolean): number {
    if (onlyRelay) return lastRelayAttemptMs;
    return Math.min(lastRelayAttemptMs, relayAttemptMs * 2 ** (this.relayTrouble.get(link.entry.id)?.failures ?? 0));
  }

  /** One attempt through one relay, given up after `budgetMs`; whatever it made after that is discarded. */
  private attempt<T>(
    link: RelayLink,
    halfOpen: boolean,
    open: (raw: Socket, timeoutMs: number) => Promise<T>,
    discard: (value: T) => void,
    budgetMs: number,
    outlet: string | undefined,
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let raw: Socket | undefined;
      let expired = false;
      const timer = setTimeout(() => {
        expired = true;
        raw?.destroy();
        reject(
          new RuntimeFailure('RELAY_STALLED', `relay ${link.entry.id} gave no session within ${budgetMs} ms`, {
            hint: 'the inlet tries the other relays first for a while',
          }),
        );
      }, budgetMs);
      const run = async () => {
        const { via: relay, allow } = this.options;
        const grant = await link.channel.request('connect', outlet ? { relay, allow, outlet } : { relay, allow });
        if (expired) return;
        raw = await dialSplice(link.entry.address, grant.splice, 'inlet', grant.secret, halfOpen);
        if (expired) {
          raw.destroy();
          return;
        }
        const value = await open(raw, budgetMs);
        if (expired) {
          discard(value);
          return;
        }
        clearTimeout(timer);
        resolve(value);
      };
      run().catch((error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      });
    });
  }
}
