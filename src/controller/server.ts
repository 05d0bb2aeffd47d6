/**
 * The controller's one listening port. A connection that opens with a TLS handshake speaks the control
 * protocol (JSON lines, one request → one answer, plus pushed relay events); one that opens with
 * `PORTAL-SPLICE` is half of a relay splice. Anything else is closed. Nothing a peer sends can do more
 * than close its own connection.
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { TLSSocket, createSecureContext, type SecureContext } from 'node:tls';
import { PortalError } from '../shared/errors.ts';
import { dataPathHighWaterMark } from '../shared/socket-tuning.ts';
import { readJsonLines, writeJsonLine } from '../wire/json-lines.ts';
import { parseSplicePreamble } from '../wire/splice.ts';
import type { PeerIdentity } from '../pki/identity.ts';
import { Relay } from './relay.ts';
import type { ControllerService } from './service.ts';

export interface ControllerServerOptions {
  readonly service: ControllerService;
  readonly tls: { readonly key: string; readonly certificate: string };
  readonly relay?: Relay;
  /** How long a new connection may stay silent. @default 10000 */
  readonly helloTimeoutMs?: number;
  readonly log?: (line: string) => void;
}

type Request = { readonly id?: unknown; readonly op?: unknown } & Record<string, unknown>;

const tlsHandshakeByte = 0x16;

export class ControllerServer {
  readonly relay: Relay;
  private readonly server: Server;
  private readonly context: SecureContext;
  private readonly sockets = new Set<Socket>();

  constructor(private readonly options: ControllerServerOptions) {
    this.relay = options.relay ?? new Relay();
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

  private accept(socket: Socket): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    socket.setTimeout(this.options.helloTimeoutMs ?? 10_000, () => socket.destroy());
    let preamble = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      if (preamble.length === 0 && chunk[0] === tlsHandshakeByte) {
        socket.off('data', onData);
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
      socket.setTimeout(0);
      this.relay.join(socket, parsed.splice, parsed.role, parsed.secret);
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
      // A member may hold its channel open indefinitely; an anonymous peer only as long as a hello.
      if (peer) raw.setTimeout(0);
      const withdrawals: (() => void)[] = [];
      socket.once('close', () => withdrawals.forEach((withdraw) => withdraw()));
      readJsonLines(
        socket,
        (message) => {
          if (message === null || typeof message !== 'object' || Array.isArray(message)) {
            socket.destroy();
            return false;
          }
          this.answer(socket, peer, message as Request, withdrawals).catch(() => socket.destroy());
          return true;
        },
        () => socket.destroy(),
      );
    });
  }

  private async answer(socket: TLSSocket, peer: PeerIdentity | undefined, request: Request, withdrawals: (() => void)[]): Promise<void> {
    const id = typeof request.id === 'number' ? request.id : null;
    const op = typeof request.op === 'string' ? request.op.slice(0, 40) : '?';
    try {
      const result = await this.handle(socket, peer, request, withdrawals);
      if (!socket.destroyed) writeJsonLine(socket, { id, ok: true, ...result });
    } catch (error) {
      if (socket.destroyed) return;
      if (error instanceof PortalError) {
        writeJsonLine(socket, { id, ok: false, code: error.code, message: error.message, hint: error.hint, exit: error.exitCode });
      } else {
        this.options.log?.(`controller: internal error on ${op}: ${(error as Error).message}`);
        writeJsonLine(socket, { id, ok: false, code: 'INTERNAL', message: 'the controller failed to answer', hint: 'see the controller log', exit: 1 });
      }
    }
  }

  private async handle(socket: TLSSocket, peer: PeerIdentity | undefined, request: Request, withdrawals: (() => void)[]): Promise<object> {
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
        const withdraw = this.relay.register(member(peer), text('relay'), (event) => writeJsonLine(socket, event));
        withdrawals.push(withdraw);
        this.options.log?.(`relay: ${member(peer).nodeId} registered ${text('relay')}`);
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
