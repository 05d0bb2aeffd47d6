/**
 * A replica of this version (re)started during a rolling upgrade, after a later release migrated the
 * store: it runs on the expanded schema without migrating, and refuses a store whose later migration
 * contracted the schema, or that skipped one of this version's migrations.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { startController } from '../../src/controller/controller.ts';
import { openStore, schemaNewerBy } from '../../src/controller/store/open.ts';
import { rejectsWith } from '../support/portal-errors.ts';

describe('store: a schema a later release migrated', () => {
  let dir: string;
  let url: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portal-newer-schema-'));
    url = `sqlite:${join(dir, 'controller.db')}`;
    const store = await openStore(url);
    await store.destroy();
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  /** Makes the store look as a later release left it. */
  async function later(...changes: string[]): Promise<void> {
    const store = await openStore(url);
    try {
      for (const change of changes) await sql.raw(change).execute(store);
    } finally {
      await store.destroy();
    }
  }

  it('runs on a schema a later release expanded, without migrating, and a controller says so', async () => {
    await later(`insert into kysely_migration (name, timestamp) values ('9999-later-release', '2027-01-01')`);
    const store = await openStore(url);
    try {
      assert.deepEqual(schemaNewerBy(store), ['9999-later-release']);
      assert.deepEqual(await store.selectFrom('projects').selectAll().execute(), []);
    } finally {
      await store.destroy();
    }
    const lines: string[] = [];
    const controller = await startController({ dataDir: dir, log: (line) => lines.push(line) });
    try {
      assert.ok(
        lines.some((line) => line.includes("the store's schema is a later release's (9999-later-release)")),
        lines.join('\n'),
      );
      assert.match(await controller.service.createAdminCode(60_000), /\S/);
    } finally {
      await controller.close();
    }
  });

  it('refuses a schema a later release contracted, naming the migration', async () => {
    await later(`insert into kysely_migration (name, timestamp) values ('9999-contract-drop-old', '2027-01-01')`);
    await rejectsWith(
      openStore(url),
      'STORE_TOO_NEW',
      /9999-contract-drop-old\), which dropped what this version reads/,
    );
  });

  it("refuses a store that holds a later release's migrations but not one of this version's", async () => {
    await later(
      `insert into kysely_migration (name, timestamp) values ('9999-later-release', '2027-01-01')`,
      `delete from kysely_migration where name = '0010-console-access'`,
    );
    await rejectsWith(openStore(url), 'STORE_TOO_NEW', /but not this version's 0010-console-access/);
  });
});
