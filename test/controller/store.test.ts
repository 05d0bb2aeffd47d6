import assert from 'node:assert/strict';
import { chmod, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { attributesOfRow } from '../../src/controller/member-attributes.ts';
import { migrationsFor } from '../../src/controller/store/migrations.ts';
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

  it('creates the store, its WAL and shared memory 0600 under a 022 umask, and narrows a store made 0644', async () => {
    const modeOf = async (file: string) => (await stat(file)).mode & 0o777;
    const previous = process.umask(0o022);
    try {
      const path = join(work, 'owner-only.db');
      const store = await openStore(`sqlite:${path}`);
      try {
        await store.selectFrom('projects').select('id').execute();
        for (const file of [path, `${path}-wal`, `${path}-shm`])
          assert.equal((await modeOf(file)).toString(8), '600', `${file} is readable by its owner only`);
      } finally {
        await store.destroy();
      }
      // A store an earlier version made 0644 (and the files beside it) is narrowed when opened.
      const older = join(work, 'older.db');
      const made = await openStore(`sqlite:${older}`);
      await made.destroy();
      await chmod(older, 0o644);
      await writeFile(`${older}-wal`, '', { mode: 0o644 });
      const reopened = await openStore(`sqlite:${older}`);
      try {
        assert.equal((await modeOf(older)).toString(8), '600');
        assert.equal((await modeOf(`${older}-wal`)).toString(8), '600');
      } finally {
        await reopened.destroy();
      }
    } finally {
      process.umask(previous);
    }
  });

  it('keeps rows written before lists of attributes valid: each reads as its one attribute', async () => {
    const path = join(work, 'before-0006.db');
    const database = await KeptSqlite.open(path);
    const old = new Kysely<unknown>({ dialect: new SqliteDialect({ database }) });
    const provider = { getMigrations: () => Promise.resolve(migrationsFor('sqlite')) };
    assert.equal((await new Migrator({ db: old, provider }).migrateTo('0003-relay-nodes')).error, undefined);
    database.exec(
      "INSERT INTO projects VALUES ('p1', 'demo', 'portal.example.net', 'ca', 'key', 0);" +
        'INSERT INTO tickets (id, project_id, secret_hash, attribute, relay, tls, expires_at, uses_left, created_at) ' +
        "VALUES ('t1', 'p1', 'h', 'postgres-inlet', NULL, 0, 1, 1, 0), ('t2', 'p1', 'h', '', NULL, 0, 1, 1, 0);" +
        'INSERT INTO members (node_id, project_id, attribute, relay, tls, admin, ticket_id, enrolled_at) ' +
        "VALUES ('n1', 'p1', 'postgres-inlet', NULL, 0, 0, 't1', 0), ('a1', 'p1', NULL, NULL, 0, 1, NULL, 0);",
    );
    await old.destroy();
    const store = await openStore(`sqlite:${path}`);
    try {
      const members = await store.selectFrom('members').selectAll().orderBy('node_id').execute();
      assert.deepEqual(
        members.map((row) => [row.node_id, row.attributes, attributesOfRow(row)]),
        [
          ['a1', null, []],
          ['n1', 'postgres-inlet', ['postgres-inlet']],
        ],
      );
      const tickets = await store.selectFrom('tickets').selectAll().orderBy('id').execute();
      assert.deepEqual(
        tickets.map((row) => attributesOfRow(row)),
        [['postgres-inlet'], []],
      );
      assert.deepEqual(attributesOfRow({ attribute: 'legacy' }), ['legacy'], 'a row read without the column');
    } finally {
      await store.destroy();
    }
  });
});
