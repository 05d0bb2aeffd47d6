/**
 * The node's standing connection to the controller, re-established with backoff whenever it drops.
 * Parts of the node (the outlet's relay registration, the inlet's splice requests) use it while it is
 * up and are told when it comes back, so they can register again.
 */
import { EventEmitter } from 'node:events';
import { RuntimeFailure, type PortalError } from '../shared/errors.ts';
import { ControlChannel, type Answer, type ClientCredentials } from '../wire/control-channel.ts';
import type { ControllerPin } from '../wire/ticket.ts';
import { Backoff } from './backoff.ts';
import type { Logger } from './logger.ts';

export interface NodeControlOptions {
  readonly pin: ControllerPin;
  readonly credentials: () => ClientCredentials;
  readonly logger: Logger;
  /** Heartbeat period on the control channel. @default 5000 */
  readonly heartbeatMs?: number;
  readonly backoff?: Backoff;
}

/** Events: 'up' (channel), 'down', 'event' (pushed message). */
export class NodeControl extends EventEmitter {
  private channel: ControlChannel | undefined;
  private stopped = false;
  private retry: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private readonly backoff: Backoff;

  constructor(private readonly options: NodeControlOptions) {
    super();
    this.backoff = options.backoff ?? new Backoff();
  }

  get connected(): boolean {
    return this.channel !== undefined && !this.channel.closed;
  }

  start(): void {
    void this.connect();
  }

  async request(op: string, body: Record<string, unknown> = {}, timeoutMs?: number): Promise<Answer> {
    if (!this.channel || this.channel.closed) {
      throw new RuntimeFailure('CONTROLLER_UNREACHABLE', 'the controller is not reachable right now', {
        hint: 'the node reconnects by itself; check the controller',
      });
    }
    return this.channel.request(op, body, timeoutMs);
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
      const channel = await ControlChannel.open(this.options.pin, credentials);
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
      if (this.backoff.failures > 0) this.options.logger.info(`controller ${this.options.pin.controller} reachable again`);
      this.backoff.reset();
      channel.on('event', (event: Answer) => this.emit('event', event));
      channel.once('close', () => this.lost(channel));
      this.heartbeat = setInterval(() => {
        channel.request('ping', {}, this.options.heartbeatMs ?? 5000).catch(() => channel.destroy());
      }, this.options.heartbeatMs ?? 5000);
      this.heartbeat.unref();
      this.emit('up');
    } catch (error) {
      // Log the first failure and then every tenth, not every attempt.
      if (this.backoff.failures % 10 === 0) {
        this.options.logger.warn(`${(error as PortalError).message}; retrying`);
      }
      this.schedule();
    }
  }

  private lost(channel: ControlChannel): void {
    if (this.channel !== channel) return;
    clearInterval(this.heartbeat);
    this.channel = undefined;
    this.emit('down');
    if (!this.stopped) {
      this.options.logger.warn(`lost the connection to the controller ${this.options.pin.controller}; reconnecting`);
      this.schedule();
    }
  }

  private schedule(): void {
    if (this.stopped) return;
    this.retry = setTimeout(() => void this.connect(), this.backoff.next());
  }
}
