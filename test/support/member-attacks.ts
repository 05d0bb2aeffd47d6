/**
 * The attacks of a member that runs its own code with its own key (the stolen laptop), as functions
 * over a running project, each returning what it saw: `npm run soak` prints these figures and judges
 * them against its targets.
 */
import { randomBytes, X509Certificate } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { adminRequest } from '../../src/cli/administrator.ts';
import { enrollWithTicket } from '../../src/node/enrollment.ts';
import type { PortalError } from '../../src/shared/errors.ts';
import { openControlChannel, type ControlChannel } from '../../src/wire/control-channel.ts';
import { e2eHandshakeTimeoutMs } from '../../src/wire/limits.ts';
import type { AuditReport } from '../../src/wire/protocol/audit.ts';
import type { Attackers } from './attack-scenarios.ts';
import { craftedChannel, dialledByOutlet, outletVerdictWithin } from './crafted-inlet.ts';
import { CraftedStreams } from './crafted-streams.ts';
import { gatedAdminCommand } from './gated-admin.ts';
import { certificateWithLifetime } from './project-authority.ts';
import { holdStatusServer, probeNodeShow, probeStatus, type ProbeResult } from './status-hold.ts';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const adminHome = (attackers: Attackers) => join(attackers.project.dir, 'admin');

async function enrolledInlet(attackers: Attackers, name: string) {
  return enrollWithTicket(
    join(attackers.homes, name),
    await attackers.project.ticket(['--attribute', attackers.inletAttribute]),
  );
}

export interface WithheldVerdict {
  readonly member: string;
  /** The outlet accepted this member at its handshake, before the revocation. */
  readonly outletAccepted: boolean;
  /**
   * From the handshake to `portal project revoke` returning (the CLI's start is not counted: it waits at
   * a gate, see gated-admin.ts), and its exit code.
   */
  readonly revokeMs: number;
  readonly revokeCode: number | null;
  /**
   * From the end of the TLS handshake to this side's verdict: past the outlet's wait for a verdict
   * (e2eHandshakeTimeoutMs) the outlet closes the session whatever it knows of revocations.
   */
  readonly verdictSentAfterHandshakeMs: number;
  readonly opened: number;
  /** Streams the outlet accepted after the revocation: each is a target connection it opened. */
  readonly accepted: number;
  readonly refusals: readonly string[];
  /** From `revoke` returning to the session's close (0 when it closed before); undefined: still open. */
  readonly closedAfterRevokeMs: number | undefined;
  readonly watchedMs: number;
}

/**
 * Item 1: a member the outlet allows is dialled on its direct path, completes the end-to-end TLS
 * handshake and withholds its verdict; the administrator revokes it with `portal project revoke`
 * (started before, held at a gate until the handshake is done);
 * `verdictAfterMs` later it sends its verdict and opens a stream every 250 ms for `watchMs`.
 */
export async function withheldVerdict(
  attackers: Attackers,
  name: string,
  verdictAfterMs = 200,
  watchMs = 3000,
): Promise<WithheldVerdict> {
  const identity = await enrolledInlet(attackers, name);
  // The command starts first and waits at a gate: its request reaches the controller right after the
  // handshake below, however long starting the CLI takes on this machine.
  const revoke = await gatedAdminCommand(adminHome(attackers), join(attackers.homes, `${name}-admin`), [
    'project',
    'revoke',
    identity.record.nodeId,
    '--reason',
    'soak: withheld verdict',
  ]);
  await Promise.race([
    revoke.arrived,
    revoke.done.then(({ code, stderr }) => {
      throw new Error(`portal project revoke ended (exit ${code}) before it reached the controller: ${stderr}`);
    }),
  ]);
  const dial = await dialledByOutlet(identity, attackers.relay, attackers.outletAttribute);
  try {
    const channel = await craftedChannel(dial.raw, identity);
    const outletVerdict = await outletVerdictWithin(channel, e2eHandshakeTimeoutMs);
    const streams = new CraftedStreams(channel.socket);
    const handshakeDone = Date.now();
    revoke.release();
    const revoked = await revoke.done;
    const returned = revoked.endedAt;
    await pause(verdictAfterMs);
    channel.sendVerdict(attackers.outletAttribute);
    const verdictSent = Date.now();
    await streams.openEvery(250, returned + watchMs);
    await Promise.race([streams.closed, pause(Math.max(0, returned + watchMs - Date.now()))]);
    streams.destroy();
    return {
      member: identity.record.nodeId,
      outletAccepted: outletVerdict.accept,
      revokeMs: returned - handshakeDone,
      revokeCode: revoked.code,
      verdictSentAfterHandshakeMs: verdictSent - handshakeDone,
      opened: streams.streams.length,
      accepted: streams.acceptedFrom(0),
      refusals: streams.refusals(),
      closedAfterRevokeMs: streams.closedAt === undefined ? undefined : Math.max(0, streams.closedAt - returned),
      watchedMs: watchMs,
    };
  } finally {
    revoke.release();
    dial.close();
  }
}

