/**
 * The members revoked from the project, as a node or relay keeps them: fetched from the controller
 * whenever the connection to it opens, added to as the controller pushes revocations, and kept on disk,
 * so that a revoked peer stays refused across restarts and while the controller is away. An entry is
 * dropped once the member's last certificate has expired (the certificate is refused for its date then).
 *
 * The list is current while the connection to the controller is up (revocations arrive on it at once);
 * once it drops, the list is as old as the moment it dropped. With a maximum age set (the operator's
 * opt-in bound), a list older than that refuses every new session until the controller is back.
 *
 * While the list is being fetched (at start, and when the connection opens again) a new peer waits for
 * it (ready()), for at most revocationListWaitMs: a node or relay that was away learns of revocations
 * made meanwhile before it judges a peer again.
 */
import { EventEmitter } from 'node:events';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { durationRanges, readDuration } from '../shared/duration.ts';
import { InputError } from '../shared/errors.ts';
import type { GuardRefusal } from '../wire/peer-guard.ts';
import type { RevokedEntry } from '../wire/protocol.ts';
import { revocationListWaitMs } from './limits.ts';
import type { Logger } from './logger.ts';

export interface RevocationListOptions {
  /** Where the list is kept (JSON, 0600). */
  readonly file: string;
  readonly logger: Logger;
  /** Refuse every new session while the list is older than this; none: never. */
  readonly maxAgeMs?: number;
  /** @default Date.now */
  readonly now?: () => number;
  /** How long a peer waits for a list being fetched. @default revocationListWaitMs */
  readonly waitMs?: number;
}

/** The file's content. */
interface KeptList {
  /** The last moment the list was known current (the connection to the controller was up). */
  readonly currentAt: number | null;
  readonly revoked: readonly RevokedEntry[];
}

/** Events: 'revoked' (nodeId: string), once per member newly on the list. */
export class RevocationList extends EventEmitter {
  /** By member: until when, and the controller's proof of it (returned to a restored controller). */
  private readonly entries = new Map<string, { until: number; proof?: string }>();
  private currentAt: number | undefined;
  /** True while the connection to the controller is up and the list was fetched on it. */
  private live = false;
  private saving: Promise<void> = Promise.resolve();
  private readonly now: () => number;
  /** Set while the list is being fetched: what a new peer waits for. */
  private fetching: { readonly arrived: Promise<void>; readonly release: () => void } | undefined;

  constructor(private readonly options: RevocationListOptions) {
    super();
    this.now = options.now ?? Date.now;
  }

  /** Reads the list kept on disk; a missing or unreadable file is an empty list never made current. */
  async restore(): Promise<void> {
    const text = await readFile(this.options.file, 'utf8').catch(() => undefined);
    if (text === undefined) return;
    try {
      const kept = JSON.parse(text) as Partial<KeptList>;
      if (typeof kept.currentAt === 'number') this.currentAt = kept.currentAt;
      for (const entry of Array.isArray(kept.revoked) ? kept.revoked : [])
        if (isEntry(entry)) this.entries.set(entry.nodeId, entryOf(entry));
    } catch {
      this.options.logger.warn(`the list of revoked members in ${this.options.file} cannot be read; fetching it again`);
    }
  }

  /**
   * The list is being fetched from the controller: new peers wait (ready()) until it arrives
   * (replace()), the fetch failed (fetchFailed()), or waitMs passed.
   */
  fetchStarted(): void {
    if (this.fetching) return;
    let resolve: () => void = () => undefined;
    const arrived = new Promise<void>((done) => (resolve = done));
    const timer = setTimeout(() => this.fetchEnded(), this.options.waitMs ?? revocationListWaitMs);
    timer.unref();
    this.fetching = {
      arrived,
      release: () => {
        clearTimeout(timer);
        resolve();
      },
    };
  }

  /** The fetch failed: the list kept decides from now on. */
  fetchFailed(): void {
    this.fetchEnded();
  }

  /** Resolves once a new peer may be judged: at once, or when the list being fetched is in (or the wait is over). */
  ready(): Promise<void> {
    return this.fetching?.arrived ?? Promise.resolve();
  }

  /** The whole list, as the controller gave it on a connection just opened: current from now on. */
  replace(entries: readonly RevokedEntry[]): void {
    this.live = true;
    this.currentAt = this.now();
    this.add(entries);
    this.fetchEnded();
  }

  private fetchEnded(): void {
    const fetching = this.fetching;
    this.fetching = undefined;
    fetching?.release();
  }

