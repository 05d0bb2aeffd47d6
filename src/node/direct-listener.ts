/**
 * An inlet's direct path: a listener that outlets dial (so they still need only outbound network),
 * used by nothing else. A connection must name the inlet's secret (given only to the outlets of its
 * relay name, through the controller) in its first line before anything else happens; then the inlet
 * starts the same mutual TLS and allow checks as through a relay. Until then, what a peer may cost is
 * bounded by the admission limits: a deadline, so many per source (an IPv4 address, an IPv6 /64), so
 * many in all.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { networkInterfaces } from 'node:os';
import { parseHostPort, socketHost } from '../shared/address.ts';
import { InputError } from '../shared/errors.ts';
import { listenOrExplain } from '../shared/listen.ts';
import { sameSecret } from '../shared/secret-compare.ts';
import { dataPathTuning } from '../shared/socket-tuning.ts';
import { Admission, type AdmissionLimits } from '../wire/admission.ts';
import { handshakesPerSource } from '../wire/limits.ts';
import { parseDirectPreamble } from '../wire/protocol.ts';
import { directDeadlineMs, directPerSource, directTotal } from './limits.ts';

/** What a peer may cost a direct path before it names the secret. */
export const directAdmission: AdmissionLimits = {
  deadlineMs: directDeadlineMs,
  perSource: directPerSource,
  total: directTotal,
  handshakesPerSource,
};

export interface DirectStats {
  readonly accepted: number;
  readonly refused: number;
}

export class DirectListener {
  /** Named by outlets in their first line. */
  readonly secret = randomBytes(24).toString('base64url');
  private readonly server: Server;
  private readonly admission: Admission;
  private readonly sockets = new Set<Socket>();
  private handler: ((raw: Socket) => void) | undefined;
  private counts = { accepted: 0, refused: 0 };
  private bound: AddressInfo | undefined;

  private advertised: readonly string[] | undefined;

  private constructor(limits: AdmissionLimits) {
    this.admission = new Admission(limits);
    this.server = createServer(dataPathTuning, (socket) => this.accept(socket));
  }

  /**
   * Listens on `address` (host:port; port 0 lets the system choose); a taken address is a clear error.
   * `advertise`: the addresses outlets dial, when they reach this one by others (NAT, a container).
   */
  static async bind(
    address: string,
    advertise?: readonly string[],
    limits: AdmissionLimits = directAdmission,
  ): Promise<DirectListener> {
    const parsed = parseHostPort(address, true);
    if (!parsed.ok)
      throw new InputError('DIRECT_ADDRESS', `direct path address ${address}: ${parsed.reason}`, {
        hint: 'give tcp-inlet.direct as HOST:PORT (0.0.0.0:4200), true or false',
      });
    const listener = new DirectListener(limits);
    await listenOrExplain(listener.server, {
      host: socketHost(parsed.address.host),
      port: parsed.address.port,
      subject: "the inlet's direct path",
      address,
      hint: 'stop whatever listens there, change tcp-inlet.direct, or set it to false to use relays only',
    });
    listener.bound = listener.server.address() as AddressInfo;
    listener.advertised = advertise;
    return listener;
  }

  /**
   * Where outlets may dial: the address it listens on, or every network address of this machine when
   * it listens on all of them (a configuration that says so: the default is loopback).
   */
  addresses(): string[] {
    if (this.advertised) return [...this.advertised];
    const bound = this.bound as AddressInfo;
    const wildcard = bound.address === '0.0.0.0' || bound.address === '::';
    if (!wildcard)
      return [bound.family === 'IPv6' ? `[${bound.address}]:${bound.port}` : `${bound.address}:${bound.port}`];
    const hosts: string[] = [];
    for (const list of Object.values(networkInterfaces())) {
      for (const entry of list ?? []) if (entry.family === 'IPv4' && !entry.internal) hosts.push(entry.address);
    }
    // Loopback last: an outlet on this machine reaches it; elsewhere it fails at once.
    return [...hosts.slice(0, 8), '127.0.0.1'].map((host) => `${host}:${bound.port}`);
  }

  get listening(): string {
    const bound = this.bound as AddressInfo;
    return `${bound.address}:${bound.port}`;
  }

  /** Starts handing over the connections that named the secret. */
  serve(handler: (raw: Socket) => void): void {
    this.handler = handler;
  }

  stats(): DirectStats {
    return { ...this.counts };
  }

  /** Stops listening; the connections it accepted go on. */
  stopAccepting(): void {
    if (this.server.listening) this.server.close();
  }

  /** Stops listening and closes every connection it accepted, handed over or not. */
  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private accept(socket: Socket): void {
    socket.on('error', () => socket.destroy());
    if (!this.handler || !this.admission.admit(socket)) {
      this.counts.refused += 1;
      socket.destroy();
      return;
    }
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    // The listener is half-open for streams; a peer that ends before naming itself is done with (an
    // outlet closes the addresses its dial did not take that way), and must not wait for its deadline.
    const onEnd = () => socket.destroy();
    socket.once('end', onEnd);
    let received = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const parsed = parseDirectPreamble(received);
      if (parsed.kind === 'incomplete') return;
      socket.off('data', onData);
      socket.off('end', onEnd);
      if (parsed.kind === 'invalid' || !this.named(parsed.secret)) {
        this.counts.refused += 1;
        socket.destroy();
        return;
      }
      socket.pause();
      if (parsed.rest.length > 0) socket.unshift(parsed.rest);
      this.admission.release(socket);
      this.counts.accepted += 1;
      this.handler?.(socket);
    };
    socket.on('data', onData);
  }

  private named(secret: string): boolean {
    return sameSecret(secret, this.secret);
  }
}
