/**
 * The end-to-end session between an inlet and an outlet, over a spliced relay connection: mutual TLS
 * 1.3 with both certificates checked against the project CA, then an exchange of verdicts on each
 * other's attributes (so that a refusal is logged on both sides with what was seen), then either
 * multiplexed streams that carry client connections (a session, src/wire/mux.ts) or one client's
 * connection kept ready (a warm stream, a session of one stream). The verdicts and the frames are the
 * contract of src/wire/protocol/e2e.ts and src/wire/protocol/mux-frame.ts. The relay sees only TLS records.
 */
import type { Socket } from 'node:net';
import { TLSSocket, connect as connectTls } from 'node:tls';
import { identityOf, type PeerIdentity } from '../pki/identity.ts';
import { PortalError } from '../shared/errors.ts';
import { describeAttributes, policyAdmits, quotedPolicy } from '../shared/policy.ts';
import { withSocketTuning } from '../shared/socket-tuning.ts';
import { readOneJsonLine } from './json-lines.ts';
import { e2eHandshakeTimeoutMs } from './limits.ts';
import type { MuxSession, MuxOptions } from './mux.ts';
import {
  e2eNewestVersion,
  e2eProtocolVersion,
  parseVerdict,
  spokenVersion,
  type ChannelMode,
  type Verdict,
} from './protocol/e2e.ts';
import { PeerCertificateExpired } from './peer-guard.ts';
import {
  notAfterOf,
  peerStanding,
  rememberChannel,
  sessionOver,
  type SessionCredentials,
} from './session-credentials.ts';

/** Declared beside the code that holds it; named here too, where every caller of a session finds it. */
export type { SessionCredentials } from './session-credentials.ts';
import { acceptTlsWith, clientContext, e2eAlpn } from './tls-contexts.ts';

export type { ChannelMode, Verdict } from './protocol/e2e.ts';

export class PeerRefused extends PortalError {
  readonly exitCode = 1 as const;
  constructor(
    message: string,
    readonly verdicts: { readonly ours?: Verdict; readonly theirs?: Verdict },
  ) {
    super('PEER_NOT_ALLOWED', message, {
      hint: "check that each side's allow admits the other side's ticket attributes",
    });
  }
}

export class SessionFailed extends PortalError {
  readonly exitCode = 1 as const;
  constructor(message: string, cause?: unknown) {
    super('SESSION_FAILED', message, { hint: 'the node retries by itself', cause });
  }
}

export class PeerRevoked extends PortalError {
  readonly exitCode = 1 as const;
  constructor(
    message: string,
    hint: string,
    /** Whether this node refused the peer (it is on this node's list), or the peer refused this node. */
    readonly refusedByThisNode: boolean,
    /** The peer's member id, from its certificate. */
    readonly peer: string | undefined,
  ) {
    super('PEER_REVOKED', message, { hint });
  }
}

export class RevocationsStale extends PortalError {
  readonly exitCode = 1 as const;
  constructor(message: string) {
    super('REVOCATIONS_STALE', message, {
      hint: 'let the node reach the controller again, or raise revocation-max-age in its configuration',
    });
  }
}

/** A refusal for a revoked peer or a list too old, not for attributes: worth a line in the log. */
export const isGuardRefusal = (error: unknown): error is PeerRevoked | RevocationsStale =>
  error instanceof PeerRevoked || error instanceof RevocationsStale;

function judge(
  peerCertificate: ReturnType<TLSSocket['getPeerX509Certificate']>,
  credentials: SessionCredentials,
  allow: string,
): Verdict {
  const peer = peerCertificate ? identityOf(peerCertificate) : undefined;
  const saw = peer?.attributes ?? [];
  const sameProject = peer?.projectId === credentials.projectId;
  const refusal = peer ? credentials.guard?.refusal(peer.nodeId) : undefined;
  return {
    accept: sameProject && policyAdmits(allow, saw) && refusal === undefined,
    saw,
    want: allow,
    protocol: e2eProtocolVersion,
    newest: e2eNewestVersion,
    ...(refusal ? { refusal } : {}),
  };
}

