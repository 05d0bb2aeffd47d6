/**
 * A client's connection to a Portal service (the controller, or a relay): TLS 1.3 with the server's
 * certificate pinned by fingerprint (from the ticket or admin code for the controller, from the
 * controller's relay list for a relay), ALPN naming the service, and the client's certificate once it
 * has one. The first lines name the protocol version on each side; a server of another version is an
 * error naming both. Requests are JSON lines answered by id, typed by the operations of the service;
 * the server may also push events on a long-lived channel, each read through its field table before
 * anyone hears of it.
 */
import { EventEmitter } from 'node:events';
import { connect, type TLSSocket } from 'node:tls';
import { parseHostPort, socketHost } from '../shared/address.ts';
import { knownCode } from '../shared/error-codes.ts';
import { InputError, PortalError, RuntimeFailure } from '../shared/errors.ts';
import { addressesOf, firstAnswering } from './replica-addresses.ts';
import { readJsonLines, writeJsonLine } from './json-lines.ts';
import {
  controllerEventFields,
  helloOf,
  parseEvent,
  protocolVersion,
  relayEventFields,
  serviceAlpn,
  versionHint,
  versionMismatch,
  type AnswerOf,
  type ControllerOperations,
  type Hello,
  type RelayOperations,
  type RequestOf,
  type ServiceName,
} from './protocol.ts';
import { serviceErrorCodes } from './service-error-codes.ts';
import type { ControllerPin } from './ticket.ts';
import { controlConnectTimeoutMs, controlRequestTimeoutMs } from './limits.ts';

export interface ClientCredentials {
  readonly key: string;
  readonly certificate: string;
}

/** Where a service is and the certificate it must present. */
export interface ServiceTarget {
  readonly service: ServiceName;
  /** host:port */
  readonly address: string;
  /** SHA-256 of the server's certificate, hex. */
  readonly fingerprint: string;
  /** The address to connect from; the system's choice when not given. */
  readonly localAddress?: string;
}

/**
 * Requests one channel may have waiting for their answers. A server that stops answering would
 * otherwise collect every request the node makes (each with its timer and its bytes in the socket's
 * buffer) until they time out; past this bound a request fails at once instead. @default 64
 */
export const maxPendingRequests = 64;

export const controllerTarget = (pin: ControllerPin): ServiceTarget => ({
  service: 'control',
  address: pin.controller,
  fingerprint: pin.fingerprint,
});

interface Waiting {
  readonly resolve: (answer: Record<string, unknown>) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

/** The colon-free lower-case form of a certificate fingerprint. */
const normalise = (fingerprint: string) => fingerprint.replace(/:/g, '').toLowerCase();

const serverName = (service: ServiceName) => (service === 'control' ? 'controller' : 'relay');

/**
 * Events: 'event' (a pushed event, read through its field table: an EventOf<Ops>), 'dropped' (a
 * pushed message that is no event this node reads, described in a few words), 'close'.
 */
export class ServiceChannel<Ops> extends EventEmitter {
  private nextId = 1;
  private readonly waiting = new Map<number, Waiting>();
  private closeReason: PortalError | undefined;

  private constructor(
    private readonly socket: TLSSocket,
    private readonly target: ServiceTarget,
    /** Requests that may wait for answers at once. @default maxPendingRequests */
    private readonly maxPending: number,
  ) {
    super();
    readJsonLines(
      socket,
      (message) => this.receive(message as Record<string, unknown>),
      () => socket.destroy(),
    );
    socket.on('error', () => socket.destroy());
    socket.once('close', () => {
      const error =
        this.closeReason ??
        new RuntimeFailure(
          serviceErrorCodes[target.service].lost,
          `the connection to the ${serverName(target.service)} closed`,
          {
            hint: `check that the ${serverName(target.service)} is running`,
          },
        );
      for (const [, waiting] of this.waiting) {
        clearTimeout(waiting.timer);
        waiting.reject(error);
      }
      this.waiting.clear();
      this.emit('close');
    });
  }

  /** The address this channel reached: of a list of replicas, the one that answered. */
  get address(): string {
    return this.target.address;
  }

  /** Connects, checks the pinned certificate, and exchanges versions; rejects with one line saying why not. */
  /**
   * `maxPending`: requests that may wait for answers at once (a peer that is no node, such as an attack
   * test's, may raise it).
   */
  static async open<Ops>(
    target: ServiceTarget,
    credentials?: ClientCredentials,
    timeoutMs = controlConnectTimeoutMs,
    maxPending = maxPendingRequests,
  ): Promise<ServiceChannel<Ops>> {
    if (addressesOf(target.address).length === 1)
      return ServiceChannel.openOne<Ops>(target, credentials, timeoutMs, maxPending);
    return firstAnswering(
      target.address,
      timeoutMs,
      (address, ms) => ServiceChannel.openOne<Ops>({ ...target, address }, credentials, ms, maxPending),
      (errors) => {
        // A certificate that differs says more than an address that did not answer.
        const failures = errors.filter((error) => error instanceof PortalError);
        if (failures.length < errors.length) return errors.find((error) => !(error instanceof PortalError));
        const mismatch = failures.find((error) => error.code === serviceErrorCodes[target.service].mismatch);
        const reasons = failures.map((error) => error.message.replace(/^cannot reach the \w+ at /, ''));
        return mismatch ?? unreachable(target, reasons.join('; '));
      },
    );
  }

