/**
 * The end-to-end session between an inlet and an outlet, over a spliced relay connection: mutual TLS
 * 1.3 with both certificates checked against the project CA, then an exchange of verdicts on each
 * other's attributes (so that a refusal is logged on both sides with what was seen), then either HTTP/2
 * whose CONNECT streams carry client connections (a session) or one client's bytes as they are (a warm
 * stream). The relay sees only TLS records.
 */
import { createServer as createH2Server, connect as connectH2, type ClientHttp2Session, type Http2Server, type ServerHttp2Session } from 'node:http2';
import type { Socket } from 'node:net';
import { TLSSocket, connect as connectTls, type ConnectionOptions } from 'node:tls';
import { identityOf, type PeerIdentity } from '../pki/identity.ts';
import { PortalError } from '../shared/errors.ts';
import { readOneJsonLine } from './json-lines.ts';
import { acceptTlsWith, clientContext, e2eAlpn } from './tls-contexts.ts';

export interface SessionCredentials {
  readonly key: string;
  readonly certificate: string;
  /** The project CA: the only trust anchor. */
  readonly authority: string;
  readonly projectId: string;
}

export interface Verdict {
  readonly accept: boolean;
  /** Set by the inlet: what the connection carries after the verdicts. */
  readonly mode?: ChannelMode;
  /** The attributes this side saw on its peer's certificate. */
  readonly saw: readonly string[];
  /** The attribute this side requires. */
  readonly want: string;
}

export class PeerRefused extends PortalError {
  readonly exitCode = 1 as const;
  constructor(
    message: string,
    readonly verdicts: { readonly ours?: Verdict; readonly theirs?: Verdict },
  ) {
    super('PEER_NOT_ALLOWED', message, { hint: "check that each side's allow equals the other side's ticket attribute" });
  }
}

export class SessionFailed extends PortalError {
  readonly exitCode = 1 as const;
  constructor(message: string, cause?: unknown) {
    super('SESSION_FAILED', message, { hint: 'the node retries by itself', cause });
  }
}

/** Flow control windows: large enough for full speed on a fast path, small enough to bound memory per stream. */
export const h2Settings = { initialWindowSize: 4 * 1024 * 1024, maxFrameSize: 64 * 1024, enablePush: false } as const;
const sessionWindow = 32 * 1024 * 1024;

function judge(peerCertificate: ReturnType<TLSSocket['getPeerX509Certificate']>, credentials: SessionCredentials, allow: string): Verdict {
  const peer = peerCertificate ? identityOf(peerCertificate) : undefined;
  const saw = peer?.attributes ?? [];
  const sameProject = peer?.projectId === credentials.projectId;
  return { accept: sameProject && saw.includes(allow), saw, want: allow };
}

async function exchangeVerdicts(socket: TLSSocket, ours: Verdict, timeoutMs: number): Promise<Verdict> {
  // The write must have completed before HTTP/2 adopts the socket: HTTP/2 takes over its write queue.
  const written = new Promise<void>((resolve) => socket.write(`${JSON.stringify(ours)}\n`, () => resolve()));
  let theirs: Verdict;
  try {
    [theirs] = (await Promise.all([readOneJsonLine(socket, timeoutMs), written])) as [Verdict, void];
  } catch (error) {
    // A peer that completes TLS and then says nothing (or garbage) must not keep the splice open.
    socket.destroy();
    throw new SessionFailed(`no verdict from the peer: ${(error as Error).message}`, error);
  }
  if (!ours.accept) {
    socket.destroy();
    throw new PeerRefused(`peer attribute not allowed: saw ${describe(ours.saw)}, allow is "${ours.want}"`, { ours, theirs });
  }
  if (theirs?.accept !== true) {
    socket.destroy();
    throw new PeerRefused(`the peer does not allow this node: it saw ${describe(theirs?.saw ?? [])}, its allow is "${theirs?.want ?? '?'}"`, { ours, theirs });
  }
  return theirs;
}

const describe = (attributes: readonly string[]) => (attributes.length === 0 ? 'no attribute' : attributes.map((a) => `"${a}"`).join(', '));

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