export interface ExpiredSession {
  readonly member: string;
  /** From the session's start to the certificate's notAfter. */
  readonly notAfterInMs: number;
  readonly acceptedBefore: number;
  readonly openedAfter: number;
  /** Streams opened at or after notAfter that the outlet accepted. */
  readonly acceptedAfter: number;
  readonly refusals: readonly string[];
  /** From notAfter to the session's close (negative: before it); undefined: still open when watched ended. */
  readonly closedAfterNotAfterMs: number | undefined;
}

/**
 * Item 2: a member holds a session made with a certificate of `lifetimeMs` (issued by the project CA
 * for its own key) and opens a stream every 250 ms until `watchAfterMs` past the certificate's notAfter.
 */
export async function expiredCertificateSession(
  attackers: Attackers,
  name: string,
  lifetimeMs = 8000,
  watchAfterMs = 3000,
): Promise<ExpiredSession> {
  const identity = await enrolledInlet(attackers, name);
  // The controller's PORTAL_HOME, as startProject gives it.
  const controllerHome = join(attackers.project.dir, 'controller-home');
  const { dataDir } = attackers.project.controller;
  // The advert goes over a connection with the member's usual certificate; the session is made with the
  // short one, issued once the outlet has dialled so that all of its life is the session's.
  const dial = await dialledByOutlet(identity, attackers.relay, attackers.outletAttribute);
  try {
    const short = await certificateWithLifetime(dataDir, controllerHome, identity, lifetimeMs);
    const notAfter = Date.parse(new X509Certificate(short).validTo);
    const channel = await craftedChannel(dial.raw, identity, short);
    await outletVerdictWithin(channel, e2eHandshakeTimeoutMs);
    const started = Date.now();
    channel.sendVerdict(attackers.outletAttribute);
    const streams = new CraftedStreams(channel.socket);
    await streams.openEvery(250, notAfter + watchAfterMs);
    streams.destroy();
    const before = streams.streams.filter((stream) => stream.openedAt < notAfter);
    return {
      member: identity.record.nodeId,
      notAfterInMs: notAfter - started,
      acceptedBefore: before.filter((stream) => stream.answer?.accepted).length,
      openedAfter: streams.streams.length - before.length,
      acceptedAfter: streams.acceptedFrom(notAfter),
      refusals: streams.refusals(),
      closedAfterNotAfterMs: streams.closedAt === undefined ? undefined : streams.closedAt - notAfter,
    };
  } finally {
    dial.close();
  }
}

export interface AuditFlood {
  readonly seconds: number;
  readonly recordsSent: number;
  /** What the controller answered it wrote, summed. */
  readonly recordsWritten: number;
  /** Refused requests by error code. */
  readonly refusedRequests: Readonly<Record<string, number>>;
  readonly storeBytesBefore: number;
  readonly storeBytesAfter: number;
  /** The other member's one report, sent halfway: what the controller answered it wrote, and when. */
  readonly witnessWritten: number | undefined;
  readonly witnessMs: number;
  readonly witnessError?: string;
  /** The administrator's `members` request (what `portal project members` sends) during the flood. */
  readonly membersMs: readonly number[];
  /** The same request just before the flood. */
  readonly membersBeforeMs: number;
}

/** The controller's SQLite store with its journal, in bytes. */
async function storeBytes(dataDir: string): Promise<number> {
  const names = (await readdir(dataDir)).filter((file) => file.startsWith('controller.db'));
  const sizes = await Promise.all(names.map(async (file) => (await stat(join(dataDir, file))).size));
  return sizes.reduce((sum, size) => sum + size, 0);
}

/** A refusal tally as a node reports one, its detail as long as a node sends (300 characters). */
function refusalReport(detail: string): AuditReport {
  return {
    id: randomBytes(12).toString('base64url'),
    event: 'refused',
    time: Date.now(),
    members: [],
    details: JSON.stringify({
      portal: 'app',
      reason: 'allow',
      count: 1,
      first_at: new Date().toISOString(),
      detail: detail.padEnd(300, '.'),
    }),
  };
}

/**
 * Item 3: a member that no allow admits sends `audit-report` requests of 200 records, 32 at a time,
 * for `durationMs` (on a new connection whenever one is closed); halfway another member reports one
 * record, and the administrator asks for the members at a quarter, half and three quarters.
 */
