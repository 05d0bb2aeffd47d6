/**
 * The relay: outlets register a relay name, with their `allow` (an attribute name or an expression over
 * the inlet's attributes), over their connection to the relay; an inlet asks for that name, with its own
 * `allow`, and gets a splice ticket; the chosen outlet (one whose allow admits the inlet and that the
 * inlet's allow admits) is
 * told to dial in with its half. When both raw connections have arrived, the relay pipes bytes between them
 * and does nothing else: what flows is the end-to-end TLS of the two nodes, which it cannot read.
 *
 * What a member may cost is bounded here: a member no outlet would allow is refused before any outlet
 * is disturbed (and the outlets are told who, so they can log it); a member granted the relay name is
 * dialled only for inlets whose allow admits its attributes; a member may have only so many
 * splices pending, an outlet only so many dials; a member holds one registration per relay name; and
 * an outlet that leaves its dials unanswered is taken out of the choice for a while.
 */
import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import { CounterMap } from '../shared/counter-map.ts';
import { InputError, RuntimeFailure } from '../shared/errors.ts';
import { requirePolicy, type Policy } from '../shared/policy.ts';
import { sameSecret } from '../shared/secret-compare.ts';
import type { PeerIdentity } from '../pki/identity.ts';
import type { RelayEvent, SpliceGrant, SpliceRole } from '../wire/protocol.ts';
import { pump } from '../wire/pump.ts';
import { resetSocket } from '../wire/socket-reset.ts';
import { MemberSplices } from './member-splices.ts';
import { allowMissing, noOutletMessage, relayNotGranted } from './registration-refusals.ts';
import { pairInlet, pairs } from './pairing.ts';
import { PoolWatchers } from './pool-watchers.ts';
import { RefusalReports } from './refusal-reports.ts';
import { chooseOutlet, type Registration } from './outlet-choice.ts';
import {
  dialAnswerMs,
  pendingPerMember,
  pendingPerOutlet,
  spliceKeepAliveMs,
  spliceTimeoutMs,
  suspendMs,
  unansweredLimit,
} from './limits.ts';

interface PendingSplice {
  readonly from: PeerIdentity;
  /** The inlet's allow, read: what it requires of its outlet. */
  readonly allow: Policy;
  readonly key: string;
  /** The outlet dialled now, and those dialled before that did not answer. */
  outlet: Registration;
  /** The inlet asked for this outlet (a member of a pool it keeps a session with): no other is dialled. */
  readonly only: string | undefined;
  readonly tried: Set<Registration>;
  readonly secrets: Record<SpliceRole, string>;
  readonly sockets: Partial<Record<SpliceRole, Socket>>;
  readonly timer: NodeJS.Timeout;
  dialTimer: NodeJS.Timeout | undefined;
}

export interface RelayOptions {
  /** How long the first half of a splice waits for the second. @default spliceTimeoutMs */
  readonly spliceTimeoutMs?: number;
  /** Splices one member may have waiting for their halves. @default pendingPerMember */
  readonly pendingPerMember?: number;
  /** Dials one outlet may have unanswered at once. @default pendingPerOutlet */
  readonly pendingPerOutlet?: number;
  /** How long an outlet has to answer a dial before the splice is offered to another outlet. @default dialAnswerMs */
  readonly dialAnswerMs?: number;
  /** Dials in a row an outlet may leave unanswered before it is taken out of the choice. @default unansweredLimit */
  readonly unansweredLimit?: number;
  /** How long such an outlet stays out of the choice (while another can be chosen). @default suspendMs */
  readonly suspendMs?: number;
  /** Told of each splice refused (for the audit trail): whom, why, for which relay name. */
  readonly onRefused?: (peer: PeerIdentity, reason: 'allow' | 'limits', relay: string, detail: string) => void;
}

export interface RelayStats {
  registrations: number;
  splicesPending: number;
  splicesActive: number;
  splicesTotal: number;
  refused: number;
  busy: number;
}

const defaults = { spliceTimeoutMs, pendingPerMember, pendingPerOutlet, dialAnswerMs, unansweredLimit, suspendMs };

