/**
 * The controller's one listening port. A connection that opens with a TLS handshake speaks the control
 * protocol (JSON lines, one request → one answer, plus pushed relay events); one that opens with
 * `PORTAL-SPLICE` is half of a relay splice. Anything else is closed. Nothing a peer sends can do more
 * than close its own connection, and what a peer may cost is bounded: unauthenticated connections by
 * the admission limits (deadline, per source, in all), requests by how many may be in flight, answers
 * by backpressure (a peer that does not read is not read either), anonymous peers by what they may ask
 * and how often.
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { TLSSocket, createSecureContext, type SecureContext } from 'node:tls';
import { PortalError } from '../shared/errors.ts';
import { dataPathHighWaterMark } from '../shared/socket-tuning.ts';
import { serveJsonLines, type JsonLinesService } from '../wire/json-lines.ts';
import { parseSplicePreamble } from '../wire/splice.ts';
import type { PeerIdentity } from '../pki/identity.ts';
import { Admission, defaultAdmissionLimits, type AdmissionLimits, type AdmissionStats } from './admission.ts';
import { RateLimiter } from './rate-limiter.ts';
import { Relay } from './relay.ts';
import type { ControllerService } from './service.ts';

export interface ControlLimits {
  /** Requests a member's connection may have in flight. @default 32 */
  readonly memberInFlight: number;
  /** Control connections one member may hold at once. @default 16 */
  readonly memberConnections: number;
  /** Requests a connection without a member certificate may send before it is closed. @default 8 */
  readonly anonymousRequests: number;
  /** Requests per second, and the burst, that one source address may send without a member certificate. @default 50, 100 */
  readonly anonymousRate: { readonly perSecond: number; readonly burst: number };
  /** Unread answers and events a peer may leave queued before its connection is closed. @default 1 MiB */
  readonly maxQueuedBytes: number;
}

export const defaultControlLimits: ControlLimits = {
  memberInFlight: 32,
  memberConnections: 16,
  anonymousRequests: 8,
  anonymousRate: { perSecond: 50, burst: 100 },
  maxQueuedBytes: 1024 * 1024,
};

export interface ControllerServerOptions {
  readonly service: ControllerService;
  readonly tls: { readonly key: string; readonly certificate: string };
  readonly relay?: Relay;
  readonly admission?: AdmissionLimits;
  readonly control?: ControlLimits;
  readonly log?: (line: string) => void;
}

type Request = { readonly id?: unknown; readonly op?: unknown } & Record<string, unknown>;

/** One control connection, as its requests see it. */
interface Connection {
  /** The member its certificate proves, if any. */
  readonly peer: PeerIdentity | undefined;
  /** Its source address. */
  readonly source: string;
  /** Sends a pushed event (a relay dial) down this connection. */
  readonly push: (message: unknown) => void;
  /** The relay names registered on it, each with the function that withdraws it. */
  readonly registrations: Map<string, () => void>;
}

const tlsHandshakeByte = 0x16;

export interface ControllerServerStats extends AdmissionStats {
  readonly members: number;
  readonly anonymousRefused: number;
}

export class ControllerServer {
  readonly relay: Relay;
  private readonly server: Server;
  private readonly context: SecureContext;
  private readonly sockets = new Set<Socket>();
  private readonly admission: Admission;
  private readonly limits: ControlLimits;
  private readonly anonymousRate: RateLimiter;
  private readonly memberConnections = new Map<string, number>();
  private anonymousRefused = 0;

  constructor(private readonly options: ControllerServerOptions) {
    this.relay = options.relay ?? new Relay();
    this.admission = new Admission(options.admission ?? defaultAdmissionLimits);
    this.limits = options.control ?? defaultControlLimits;
    this.anonymousRate = new RateLimiter(this.limits.anonymousRate.perSecond, this.limits.anonymousRate.burst);
    this.context = createSecureContext({ key: options.tls.key, cert: options.tls.certificate, minVersion: 'TLSv1.3' });
    this.server = createServer({ allowHalfOpen: true, noDelay: true, highWaterMark: dataPathHighWaterMark }, (socket) => this.accept(socket));
  }

