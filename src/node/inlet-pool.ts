/**
 * The outlets an inlet carries clients to: every outlet of its relay name that it pairs with (a pool),
 * each with a session keeper of its own. The relays say which outlets there are (the inlet watches its
 * relay name on each relay it links, and hears of every change); an outlet that dials the inlet's direct
 * path joins too. A new client goes to the ready outlet with the fewest clients, counting failed opens
 * as a penalty that is forgiven over time; an outlet whose session is lost is chosen no more until
 * there is a new one. With one outlet, this is one keeper, as it always was.
 */
import type { OutletsEvent, RelayEvent } from '../wire/protocol.ts';
import type { Backoff } from './backoff.ts';
import type { RelayAttempts } from './inlet-relay-attempts.ts';
import { SessionKeeper, type SessionKeeperOptions } from './inlet-session-keeper.ts';
import { poolPenaltyHalfLifeMs, poolPenaltyPerFailure, poolPenaltyMax, poolMembersMax } from './limits.ts';
import type { RelayLink, RelayLinks } from './relay-links.ts';
import type { Subscriptions } from './subscriptions.ts';

export interface InletPoolOptions extends Omit<SessionKeeperOptions, 'onOutletSilent' | 'onChange' | 'backoff'> {
  readonly relays: RelayLinks;
  /** Each keeper's reconnection backoff. */
  readonly backoff: () => Backoff;
  readonly relayAttempts: RelayAttempts;
  /** The outlet of `keeper` stopped answering its heartbeats: the streams it carries are closed with `error`. */
  readonly onOutletSilent: (keeper: SessionKeeper, error: Error) => void;
  /** Where its listeners on the relay links are kept, to be dropped with the inlet's. */
  readonly subscriptions: Subscriptions;
}

/** One member of the pool, as /show gives it. */
export interface PoolMemberShow {
  readonly outlet: string | null;
  readonly session: 'open' | 'opening' | 'none';
  readonly path: string | null;
  readonly clients: number;
  readonly warm_streams: number;
  /** Failed opens lately, as the choice counts them (halved every poolPenaltyHalfLifeMs). */
  readonly penalty: number;
}

interface Member {
  readonly keeper: SessionKeeper;
  clients: number;
  penalty: number;
  penaltyAt: number;
}

export class InletPool {
  private readonly members: Member[] = [];
  /** The outlets each relay link says the inlet pairs with, by relay id. */
  private readonly listed = new Map<string, readonly string[]>();
  private readonly waiters = new Set<() => void>();
  private stopping = false;
  private directUntil = 0;
  /** Turns the choice among equal outlets. */
  private turn = 0;
  private reconciling: NodeJS.Immediate | undefined;

  constructor(private readonly options: InletPoolOptions) {
    this.add(undefined);
  }

  /** The keepers, the first one first: what /show's summary describes. */
  get keepers(): readonly SessionKeeper[] {
    return this.members.map((member) => member.keeper);
  }

  /** The first keeper: the one a pool of one outlet has. */
  get first(): SessionKeeper {
    return this.members[0]!.keeper;
  }

  get stopped(): boolean {
    return this.stopping;
  }

  /** Open while any outlet's session is, else opening while one is being opened. */
  state(): 'open' | 'opening' | 'none' {
    const states = this.members.map(({ keeper }) => keeper.state());
    return states.includes('open') ? 'open' : states.includes('opening') ? 'opening' : 'none';
  }

  /** The first keeper with an open session (else the first): whose path /show gives for the inlet. */
  carrier(): SessionKeeper {
    return this.members.find(({ keeper }) => keeper.state() === 'open')?.keeper ?? this.first;
  }

  /** Warm streams each outlet keeps ready. */
  get warmWanted(): number {
    return this.first.warm.wanted;
  }

  /** Until when a direct session is expected (the advert is out): a new session waits for it that long. */
  set directDeadline(until: number) {
    this.directUntil = until;
    for (const { keeper } of this.members) keeper.directDeadline = until;
  }

  get directDeadline(): number {
    return this.directUntil;
  }