  private static openOne<Ops>(
    target: ServiceTarget,
    credentials: ClientCredentials | undefined,
    timeoutMs: number,
    maxPending: number,
  ): Promise<ServiceChannel<Ops>> {
    const parsed = parseHostPort(target.address);
    const who = serverName(target.service);
    if (!parsed.ok) {
      return Promise.reject(
        new InputError(
          serviceErrorCodes[target.service].address,
          `the ${who} address "${target.address}" is not host:port`,
          {
            hint: `give the ${who} as HOST:PORT`,
          },
        ),
      );
    }
    return new Promise((resolve, reject) => {
      const socket = connect({
        host: socketHost(parsed.address.host),
        port: parsed.address.port,
        // The chain is not checked against public CAs: the server's certificate is pinned instead. No CA
        // at all (`ca: []`) also spares each process loading Node.js's public roots (25 ms here).
        rejectUnauthorized: false,
        ca: [],
        minVersion: 'TLSv1.3',
        ALPNProtocols: [serviceAlpn[target.service]],
        ...(credentials ? { key: credentials.key, cert: credentials.certificate } : {}),
        ...(target.localAddress ? { localAddress: target.localAddress } : {}),
      });
      socket.setNoDelay(true);
      const timer = setTimeout(() => fail(unreachable(target, 'no answer')), timeoutMs);
      const fail = (error: Error) => {
        clearTimeout(timer);
        socket.destroy();
        reject(error);
      };
      socket.once('error', (error: NodeJS.ErrnoException) => fail(unreachable(target, error.code ?? error.message)));
      socket.once('close', () => fail(unreachable(target, 'the connection closed')));
      socket.once('secureConnect', () => {
        const seen = socket.getPeerX509Certificate()?.fingerprint256;
        if (!seen || normalise(seen) !== normalise(target.fingerprint)) {
          fail(
            new RuntimeFailure(
              serviceErrorCodes[target.service].mismatch,
              `the server at ${target.address} is not the ${who} ` +
                `${target.service === 'control' ? 'the ticket names' : 'the controller named'} ` +
                '(its certificate differs)',
              {
                hint:
                  target.service === 'control'
                    ? 'check the address; if the controller was reinstalled, issue new tickets'
                    : 'the node asks the controller for the relays again by itself',
              },
            ),
          );
          return;
        }
        writeJsonLine(socket, helloOf(target.service));
        const release = readJsonLines(
          socket,
          (message) => {
            const refused = helloRefusal(target.service, message);
            if (refused) {
              fail(refused);
              return false;
            }
            clearTimeout(timer);
            socket.removeAllListeners('error');
            socket.removeAllListeners('close');
            // Until the channel takes the socket (a microtask away), an error only closes it.
            socket.on('error', () => socket.destroy());
            // The reader stops here: the channel's own reader takes the bytes after the hello.
            queueMicrotask(() => resolve(new ServiceChannel<Ops>(socket, target, maxPending)));
            return false;
          },
          (error) => fail(unreachable(target, error.message)),
        );
        socket.once('close', release);
      });
    });
  }

  /** Requests sent and not answered yet (at most maxPendingRequests). */
  get pending(): number {
    return this.waiting.size;
  }

  /**
   * Sends a request; resolves with the answer or rejects with the server's error. Rejects at once, and
   * sends nothing, while maxPendingRequests requests wait for their answers.
   */
  request<K extends keyof Ops & string>(
    op: K,
    body: RequestOf<Ops, K>,
    timeoutMs = controlRequestTimeoutMs,
  ): Promise<AnswerOf<Ops, K>> {
    return this.call<AnswerOf<Ops, K>>(op, body, timeoutMs);
  }

  /** Every service answers ping, with nothing: resolves when it did within `timeoutMs`. */
  async ping(timeoutMs?: number): Promise<void> {
    await this.call<object>('ping', {}, timeoutMs);
  }

