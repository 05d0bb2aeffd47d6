/**
 * What members announce to one controller replica, for as long as their connections last (relay nodes,
 * inlets' direct paths), shared with the other replicas on one PostgreSQL store. The replica a member
 * reached writes what it holds of a kind in a project to live_entries, with a notice in the same
 * transaction; every other replica reads that project's entries again and tells its own members. Each
 * replica holds a lease (its controller_replicas row), renewed every leaseRenewMs; the others sweep a
 * replica whose lease ran out (a crash) with what it held, and its members announce themselves again to
 * a replica still running. When a replica (re)starts listening, it reads everything again, for the
 * notices it missed (store/notices.ts).
 */
import { randomBytes } from 'node:crypto';
import { notifyWith, type StoreNotices } from './store/notices.ts';
import type { Store } from './store/open.ts';

/** The channel of live-state notices: the payload is "<kind> <project>". */
export const liveNotices = 'portal_live';

/** How often a replica renews its lease and sweeps the others' expired ones. */
export const leaseRenewMs = 5000;
/** A replica that has not renewed its lease for this long is taken for gone. */
export const leaseMs = 15_000;
/** How long a publication or a read that failed waits before it is made again: doubling, up to the most. */
const retryFirstMs = 500;
const retryMostMs = 5000;

/** One kind of announcement, as the registry that keeps it in memory shares it. */
export interface SharedKind {
  readonly kind: string;
  /** What this replica holds in `projectId`, each with its place. */
  here(projectId: string): { readonly key: string; readonly body: string }[];
  /** Projects where this replica holds some. */
  projectsHere(): string[];
  /** What the other live replicas hold in `projectId` now (replaces what they held before). */
  setElsewhere(projectId: string, bodies: readonly string[]): void;
  /** Projects where other replicas hold some. */
  projectsElsewhere(): string[];
  /** Calls `listener` with the project each time what this replica holds there changes. */
  onChangedHere(listener: (projectId: string) => void): () => void;
}

export interface ReplicaLiveStateOptions {
  /** Every --public-address this replica was given, comma-joined. */
  readonly addresses: string;
  /**
   * Called with every address the running replicas were given, in the order they started, when that
   * changes (and once at start): what members are told to dial.
   */
  readonly onControllers?: (addresses: string[]) => void;
  readonly log?: ((line: string) => void) | undefined;
}

/** The notice that the set of replicas changed. */
const replicasNotice = 'replicas';

export class ReplicaLiveState {
  readonly id = `r${randomBytes(8).toString('hex')}`;
  private timer: NodeJS.Timeout | undefined;
  private listening: { stop(): Promise<void> } | undefined;
  /** Publications in order, so that a later one never lands before an earlier one. */
  private tail: Promise<unknown> = Promise.resolve();
  private readonly unsubscribe: (() => void)[] = [];
  private readonly kinds: ReadonlyMap<string, SharedKind>;
  /** Publications waiting their turn, and reads of what others hold begun or waiting, by kind and project. */
  private readonly publishing = new Set<string>();
  private readonly reloading = new Map<string, Promise<unknown>>();
  private readonly reloadQueued = new Map<string, Promise<void>>();
  /** The addresses members were last told, comma-joined. */
  private controllers = '';
  /** Publications and reads that failed, waiting to be made again. */
  private readonly retries = new Set<NodeJS.Timeout>();
  private stopped = false;

  private constructor(
    private readonly store: Store,
    kinds: readonly SharedKind[],
    private readonly options: ReplicaLiveStateOptions,
  ) {
    this.kinds = new Map(kinds.map((kind) => [kind.kind, kind]));
    for (const kind of kinds) this.unsubscribe.push(kind.onChangedHere((projectId) => this.publish(kind, projectId)));
  }

  static async start(
    store: Store,
    notices: StoreNotices,
    kinds: readonly SharedKind[],
    options: ReplicaLiveStateOptions,
  ): Promise<ReplicaLiveState> {
    const state = new ReplicaLiveState(store, kinds, options);
    await store.transaction().execute(async (trx) => {
      await trx.insertInto('controller_replicas').values(state.lease(Date.now())).execute();
      await notifyWith(trx, liveNotices, replicasNotice);
    });
    state.listening = await notices.listen(
      liveNotices,
      (payload) => state.retried('reading what other replicas hold', () => state.reloadNotice(payload)),
      () => state.retried('reading what other replicas hold', () => state.reloadAll()),
    );
    state.timer = setInterval(() => void state.renew().catch(state.failed('renewing the lease')), leaseRenewMs);
    state.timer.unref();
    await state.refreshControllers();
    return state;
  }

