/**
 * The node's standing connections to the relays of its project, chosen by health, not by order.
 *
 * Every relay on the list the controller gives (up to `maxRelayCandidates`) is a candidate, and the
 * list is remembered in the node's state, so a node restarted while the controller is away still
 * reaches its relays. At most `maxRelayLinks` candidates hold a slot (a standing channel) at once. A
 * connected relay keeps its slot. One that has not been connected for `probeMs` (its first connect
 * failed, or it has been down that long) gives its slot to the candidate waiting longest while others
 * wait, and waits itself behind a doubling backoff: unreachable addresses rotate through the slots,
 * every reachable relay is found within a few rotations, and none is displaced by an unreachable one.
 *
 * Outlets register on every relay that is up; inlets ask any relay that has their outlet.
 * Events: 'up' (link), 'down' (link, only for a link that was up), 'event' (link, a pushed RelayEvent,
 * read through its field table), 'refused' (link, error: the relay did not accept the node's certificate).
 */
import { EventEmitter } from 'node:events';
import { readFile, rename, writeFile } from 'node:fs/promises';
import type { ClientCredentials } from '../wire/control-channel.ts';
import type { RelayEntry, RelayEvent, RelayOperations } from '../wire/protocol.ts';
import { Backoff } from './backoff.ts';
import type { Logger } from './logger.ts';
import type { RelayShow } from './types.ts';
import { StandingChannel } from './standing-channel.ts';
import { maxRelayCandidates, maxRelayLinks, relayProbeMs, relayRequeueMaxMs } from './limits.ts';

export interface RelayLink {
  readonly entry: RelayEntry;
  readonly channel: StandingChannel<RelayOperations>;
}

export interface RelayLinksOptions {
  readonly credentials: () => ClientCredentials;
  readonly logger: Logger;
  readonly heartbeatMs: number;
  /** Reconnection backoff of each standing channel. */
  readonly backoff: () => Backoff;
  /** Where the last list the controller gave is kept. */
  readonly stateFile: string;
  /** @default relayProbeMs */
  readonly probeMs?: number;
  /** The wait of a relay that gave up its slot, per relay. @default doubling from probeMs to relayRequeueMaxMs */
  readonly requeueBackoff?: () => Backoff;
}

/** One relay of the list, holding a slot or waiting for one. */
interface Candidate {
  readonly entry: RelayEntry;
  /** Its standing channel while it holds a slot. */
  link: RelayLink | undefined;
  /** While it holds a slot and is not connected: since when. */
  downSince: number | undefined;
  /** When it last took a slot; never (-Infinity) puts it first in the queue. */
  triedAt: number;
  /** Before this it takes only a free slot, never one from an unconnected relay. */
  notBefore: number;
  /** Lengthened each time it gives up its slot unconnected; reset when it connects. */
  readonly requeue: Backoff;
}

export class RelayLinks extends EventEmitter {
  /** Every candidate, in the controller's order. */
  private candidates = new Map<string, Candidate>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly probeMs: number;

  constructor(private readonly options: RelayLinksOptions) {
    super();
    this.probeMs = options.probeMs ?? relayProbeMs;
  }

  /** Starts from the list remembered from the last run, if any. */
  async restore(): Promise<void> {
    // A list cut short or damaged is no list: the controller sends the project's again.
    const saved = await readFile(this.options.stateFile, 'utf8').then(
      (text) => {
        try {
          return JSON.parse(text) as unknown;
        } catch {
          this.options.logger.warn(`${this.options.stateFile} is not a relay list; the controller's list replaces it`);
          return undefined;
        }
      },
      () => undefined,
    );
    if (Array.isArray(saved) && this.candidates.size === 0) this.apply(saved.filter(isEntry), false);
  }

  /** The controller's list: new relays become candidates, relays no longer on it are left. */
  update(entries: readonly RelayEntry[]): void {
    this.apply(entries.filter(isEntry), true);
  }

  /** The links holding a slot (at most maxRelayLinks), connected or not. */
  all(): RelayLink[] {
    return [...this.candidates.values()].flatMap((candidate) => (candidate.link ? [candidate.link] : []));
  }

  up(): RelayLink[] {
    return this.all().filter((link) => link.channel.connected);
  }

  /** Every candidate: connected, reconnecting (holding a slot) or waiting for one. */
  describe(): RelayShow[] {
    return [...this.candidates.values()].map(({ entry, link }) => ({
      id: entry.id,
      address: entry.address,
      status: !link ? 'waiting' : link.channel.connected ? 'connected' : 'reconnecting',
    }));
  }

  /**
   * Opens every link again with the current credentials: a relay reads a member's grants from the
   * certificate a connection opened with, so new grants (a relay name) need new connections.
   */
  reconnect(): void {
    for (const candidate of this.candidates.values()) candidate.link?.channel.reconnect();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    // Stopped on purpose: no 'down' for these links, which would read as relays lost.
    for (const candidate of this.candidates.values()) {
      const link = candidate.link;
      candidate.link = undefined;
      link?.channel.stop();
    }
    this.candidates.clear();
  }