  /** Sends a request of any operation; `Answer` is the answer its operation is declared with. */
  private call<Answer>(op: string, body: object, timeoutMs = controlRequestTimeoutMs): Promise<Answer> {
    if (this.waiting.size >= this.maxPending)
      return Promise.reject(new TooManyPending(this.target, op, this.maxPending));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(
          new RuntimeFailure(
            serviceErrorCodes[this.target.service].timeout,
            `the ${serverName(this.target.service)} did not answer ${op} within ${timeoutMs} ms`,
            { hint: `check the ${serverName(this.target.service)}` },
          ),
        );
      }, timeoutMs);
      this.waiting.set(id, { resolve: (answer) => resolve(answer as Answer), reject, timer });
      writeJsonLine(this.socket, { id, op, ...body });
    });
  }

  close(): void {
    this.socket.end();
    this.socket.destroySoon();
  }

  destroy(): void {
    this.socket.destroy();
  }

  get closed(): boolean {
    return this.socket.destroyed;
  }

  private receive(message: Record<string, unknown>): void {
    if (typeof message.event === 'string') {
      const event =
        this.target.service === 'control'
          ? parseEvent(controllerEventFields, message)
          : parseEvent(relayEventFields, message);
      if (event) this.emit('event', event);
      else this.emit('dropped', `an event ${JSON.stringify(message.event.slice(0, 40))} that this node cannot read`);
      return;
    }
    const waiting = typeof message.id === 'number' ? this.waiting.get(message.id) : undefined;
    if (!waiting) return;
    this.waiting.delete(message.id as number);
    clearTimeout(waiting.timer);
    if (message.ok === true) waiting.resolve(message);
    else waiting.reject(remoteError(message));
  }
}

export type ControlChannel = ServiceChannel<ControllerOperations>;
export type RelayChannel = ServiceChannel<RelayOperations>;

export function openControlChannel(
  pin: ControllerPin,
  credentials?: ClientCredentials,
  timeoutMs?: number,
): Promise<ControlChannel> {
  return ServiceChannel.open<ControllerOperations>(controllerTarget(pin), credentials, timeoutMs);
}

/** One request on a fresh channel to the controller, closed afterwards. */
export async function callController<K extends keyof ControllerOperations>(
  pin: ControllerPin,
  op: K,
  body: RequestOf<ControllerOperations, K>,
  credentials?: ClientCredentials,
): Promise<AnswerOf<ControllerOperations, K>> {
  const channel = await openControlChannel(pin, credentials);
  try {
    return await channel.request(op, body);
  } finally {
    channel.close();
  }
}

/** Why the server's first line refuses this client, or undefined when it is the server's hello of this version. */
function helloRefusal(service: ServiceName, message: unknown): PortalError | undefined {
  const hello = message as Partial<Hello> & { id?: unknown; code?: unknown };
  if (hello?.portal === service && hello.version === protocolVersion) {
    if (hello.refused === undefined) return undefined;
    return new RuntimeFailure(
      'NOT_AUTHENTICATED',
      `the ${serverName(service)} refused this client: ${String(hello.refused).slice(0, 200)}`,
      {
        hint: 'check that PORTAL_HOME holds an enrolled identity whose certificate is valid',
      },
    );
  }
  // A server of the unversioned protocol answers the hello as an unknown operation.
  const server = hello?.portal === service && typeof hello.version === 'number' ? hello.version : undefined;
  return new VersionMismatch(versionMismatch(service, server, protocolVersion));
}

class VersionMismatch extends RuntimeFailure {
  constructor(message: string) {
    super('PROTOCOL_VERSION', message, { hint: versionHint });
  }
}

/** The server has left maxPendingRequests requests unanswered: a new one is not queued behind them. */
export class TooManyPending extends RuntimeFailure {
  constructor(target: ServiceTarget, op: string, bound: number) {
    const who = serverName(target.service);
    super(
      'TOO_MANY_PENDING_REQUESTS',
      `${bound} requests to the ${who} at ${target.address} wait for answers already; ${op} was not sent`,
      {
        hint:
          `check the ${who}: it answers slowly or not at all ` +
          '(waiting requests time out by themselves, and then new ones are sent)',
      },
    );
  }
}

class RemoteInputError extends InputError {}
class RemoteFailure extends RuntimeFailure {}

function remoteError(message: Record<string, unknown>): PortalError {
  // A code this Portal does not know (a service of a later version) is no code of its own.
  const code = knownCode(message.code, 'CONTROLLER_ERROR');
  const text = typeof message.message === 'string' ? message.message : 'the controller refused the request';
  const options = typeof message.hint === 'string' ? { hint: message.hint } : {};
  return message.exit === 2 ? new RemoteInputError(code, text, options) : new RemoteFailure(code, text, options);
}

function unreachable(target: ServiceTarget, reason: string): RuntimeFailure {
  const who = serverName(target.service);
  return new RuntimeFailure(
    serviceErrorCodes[target.service].unreachable,
    `cannot reach the ${who} at ${target.address} (${reason})`,
    {
      hint: `check that the ${who} is running and that this machine can reach that address`,
    },
  );
}
