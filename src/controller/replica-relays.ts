/**
 * Relay nodes across controller replicas on one PostgreSQL store. A relay node announces itself to the
 * replica it reached; that replica writes it to live_relays and sends a notice in the same transaction,
 * and every other replica reads the project's relays again and tells its own members. Each replica
 * holds a lease (its controller_replicas row), renewed every leaseRenewMs; the others sweep a replica
 * whose lease ran out (a crash) with the relays it held, and its relay nodes announce themselves to a
 * replica still running. When a replica (re)starts listening, it reads every project's relays again,
 * for the notices it missed (store/notices.ts).
 */
import { randomBytes } from 'node:crypto';
import type { RelayEntry } from '../wire/protocol.ts';
import type { RelayDirectory } from './relay-directory.ts';
import { notifyWith, type StoreNotices } from './store/notices.ts';
import type { Store } from './store/open.ts';

/** The channel of relay notices: the payload is the project whose relays changed. */
export const relayNotices = 'portal_relays';

/** How often a replica renews its lease and sweeps the others' expired ones. */
export const leaseRenewMs = 5000;
/** A replica that has not renewed its lease for this long is taken for gone. */
export const leaseMs = 15_000;

export interface ReplicaRelaysOptions {
  readonly log?: ((line: string) => void) | undefined;
  /** @default Date.now */
  readonly now?: () => number;
}

export class ReplicaRelays {
  readonly id = `r${randomBytes(8).toString('hex')}`;
  private timer: NodeJS.Timeout | undefined;
  private listening: { stop(): Promise<void> } | undefined;
  /** Publications in order, so that a later one never lands before an earlier one. */
  private tail: Promise<unknown> = Promise.resolve();
  private readonly stopListening: () => void;

  private constructor(
    private readonly store: Store,
    private readonly directory: RelayDirectory,
    private readonly options: ReplicaRelaysOptions,
  ) {
    this.stopListening = directory.onAnnouncedHere((projectId) => this.publish(projectId));
  }

  static async start(
    store: Store,
    notices: StoreNotices,
    directory: RelayDirectory,
    options: ReplicaRelaysOptions = {},
  ): Promise<ReplicaRelays> {
    const replicas = new ReplicaRelays(store, directory, options);
    const now = replicas.now();
    await store
      .insertInto('controller_replicas')
      .values({ id: replicas.id, started_at: now, expires_at: now + leaseMs })
      .execute();
    replicas.listening = await notices.listen(
      relayNotices,
      (projectId) => void replicas.reload(projectId).catch(replicas.failed('reading relays again')),
      () => void replicas.reloadAll().catch(replicas.failed('reading relays again')),
    );
    replicas.timer = setInterval(
      () => void replicas.renew().catch(replicas.failed('renewing the lease')),
      leaseRenewMs,
    );
    replicas.timer.unref();
    return replicas;
  }

  /** Gives the lease and the relays up at once, so that the others need not wait for it to run out. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.stopListening();
    await this.tail;
    await this.listening?.stop();
    await this.store.transaction().execute(async (trx) => {
      const held = await trx.deleteFrom('live_relays').where('replica', '=', this.id).returning('project_id').execute();
      await trx.deleteFrom('controller_replicas').where('id', '=', this.id).execute();
      for (const project of new Set(held.map((row) => row.project_id))) await notifyWith(trx, relayNotices, project);
    });
  }

  /** The relays announced here in `projectId`, as the others read them. */
  private publish(projectId: string): void {
    const entries = this.directory.announcedHere(projectId);
    const run = this.tail.then(() =>
      this.store.transaction().execute(async (trx) => {
        await trx
          .deleteFrom('live_relays')
          .where('replica', '=', this.id)
          .where('project_id', '=', projectId)
          .execute();
        if (entries.length > 0)
          await trx
            .insertInto('live_relays')
            .values(
              entries.map((entry) => ({ replica: this.id, project_id: projectId, relay: entry.id, ...address(entry) })),
            )
            .execute();
        await notifyWith(trx, relayNotices, projectId);
      }),
    );
    this.tail = run.catch(this.failed(`sharing the relays of ${projectId}`));
  }

  /** The relays other live replicas hold in `projectId`. */
  private async reload(projectId: string): Promise<void> {
    const rows = await this.store
      .selectFrom('live_relays')
      .innerJoin('controller_replicas', 'controller_replicas.id', 'live_relays.replica')
      .select(['live_relays.relay', 'live_relays.address', 'live_relays.fingerprint'])
      .where('live_relays.project_id', '=', projectId)
      .where('live_relays.replica', '!=', this.id)
      .where('controller_replicas.expires_at', '>', this.now())
      .orderBy('live_relays.relay')
      .execute();
    this.directory.setElsewhere(
      projectId,
      rows.map((row) => ({ id: row.relay, address: row.address, fingerprint: row.fingerprint })),
    );
  }

  private async reloadAll(): Promise<void> {
    const stored = await this.store.selectFrom('live_relays').select('project_id').distinct().execute();
    const projects = new Set([...stored.map((row) => row.project_id), ...this.directory.projectsElsewhere()]);
    for (const project of projects) await this.reload(project);
  }

  /** Renews this replica's lease, and sweeps the replicas whose lease ran out, with their relays. */
  private async renew(): Promise<void> {
    const now = this.now();
    await this.store.transaction().execute(async (trx) => {
      const renewed = await trx
        .updateTable('controller_replicas')
        .set({ expires_at: now + leaseMs })
        .where('id', '=', this.id)
        .executeTakeFirst();
      // Swept by another while this one stalled (a long pause): back, with what it holds.
      if (renewed.numUpdatedRows === 0n) {
        await trx
          .insertInto('controller_replicas')
          .values({ id: this.id, started_at: now, expires_at: now + leaseMs })
          .execute();
        for (const project of this.directory.projectsAnnouncedHere()) this.publish(project);
      }
      const gone = await trx.deleteFrom('controller_replicas').where('expires_at', '<=', now).returning('id').execute();
      if (gone.length === 0) return;
      const ids = gone.map((row) => row.id);
      const held = await trx.deleteFrom('live_relays').where('replica', 'in', ids).returning('project_id').execute();
      this.options.log?.(
        `controller: replicas ${ids.join(', ')} stopped renewing their leases; their relays are withdrawn`,
      );
      for (const project of new Set(held.map((row) => row.project_id))) await notifyWith(trx, relayNotices, project);
    });
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  private failed(what: string) {
    return (error: Error) => this.options.log?.(`controller: ${what} failed: ${error.message}`);
  }
}

const address = (entry: RelayEntry) => ({ address: entry.address, fingerprint: entry.fingerprint });