/**
 * What an end-to-end connection carries, chosen by the inlet: a `session` is HTTP/2 whose CONNECT
 * streams carry client connections (and whose pings watch the peer); a `stream` is one warm connection
 * kept ready for one client, whose bytes then flow as they are, with no framing at all.
 */
export type ChannelMode = 'session' | 'stream';

export interface Channel {
  readonly socket: TLSSocket;
  readonly peer: PeerIdentity | undefined;
  readonly mode: ChannelMode;
}

/** The inlet's side of the handshake and the verdicts. */
export async function openInletChannel(raw: Socket, credentials: SessionCredentials, allow: string, mode: ChannelMode, timeoutMs = 10_000): Promise<Channel> {
  const socket = connectTls({
    socket: raw,
    // Key, certificates, TLS 1.3 and the suites: built once per set of credentials.
    secureContext: clientContext(credentials),
    rejectUnauthorized: true,
    ALPNProtocols: e2eAlpn,
    // A stream carries a client's half-close as the TLS close_notify, then keeps reading.
    allowHalfOpen: mode === 'stream',
    // Names play no part: peers are identified by their project certificate's attributes, checked below.
    checkServerIdentity: () => undefined,
    // allowHalfOpen is a socket option TLSSocket passes on; @types/node does not list it here.
  } as ConnectionOptions);
  await settled(socket, 'secureConnect', timeoutMs);
  const certificate = socket.getPeerX509Certificate();
  await exchangeVerdicts(socket, { ...judge(certificate, credentials, allow), mode }, timeoutMs);
  return { socket, peer: certificate ? identityOf(certificate) : undefined, mode };
}

export interface InletSession {
  readonly session: ClientHttp2Session;
  readonly peer: PeerIdentity | undefined;
}

/** The inlet's session: TLS client over the spliced socket, then an HTTP/2 client. */
export async function openInletSession(raw: Socket, credentials: SessionCredentials, allow: string, timeoutMs = 10_000): Promise<InletSession> {
  const { socket, peer } = await openInletChannel(raw, credentials, allow, 'session', timeoutMs);
  const session = connectH2('http://portal', { createConnection: () => socket, settings: h2Settings });
  session.on('error', () => session.destroy());
  session.once('connect', () => session.setLocalWindowSize(sessionWindow));
  return { session, peer };
}

export interface OutletSession {
  readonly session: ServerHttp2Session;
  readonly peer: PeerIdentity | undefined;
}

/** An HTTP/2 server that receives the outlet's sessions; its 'stream' events are the client connections. */
export function createSessionServer(): Http2Server {
  return createH2Server({ settings: h2Settings });
}

/** The outlet's side of the handshake and the verdicts; the inlet's verdict says which mode follows. */
export async function acceptOutletChannel(raw: Socket, credentials: SessionCredentials, allow: string, timeoutMs = 10_000): Promise<Channel> {
  const socket = await acceptTlsWith(raw, credentials).catch((error: Error) => {
    throw new SessionFailed(`end-to-end TLS failed: ${error.message}`, error);
  });
  const certificate = socket.getPeerX509Certificate();
  const theirs = await exchangeVerdicts(socket, judge(certificate, credentials, allow), timeoutMs);
  return { socket, peer: certificate ? identityOf(certificate) : undefined, mode: theirs.mode === 'stream' ? 'stream' : 'session' };
}

/** Hands a `session` channel to the HTTP/2 server. */
export async function adoptOutletSession(channel: Channel, server: Http2Server): Promise<OutletSession> {
  // A session ends with the connection: no half-open TLS for HTTP/2.
  channel.socket.once('end', () => channel.socket.destroy());
  const session = await new Promise<ServerHttp2Session>((resolve) => {
    server.once('session', (created: ServerHttp2Session) => resolve(created));
    server.emit('connection', channel.socket);
  });
  session.on('error', () => session.destroy());
  session.setLocalWindowSize(sessionWindow);
  return { session, peer: channel.peer };
}