/** The error of a refusal that is not about attributes: the peer revoked, or this node's list too old. */
function guardError(ours: Verdict, theirs: Verdict, peer: string | undefined): PortalError | undefined {
  if (ours.refusal === 'revoked')
    return new PeerRevoked(
      `refused a peer that was revoked from the project${peer ? ` (${peer})` : ''}`,
      'an administrator revoked it (portal project members says when and why); it stays refused',
      true,
      peer,
    );
  if (ours.refusal === 'stale')
    return new RevocationsStale('refused a new session: the list of revoked members is older than revocation-max-age');
  if (theirs.refusal === 'revoked')
    return new PeerRevoked(
      'the peer refused this node: it was revoked from the project',
      'enroll a new node with a new ticket',
      false,
      peer,
    );
  if (theirs.refusal === 'stale')
    return new RevocationsStale('the peer opens no new session: its list of revoked members is too old');
  return undefined;
}

/** Sends our verdict and reads theirs; `peer` (its member id) names it in a refusal. */
async function exchangeVerdicts(
  socket: TLSSocket,
  ours: Verdict,
  timeoutMs: number,
  peer: string | undefined,
): Promise<Verdict> {
  const written = new Promise<void>((resolve) => socket.write(`${JSON.stringify(ours)}\n`, () => resolve()));
  let line: unknown;
  try {
    [line] = await Promise.all([readOneJsonLine(socket, timeoutMs), written]);
  } catch (error) {
    // A peer that completes TLS and then says nothing (or garbage) must not keep the splice open.
    socket.destroy();
    throw new SessionFailed(`no verdict from the peer: ${(error as Error).message}`, error);
  }
  const theirs = parseVerdict(line);
  if ('mismatch' in theirs) {
    socket.destroy();
    throw new SessionFailed(theirs.mismatch);
  }
  const refused = !ours.accept || !theirs.accept ? guardError(ours, theirs, peer) : undefined;
  if (refused) {
    socket.destroy();
    throw refused;
  }
  if (!ours.accept) {
    socket.destroy();
    throw new PeerRefused(
      `peer attribute not allowed: saw ${describe(ours.saw)}, allow is ${quotedPolicy(ours.want)}`,
      {
        ours,
        theirs,
      },
    );
  }
  if (!theirs.accept) {
    socket.destroy();
    throw new PeerRefused(
      `the peer does not allow this node: it saw ${describe(theirs.saw)}, its allow is ${quotedPolicy(theirs.want)}`,
      { ours, theirs },
    );
  }
  return theirs;
}

const describe = describeAttributes;

const revokedMidway = (peer: string) =>
  new PeerRevoked(
    `refused a peer that was revoked from the project during the handshake (${peer})`,
    'an administrator revoked it (portal project members says when and why); it stays refused',
    true,
    peer,
  );

/**
 * The verdicts on a channel that the guard keeps from the end of its TLS handshake: a revocation that
 * arrives while they are awaited (or the list is) cuts it and is named as such, and the peer is
 * judged again once they are in, so that no moment of the exchange lets a revoked peer through.
 */
async function guardedVerdicts(
  socket: TLSSocket,
  certificate: ReturnType<TLSSocket['getPeerX509Certificate']>,
  credentials: SessionCredentials,
  allow: string,
  mode: ChannelMode | undefined,
  timeoutMs: number,
): Promise<{ readonly theirs: Verdict; readonly peer: PeerIdentity | undefined }> {
  const peer = certificate ? identityOf(certificate) : undefined;
  const { guard } = credentials;
  if (peer && certificate) guard?.track(peer.nodeId, socket, notAfterOf(certificate));
  const standing = () => {
    if (!peer) return undefined;
    if (guard?.refusal(peer.nodeId) === 'revoked') return revokedMidway(peer.nodeId);
    const until = guard?.expiresAt?.(peer.nodeId);
    return until !== undefined && Date.now() >= until ? new PeerCertificateExpired(peer.nodeId) : undefined;
  };
  let theirs: Verdict;
  try {
    // A node that is fetching its list of revoked members judges no peer before it is in.
    await guard?.ready?.();
    const ours = judge(certificate, credentials, allow);
    theirs = await exchangeVerdicts(socket, mode ? { ...ours, mode } : ours, timeoutMs, peer?.nodeId);
  } catch (error) {
    // A refusal in the verdicts says why itself; a connection cut meanwhile says it here.
    throw error instanceof SessionFailed ? (standing() ?? error) : error;
  }
  const after =
    standing() ?? (socket.destroyed ? new SessionFailed('the connection closed after the verdicts') : undefined);
  if (after) {
    socket.destroy();
    throw after;
  }
  if (peer && certificate)
    rememberChannel(socket, { certificate, nodeId: peer.nodeId, credentials, allow, spoken: spokenVersion(theirs) });
  return { theirs, peer };
}