/** Why an inlet gets no session through this relay: what its `node show` quotes. */

export class Relay {
  private readonly registrations = new Map<string, Registration[]>();
  private readonly watchers = new PoolWatchers();
  private readonly pending = new Map<string, PendingSplice>();
  private readonly pendingByMember = new CounterMap<string>();
  private readonly active = new Set<Socket>();
  private readonly carriedFor = new MemberSplices();
  private idleWaiters: (() => void)[] = [];
  private stopping = false;
  private readonly limits: typeof defaults;
  /** Refusals not yet reported to the outlets. */
  private readonly refusals = new RefusalReports((key) => this.registrations.get(key) ?? []);
  private counts = { splicesTotal: 0, refused: 0, busy: 0 };
  /** Turns the choice among equally busy outlets. */
  private turn = 0;

  constructor(private readonly options: RelayOptions = {}) {
    this.limits = { ...defaults, ...options };
  }

  /**
   * Registers `peer` as an outlet of `relay` that allows the members `allow` admits; a member
   * registering the same name again replaces its earlier registration. Returns the function that
   * withdraws it.
   */
  register(peer: PeerIdentity, relay: string, allow: string, push: (event: RelayEvent) => void): () => void {
    if (!peer.relays.includes(relay)) throw relayNotGranted(peer, relay);
    if (allow === '') throw allowMissing();
    const policy = requirePolicy(allow, "the outlet's allow");
    const key = `${peer.projectId}/${relay}`;
    const registration: Registration = {
      nodeId: peer.nodeId,
      attributes: peer.attributes,
      allow,
      policy,
      push,
      pendingDials: 0,
      carrying: 0,
      unanswered: 0,
      suspendedUntil: 0,
    };
    const others = (this.registrations.get(key) ?? []).filter((r) => r.nodeId !== peer.nodeId);
    this.registrations.set(key, [...others, registration]);
    this.tellWatchers(key);
    return () => {
      const remaining = (this.registrations.get(key) ?? []).filter((r) => r !== registration);
      if (remaining.length > 0) this.registrations.set(key, remaining);
      else this.registrations.delete(key);
      this.tellWatchers(key);
    };
  }

  /**
   * Watches which outlets of `relay` the inlet `peer` pairs with (its `allow` read as `allow`): their
   * node ids now, and `push` is told each time the list changes. Returns the list and the function that
   * ends the watch.
   */
  watch(peer: PeerIdentity, relay: string, allow: string, push: (event: RelayEvent) => void) {
    if (allow === '') throw allowMissing();
    const policy = requirePolicy(allow, "the inlet's allow");
    return this.watchers.watch(peer, relay, policy, push, (key) => this.registrations.get(key) ?? []);
  }

  /** Tells the watchers of `key` whose list changed. */
  private tellWatchers(key: string): void {
    this.watchers.changed(key, this.registrations.get(key) ?? []);
  }