  private apply(entries: readonly RelayEntry[], remember: boolean): void {
    if (this.stopped) return;
    if (entries.length > maxRelayCandidates) {
      this.options.logger.warn(
        `the project announces ${entries.length} relays; this node considers the first ${maxRelayCandidates}`,
      );
    }
    const bounded = entries.slice(0, maxRelayCandidates);
    const next = new Map<string, Candidate>();
    for (const entry of bounded) {
      const id = key(entry);
      if (!next.has(id)) next.set(id, this.candidates.get(id) ?? this.candidate(entry));
    }
    for (const [id, candidate] of this.candidates) {
      if (next.has(id) || !candidate.link) continue;
      this.options.logger.info(
        `relay ${candidate.entry.id} at ${candidate.entry.address} no longer serves the project`,
      );
      this.release(candidate);
    }
    this.candidates = next;
    this.rebalance();
    if (remember) void this.remember(bounded);
  }

  private candidate(entry: RelayEntry): Candidate {
    const requeue =
      this.options.requeueBackoff?.() ?? new Backoff({ initialMs: this.probeMs, maxMs: relayRequeueMaxMs });
    return { entry, link: undefined, downSince: undefined, triedAt: -Infinity, notBefore: -Infinity, requeue };
  }

  /**
   * Free slots go at once to the candidates waiting longest; a slot whose relay has not been connected
   * for probeMs goes to one whose backoff has passed. Then waits for the next moment that may change.
   */
  private rebalance(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.stopped) return;
    const now = Date.now();
    const all = [...this.candidates.values()];
    // Sorting is stable: among the never tried, the controller's order.
    const waiting = all.filter((candidate) => !candidate.link).sort((a, b) => a.triedAt - b.triedAt);
    let held = all.length - waiting.length;
    while (held < maxRelayLinks && waiting.length > 0) {
      this.take(waiting.shift() as Candidate, now);
      held += 1;
    }
    const due = waiting.filter((candidate) => candidate.notBefore <= now);
    const stale = all
      .filter(
        (candidate) => candidate.link && candidate.downSince !== undefined && now - candidate.downSince >= this.probeMs,
      )
      .sort((a, b) => (a.downSince as number) - (b.downSince as number));
    for (let index = 0; index < Math.min(due.length, stale.length); index += 1) {
      const [leaving, coming] = [stale[index] as Candidate, due[index] as Candidate];
      this.options.logger.debug(
        `relay ${leaving.entry.address} not reachable for ${this.probeMs} ms; ` +
          `its slot goes to relay ${coming.entry.address}`,
      );
      this.release(leaving, now);
      this.take(coming, now);
    }
    const stillWaiting = [...this.candidates.values()].filter((candidate) => !candidate.link);
    const downSince = [...this.candidates.values()].flatMap((candidate) =>
      candidate.link && candidate.downSince !== undefined ? [candidate.downSince] : [],
    );
    if (stillWaiting.length === 0 || downSince.length === 0) return; // A 'down' or an update calls again.
    const at = Math.max(
      Math.min(...stillWaiting.map((candidate) => candidate.notBefore)),
      Math.min(...downSince) + this.probeMs,
    );
    this.timer = setTimeout(() => this.rebalance(), Math.max(10, at - now));
    this.timer.unref();
  }

  private take(candidate: Candidate, now: number): void {
    const { entry } = candidate;
    const channel = new StandingChannel<RelayOperations>({
      target: { service: 'relay', address: entry.address, fingerprint: entry.fingerprint },
      credentials: this.options.credentials,
      // An address already rotated out unreachable is not worth a warning on every turn.
      logger: candidate.requeue.failures > 0 ? quieter(this.options.logger) : this.options.logger,
      heartbeatMs: this.options.heartbeatMs,
      backoff: this.options.backoff(),
    });
    const link: RelayLink = { entry, channel };
    candidate.link = link;
    candidate.triedAt = now;
    candidate.downSince = now;
    // Events of a link that gave up its slot are its last words: ignored.
    channel.on('up', () => {
      if (candidate.link !== link) return;
      candidate.downSince = undefined;
      candidate.requeue.reset();
      this.emit('up', link);
    });
    channel.on('down', () => {
      if (candidate.link !== link) return;
      candidate.downSince = Date.now();
      this.emit('down', link);
      this.rebalance();
    });
    channel.on('event', (event: RelayEvent) => {
      if (candidate.link === link) this.emit('event', link, event);
    });
    channel.on('refused', (error: Error) => {
      if (candidate.link === link) this.emit('refused', link, error);
    });
    channel.start();
  }

  /** Stops the candidate's link; with `requeuedAt`, it waits its backoff before it takes a busy slot. */
  private release(candidate: Candidate, requeuedAt?: number): void {
    const link = candidate.link;
    if (!link) return;
    const wasUp = link.channel.connected;
    candidate.link = undefined;
    candidate.downSince = undefined;
    link.channel.stop();
    if (requeuedAt !== undefined) candidate.notBefore = requeuedAt + candidate.requeue.next();
    if (wasUp) this.emit('down', link);
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

/** The logger with its warnings turned to debug lines. */
function quieter(logger: Logger): Logger {
  return {
    announce: (message) => logger.announce(message),
    error: (message) => logger.error(message),
    warn: (message) => logger.debug(message),
    info: (message) => logger.info(message),
    debug: (message) => logger.debug(message),
  };
}

function isEntry(value: unknown): value is RelayEntry {
  const entry = value as Partial<RelayEntry> | null;
  return (
    typeof entry?.id === 'string' &&
    typeof entry.address === 'string' &&
    typeof entry.fingerprint === 'string' &&
    /^[0-9a-f]{64}$/.test(entry.fingerprint)
  );
}