function settled(socket: TLSSocket, event: 'secureConnect', timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error('the TLS handshake took too long')), timeoutMs);
    const onClose = () => fail(new Error('the connection closed during the handshake'));
    const detach = () => {
      clearTimeout(timer);
      socket.off('error', fail);
      socket.off('close', onClose);
    };
    function fail(error: Error) {
      detach();
      socket.destroy();
      reject(new SessionFailed(`end-to-end TLS failed: ${error.message}`, error));
    }
    socket.on('error', fail);
    socket.once('close', onClose);
    socket.once(event, () => {
      detach();
      // Errors after the handshake belong to whoever uses the socket next; until then, close quietly.
      socket.on('error', () => socket.destroy());
      resolve();
    });
  });
}

export interface Channel {
  readonly socket: TLSSocket;
  readonly peer: PeerIdentity | undefined;
  readonly mode: ChannelMode;
}

/**
 * The inlet's side of the handshake and the verdicts. `mode` may be chosen once the outlet's
 * certificate is in (on the direct path, by which outlet dialled); none closes the channel.
 */
export async function openInletChannel(
  raw: Socket,
  credentials: SessionCredentials,
  allow: string,
  mode: ChannelMode | ((peer: PeerIdentity | undefined) => ChannelMode | undefined),
  timeoutMs = e2eHandshakeTimeoutMs,
): Promise<Channel> {
  // Half-open only after the handshake (see acceptTlsWith): a peer that leaves mid-handshake fails it at once.
  raw.allowHalfOpen = false;
  const socket = connectTls(
    withSocketTuning(
      {
        socket: raw,
        // Key, certificates, TLS 1.3 and the suites: built once per set of credentials.
        secureContext: clientContext(credentials),
        rejectUnauthorized: true,
        ALPNProtocols: e2eAlpn,
        // Names play no part: peers are identified by their project certificate's attributes, checked below.
        checkServerIdentity: () => undefined,
      },
      { allowHalfOpen: false },
    ),
  );
  await settled(socket, 'secureConnect', timeoutMs);
  const certificate = socket.getPeerX509Certificate();
  const chosen = typeof mode === 'function' ? mode(certificate ? identityOf(certificate) : undefined) : mode;
  if (!chosen) {
    socket.destroy();
    throw new SessionFailed('the inlet takes no more connections from this outlet now');
  }
  const { peer } = await guardedVerdicts(socket, certificate, credentials, allow, chosen, timeoutMs);
  return { socket, peer, mode: chosen };
}

export interface E2eSession {
  readonly session: MuxSession;
  readonly peer: PeerIdentity | undefined;
  /** The channel the session runs on: what its peer's standing is asked of (peerStanding). */
  readonly socket: TLSSocket;
}

/** The inlet's session: TLS client over the spliced socket, then the streams it opens. */
export async function openInletSession(
  raw: Socket,
  credentials: SessionCredentials,
  allow: string,
  timeoutMs = e2eHandshakeTimeoutMs,
): Promise<E2eSession> {
  const { socket, peer } = await openInletChannel(raw, credentials, allow, 'session', timeoutMs);
  return { session: sessionOver(socket, 'inlet'), peer, socket };
}

/** The outlet's side of the handshake and the verdicts; the inlet's verdict says which mode follows. */
export async function acceptOutletChannel(
  raw: Socket,
  credentials: SessionCredentials,
  allow: string,
  timeoutMs = e2eHandshakeTimeoutMs,
): Promise<Channel> {
  const socket = await acceptTlsWith(raw, credentials).catch((error: Error) => {
    throw new SessionFailed(`end-to-end TLS failed: ${error.message}`, error);
  });
  const certificate = socket.getPeerX509Certificate();
  const { theirs, peer } = await guardedVerdicts(socket, certificate, credentials, allow, undefined, timeoutMs);
  return {
    socket,
    peer,
    mode: theirs.mode === 'stream' ? 'stream' : 'session',
  };
}

/** The outlet's session on a `session` channel: `options.onStream` serves each stream the inlet opens. */
export function adoptOutletSession(channel: Channel, options: MuxOptions): E2eSession {
  return { session: sessionOver(channel.socket, 'outlet', options), peer: channel.peer, socket: channel.socket };
}

export { peerStanding };
