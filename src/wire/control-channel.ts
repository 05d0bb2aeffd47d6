/**
 * A node's or administrator's connection to the controller: TLS 1.3 with the controller's certificate
 * pinned by fingerprint (from the ticket or admin code), and the node's own certificate once it has
 * one. Requests are JSON lines answered in order by id; the controller may also push events (a relay
 * dial) on a long-lived channel.
 */
import { EventEmitter } from 'node:events';
import { connect, type TLSSocket } from 'node:tls';
import { parseHostPort } from '../shared/address.ts';
import { InputError, PortalError, RuntimeFailure } from '../shared/errors.ts';
import { readJsonLines, writeJsonLine } from './json-lines.ts';
import type { ControllerPin } from './ticket.ts';

export interface ClientCredentials {
  readonly key: string;
  readonly certificate: string;
}

export type Answer = Record<string, unknown>;

interface Waiting {
  readonly resolve: (answer: Answer) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

/** The colon-free lower-case form of a certificate fingerprint. */
const normalise = (fingerprint: string) => fingerprint.replace(/:/g, '').toLowerCase();

export class ControlChannel extends EventEmitter {
  private nextId = 1;
  private readonly waiting = new Map<number, Waiting>();

  private constructor(private readonly socket: TLSSocket) {
    super();
    readJsonLines(
      socket,
      (message) => this.receive(message as Answer),
      () => socket.destroy(),
    );
    socket.on('error', () => socket.destroy());
    socket.once('close', () => {
      for (const [, waiting] of this.waiting) {
        clearTimeout(waiting.timer);
        waiting.reject(new RuntimeFailure('CONTROLLER_LOST', 'the connection to the controller closed', { hint: 'check that the controller is running' }));
      }
      this.waiting.clear();
      this.emit('close');
    });
  }

  static open(pin: ControllerPin, credentials?: ClientCredentials, timeoutMs = 5000): Promise<ControlChannel> {
    const parsed = parseHostPort(pin.controller);
    if (!parsed.ok) {
      return Promise.reject(new InputError('CONTROLLER_ADDRESS', `the controller address "${pin.controller}" is not host:port`, { hint: 'give --controller HOST:PORT' }));
    }
    return new Promise((resolve, reject) => {
      const socket = connect({
        host: parsed.address.host.replace(/^\[|\]$/g, ''),
        port: parsed.address.port,
        // The chain is not checked against public CAs: the controller's certificate is pinned instead.
        rejectUnauthorized: false,
        minVersion: 'TLSv1.3',
        ...(credentials ? { key: credentials.key, cert: credentials.certificate } : {}),
      });
      socket.setNoDelay(true);
      const timer = setTimeout(() => fail(unreachable(pin.controller, 'no answer')), timeoutMs);
      const fail = (error: Error) => {
        clearTimeout(timer);
        socket.destroy();
        reject(error);
      };
      socket.once('error', (error: NodeJS.ErrnoException) => fail(unreachable(pin.controller, error.code ?? error.message)));
      socket.once('secureConnect', () => {
        const seen = socket.getPeerX509Certificate()?.fingerprint256;
        if (!seen || normalise(seen) !== normalise(pin.fingerprint)) {
          fail(
            new RuntimeFailure('CONTROLLER_MISMATCH', `the server at ${pin.controller} is not the controller the ticket names (its certificate differs)`, {
              hint: 'check the address; if the controller was reinstalled, issue new tickets',
            }),
          );
          return;
        }
        clearTimeout(timer);
        socket.removeAllListeners('error');
        resolve(new ControlChannel(socket));
      });
    });
  }

  /** Sends a request; resolves with the answer or rejects with the controller's error. */
  request(op: string, body: Record<string, unknown> = {}, timeoutMs = 10_000): Promise<Answer> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new RuntimeFailure('CONTROLLER_TIMEOUT', `the controller did not answer ${op} within ${timeoutMs} ms`, { hint: 'check the controller' }));
      }, timeoutMs);
      this.waiting.set(id, { resolve, reject, timer });
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

  private receive(message: Answer): void {
    if (typeof message.event === 'string') {
      this.emit('event', message);
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

/** One request on a fresh channel, closed afterwards. */
export async function callController(pin: ControllerPin, op: string, body: Record<string, unknown>, credentials?: ClientCredentials): Promise<Answer> {
  const channel = await ControlChannel.open(pin, credentials);
  try {
    return await channel.request(op, body);
  } finally {
    channel.close();
  }
}

class RemoteInputError extends InputError {}
class RemoteFailure extends RuntimeFailure {}

function remoteError(message: Answer): PortalError {
  const code = typeof message.code === 'string' ? message.code : 'CONTROLLER_ERROR';
  const text = typeof message.message === 'string' ? message.message : 'the controller refused the request';
  const options = typeof message.hint === 'string' ? { hint: message.hint } : {};
  return message.exit === 2 ? new RemoteInputError(code, text, options) : new RemoteFailure(code, text, options);
}

function unreachable(address: string, reason: string): RuntimeFailure {
  return new RuntimeFailure('CONTROLLER_UNREACHABLE', `cannot reach the controller at ${address} (${reason})`, {
    hint: 'check that the controller is running and that this machine can reach that address',
  });
}