  listen(host: string, port: number): Promise<AddressInfo> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve(this.server.address() as AddressInfo);
      });
    });
  }

  async close(): Promise<void> {
    this.relay.close();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  stats(): ControllerServerStats {
    let members = 0;
    for (const count of this.memberConnections.values()) members += count;
    return { ...this.admission.stats(), members, anonymousRefused: this.anonymousRefused };
  }

  private accept(socket: Socket): void {
    socket.on('error', () => socket.destroy());
    if (!this.admission.admit(socket)) return;
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    let preamble = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      if (preamble.length === 0 && chunk[0] === tlsHandshakeByte) {
        socket.off('data', onData);
        if (!this.admission.allowHandshake(socket)) return;
        socket.pause();
        socket.unshift(chunk);
        this.control(socket);
        return;
      }
      preamble = Buffer.concat([preamble, chunk]);
      const parsed = parseSplicePreamble(preamble);
      if (parsed.kind === 'incomplete') return;
      socket.off('data', onData);
      if (parsed.kind === 'invalid') {
        socket.destroy();
        return;
      }
      socket.pause();
      if (parsed.rest.length > 0) socket.unshift(parsed.rest);
      // A half the relay accepted is bounded by the relay's own limits from here on.
      if (this.relay.join(socket, parsed.splice, parsed.role, parsed.secret)) this.admission.release(socket);
    };
    socket.on('data', onData);
  }

  private control(raw: Socket): void {
    const socket = new TLSSocket(raw, { isServer: true, secureContext: this.context, requestCert: true, rejectUnauthorized: false });
    socket.on('error', () => socket.destroy());
    // The listener keeps sockets half-open for splices; a control peer that ends its side is gone.
    socket.once('end', () => socket.destroy());
    socket.once('close', () => raw.destroy());
    socket.once('secure', async () => {
      const peer = await this.options.service.verifyPeer(socket.getPeerX509Certificate()).catch(() => undefined);
      if (socket.destroyed) return;
      if (peer && !this.admitMember(peer, socket)) return;
      // A member may hold its channel open indefinitely; an anonymous peer only until its deadline.
      if (peer) this.admission.release(raw);
      const source = raw.remoteAddress ?? '?';
      // One registration per relay name and connection: registering again replaces it.
      const registrations = new Map<string, () => void>();
      socket.once('close', () => registrations.forEach((withdraw) => withdraw()));
      let requests = 0;
      // Requests are answered only after serveJsonLines has returned: `channel` is set by then.
      const push = (message: unknown) => channel.send(message);
      const channel: JsonLinesService = serveJsonLines(
        socket,
        async (message) => {
          if (message === null || typeof message !== 'object' || Array.isArray(message)) {
            socket.destroy();
            return undefined;
          }
          if (!peer && !this.anonymousAllowed(source, (requests += 1))) {
            socket.destroy();
            return undefined;
          }
          return this.answer({ peer, source, push, registrations }, message as Request);
        },
        () => socket.destroy(),
        { maxInFlight: peer ? this.limits.memberInFlight : 1, maxQueuedBytes: this.limits.maxQueuedBytes },
      );
    });
  }

  /** Counts a member's control connections; false (and closed) past the limit. */
  private admitMember(peer: PeerIdentity, socket: TLSSocket): boolean {
    const held = this.memberConnections.get(peer.nodeId) ?? 0;
    if (held >= this.limits.memberConnections) {
      this.options.log?.(`controller: refused a control connection of ${peer.nodeId}: it holds ${held} already`);
      socket.destroy();
      return false;
    }
    this.memberConnections.set(peer.nodeId, held + 1);
    socket.once('close', () => {
      const left = (this.memberConnections.get(peer.nodeId) ?? 1) - 1;
      if (left > 0) this.memberConnections.set(peer.nodeId, left);
      else this.memberConnections.delete(peer.nodeId);
    });
    return true;
  }

  /** An anonymous peer's `count`-th request on its connection, from `source`. */
  private anonymousAllowed(source: string, count: number): boolean {
    if (count <= this.limits.anonymousRequests && this.anonymousRate.take(source)) return true;
    this.anonymousRefused += 1;
    return false;
  }

  private async answer(connection: Connection, request: Request): Promise<object> {
    const id = typeof request.id === 'number' ? request.id : null;
    const op = typeof request.op === 'string' ? request.op.slice(0, 40) : '?';
    try {
      const result = await this.handle(connection, request);
      return { id, ok: true, ...result };
    } catch (error) {
      if (error instanceof PortalError) return { id, ok: false, code: error.code, message: error.message, hint: error.hint, exit: error.exitCode };
      this.options.log?.(`controller: internal error on ${op}: ${(error as Error).message}`);
      return { id, ok: false, code: 'INTERNAL', message: 'the controller failed to answer', hint: 'see the controller log', exit: 1 };
    }
  }

  private async handle(connection: Connection, request: Request): Promise<object> {
    const { peer, source, push, registrations } = connection;
    const service = this.options.service;
    const text = (key: string) => (typeof request[key] === 'string' ? (request[key] as string) : '');
    switch (request.op) {
      case 'ping':
        return {};
      case 'admin-enroll':
        return service.adminEnroll(text('code'), text('request'), text('project') || undefined);
      case 'enroll':
        return service.enroll(text('ticket'), text('secret'), text('request'));
      case 'renew':
        return service.renew(member(peer), text('request'));
      case 'reissue-challenge':
        return service.reissueChallenge(source);
      case 'reissue':
        return service.reissue(text('certificate'), text('request'));
      case 'ticket':
        return {
          ticket: await service.issueTicket(member(peer), {
            expiresInMs: Number(request.expiresInMs),
            usageCount: Number(request.usageCount),
            attribute: text('attribute'),
            ...(text('relay') ? { relay: text('relay') } : {}),
            tls: request.tls === true,
          }),
        };
      case 'project':
        return { project: await service.project(member(peer)) };
      case 'ca':
        return { certificate: (await service.authorityOf(member(peer).projectId)).certificate };
      case 'register': {
        const name = text('relay');
        const earlier = registrations.get(name);
        registrations.set(name, this.relay.register(member(peer), name, text('allow'), push));
        earlier?.();
        if (!earlier) this.options.log?.(`relay: ${member(peer).nodeId} registered ${name}`);
        return {};
      }
      case 'connect':
        return this.relay.connect(member(peer), text('relay'));
      default:
        throw new UnknownOperation(typeof request.op === 'string' ? request.op.slice(0, 40) : '?');
    }
  }
}

class UnknownOperation extends PortalError {
  readonly exitCode = 2 as const;
  constructor(op: string) {
    super('UNKNOWN_OPERATION', `the controller does not know the operation "${op}"`, { hint: 'use a portal of the same version as the controller' });
  }
}

function member(peer: PeerIdentity | undefined): PeerIdentity {
  if (!peer) throw new NotAuthenticated();
  return peer;
}

class NotAuthenticated extends PortalError {
  readonly exitCode = 1 as const;
  constructor() {
    super('NOT_AUTHENTICATED', 'the controller did not accept this node certificate (expired, or from another project)', {
      hint: 'check that PORTAL_HOME holds an enrolled identity for this controller',
    });
  }
}
