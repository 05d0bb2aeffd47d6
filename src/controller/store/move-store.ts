/**
 * Moving a controller's SQLite store to PostgreSQL, for controller replicas: every table as it is (the
 * project CA keys stay sealed, the audit trail keeps its chain), and the controller's TLS identity from
 * its data directory, so that every ticket and node keeps the fingerprint it pins. The sealing key is
 * not needed: nothing is unsealed; the replicas are given the same one.
 *
 * The SQLite store is then retired (moved-marker.ts): no controller starts on it again by mistake with an
 * old copy of the projects. A store that a running controller holds (store-holder.ts) is not moved: what
 * that controller wrote after the copy, a revocation say, would be lost.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { sql } from 'kysely';
import { fingerprintOf } from '../../pki/authority.ts';
import { InputError } from '../../shared/errors.ts';
import { serverCertificateFiles } from '../../shared/sealed-server-certificate.ts';
import { chainHead } from '../audit-trail.ts';
import { refuseMovedStore, removeMovedMarker, writeMovedMarker } from './moved-marker.ts';
import { openStore, type StoreOptions } from './open.ts';
import { liveHolder } from './store-holder.ts';
import { parseStoreUrl } from './store-url.ts';

/** The tables copied, parents first (tickets and members name their project). */
const tables = ['projects', 'admin_codes', 'tickets', 'members', 'revocations', 'audit_records'] as const;

/** Rows written per statement: well under PostgreSQL's 65,535 parameters for the widest table. */
const rowsPerInsert = 500;

export interface MoveStoreOptions extends StoreOptions {
  /** sqlite:PATH */
  readonly from: string;
  /** postgres://… */
  readonly to: string;
  /** The data directory of the controller that ran on `from`: its TLS certificate and sealed key. */
  readonly dataDir: string;
}

export interface MovedStore {
  readonly rows: Readonly<Record<(typeof tables)[number], number>>;
  /** Per project, the head of its audit chain, the same in both stores. */
  readonly heads: Readonly<Record<string, string>>;
  readonly fingerprint: string;
  /** The file that now retires the SQLite store. */
  readonly marker: string;
}

export async function moveStore(options: MoveStoreOptions): Promise<MovedStore> {
  const from = parseStoreUrl(options.from, process.env);
  const to = parseStoreUrl(options.to, process.env);
  if (from.kind !== 'sqlite')
    throw new InputError('STORE_UNSUPPORTED', `--from ${options.from} is not a SQLite store`, {
      hint: 'give --from sqlite:PATH, the store of the controller that ran alone',
    });
  if (to.kind !== 'postgres')
    throw new InputError('STORE_UNSUPPORTED', `--to ${to.path} is not a PostgreSQL store`, {
      hint: 'give --to postgres://USER@HOST:PORT/DATABASE',
    });
  if (!existsSync(from.path))
    throw new InputError('BAD_FLAG', `--from ${options.from}: there is no store at ${from.path}`, {
      hint: 'give the store of the controller that ran alone (controller.db in its data directory)',
    });
  await refuseMovedStore(from.path);
  await refuseHeld(from.path);
  const identity = await controllerIdentity(options.dataDir);
  const source = await openStore(options.from);
  try {
    const target = await openStore(options.to, options);
    try {
      await refuseNonEmpty(target, to.shown);
      const rows = await copyTables(source, target, identity);
      const heads = await sameHeads(source, target);
      const fingerprint = fingerprintOf(identity.certificate);
      // Written before the last look for a holder, which a controller writes before it looks for this.
      const marker = await writeMovedMarker(from.path, {
        to: to.shown,
        movedAt: new Date().toISOString(),
        fingerprint,
      });
      await refuseLateHolder(from.path, to.shown);
      return { rows, heads, fingerprint, marker };
    } finally {
      await target.destroy();
    }
  } finally {
    await source.destroy();
  }
}

type Store = Awaited<ReturnType<typeof openStore>>;

