import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/controller/store/open.ts';
import { KeptSqlite } from '../../src/controller/store/sqlite.ts';

describe('controller store: SQLite kept out of the garbage collector', () => {
  let work: string;
  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'portal-store-'));
  });
  after(() => rm(work, { recursive: true, force: true }));

  it('prepares each SQL text once and hands the same statement back', async () => {
    const database = await KeptSqlite.open(':memory:');
    try {
      database.exec('CREATE TABLE t (n INTEGER)');
      const insert = database.prepare('INSERT INTO t (n) VALUES (?)');
      assert.equal(database.prepare('INSERT INTO t (n) VALUES (?)'), insert);
      for (let n = 1; n <= 3; n += 1) assert.equal(database.run('INSERT INTO t (n) VALUES (?)', n).changes, 1);
      assert.notEqual(database.prepare('SELECT n FROM t ORDER BY n'), insert);
      assert.deepEqual(
        database.all<{ n: number }>('SELECT n FROM t ORDER BY n').map((row) => row.n),
        [1, 2, 3],
      );
    } finally {
      database.close();
    }
  });

  it('opens the store in WAL mode, migrated, and answers the same query again', async () => {
    const path = join(work, 'controller.db');
    const store = await openStore(`sqlite:${path}`);
    try {
      for (let round = 0; round < 3; round += 1) {
        assert.deepEqual(await store.selectFrom('projects').select('id').where('id', '=', `p${round}`).execute(), []);
      }
    } finally {
      await store.destroy();
    }
    const reopened = await KeptSqlite.open(path, { readonly: true });
    try {
      assert.deepEqual(reopened.all('PRAGMA journal_mode'), [{ journal_mode: 'wal' }]);
      assert.ok(
        reopened
          .all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
          .some((row) => row.name === 'projects'),
      );
    } finally {
      reopened.close();
    }
  });
});