  /** Gives the lease and what it holds up at once, so that the others need not wait for it to run out. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    for (const retry of this.retries) clearTimeout(retry);
    for (const unsubscribe of this.unsubscribe) unsubscribe();
    await this.tail;
    await this.listening?.stop();
    await this.store.transaction().execute(async (trx) => {
      const held = await trx
        .deleteFrom('live_entries')
        .where('replica', '=', this.id)
        .returning(['kind', 'project_id'])
        .execute();
      await trx.deleteFrom('controller_replicas').where('id', '=', this.id).execute();
      for (const notice of [...noticesFor(held), replicasNotice]) await notifyWith(trx, liveNotices, notice);
    });
  }

  private lease(now: number) {
    return { id: this.id, addresses: this.options.addresses, started_at: now, expires_at: now + leaseMs };
  }

  /** Tells onControllers when the addresses of the running replicas changed. */
  private async refreshControllers(): Promise<void> {
    const rows = await this.store
      .selectFrom('controller_replicas')
      .select('addresses')
      .where('expires_at', '>', Date.now())
      .orderBy('started_at')
      .orderBy('id')
      .execute();
    const addresses = [...new Set(rows.flatMap((row) => row.addresses.split(',')).filter((a) => a !== ''))];
    const joined = addresses.join(',');
    if (joined === this.controllers || addresses.length === 0) return;
    this.controllers = joined;
    this.options.onControllers?.(addresses);
  }

  /**
   * What this replica holds of `kind` in `projectId`, as the others read it. One publication waits per
   * kind and project at most, and reads what is held when its turn comes: a member that announces a
   * thousand times in a row costs a few transactions, not a thousand.
   */
  private publish(kind: SharedKind, projectId: string, attempt = 0): void {
    const notice = `${kind.kind} ${projectId}`;
    if (this.publishing.has(notice)) return;
    this.publishing.add(notice);
    const run = this.tail.then(() => {
      // Taken off first: a change from here on needs a publication of its own, even if this one fails.
      this.publishing.delete(notice);
      const entries = kind.here(projectId);
      return this.store.transaction().execute(async (trx) => {
        await trx
          .deleteFrom('live_entries')
          .where('replica', '=', this.id)
          .where('kind', '=', kind.kind)
          .where('project_id', '=', projectId)
          .execute();
        if (entries.length > 0)
          await trx
            .insertInto('live_entries')
            .values(
              entries.map(({ key, body }) => ({ replica: this.id, kind: kind.kind, project_id: projectId, key, body })),
            )
            .execute();
        await notifyWith(trx, liveNotices, notice);
      });
    });
    // A publication that failed (the database away for a moment) is made again: until it is, the other
    // replicas' members would miss what this replica holds, with nothing else to correct it.
    this.tail = run.catch((error: Error) => {
      if (attempt === 0) this.failed(`sharing the ${kind.kind} entries of ${projectId}`)(error);
      this.later(attempt, () => this.publish(kind, projectId, attempt + 1));
    });
  }

  private async reloadNotice(payload: string): Promise<void> {
    if (payload === replicasNotice) return this.refreshControllers();
    const [kindName, projectId] = payload.split(' ');
    const kind = this.kinds.get(kindName ?? '');
    if (kind && projectId) await this.reloadOnce(kind, projectId);
  }

  /**
   * Reads again, unless a read not yet begun will: notices in a burst cost one read or two, not one each.
   * Every read of a kind and project goes through here, one after the other: a read begun before a
   * change and answered after a later read would otherwise put back what the change replaced.
   */
  private reloadOnce(kind: SharedKind, projectId: string): Promise<void> {
    const key = `${kind.kind} ${projectId}`;
    const queued = this.reloadQueued.get(key);
    if (queued) return queued;
    const next = (this.reloading.get(key) ?? Promise.resolve()).then(() => {
      this.reloadQueued.delete(key);
      return this.reload(kind, projectId);
    });
    this.reloadQueued.set(key, next);
    const settled = next.catch(() => undefined);
    this.reloading.set(key, settled);
    void settled.then(() => {
      if (this.reloading.get(key) === settled) this.reloading.delete(key);
    });
    return next;
  }