async function controllerIdentity(dataDir: string): Promise<{ certificate: string; sealedKey: string }> {
  const read = (name: string) =>
    readFile(join(dataDir, name)).catch((error: NodeJS.ErrnoException) => {
      throw new InputError(
        'BAD_FLAG',
        `the controller's ${name} cannot be read in ${dataDir} (${error.code ?? error.message})`,
        {
          hint:
            'give --data-dir, the data directory the controller ran with, which holds its TLS certificate ' +
            `(${serverCertificateFiles.certificate}) and sealed key (${serverCertificateFiles.sealedKey})`,
        },
      );
    });
  const [certificate, sealedKey] = await Promise.all([
    read(serverCertificateFiles.certificate),
    read(serverCertificateFiles.sealedKey),
  ]);
  return { certificate: certificate.toString('utf8'), sealedKey: sealedKey.toString('base64') };
}

/** Stopping the controller is the operator's to do: from here, only its process is known. */
const stopIt =
  'stop it first (portal controller stop for the embedded controller of a PORTAL_HOME, systemctl stop for a ' +
  'service, Ctrl-C in its terminal)';

async function refuseHeld(path: string): Promise<void> {
  const holder = await liveHolder(path);
  if (holder)
    throw new InputError(
      'STORE_IN_USE',
      `a controller runs on the store ${resolve(path)} (process ${holder.pid}, since ${holder.startedAt}): ` +
        'what it writes after the copy would be lost; nothing was copied',
      { hint: `${stopIt}, then run portal controller migrate-store again` },
    );
}

/** A controller that started while the store was copied: the move does not hold, and its marker goes. */
async function refuseLateHolder(path: string, shown: string): Promise<void> {
  const holder = await liveHolder(path);
  if (!holder) return;
  await removeMovedMarker(path);
  throw new InputError(
    'STORE_IN_USE',
    `a controller started on the store ${resolve(path)} while it was copied (process ${holder.pid}): ` +
      `what it writes is not in ${shown}`,
    { hint: `${stopIt}, empty that database (drop and create it), then run portal controller migrate-store again` },
  );
}

async function refuseNonEmpty(target: Store, shown: string): Promise<void> {
  for (const table of [...tables, 'controller_identity'] as const) {
    const row = await target.selectFrom(table).selectAll().limit(1).executeTakeFirst();
    if (row)
      throw new InputError('STORE_UNSUPPORTED', `${shown} holds data already (its table ${table} is not empty)`, {
        hint: 'give an empty database: the move never merges two controllers',
      });
  }
}

async function copyTables(
  source: Store,
  target: Store,
  identity: { certificate: string; sealedKey: string },
): Promise<MovedStore['rows']> {
  const rows = {} as Record<(typeof tables)[number], number>;
  await target.transaction().execute(async (trx) => {
    for (const table of tables) {
      const all = (await source.selectFrom(table).selectAll().execute()) as Record<string, unknown>[];
      for (let start = 0; start < all.length; start += rowsPerInsert)
        await trx
          .insertInto(table)
          .values(all.slice(start, start + rowsPerInsert))
          .execute();
      rows[table] = all.length;
    }
    // Members keep their numbers; the next one enrolled takes the one after the highest.
    const next = sql`coalesce(max(seq), 0) + 1`;
    await sql`select setval(pg_get_serial_sequence('members', 'seq'), ${next}, false) from members`.execute(trx);
    await trx
      .insertInto('controller_identity')
      .values({
        id: 'controller',
        certificate: identity.certificate,
        sealed_key: identity.sealedKey,
        created_at: Date.now(),
      })
      .execute();
  });
  return rows;
}

/** The head of every project's audit chain, checked to be the same in both stores. */
async function sameHeads(source: Store, target: Store): Promise<Record<string, string>> {
  const heads: Record<string, string> = {};
  for (const { id } of await source.selectFrom('projects').select('id').execute()) {
    const [before, after] = await Promise.all([chainHead(source, id), chainHead(target, id)]);
    if (before.seq !== after.seq || before.hash !== after.hash)
      throw new Error(
        `the audit chain of ${id} differs after the copy (${before.seq} ${before.hash}, ${after.seq} ${after.hash})`,
      );
    heads[id] = `${after.seq} ${after.hash}`;
  }
  return heads;
}
