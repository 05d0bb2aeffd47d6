/**
 * A node's standing connection to a Portal service, re-established with backoff whenever it drops:
 * to the controller (renewal, the relay list) and to each relay (registrations, splices). Parts of the
 * node use it while it is up and are told when it comes back, so they can register again.
 */
import { EventEmitter } from 'node:events';
import { PortalError, RuntimeFailure } from '../shared/errors.ts';
import { ServiceChannel, type ClientCredentials, type ServiceTarget } from '../wire/control-channel.ts';
import { serviceErrorCodes } from '../wire/service-error-codes.ts';
import type { AnswerOf, ControllerOperations, EventOf, RequestOf } from '../wire/protocol.ts';
import { Backoff } from './backoff.ts';
import type { Logger } from './logger.ts';
import { heartbeatIntervalMs } from '../wire/limits.ts';

export interface StandingChannelOptions {
  readonly target: ServiceTarget;
  readonly credentials: () => ClientCredentials;
  readonly logger: Logger;
  /** Heartbeat period on the control channel. @default heartbeatIntervalMs */
  readonly heartbeatMs?: number;
  readonly backoff?: Backoff;
}

/**
 * Events: 'up' (channel), 'down', 'event' (a pushed event, read through its field table: an EventOf<Ops>),
 * 'refused' (the service did not accept the node's certificate: NOT_AUTHENTICATED, on connecting or
 * to a request).
 */
export class StandingChannel<Ops> extends EventEmitter {
  private channel: ServiceChannel<Ops> | undefined;
  private stopped = false;
  private retry: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private readonly backoff: Backoff;
  private currentTarget: ServiceTarget;

  constructor(private readonly options: StandingChannelOptions) {
    super();
    this.backoff = options.backoff ?? new Backoff();
    this.currentTarget = options.target;
  }

  /** Where the next connection goes (the controller replicas said where they are now); this one stays. */
  retarget(address: string): void {
    this.currentTarget = { ...this.currentTarget, address };
  }

  get connected(): boolean {
    return this.channel !== undefined && !this.channel.closed;
  }

  start(): void {
    void this.connect();
  }

  get target(): ServiceTarget {
    return this.currentTarget;
  }

  /** The address the open channel reached (one replica of a list), or where the next attempt goes. */
  get reached(): string {
    return this.channel?.address ?? this.currentTarget.address;
  }

  async request<K extends keyof Ops & string>(
    op: K,
    body: RequestOf<Ops, K>,
    timeoutMs?: number,
  ): Promise<AnswerOf<Ops, K>> {
    if (!this.channel || this.channel.closed) {
      const who = this.currentTarget.service === 'control' ? 'controller' : 'relay';
      throw new RuntimeFailure(
        serviceErrorCodes[this.currentTarget.service].unreachable,
        `the ${who} ${this.currentTarget.address} is not reachable right now`,
        {
          hint: `the node reconnects by itself; check the ${who}`,
        },
      );
    }
    return this.channel.request(op, body, timeoutMs).catch((error: unknown) => {
      this.noteRefusal(error);
      throw error;
    });
  }

  private noteRefusal(error: unknown): void {
    if (error instanceof PortalError && error.code === 'NOT_AUTHENTICATED') this.emit('refused', error);
  }

  /**
   * Opens a fresh channel now, with the current credentials: after a re-issued certificate, since the
   * controller authenticates a channel once, when it opens.
   */
  reconnect(): void {
    const channel = this.channel;
    if (this.stopped || !channel) return; // Not connected: the next attempt uses the new credentials.
    this.channel = undefined;
    clearInterval(this.heartbeat);
    this.emit('down');
    channel.destroy();
    this.backoff.reset();
    void this.connect();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retry);
    clearInterval(this.heartbeat);
    this.channel?.destroy();
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    try {
      const credentials = this.options.credentials();
      const channel = await ServiceChannel.open<Ops>(this.currentTarget, credentials);
      if (this.stopped) {
        channel.destroy();
        return;
      }
      if (credentials.certificate !== this.options.credentials().certificate) {
        // The certificate changed while this channel opened: it would be authenticated by the old one.
        channel.destroy();
        void this.connect();
        return;
      }
      this.channel = channel;
      if (this.backoff.failures > 0) this.options.logger.info(`${this.describe()} reachable again`);
      this.backoff.reset();
      channel.on('event', (event: EventOf<Ops>) => this.emit('event', event));
      // A peer of this protocol version pushes only events this node reads: anything else is a fault worth seeing.
      channel.on('dropped', (what: string) => this.options.logger.warn(`the ${this.describe()} sent ${what}; dropped`));
      channel.once('close', () => this.lost(channel));
      this.heartbeat = setInterval(() => {
        channel.ping(this.options.heartbeatMs ?? heartbeatIntervalMs).catch(() => channel.destroy());
      }, this.options.heartbeatMs ?? heartbeatIntervalMs);
      this.heartbeat.unref();
      this.emit('up');
    } catch (error) {
      this.noteRefusal(error);
      // Told of a refusal, the node may have stopped this channel for good: nothing more to say.
      if (this.stopped) return;
      // Log the first failure and then every tenth, not every attempt.
      if (this.backoff.failures % 10 === 0) {
        this.options.logger.warn(`${(error as PortalError).message}; retrying`);
      }
      this.schedule();
    }
  }

  private lost(channel: ServiceChannel<Ops>): void {
    if (this.channel !== channel) return;
    clearInterval(this.heartbeat);
    this.channel = undefined;
    this.emit('down');
    if (!this.stopped) {
      this.options.logger.warn(`lost the connection to the ${this.describe(channel.address)}; reconnecting`);
      this.schedule();
    }
  }

  private describe(address = this.reached): string {
    return `${this.currentTarget.service === 'control' ? 'controller' : 'relay'} ${address}`;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.retry = setTimeout(() => void this.connect(), this.backoff.next());
  }
}

export type NodeControl = StandingChannel<ControllerOperations>;