  /**
   * Pairs an inlet with one of the relay's outlets that allows it and that `allow`, what the inlet
   * requires of its outlet, admits: that outlet is told to dial in. An outlet the inlet would refuse gets
   * no splice of it.
   */
  connect(peer: PeerIdentity, relay: string, allow: string, only?: string): SpliceGrant {
    if (allow === '') {
      throw new InputError('ALLOW_MISSING', 'the splice request does not say which attribute the inlet allows', {
        hint: 'run the same Portal version on the relays and every node (portal --version)',
      });
    }
    const policy = requirePolicy(allow, "the inlet's allow");
    const key = `${peer.projectId}/${relay}`;
    const outlets = this.registrations.get(key) ?? [];
    if (outlets.length === 0) {
      throw new RuntimeFailure('RELAY_UNAVAILABLE', noOutletMessage(relay), {
        hint: 'start the outlet node (or wait for it to reconnect); check that inlet via equals the outlet relay',
      });
    }
    const pairing = pairInlet(peer, relay, allow, policy, outlets);
    if (!pairing.ok) {
      // The inlet's own refusal is not reported to the outlets, which refused nothing.
      if (pairing.byOutlets) this.noteRefusal(key, peer);
      this.options.onRefused?.(peer, 'allow', relay, pairing.detail);
      throw pairing.error;
    }
    const allowed = only ? pairing.outlets.filter((outlet) => outlet.nodeId === only) : pairing.outlets;
    if (allowed.length === 0) {
      throw new RuntimeFailure('OUTLET_NOT_HERE', `the outlet ${only} is not registered on this relay for "${relay}"`, {
        hint: 'the inlet asks another relay, or goes to the other outlets of the pool',
      });
    }
    const waiting = this.pendingByMember.get(peer.nodeId);
    const outlet = this.choose(allowed);
    if (waiting >= this.limits.pendingPerMember || !outlet) {
      this.counts.busy += 1;
      this.options.onRefused?.(peer, 'limits', relay, `${waiting} splices of this member waiting`);
      throw new RuntimeFailure(
        'RELAY_BUSY',
        `the relay "${relay}" has too many splices waiting (${waiting} of this node's)`,
        { hint: 'the node retries by itself' },
      );
    }
    const splice = randomBytes(12).toString('hex');
    const secrets = { inlet: randomBytes(24).toString('base64url'), outlet: '' };
    const timer = setTimeout(() => this.expire(splice), this.limits.spliceTimeoutMs);
    timer.unref();
    const entry: PendingSplice = {
      from: peer,
      allow: policy,
      key,
      outlet,
      only,
      tried: new Set(),
      secrets,
      sockets: {},
      timer,
      dialTimer: undefined,
    };
    this.pending.set(splice, entry);
    this.pendingByMember.add(peer.nodeId);
    this.dial(splice, entry, outlet);
    return { splice, secret: secrets.inlet, outlet: outlet.nodeId };
  }

  /** Tells `outlet` to dial in with a secret of its own, and offers the splice to another if it does not in time. */
  private dial(splice: string, entry: PendingSplice, outlet: Registration): void {
    entry.outlet = outlet;
    entry.tried.add(outlet);
    entry.secrets.outlet = randomBytes(24).toString('base64url');
    outlet.pendingDials += 1;
    entry.dialTimer = setTimeout(() => this.unanswered(splice, entry), this.limits.dialAnswerMs);
    entry.dialTimer.unref();
    outlet.push({ event: 'dial', splice, secret: entry.secrets.outlet, from: entry.from.nodeId });
  }

  /**
   * The dialled outlet did not join in time: it is marked, and another outlet the inlet and it both accept
   * gets the splice.
   */
  private unanswered(splice: string, entry: PendingSplice): void {
    if (this.pending.get(splice) !== entry || entry.sockets.outlet) return;
    this.strike(entry.outlet);
    entry.outlet.pendingDials -= 1;
    const others = (this.registrations.get(entry.key) ?? []).filter(
      (r) => !entry.tried.has(r) && pairs(entry.from, entry.allow, r) && (!entry.only || r.nodeId === entry.only),
    );
    const next = this.choose(others);
    if (next) this.dial(splice, entry, next);
    else entry.dialTimer = undefined;
  }

  private strike(outlet: Registration): void {
    outlet.unanswered += 1;
    if (outlet.unanswered >= this.limits.unansweredLimit) outlet.suspendedUntil = Date.now() + this.limits.suspendMs;
  }

  /**
   * A raw connection that presented `PORTAL-SPLICE/<version> <splice> <role> <secret>` (src/wire/protocol.ts):
   * true when it is half of a pending splice (and now the relay's), false when it was refused and destroyed.
   */
  join(socket: Socket, splice: string, role: SpliceRole, secret: string): boolean {
    const entry = this.stopping ? undefined : this.pending.get(splice);
    if (!entry || !sameSecret(secret, entry.secrets[role]) || entry.sockets[role]) {
      socket.destroy();
      return false;
    }
    socket.pause();
    entry.sockets[role] = socket;
    if (role === 'outlet') {
      clearTimeout(entry.dialTimer);
      entry.outlet.unanswered = 0;
      entry.outlet.suspendedUntil = 0;
    }
    socket.once('close', () => {
      if (this.pending.get(splice) === entry) this.expire(splice);
    });
    const { inlet, outlet } = entry.sockets;
    if (inlet && outlet) {
      this.settle(splice, entry);
      const carrier = entry.outlet;
      carrier.carrying += 1;
      outlet.once('close', () => (carrier.carrying -= 1));
      this.pipe(inlet, outlet);
      this.carriedFor.add([entry.from.nodeId, entry.outlet.nodeId], [inlet, outlet]);
    }
    return true;
  }

