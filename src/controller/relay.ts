/**
 * The relay: outlets register a relay name over their control channel; an inlet asks for that name and
 * gets a splice ticket; the outlet is told to dial in with its half. When both raw connections have
 * arrived, the relay pipes bytes between them and does nothing else: what flows is the end-to-end TLS
 * of the two nodes, which the relay cannot read.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Socket } from 'node:net';
import { InputError, RuntimeFailure } from '../shared/errors.ts';
import type { PeerIdentity } from '../pki/identity.ts';
import { pump } from '../wire/pump.ts';

export interface DialEvent {
  readonly event: 'dial';
  readonly splice: string;
  readonly secret: string;
}

export interface SpliceGrant {
  readonly splice: string;
  readonly secret: string;
}

interface Registration {
  readonly nodeId: string;
  readonly dial: (event: DialEvent) => void;
}

interface PendingSplice {
  readonly projectId: string;
  readonly secrets: Readonly<Record<SpliceRole, string>>;
  readonly sockets: Partial<Record<SpliceRole, Socket>>;
  readonly timer: NodeJS.Timeout;
}

export type SpliceRole = 'inlet' | 'outlet';

export interface RelayOptions {
  /** How long the first half of a splice waits for the second. @default 10000 */
  readonly spliceTimeoutMs?: number;
}

export interface RelayStats {
  registrations: number;
  splicesActive: number;
  splicesTotal: number;
}

export class Relay {
  private readonly registrations = new Map<string, Registration[]>();
  private readonly pending = new Map<string, PendingSplice>();
  private readonly active = new Set<Socket>();
  private readonly spliceTimeoutMs: number;
  private splicesTotal = 0;
  private nextOutlet = 0;

  constructor(options: RelayOptions = {}) {
    this.spliceTimeoutMs = options.spliceTimeoutMs ?? 10_000;
  }

  /** Registers `peer` as an outlet of `relay`; returns the function that withdraws it. */
  register(peer: PeerIdentity, relay: string, dial: (event: DialEvent) => void): () => void {
    if (!peer.relays.includes(relay)) {
      throw new InputError('RELAY_NOT_GRANTED', `this node's ticket does not grant the relay "${relay}"`, {
        hint: `issue the outlet ticket with --relay ${relay}, or set relay in the configuration to one the ticket grants (${peer.relays.join(', ') || 'none'})`,
      });
    }
    const key = `${peer.projectId}/${relay}`;
    const registration: Registration = { nodeId: peer.nodeId, dial };
    this.registrations.set(key, [...(this.registrations.get(key) ?? []), registration]);
    return () => {
      const remaining = (this.registrations.get(key) ?? []).filter((r) => r !== registration);
      if (remaining.length > 0) this.registrations.set(key, remaining);
      else this.registrations.delete(key);
    };
  }

  /** Pairs an inlet with one of the relay's outlets: the outlet is told to dial in. */
  connect(peer: PeerIdentity, relay: string): SpliceGrant {
    const outlets = this.registrations.get(`${peer.projectId}/${relay}`) ?? [];
    if (outlets.length === 0) {
      throw new RuntimeFailure('RELAY_UNAVAILABLE', `no outlet is registered for the relay "${relay}" right now`, {
        hint: 'start the outlet node (or wait for it to reconnect); check that inlet via equals the outlet relay',
      });
    }
    const outlet = outlets[this.nextOutlet++ % outlets.length] as Registration;
    const splice = randomBytes(12).toString('hex');
    const secrets = { inlet: randomBytes(24).toString('base64url'), outlet: randomBytes(24).toString('base64url') };
    const timer = setTimeout(() => this.expire(splice), this.spliceTimeoutMs);
    timer.unref();
    this.pending.set(splice, { projectId: peer.projectId, secrets, sockets: {}, timer });
    outlet.dial({ event: 'dial', splice, secret: secrets.outlet });
    return { splice, secret: secrets.inlet };
  }

  /** A raw connection that presented `PORTAL-SPLICE <splice> <role> <secret>`. */
  join(socket: Socket, splice: string, role: SpliceRole, secret: string): void {
    const entry = this.pending.get(splice);
    const expected = entry ? Buffer.from(entry.secrets[role]) : undefined;
    const given = Buffer.from(secret);
    if (!entry || !expected || expected.length !== given.length || !timingSafeEqual(expected, given) || entry.sockets[role]) {
      socket.destroy();
      return;
    }
    socket.pause();
    entry.sockets[role] = socket;
    socket.once('close', () => {
      if (this.pending.get(splice) === entry) this.expire(splice);
    });
    const { inlet, outlet } = entry.sockets;
    if (inlet && outlet) {
      clearTimeout(entry.timer);
      this.pending.delete(splice);
      this.pipe(inlet, outlet);
    }
  }

  stats(): RelayStats {
    let registrations = 0;
    for (const list of this.registrations.values()) registrations += list.length;
    return { registrations, splicesActive: this.active.size / 2, splicesTotal: this.splicesTotal };
  }

  close(): void {
    for (const splice of [...this.pending.keys()]) this.expire(splice);
    for (const socket of this.active) socket.destroy();
    this.registrations.clear();
  }

  private pipe(a: Socket, b: Socket): void {
    this.splicesTotal += 1;
    for (const [from, to] of [
      [a, b],
      [b, a],
    ] as const) {
      from.setNoDelay(true);
      // A node that loses power sends no FIN: keepalive finds the dead connection.
      from.setKeepAlive(true, 30_000);
      this.active.add(from);
      pump(from, to);
      from.on('error', () => to.destroy());
      // A clean close has sent its end through the pipe already; destroying the other side could drop
      // bytes still queued for it.
      from.once('close', (hadError: boolean) => {
        this.active.delete(from);
        if (hadError) to.destroy();
      });
    }
  }

  private expire(splice: string): void {
    const entry = this.pending.get(splice);
    if (!entry) return;
    clearTimeout(entry.timer);
    this.pending.delete(splice);
    entry.sockets.inlet?.destroy();
    entry.sockets.outlet?.destroy();
  }
}
