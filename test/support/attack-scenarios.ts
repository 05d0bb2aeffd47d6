/**
 * The attacks of the hardening review as functions over a running project, each returning what it
 * saw: the end-to-end tests assert on these figures and `npm run soak` prints them.
 */
import { join } from 'node:path';
import { loadAdministrator } from '../../src/cli/administrator.ts';
import { enrollWithTicket } from '../../src/node/enrollment.ts';
import type { PortalError } from '../../src/shared/errors.ts';
import type { Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { ServiceChannel, openControlChannel, type ControlChannel } from '../../src/wire/control-channel.ts';
import type { RelayOperations } from '../../src/wire/protocol.ts';
import { openInletChannel } from '../../src/wire/e2e-session.ts';
import { dialSplice } from '../../src/wire/splice.ts';
import { floodPings, slowSplices, type FloodResult } from './attackers.ts';
import { freePort } from './processes.ts';
import { floodStreams } from './stream-flood.ts';
import type { ProjectProcesses } from './project-processes.ts';

export interface Attackers {
  readonly project: ProjectProcesses;
  /** Where attacker identities are kept. */
  readonly homes: string;
  /** The relay the victim outlet registers, and the attributes on both sides. */
  readonly relay: string;
  readonly inletAttribute: string;
  readonly outletAttribute: string;
  /** The relay where registrations and splices are asked for. @default the relay in the controller's process */
  readonly relayTarget?: { readonly address: string; readonly fingerprint: string };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function adminCredentials(attackers: Attackers) {
  return loadAdministrator(join(attackers.project.dir, 'admin'));
}

/** A node enrolled in the project with the given ticket flags, as an attacker would hold one. */
export async function enrolledAttacker(attackers: Attackers, name: string, flags: string[]) {
  const identity = await enrollWithTicket(join(attackers.homes, name), await attackers.project.ticket(flags));
  // Where registrations and splices are asked for: the relay in the controller's process unless told.
  const relay = {
    service: 'relay' as const,
    ...(attackers.relayTarget ?? { address: identity.record.controller, fingerprint: identity.record.fingerprint }),
  };
  // An attacker does not hold itself to a node's bound on waiting requests: the relay's own bounds are what is tested.
  const channel = await ServiceChannel.open<RelayOperations>(
    relay,
    { key: identity.privateKey, certificate: identity.certificate },
    5000,
    Number.POSITIVE_INFINITY,
  );
  return { identity, channel };
}

/** Milliseconds the administrator waits for `project show` on a fresh connection. */
export async function adminLatency(attackers: Attackers): Promise<number> {
  const { record, privateKey, certificate } = await adminCredentials(attackers);
  const started = performance.now();
  const channel = await openControlChannel(record, { key: privateKey, certificate });
  try {
    await channel.request('project', {}, 5000);
  } finally {
    channel.destroy();
  }
  return Math.round(performance.now() - started);
}

export interface PingFlood {
  readonly anonymous: FloodResult;
  readonly member: FloodResult;
  readonly adminLatencyMs: number;
}

/**
 * Attack 1: TLS clients, four without a certificate and two with the administrator's, send pings and
 * read nothing, from an address of their own (127.0.0.3), while the administrator works from 127.0.0.1.
 */
export async function pingFlood(attackers: Attackers, durationMs = 5000): Promise<PingFlood> {
  const { privateKey, certificate } = await adminCredentials(attackers);
  const address = attackers.project.controller.address;
  const floods = Promise.all([
    floodPings(address, durationMs, undefined, 4, '127.0.0.3'),
    floodPings(address, durationMs, { key: privateKey, certificate }, 2, '127.0.0.3'),
  ]);
  await pause(durationMs / 2);
  const adminLatencyMs = await adminLatency(attackers);
  const [anonymous, member] = await floods;
  return { anonymous, member, adminLatencyMs };
}

export interface ConnectFlood {
  readonly attacker: string;
  /** Answers by code (GRANTED for a splice handed out). */
  readonly codes: Record<string, number>;
  readonly seconds: number;
}

/** Attack 4: an enrolled node asks the relay for `count` splices, 1,000 at a time. */
export async function connectFlood(
  attackers: Attackers,
  name: string,
  attribute: string,
  count = 30_000,
): Promise<ConnectFlood> {
  const { identity, channel } = await enrolledAttacker(attackers, name, ['--attribute', attribute]);
  const codes: Record<string, number> = {};
  const started = performance.now();
  try {
    for (let sent = 0; sent < count; sent += 1000) {
      const batch = Math.min(1000, count - sent);
      const answers = await Promise.allSettled(
        Array.from({ length: batch }, () =>
          channel.request('connect', { relay: attackers.relay, allow: attackers.outletAttribute }, 30_000),
        ),
      );
      for (const answer of answers) {
        const code = answer.status === 'fulfilled' ? 'GRANTED' : ((answer.reason as PortalError).code ?? 'ERROR');
        codes[code] = (codes[code] ?? 0) + 1;
      }
    }
  } finally {
    channel.destroy();
  }
  return { attacker: identity.record.nodeId, codes, seconds: Math.round((performance.now() - started) / 100) / 10 };
}

export interface Slowloris {
  readonly oneSourceClosedAtOnce: number;
  readonly evicted: number;
  readonly adminLatencyMs: number;
  readonly total: number;
  readonly closedInAll: number;
  readonly allClosedSeconds: number;
}

/**
 * Attack 5: 300 slow splice preambles from one source, then 60 from each of 20 more, each sending one
 * byte a second; waits until the controller has closed them all (at most `waitMs`).
 */
export async function slowloris(
  attackers: Attackers,
  waitMs = 15_000,
  during?: () => Promise<void>,
): Promise<Slowloris> {
  const address = attackers.project.controller.address;
  const started = Date.now();
  const oneSource = await slowSplices(address, '127.0.0.2', 300);
  await pause(500);
  const oneSourceClosedAtOnce = oneSource.closed();
  const many = await Promise.all(Array.from({ length: 20 }, (_, i) => slowSplices(address, `127.0.1.${i + 1}`, 60)));
  await during?.();
  const adminLatencyMs = await adminLatency(attackers);
  const everyone = [oneSource, ...many];
  const closed = () => everyone.reduce((sum, slow) => sum + slow.closed(), 0);
  const evicted = closed() - oneSourceClosedAtOnce;
  const total = everyone.reduce((sum, slow) => sum + slow.opened, 0);
  while (closed() < total && Date.now() - started < waitMs) await pause(250);
  const result = {
    oneSourceClosedAtOnce,
    evicted,
    adminLatencyMs,
    total,
    closedInAll: closed(),
    allClosedSeconds: Math.round((Date.now() - started) / 100) / 10,
  };
  for (const slow of everyone) slow.stop();
  return result;
}

/**
 * Attack 4, allowed: a node the outlet allows opens `count` warm streams (splice, end-to-end TLS,
 * verdicts) and never sends their first line, so the outlet would wait on each forever.
 */
export async function unopenedStreams(
  attackers: Attackers,
  name: string,
  count: number,
): Promise<{ opened: number; close(): void }> {
  const { identity, channel } = await enrolledAttacker(attackers, name, ['--attribute', attackers.inletAttribute]);
  const credentials = {
    key: identity.privateKey,
    certificate: identity.certificate,
    authority: identity.authority,
    projectId: identity.record.projectId,
  };
  const sockets: Socket[] = [];
  let opened = 0;
  for (let i = 0; i < count; i += 1) {
    try {
      const grant = await channel.request('connect', { relay: attackers.relay, allow: attackers.outletAttribute });
      const raw = await dialSplice(
        attackers.relayTarget?.address ?? identity.record.controller,
        grant.splice,
        'inlet',
        grant.secret,
        true,
      );
      sockets.push(raw);
      const { socket } = await openInletChannel(raw, credentials, attackers.outletAttribute, 'stream');
      socket.on('error', () => undefined);
      sockets.push(socket);
      opened += 1;
    } catch {
      // Refused or closed by the outlet: the attack goes on with the next one.
    }
  }
  return {
    opened,
    close() {
      channel.destroy();
      for (const socket of sockets) socket.destroy();
    },
  };
}

export interface RogueOutlet {
  readonly nodeId: string;
  readonly dials: number;
  stop(): void;
}

/** Attack 6: a member with the relay right registers the relay 100 times and answers no dial. */
export async function rogueOutlet(attackers: Attackers, name: string): Promise<RogueOutlet> {
  const { identity, channel } = await enrolledAttacker(attackers, name, [
    '--attribute',
    attackers.outletAttribute,
    '--relay',
    attackers.relay,
  ]);
  let dials = 0;
  channel.on('event', (event: { event?: string }) => {
    if (event.event === 'dial') dials += 1;
  });
  for (let i = 0; i < 100; i += 1)
    await channel.request('register', { relay: attackers.relay, allow: attackers.inletAttribute });
  return {
    nodeId: identity.record.nodeId,
    get dials() {
      return dials;
    },
    stop: () => channel.destroy(),
  };
}

export interface MemberStreamFlood {
  readonly attacker: string;
  readonly opened: number;
  readonly accepted: number;
  readonly refused: number;
  readonly reasons: readonly string[];
  /** The outlet closed the session before every open was answered. */
  readonly closedEarly: boolean;
}

/**
 * Data-plane attack 1: a member the outlet allows opens a session through the relay and `count`
 * streams on it, `batch` at a time as fast as the answers come, reading every answer; each would make
 * the outlet dial its target.
 */
export async function memberStreamFlood(
  attackers: Attackers,
  name: string,
  count: number,
  batch = count,
): Promise<MemberStreamFlood> {
  const identity = await enrollWithTicket(
    join(attackers.homes, name),
    await attackers.project.ticket(['--attribute', attackers.inletAttribute]),
  );
  const relay = attackers.relayTarget ?? {
    address: identity.record.controller,
    fingerprint: identity.record.fingerprint,
  };
  const flood = await floodStreams(
    identity,
    relay.address,
    relay.fingerprint,
    attackers.relay,
    attackers.outletAttribute,
    count,
    10_000,
    batch,
  );
  flood.close();
  return {
    attacker: identity.record.nodeId,
    opened: flood.opened,
    accepted: flood.accepted,
    refused: flood.refused,
    reasons: [...flood.reasons],
    closedEarly: flood.closedEarly,
  };
}

export interface PhantomRelays {
  /** The relay ids announced, and the addresses (where nothing listens). */
  readonly ids: readonly string[];
  readonly addresses: readonly string[];
  /** Closes their connections: the controller withdraws them. */
  withdraw(): void;
}

/**
 * Data-plane attack 3: `count` relay identities, enrolled with one `--relay-node --usage-count`
 * ticket, announce to the controller addresses where nothing listens (and fingerprints of no
 * certificate), as a relay node does once it listens; they stay announced while their connections last.
 */
export async function announceUnreachableRelays(
  attackers: Attackers,
  name: string,
  count: number,
): Promise<PhantomRelays> {
  const ticket = await attackers.project.ticket(['--relay-node', '--usage-count', String(count)]);
  const channels: ControlChannel[] = [];
  const ids: string[] = [];
  const addresses: string[] = [];
  try {
    for (let i = 0; i < count; i += 1) {
      const identity = await enrollWithTicket(join(attackers.homes, `${name}-${i}`, 'relay'), ticket);
      const channel = await openControlChannel(identity.record, {
        key: identity.privateKey,
        certificate: identity.certificate,
      });
      channels.push(channel);
      const address = `127.0.0.1:${await freePort()}`;
      await channel.request('relay-announce', { address, fingerprint: randomBytes(32).toString('hex') });
      ids.push(identity.record.nodeId);
      addresses.push(address);
    }
  } catch (error) {
    for (const channel of channels) channel.destroy();
    throw error;
  }
  return {
    ids,
    addresses,
    withdraw() {
      for (const channel of channels) channel.destroy();
    },
  };
}