  /** Watches the relay name on every relay link as it comes up, and opens the sessions. */
  start(): void {
    const { relays, subscriptions } = this.options;
    subscriptions.on(relays, 'up', (link: RelayLink) => {
      void this.watch(link);
      this.ensureSessions();
    });
    subscriptions.on(relays, 'down', (link: RelayLink) => {
      this.listed.delete(link.entry.id);
      for (const { keeper } of this.members) keeper.relayLost(link);
      this.changed();
    });
    subscriptions.on(relays, 'event', (link: RelayLink, event: RelayEvent) => {
      if (event.event === 'outlets' && event.relay === this.options.via) this.heard(link, event);
    });
    for (const link of relays.up()) void this.watch(link);
    if (relays.up().length > 0) this.ensureSessions();
  }

  ensureSessions(): void {
    for (const { keeper } of this.members) keeper.ensureSession();
  }

  /**
   * The outlet for a new client: of those ready now, the one with the fewest clients plus its penalty
   * for failed opens; a different one each time among equals. None when no outlet is ready.
   */
  choose(): SessionKeeper | undefined {
    const now = Date.now();
    let best: Member | undefined;
    let bestScore = Infinity;
    this.turn += 1;
    for (let index = 0; index < this.members.length; index += 1) {
      const member = this.members[(this.turn + index) % this.members.length]!;
      if (!member.keeper.ready) continue;
      const score = member.clients + this.penaltyOf(member, now);
      if (score < bestScore) {
        best = member;
        bestScore = score;
      }
    }
    return best?.keeper;
  }

  /** The outlet for a new client once one is ready, within `timeoutMs` (else undefined). */
  waitForReady(timeoutMs: number): Promise<SessionKeeper | undefined> {
    const chosen = this.choose();
    if (chosen || this.stopping) return Promise.resolve(chosen);
    this.ensureSessions();
    return new Promise((resolve) => {
      const wake = () => {
        const ready = this.choose();
        if (!ready && Date.now() < deadline) return;
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve(ready);
      };
      const deadline = Date.now() + timeoutMs;
      const timer = setTimeout(() => {
        this.waiters.delete(wake);
        resolve(this.choose());
      }, timeoutMs);
      this.waiters.add(wake);
    });
  }

  /** Counts a client carried to `keeper`'s outlet until `socket` closes. */
  carrying(keeper: SessionKeeper, socket: { once(event: 'close', listener: () => void): unknown }): void {
    const member = this.memberOf(keeper);
    if (!member) return;
    member.clients += 1;
    socket.once('close', () => (member.clients -= 1));
  }

  /** `keeper`'s outlet refused a client, or the stream failed to open: it is chosen less for a while. */
  failed(keeper: SessionKeeper): void {
    const member = this.memberOf(keeper);
    if (!member) return;
    const now = Date.now();
    member.penalty = Math.min(poolPenaltyMax, this.penaltyOf(member, now) + poolPenaltyPerFailure);
    member.penaltyAt = now;
  }

  /**
   * The keeper of the outlet `outlet` (a node id, from a direct dial's certificate): its own, or a new
   * one; none when the pool is full or stopping.
   */
  keeperFor(outlet: string): SessionKeeper | undefined {
    if (this.stopping) return undefined;
    const known = this.members.find((member) => member.keeper.outlet === outlet);
    if (known) return known.keeper;
    const unpinned = this.members.find((member) => member.keeper.outlet === undefined && !member.keeper.ready);
    if (unpinned) {
      unpinned.keeper.outlet = outlet;
      return unpinned.keeper;
    }
    if (this.members.length >= poolMembersMax) return undefined;
    return this.add(outlet).keeper;
  }

  rotate(): void {
    for (const { keeper } of this.members) keeper.rotate();
  }

  stopAccepting(): void {
    this.stopping = true;
    if (this.reconciling) clearImmediate(this.reconciling);
    for (const { keeper } of this.members) keeper.stopAccepting();
    for (const wake of [...this.waiters]) wake();
  }

  destroySessions(): void {
    for (const { keeper } of this.members) keeper.destroySessions();
  }

