/**
 * The end-to-end TLS contexts, built once per set of credentials. Building one parses the key and both
 * certificates (0.7 ms here), which would otherwise be paid by both ends of every warm stream's
 * handshake. The server end is one `tls.Server` per set of credentials that never listens: a socket
 * it accepts is a complete TLS socket, and it checks the client certificate, which a bare server-side
 * TLSSocket does not.
 */
import type { Socket } from 'node:net';
import { createSecureContext, createServer, type SecureContext, type Server, type TLSSocket } from 'node:tls';
import { RuntimeFailure } from '../shared/errors.ts';
import { dataPathCipherSuites } from '../shared/socket-tuning.ts';
import { e2eHandshakeTimeoutMs } from './limits.ts';

export interface ContextCredentials {
  readonly key: string;
  readonly certificate: string;
  /** The project CA: the only trust anchor. */
  readonly authority: string;
}

/** The ALPN name of the end-to-end protocol. */
export const e2eAlpn = ['portal-e2e/1'];

/** The last few contexts: a rotation brings a new certificate, while streams of the old one may still open. */
class ContextCache<T> {
  private readonly entries: { readonly credentials: ContextCredentials; readonly value: T }[] = [];
  constructor(
    private readonly build: (credentials: ContextCredentials) => T,
    private readonly size = 2,
  ) {}

  get(credentials: ContextCredentials): T {
    const found = this.entries.find(
      ({ credentials: cached }) =>
        cached.certificate === credentials.certificate &&
        cached.key === credentials.key &&
        cached.authority === credentials.authority,
    );
    if (found) return found.value;
    const value = this.build(credentials);
    this.entries.unshift({ credentials, value });
    // A dropped acceptor's handshakes in progress finish: each TLS socket holds its server.
    this.entries.splice(this.size);
    return value;
  }
}

const contextOptions = (credentials: ContextCredentials) => ({
  key: credentials.key,
  cert: credentials.certificate,
  ca: credentials.authority,
  minVersion: 'TLSv1.3' as const,
  ciphers: dataPathCipherSuites,
});

const clientContexts = new ContextCache<SecureContext>((credentials) =>
  createSecureContext(contextOptions(credentials)),
);

/** The client end's context for these credentials. */
export function clientContext(credentials: ContextCredentials): SecureContext {
  return clientContexts.get(credentials);
}

/** A TLS handshake that did not finish: the peer left, took too long, or failed a check. */
export class HandshakeFailed extends RuntimeFailure {
  constructor(message: string, cause?: unknown) {
    super('TLS_HANDSHAKE_FAILED', message, { cause });
  }
}

interface Waiting {
  readonly resolve: (socket: TLSSocket) => void;
  readonly reject: (error: HandshakeFailed) => void;
}

/** A socket's two ends, which its TLSSocket reports as well: how a finished handshake finds its caller. */
const endpoints = (socket: Socket) =>
  `${socket.remoteAddress}:${socket.remotePort}>${socket.localAddress}:${socket.localPort}`;

/** Server-side handshakes for one set of credentials, many at a time. */
class Acceptor {
  private readonly server: Server;
  private readonly waiting = new Map<string, Waiting>();

  constructor(credentials: ContextCredentials) {
    this.server = createServer({
      ...contextOptions(credentials),
      requestCert: true,
      rejectUnauthorized: true,
      ALPNProtocols: e2eAlpn,
      handshakeTimeout: e2eHandshakeTimeoutMs,
      allowHalfOpen: true,
    });
    this.server.on('secureConnection', (socket: TLSSocket) => {
      const waiting = this.take(socket);
      if (waiting) waiting.resolve(socket);
      else socket.destroy();
    });
    this.server.on('tlsClientError', (error: Error, socket: TLSSocket) => {
      this.take(socket)?.reject(new HandshakeFailed(error.message, error));
      socket.destroy();
    });
  }

  /** The TLS socket of `raw` once its handshake is done and the client certificate chains to the project CA. */
  accept(raw: Socket): Promise<TLSSocket> {
    const key = endpoints(raw);
    if (raw.destroyed || raw.remotePort === undefined || this.waiting.has(key)) {
      raw.destroy();
      return Promise.reject(new HandshakeFailed('the connection closed before the handshake'));
    }
    // Half-open only once the handshake is done: a half-open TLS socket takes a peer's FIN during the
    // handshake for a half-close and waits out the whole handshake timeout (10 s) for a peer that left.
    const halfOpen = raw.allowHalfOpen;
    raw.allowHalfOpen = false;
    return new Promise<TLSSocket>((resolve, reject) => {
      const onClose = () => {
        if (this.waiting.get(key) !== waiting) return;
        this.waiting.delete(key);
        reject(new HandshakeFailed('the connection closed during the handshake'));
      };
      const waiting: Waiting = {
        resolve: (socket) => {
          raw.off('close', onClose);
          socket.allowHalfOpen = halfOpen;
          // Errors after the handshake belong to whoever uses the socket next; until then, close quietly.
          socket.on('error', () => socket.destroy());
          resolve(socket);
        },
        reject: (error) => {
          raw.off('close', onClose);
          raw.destroy();
          reject(error);
        },
      };
      this.waiting.set(key, waiting);
      raw.once('close', onClose);
      this.server.emit('connection', raw);
    });
  }

  private take(socket: TLSSocket): Waiting | undefined {
    const key = endpoints(socket);
    const waiting = this.waiting.get(key);
    this.waiting.delete(key);
    return waiting;
  }
}

const acceptors = new ContextCache<Acceptor>((credentials) => new Acceptor(credentials));

/** The server end of a handshake over `raw` with these credentials. */
export function acceptTlsWith(raw: Socket, credentials: ContextCredentials): Promise<TLSSocket> {
  return acceptors.get(credentials).accept(raw);
}