  /** Revocations the controller pushed; each member new to the list is announced ('revoked'). */
  add(entries: readonly RevokedEntry[]): void {
    const now = this.now();
    const added: string[] = [];
    for (const entry of entries) {
      if (!isEntry(entry) || entry.until <= now) continue;
      const known = this.entries.get(entry.nodeId);
      if (!known) added.push(entry.nodeId);
      if (!known || entry.until >= known.until) this.entries.set(entry.nodeId, entryOf(entry));
    }
    if (this.live) this.currentAt = now;
    this.save();
    for (const nodeId of added) this.emit('revoked', nodeId);
  }

  /** The connection to the controller dropped: the list ages from now. */
  lost(): void {
    if (!this.live) return;
    this.live = false;
    this.currentAt = this.now();
    this.save();
  }

  /** Whether `nodeId` is revoked (and its certificate may still be valid). */
  has(nodeId: string): boolean {
    const until = this.entries.get(nodeId)?.until;
    return until !== undefined && until > this.now();
  }

  /** How old the list is: 0 while current, Infinity when it never was. */
  ageMs(): number {
    if (this.live) return 0;
    return this.currentAt === undefined ? Number.POSITIVE_INFINITY : Math.max(0, this.now() - this.currentAt);
  }

  /** Whether the list is older than the maximum age set (never, with none). */
  stale(): boolean {
    const { maxAgeMs } = this.options;
    return maxAgeMs !== undefined && this.ageMs() > maxAgeMs;
  }

  /** Why a peer is refused: it was revoked, or (with a maximum age) the list is too old to tell. */
  refusal(nodeId: string): GuardRefusal | undefined {
    if (this.has(nodeId)) return 'revoked';
    return this.stale() ? 'stale' : undefined;
  }

  /** The entries still in force, for the status page and the file. */
  revoked(): RevokedEntry[] {
    return this.held().map(({ nodeId, until }) => ({ nodeId, until }));
  }

  /** The entries still in force, with the controller's proofs: the file, and what a restored controller gets back. */
  held(): RevokedEntry[] {
    const now = this.now();
    // By code unit, not localeCompare: the ids are ASCII, and the file's order is the same under every locale.
    return [...this.entries]
      .filter(([, entry]) => entry.until > now)
      .map(([nodeId, entry]) => ({ nodeId, ...entry }))
      .sort((a, b) => (a.nodeId < b.nodeId ? -1 : a.nodeId > b.nodeId ? 1 : 0));
  }

  /** Writes the list (one write at a time, the last state wins), forgetting entries past their date. */
  private save(): void {
    const now = this.now();
    for (const [nodeId, entry] of this.entries) if (entry.until <= now) this.entries.delete(nodeId);
    const kept: KeptList = { currentAt: this.currentAt ?? null, revoked: this.held() };
    const temporary = `${this.options.file}.tmp`;
    this.saving = this.saving
      .then(async () => {
        await writeFile(temporary, `${JSON.stringify(kept)}\n`, { mode: 0o600 });
        await rename(temporary, this.options.file);
      })
      .catch((error: Error) =>
        this.options.logger.warn(`could not keep the list of revoked members: ${error.message}`),
      );
  }

  /** Settles once what was written so far is on disk. */
  flushed(): Promise<void> {
    return this.saving;
  }
}

function isEntry(value: unknown): value is RevokedEntry {
  const entry = value as Partial<RevokedEntry> | null;
  return (
    typeof entry?.nodeId === 'string' &&
    /^[a-z][0-9a-f]{16}$/.test(entry.nodeId) &&
    typeof entry.until === 'number' &&
    Number.isFinite(entry.until) &&
    (entry.proof === undefined || (typeof entry.proof === 'string' && /^[A-Za-z0-9_-]{43}$/.test(entry.proof)))
  );
}

const entryOf = (entry: RevokedEntry): { until: number; proof?: string } =>
  entry.proof === undefined ? { until: entry.until } : { until: entry.until, proof: entry.proof };

/** A revocation-max-age as milliseconds (the configuration's rules have checked it; a flag's is checked here). */
export function revocationMaxAgeMs(text: string, where = 'revocation-max-age'): number {
  const reading = readDuration(text, durationRanges.revocationAge);
  if (reading.ok) return reading.ms;
  throw new InputError('BAD_FLAG', `${where} ${reading.reason}`, {
    hint: `give a duration such as ${durationRanges.revocationAge.examples}`,
  });
}