  describe(): PoolMemberShow[] {
    const now = Date.now();
    return this.members.map((member) => ({
      outlet: member.keeper.outlet ?? null,
      session: member.keeper.state(),
      path: member.keeper.describePath(),
      clients: member.clients,
      warm_streams: member.keeper.warm.size,
      penalty: Math.round(this.penaltyOf(member, now) * 10) / 10,
    }));
  }

  private add(outlet: string | undefined): Member {
    const { onOutletSilent, backoff, ...options } = this.options;
    const member: Member = { keeper: undefined as unknown as SessionKeeper, clients: 0, penalty: 0, penaltyAt: 0 };
    const keeper = new SessionKeeper(
      {
        ...options,
        backoff: backoff(),
        onOutletSilent: (error) => onOutletSilent(keeper, error),
        onChange: () => this.changed(),
      },
      outlet,
    );
    keeper.directDeadline = this.directUntil;
    Object.assign(member, { keeper });
    this.members.push(member);
    return member;
  }

  private memberOf(keeper: SessionKeeper): Member | undefined {
    return this.members.find((member) => member.keeper === keeper);
  }

  private penaltyOf(member: Member, now: number): number {
    if (member.penalty === 0) return 0;
    return member.penalty * 0.5 ** ((now - member.penaltyAt) / poolPenaltyHalfLifeMs);
  }

  private async watch(link: RelayLink): Promise<void> {
    const { via, allow, logger } = this.options;
    try {
      const { outlets } = await link.channel.request('watch', { relay: via, allow });
      const named = Array.isArray(outlets) ? outlets.filter((outlet) => typeof outlet === 'string') : [];
      if (this.options.relays.up().includes(link)) this.heard(link, { event: 'outlets', relay: via, outlets: named });
    } catch (error) {
      // A relay that does not know the request (an earlier version) leaves the inlet with one outlet.
      logger.debug(
        `inlet: relay ${link.entry.id} did not say which outlets of "${via}" there are: ${(error as Error).message}`,
      );
    }
  }

  private heard(link: RelayLink, event: OutletsEvent): void {
    this.listed.set(link.entry.id, event.outlets.slice(0, poolMembersMax));
    this.changed();
  }

  /**
   * One keeper per outlet the relays list, and those with a session: a keeper whose outlet is listed no
   * more and that has no session takes a newly listed outlet, or goes; the last keeper always stays,
   * unpinned when its outlet is listed no more (a relay then says that no outlet is there, or picks one).
   */
  private reconcile(): void {
    this.reconciling = undefined;
    if (this.stopping) return;
    const listed = new Set<string>();
    for (const outlets of this.listed.values()) for (const outlet of outlets) listed.add(outlet);
    // Two keepers that reached the same outlet (one was unpinned when it opened): one of them goes.
    for (const member of [...this.members]) {
      const twin = this.members.find(
        (other) =>
          other !== member && other.keeper.outlet !== undefined && other.keeper.outlet === member.keeper.outlet,
      );
      if (twin && this.members.length > 1 && (member.keeper.state() !== 'open' || twin.keeper.state() === 'open'))
        this.retire(member);
    }
    const spare = this.members.filter(
      ({ keeper }) => (keeper.outlet === undefined || !listed.has(keeper.outlet)) && keeper.state() === 'none',
    );
    for (const outlet of listed) {
      if (this.members.some(({ keeper }) => keeper.outlet === outlet)) continue;
      const reused = spare.shift();
      if (reused) {
        reused.keeper.outlet = outlet;
        reused.keeper.ensureSession();
      } else if (this.members.length < poolMembersMax) {
        this.add(outlet).keeper.ensureSession();
      }
    }
    // Outlets the relays list no more, with no session: they left the pool.
    for (const member of spare) {
      if (this.members.length > 1) this.retire(member);
      else member.keeper.outlet = undefined;
    }
    for (const wake of [...this.waiters]) wake();
  }

  private retire(member: Member): void {
    const index = this.members.indexOf(member);
    if (index < 0) return;
    this.members.splice(index, 1);
    member.keeper.retire();
  }

  /** A keeper's session came or went: waiting clients look again, and the pool is put right soon after. */
  private changed(): void {
    for (const wake of [...this.waiters]) wake();
    this.reconciling ??= setImmediate(() => this.reconcile());
  }
}