export async function auditFlood(attackers: Attackers, name: string, durationMs = 20_000): Promise<AuditFlood> {
  const ticket = (attribute: string) => attackers.project.ticket(['--attribute', attribute]);
  const flooder = await enrollWithTicket(join(attackers.homes, name), await ticket('audit-flooder'));
  const witness = await enrollWithTicket(join(attackers.homes, `${name}-witness`), await ticket('audit-witness'));
  const open = (identity: typeof flooder) =>
    openControlChannel(identity.record, { key: identity.privateKey, certificate: identity.certificate });
  const dataDir = attackers.project.controller.dataDir;
  const storeBytesBefore = await storeBytes(dataDir);
  const refusedRequests: Record<string, number> = {};
  let recordsSent = 0;
  let recordsWritten = 0;
  // One connection at a time, opened again whenever the controller closes it.
  let live: ControlChannel | undefined;
  let opening: Promise<ControlChannel | undefined> | undefined;
  const connection = (): Promise<ControlChannel | undefined> => {
    if (live) return Promise.resolve(live);
    opening ??= open(flooder)
      .then(
        (opened) => {
          live = opened;
          opened.once('close', () => {
            if (live === opened) live = undefined;
          });
          return opened;
        },
        () => undefined,
      )
      .finally(() => (opening = undefined));
    return opening;
  };
  const askedBefore = performance.now();
  await adminRequest(adminHome(attackers), 'members', {});
  const membersBeforeMs = Math.round(performance.now() - askedBefore);
  const started = Date.now();
  const deadline = started + durationMs;
  const flood = async () => {
    while (Date.now() < deadline) {
      const current = await connection();
      if (!current) {
        await pause(100);
        continue;
      }
      const records = Array.from({ length: 200 }, () => refusalReport('soak audit flood'));
      try {
        recordsSent += records.length;
        // Read after the answer: `total += await …` would add to the total as it was before the wait.
        const { written } = await current.request('audit-report', { records });
        recordsWritten += written;
      } catch (error) {
        const code = (error as PortalError).code ?? (error as Error).message;
        refusedRequests[code] = (refusedRequests[code] ?? 0) + 1;
        await pause(50);
      }
    }
  };
  const membersMs: number[] = [];
  const askMembers = async (atMs: number) => {
    await pause(Math.max(0, started + atMs - Date.now()));
    const asked = performance.now();
    await adminRequest(adminHome(attackers), 'members', {});
    membersMs.push(Math.round(performance.now() - asked));
  };
  let witnessWritten: number | undefined;
  let witnessMs = 0;
  let witnessError: string | undefined;
  const report = async () => {
    await pause(durationMs / 2);
    const witnessChannel = await open(witness);
    const sent = performance.now();
    try {
      witnessWritten = (await witnessChannel.request('audit-report', { records: [refusalReport('soak witness')] }))
        .written;
    } catch (error) {
      witnessError = (error as Error).message;
    } finally {
      witnessMs = Math.round(performance.now() - sent);
      witnessChannel.destroy();
    }
  };
  await Promise.all([
    ...Array.from({ length: 32 }, flood),
    report(),
    ...[0.25, 0.5, 0.75].map((share) => askMembers(durationMs * share)),
  ]);
  live?.destroy();
  // What the controller had taken in is written by now; the journal is part of the store.
  await pause(1000);
  return {
    seconds: Math.round((Date.now() - started) / 100) / 10,
    recordsSent,
    recordsWritten,
    refusedRequests,
    storeBytesBefore,
    storeBytesAfter: await storeBytes(dataDir),
    witnessWritten,
    witnessMs,
    ...(witnessError ? { witnessError } : {}),
    membersMs,
    membersBeforeMs,
  };
}

export interface StatusServerHold {
  /** The health probe used: GET /healthz where the node serves it, else HEAD / (the liveness probe). */
  readonly probe: string;
  readonly health: readonly ProbeResult[];
  readonly nodeShow: readonly ProbeResult[];
  /** One of each before the hold: `portal node show`'s time includes starting the CLI, which the hold does not slow. */
  readonly unheld: { readonly health: ProbeResult; readonly nodeShow: ProbeResult };
  /** Connections the holder had open when the hold ended, and opened in all. */
  readonly heldAtEnd: number;
  readonly opened: number;
}

/**
 * Item 10: a local process holds the node status server's connections (16 idle, 16 dribbling a
 * request, each opened again when closed) for `durationMs`, while a health probe runs every second
 * and `portal node show` back to back; each is given `limitMs` past what it took before the hold.
 */
export async function statusServerHold(home: string, durationMs = 10_000, limitMs = 2000): Promise<StatusServerHold> {
  const { statusPort } = JSON.parse(await readFile(join(home, 'node', 'runtime.json'), 'utf8')) as {
    statusPort: number;
  };
  const healthz = await probeStatus(statusPort, 'GET', '/healthz', limitMs);
  const [method, path] = healthz.code === 200 ? (['GET', '/healthz'] as const) : (['HEAD', '/'] as const);
  const unheld = {
    health: await probeStatus(statusPort, method, path, limitMs),
    // Starting the CLI alone takes seconds on a loaded machine: room for it, and it is measured.
    nodeShow: await probeNodeShow(home, 30_000),
  };
  const hold = await holdStatusServer(statusPort);
  const deadline = Date.now() + durationMs;
  const health: ProbeResult[] = [];
  const nodeShow: ProbeResult[] = [];
  try {
    await Promise.all([
      (async () => {
        while (Date.now() < deadline) {
          health.push(await probeStatus(statusPort, method, path, limitMs));
          await pause(1000);
        }
      })(),
      (async () => {
        while (Date.now() < deadline) {
          nodeShow.push(await probeNodeShow(home, unheld.nodeShow.ms + 4 * limitMs));
          await pause(250);
        }
      })(),
    ]);
    return { probe: `${method} ${path}`, health, nodeShow, unheld, heldAtEnd: hold.held(), opened: hold.opened() };
  } finally {
    hold.stop();
  }
}