  /** What the other live replicas hold of `kind` in `projectId`. */
  private async reload(kind: SharedKind, projectId: string): Promise<void> {
    const rows = await this.store
      .selectFrom('live_entries')
      .innerJoin('controller_replicas', 'controller_replicas.id', 'live_entries.replica')
      .select('live_entries.body')
      .where('live_entries.kind', '=', kind.kind)
      .where('live_entries.project_id', '=', projectId)
      .where('live_entries.replica', '!=', this.id)
      .where('controller_replicas.expires_at', '>', Date.now())
      .orderBy('live_entries.key')
      .execute();
    kind.setElsewhere(
      projectId,
      rows.map((row) => row.body),
    );
  }

  private async reloadAll(): Promise<void> {
    await this.refreshControllers();
    const stored = await this.store.selectFrom('live_entries').select(['kind', 'project_id']).distinct().execute();
    for (const kind of this.kinds.values()) {
      const projects = new Set([
        ...stored.filter((row) => row.kind === kind.kind).map((row) => row.project_id),
        ...kind.projectsElsewhere(),
      ]);
      await Promise.all([...projects].map((project) => this.reloadOnce(kind, project)));
    }
  }

  /**
   * Runs `work`, and again after a while each time it fails, until this replica stops: a read that
   * failed (the database away for a moment) would otherwise leave what this replica tells its members
   * wrong until the next notice, which may never come.
   */
  private retried(what: string, work: () => Promise<void>, attempt = 0): void {
    work().catch((error: Error) => {
      // Said once: a database away for a while would otherwise fill the log.
      if (attempt === 0) this.failed(what)(error);
      this.later(attempt, () => this.retried(what, work, attempt + 1));
    });
  }

  /** Runs `retry` after a wait that doubles with `attempt`, unless this replica stops first. */
  private later(attempt: number, retry: () => void): void {
    if (this.stopped) return;
    const timer = setTimeout(
      () => {
        this.retries.delete(timer);
        if (!this.stopped) retry();
      },
      Math.min(retryMostMs, retryFirstMs * 2 ** attempt),
    );
    timer.unref();
    this.retries.add(timer);
  }

  /** Renews this replica's lease, and sweeps the replicas whose lease ran out, with what they held. */
  private async renew(): Promise<void> {
    const now = Date.now();
    await this.store.transaction().execute(async (trx) => {
      const renewed = await trx
        .updateTable('controller_replicas')
        .set({ expires_at: now + leaseMs })
        .where('id', '=', this.id)
        .executeTakeFirst();
      // Swept by another while this one stalled (a long pause): back, with what it holds.
      if (renewed.numUpdatedRows === 0n) {
        await trx.insertInto('controller_replicas').values(this.lease(now)).execute();
        for (const kind of this.kinds.values()) for (const project of kind.projectsHere()) this.publish(kind, project);
      }
      const gone = await trx.deleteFrom('controller_replicas').where('expires_at', '<=', now).returning('id').execute();
      if (gone.length === 0) return;
      await notifyWith(trx, liveNotices, replicasNotice);
      const ids = gone.map((row) => row.id);
      const held = await trx
        .deleteFrom('live_entries')
        .where('replica', 'in', ids)
        .returning(['kind', 'project_id'])
        .execute();
      this.options.log?.(
        `controller: replicas ${ids.join(', ')} stopped renewing their leases; what they held is withdrawn`,
      );
      for (const notice of noticesFor(held)) await notifyWith(trx, liveNotices, notice);
    });
  }

  private failed(what: string) {
    return (error: Error) => this.options.log?.(`controller: ${what} failed: ${error.message}`);
  }
}

/** One notice per kind and project among `rows`. */
const noticesFor = (rows: readonly { kind: string; project_id: string }[]) =>
  new Set(rows.map((row) => `${row.kind} ${row.project_id}`));
