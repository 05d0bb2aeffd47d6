/**
 * The node's standing connections to the relays of its project, one each, kept to the list the
 * controller gives (and remembered in the node's state, so a node restarted while the controller is
 * away still reaches its relays). Outlets register on every relay that is up; inlets ask any relay
 * that has their outlet. Events: 'up' (link), 'down' (link), 'event' (link, pushed event).
 */
import { EventEmitter } from 'node:events';
import { readFile, rename, writeFile } from 'node:fs/promises';
import type { ClientCredentials } from '../wire/control-channel.ts';
import type { RelayEntry, RelayOperations } from '../wire/protocol.ts';
import { Backoff } from './backoff.ts';
import type { Logger } from './logger.ts';
import { StandingChannel } from './standing-channel.ts';

export interface RelayLink {
  readonly entry: RelayEntry;
  readonly channel: StandingChannel<RelayOperations>;
}

export interface RelayLinksOptions {
  readonly credentials: () => ClientCredentials;
  readonly logger: Logger;
  readonly heartbeatMs: number;
  readonly backoff: () => Backoff;
  /** Where the last list the controller gave is kept. */
  readonly stateFile: string;
}

/** Relays a node keeps connections to at once: a bound on what a project's relay list can cost a node. */
const maxLinks = 16;

export class RelayLinks extends EventEmitter {
  private readonly links = new Map<string, RelayLink>();
  private stopped = false;

  constructor(private readonly options: RelayLinksOptions) {
    super();
  }

  /** Starts from the list remembered from the last run, if any. */
  async restore(): Promise<void> {
    const saved = await readFile(this.options.stateFile, 'utf8').then(
      (text) => JSON.parse(text) as unknown,
      () => undefined,
    );
    if (Array.isArray(saved) && this.links.size === 0) this.apply(saved.filter(isEntry), false);
  }

  /** The controller's list: new relays are dialled, relays no longer on it are left. */
  update(entries: readonly RelayEntry[]): void {
    this.apply(entries.filter(isEntry), true);
  }

  all(): RelayLink[] {
    return [...this.links.values()];
  }

  up(): RelayLink[] {
    return this.all().filter((link) => link.channel.connected);
  }

  describe(): { id: string; address: string; status: 'connected' | 'reconnecting' }[] {
    return this.all().map((link) => ({ id: link.entry.id, address: link.entry.address, status: link.channel.connected ? 'connected' : 'reconnecting' }));
  }

  stop(): void {
    this.stopped = true;
    for (const link of this.links.values()) link.channel.stop();
    this.links.clear();
  }

  private apply(entries: readonly RelayEntry[], remember: boolean): void {
    if (this.stopped) return;
    const wanted = new Map(entries.slice(0, maxLinks).map((entry) => [key(entry), entry]));
    for (const [id, link] of this.links) {
      if (wanted.has(id)) continue;
      this.links.delete(id);
      link.channel.stop();
      this.options.logger.info(`relay ${link.entry.id} at ${link.entry.address} no longer serves the project`);
      this.emit('down', link);
    }
    for (const [id, entry] of wanted) {
      if (this.links.has(id)) continue;
      const channel = new StandingChannel<RelayOperations>({
        target: { service: 'relay', address: entry.address, fingerprint: entry.fingerprint },
        credentials: this.options.credentials,
        logger: this.options.logger,
        heartbeatMs: this.options.heartbeatMs,
        backoff: this.options.backoff(),
      });
      const link: RelayLink = { entry, channel };
      this.links.set(id, link);
      channel.on('up', () => this.emit('up', link));
      channel.on('down', () => this.emit('down', link));
      channel.on('event', (event: unknown) => this.emit('event', link, event));
      channel.start();
    }
    if (remember) void this.remember(entries);
  }

  private async remember(entries: readonly RelayEntry[]): Promise<void> {
    const temporary = `${this.options.stateFile}.tmp`;
    try {
      await writeFile(temporary, `${JSON.stringify(entries)}\n`, { mode: 0o600 });
      await rename(temporary, this.options.stateFile);
    } catch (error) {
      this.options.logger.debug(`could not remember the relay list: ${(error as Error).message}`);
    }
  }
}

/** Two entries are one relay when the same server serves at the same address. */
const key = (entry: RelayEntry) => `${entry.id} ${entry.address} ${entry.fingerprint}`;

function isEntry(value: unknown): value is RelayEntry {
  const entry = value as Partial<RelayEntry> | null;
  return typeof entry?.id === 'string' && typeof entry.address === 'string' && typeof entry.fingerprint === 'string' && /^[0-9a-f]{64}$/.test(entry.fingerprint);
}
