/**
 * A listening Portal port: a connection that opens with a TLS handshake speaks a service (the
 * controller's control protocol or a relay's, chosen by ALPN, so one port may serve both); one that
 * opens with a splice preamble is half of a relay splice; anything else is closed. What a peer may cost
 * before it proves anything is bounded by the admission limits (deadline, per source, in all,
 * handshakes a second); a connection leaves them once its handler releases it.
 */
import { constants } from 'node:crypto';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { TLSSocket, createSecureContext, type SecureContext } from 'node:tls';
import { dataPathTuning } from '../shared/socket-tuning.ts';
import { Admission, defaultAdmissionLimits, type AdmissionLimits, type AdmissionStats } from './admission.ts';
import { parseSplicePreamble, serviceAlpn, type ServiceName, type SplicePreamble } from './protocol.ts';

export type SpliceHalf = Extract<SplicePreamble, { kind: 'splice' }>;

export interface PortHandlers {
  /**
   * A TLS connection of `service` completed its handshake (its client certificate is not checked yet:
   * that is the service's work). `release` takes it out of the admission limits once it is proven.
   */
  readonly secure: Partial<Record<ServiceName, (socket: TLSSocket, release: () => void) => void>>;
  /** A raw connection presented a splice preamble: true when it was taken (it is then bounded by the relay). */
  readonly splice?: (socket: Socket, half: SpliceHalf) => boolean;
  /** A splice preamble of another protocol version (named in `reason`), for the log. */
  readonly invalidSplice?: (reason: string) => void;
}

/** A data plane that can share a port: a relay inside the controller process. */
export interface SharedDataPlane {
  readonly handlers: PortHandlers;
  /** Takes nothing new; what it carries goes on. */
  stopAccepting(): void;
  /** Connections it carries right now. */
  openConnections(): number;
  whenIdle(): Promise<void>;
  close(): Promise<void>;
  /** Cuts every splice and connection of a member revoked from its project; returns how many splices it cut. */
  cutMember?(nodeId: string): number;
}

export interface PortalPortOptions {
  readonly tls: { readonly key: string; readonly certificate: string };
  readonly admission?: AdmissionLimits;
  readonly handlers: PortHandlers;
}

const tlsHandshakeByte = 0x16;

export class PortalPort {
  private readonly server: Server;
  private readonly context: SecureContext;
  private readonly sockets = new Set<Socket>();
  private readonly admission: Admission;
  private readonly protocols: string[];

  constructor(private readonly options: PortalPortOptions) {
    this.admission = new Admission(options.admission ?? defaultAdmissionLimits);
    // No public CA (`ca: []`): a client's certificate is checked against the project CA by the service.
    // No session resumption (SSL_OP_NO_TICKET: in TLS 1.3, tickets naming a session this server does not
    // keep): each connection is a full handshake, which proves the member's key anew, and no client of
    // a Portal service resumes one anyway. Stateless tickets, which carry the session, also kept about
    // 6 KB per idle connection (measured with 3,000 mutual-TLS connections on Node.js 20).
    this.context = createSecureContext({
      key: options.tls.key,
      cert: options.tls.certificate,
      ca: [],
      minVersion: 'TLSv1.3',
      secureOptions: constants.SSL_OP_NO_TICKET,
    });
    this.protocols = (Object.keys(options.handlers.secure) as ServiceName[]).map((service) => serviceAlpn[service]);
    this.server = createServer(dataPathTuning, (socket) => this.accept(socket));
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

  /** Stops listening; the connections it accepted go on. */
  stopAccepting(): void {
    if (this.server.listening) this.server.close();
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  stats(): AdmissionStats {
    return this.admission.stats();
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
        this.handshake(socket);
        return;
      }
      preamble = Buffer.concat([preamble, chunk]);
      const parsed = parseSplicePreamble(preamble);
      if (parsed.kind === 'incomplete') return;
      socket.off('data', onData);
      if (parsed.kind === 'invalid' || !this.options.handlers.splice) {
        if (parsed.kind === 'invalid' && parsed.reason.includes('version'))
          this.options.handlers.invalidSplice?.(parsed.reason);
        socket.destroy();
        return;
      }
      socket.pause();
      if (parsed.rest.length > 0) socket.unshift(parsed.rest);
      if (this.options.handlers.splice(socket, parsed)) this.admission.release(socket);
    };
    socket.on('data', onData);
  }

  private handshake(raw: Socket): void {
    const socket = new TLSSocket(raw, {
      isServer: true,
      secureContext: this.context,
      requestCert: true,
      rejectUnauthorized: false,
      ALPNProtocols: this.protocols,
    });
    socket.on('error', () => socket.destroy());
    // The listener keeps sockets half-open for splices; a TLS peer that ends its side is gone.
    socket.once('end', () => socket.destroy());
    socket.once('close', () => raw.destroy());
    socket.once('secure', () => {
      // A client that names no protocol is a control client of an earlier version: the control service
      // tells it which version it speaks.
      const chosen =
        (Object.keys(serviceAlpn) as ServiceName[]).find((service) => serviceAlpn[service] === socket.alpnProtocol) ??
        'control';
      const serve = this.options.handlers.secure[chosen];
      if (!serve) {
        socket.destroy();
        return;
      }
      serve(socket, () => this.admission.release(raw));
    });
  }
}