  stats(): RelayStats {
    let registrations = 0;
    for (const list of this.registrations.values()) registrations += list.length;
    return { registrations, splicesPending: this.pending.size, splicesActive: this.active.size / 2, ...this.counts };
  }

  /** Splices carried right now. */
  openSplices(): number {
    return this.active.size / 2;
  }

  /** Settles once no splice is carried. */
  whenIdle(): Promise<void> {
    if (this.active.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Pairs no more halves: the splices still pending are given up, the ones carried go on. */
  stopAccepting(): void {
    this.stopping = true;
    for (const splice of [...this.pending.keys()]) this.expire(splice);
  }

  close(): void {
    this.stopAccepting();
    this.refusals.stop();
    for (const splice of [...this.pending.keys()]) this.expire(splice);
    for (const socket of this.active) socket.destroy();
    this.registrations.clear();
    this.watchers.clear();
  }

  private choose(outlets: readonly Registration[]): Registration | undefined {
    return chooseOutlet(outlets, this.limits.pendingPerOutlet, this.turn++);
  }

  private pipe(a: Socket, b: Socket): void {
    this.counts.splicesTotal += 1;
    for (const [from, to] of [
      [a, b],
      [b, a],
    ] as const) {
      from.setNoDelay(true);
      // A node that loses power sends no FIN: keepalive finds the dead connection.
      from.setKeepAlive(true, spliceKeepAliveMs);
      this.active.add(from);
      pump(from, to);
      // An abort passes on as one: a reset, never an end the far side could take for a whole stream.
      from.on('error', () => resetSocket(to));
      // A clean close has sent its end through the pipe already; destroying the other side could drop
      // bytes still queued for it.
      from.once('close', (hadError: boolean) => {
        this.active.delete(from);
        if (this.active.size === 0) this.idleWaiters.splice(0).forEach((resolve) => resolve());
        if (hadError) resetSocket(to);
      });
    }
  }

  /**
   * Cuts everything of the member `nodeId` (revoked from its project): the splices it is part of, at
   * once and as a reset (both nodes close their session and the inlet moves on); the splices waiting for
   * it; its registrations. Returns how many splices were cut.
   */
  cutMember(nodeId: string): number {
    for (const [splice, entry] of [...this.pending])
      if (entry.from.nodeId === nodeId || entry.outlet.nodeId === nodeId) this.expire(splice);
    for (const [key, list] of [...this.registrations]) {
      const kept = list.filter((registration) => registration.nodeId !== nodeId);
      if (kept.length === list.length) continue;
      if (kept.length > 0) this.registrations.set(key, kept);
      else this.registrations.delete(key);
      this.tellWatchers(key);
    }
    this.watchers.forget(nodeId);
    return this.carriedFor.cut(nodeId);
  }

  /** The splice is no longer pending: its counts are given back. */
  private settle(splice: string, entry: PendingSplice): void {
    clearTimeout(entry.timer);
    this.pending.delete(splice);
    // A dial still open counts against its outlet until it is answered or given up.
    if (entry.dialTimer) {
      clearTimeout(entry.dialTimer);
      entry.outlet.pendingDials -= 1;
    }
    this.pendingByMember.remove(entry.from.nodeId);
  }

  private expire(splice: string): void {
    const entry = this.pending.get(splice);
    if (!entry) return;
    const dialOpen = entry.dialTimer !== undefined && !entry.sockets.outlet;
    this.settle(splice, entry);
    if (dialOpen) this.strike(entry.outlet);
    entry.sockets.inlet?.destroy();
    entry.sockets.outlet?.destroy();
  }

  private noteRefusal(key: string, peer: PeerIdentity): void {
    this.counts.refused += 1;
    this.refusals.note(key, peer);
  }
}
