/**
 * A session lives no longer than its peer's certificate, unless the peer proves a renewed one on it.
 * After a renewal each side sends its new certificate on every session whose peer speaks end-to-end
 * protocol 6 (a `credential` frame, src/wire/protocol/mux-frame.ts); the receiver checks it against
 * the certificate the TLS handshake proved and, when it holds, moves the peer's deadline (PeerGuard)
 * to its end. Every session over an end-to-end channel is made here, so that none misses either half.
 */
import { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { verifyMember } from '../pki/verify.ts';
import { PortalError } from '../shared/errors.ts';
import { policyAdmits } from '../shared/policy.ts';
import { MuxSession, type MuxOptions } from './mux.ts';
import type { IncomingStream } from './mux/stream.ts';
import type { PeerGuard } from './peer-guard.ts';
import type { MuxRole } from './protocol/mux-frame.ts';

/** What a node brings to every end-to-end session: its key and certificate, the project CA, its guard. */
export interface SessionCredentials {
  readonly key: string;
  readonly certificate: string;
  /** The project CA: the only trust anchor. */
  readonly authority: string;
  readonly projectId: string;
  /** Refuses revoked peers (and every peer while the node's list is too old) and keeps accepted ones. */
  readonly guard?: PeerGuard;
  /** Where the node's sessions are held so that its renewed certificate reaches their peers. */
  readonly sessions?: LiveSessions;
}

/** What the end-to-end handshake established on a channel: what a renewal on it is checked against. */
export interface ChannelContext {
  /** The peer's certificate, as the TLS handshake proved it. */
  readonly certificate: X509Certificate;
  readonly nodeId: string;
  readonly credentials: SessionCredentials;
  /** This side's allow, which a renewed certificate must still satisfy. */
  readonly allow: string;
  /** The end-to-end version both sides speak: 6 or later carries `credential` frames. */
  readonly spoken: number;
}

/** A renewed certificate the peer sent that this node does not take: the session is closed. */
export class CredentialRefused extends PortalError {
  readonly exitCode = 1 as const;
  constructor(peer: string, problem: string) {
    super('CREDENTIAL_REFUSED', `closed a session with ${peer}: the renewed certificate it sent ${problem}`, {
      hint: 'the peer connects again with the certificate the controller issued it, if it still may',
    });
  }
}

const contexts = new WeakMap<TLSSocket, ChannelContext>();

/** Keeps what the handshake on `socket` established, for the sessions made over it. */
export function rememberChannel(socket: TLSSocket, context: ChannelContext): void {
  contexts.set(socket, context);
}

/** The end of validity of a certificate, in ms since the epoch. */
export const notAfterOf = (certificate: X509Certificate): number => Date.parse(certificate.validTo);

/**
 * Whether the peer at the other end of `socket` may still have a new stream carried: not when it was
 * revoked, nor once its certificate (or the renewed one it proved) expired.
 */
export function peerStanding(socket: TLSSocket, now = Date.now()): 'revoked' | 'expired' | undefined {
  const context = contexts.get(socket);
  if (!context) return undefined;
  const { guard } = context.credentials;
  if (guard?.refusal(context.nodeId) === 'revoked') return 'revoked';
  const until = guard?.expiresAt?.(context.nodeId) ?? notAfterOf(context.certificate);
  return now >= until ? 'expired' : undefined;
}

/**
 * Checks a renewed certificate `der` that the peer of `context` sent: the problem with it, or the end
 * of its validity. Pure but for the clock.
 */
export function judgeRenewal(
  der: Buffer,
  context: ChannelContext,
  now = Date.now(),
): { readonly notAfter: number } | { readonly problem: string } {
  let renewed: X509Certificate;
  try {
    renewed = new X509Certificate(der);
  } catch {
    return { problem: 'is not a certificate' };
  }
  const { credentials } = context;
  const member = verifyMember(renewed, new X509Certificate(credentials.authority), now);
  if (!member) return { problem: 'is not one the project CA issued, or is not valid now' };
  if (member.projectId !== credentials.projectId || member.nodeId !== context.nodeId)
    return { problem: `names ${member.nodeId} of project ${member.projectId}` };
  const spki = (certificate: X509Certificate) => certificate.publicKey.export({ type: 'spki', format: 'der' });
  if (!spki(renewed).equals(spki(context.certificate))) return { problem: 'holds another key' };
  if (credentials.guard?.refusal(context.nodeId) === 'revoked') return { problem: 'is of a revoked member' };
  if (!policyAdmits(context.allow, member.attributes)) return { problem: 'has attributes the allow does not admit' };
  return { notAfter: notAfterOf(renewed) };
}

/**
 * The multiplexer session over an end-to-end channel: it takes the peer's renewed certificates, and
 * (where the peer reads them) is held by the node's LiveSessions to carry this side's.
 */
export function sessionOver(socket: TLSSocket, role: MuxRole, options: MuxOptions = {}): MuxSession {
  const context = contexts.get(socket);
  if (!context) return new MuxSession(socket, role, options);
  const holds = context.spoken >= 6;
  const hold = () => {
    if (holds) context.credentials.sessions?.hold(session, context.credentials.certificate);
  };
  // An outlet's warm stream waits unread on the inlet until a client takes it, and the inlet reads
  // what queued meanwhile at once: two renewals announced to it would read as two credentials in a
  // second, and the client would be refused. It is held once its stream opens, and then told only the
  // latest certificate (hold sends it when the handshake's is older).
  const warm = role === 'outlet' && options.maxStreams === 1;
  const onStream = options.onStream;
  const session: MuxSession = new MuxSession(socket, role, {
    ...options,
    ...(warm
      ? {
          onStream: (stream: IncomingStream) => {
            hold();
            onStream?.(stream);
          },
        }
      : {}),
    onCredential: (der) => {
      const judged = judgeRenewal(der, context);
      if ('problem' in judged) session.destroy(new CredentialRefused(context.nodeId, judged.problem));
      else context.credentials.guard?.renewed?.(context.nodeId, judged.notAfter);
    },
  });
  if (!warm) hold();
  return session;
}

/** The node's sessions whose peers read `credential` frames: where a renewed certificate is sent. */
export class LiveSessions {
  private readonly sessions = new Set<MuxSession>();
  /** The last certificate announced: a session whose handshake began before it gets it when held. */
  private latest: { readonly pem: string; readonly der: Buffer } | undefined;

  /** Holds `session`, whose handshake this side made with `certificate` (PEM). */
  hold(session: MuxSession, certificate: string): void {
    if (session.destroyed) return;
    this.sessions.add(session);
    session.once('close', () => this.sessions.delete(session));
    // Renewed while this session's handshake was under way: the announcement missed it.
    if (this.latest && this.latest.pem !== certificate) session.sendCredential(this.latest.der);
  }

  /** Sends the renewed certificate (PEM) on every session held; returns on how many. */
  announce(certificatePem: string): number {
    const der = new X509Certificate(certificatePem).raw;
    this.latest = { pem: certificatePem, der };
    let sent = 0;
    for (const session of this.sessions) if (session.sendCredential(der)) sent += 1;
    return sent;
  }

  get size(): number {
    return this.sessions.size;
  }
}
