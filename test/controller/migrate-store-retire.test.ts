/**
 * `portal controller migrate-store` moves a SQLite store once, from a stopped controller, and retires it:
 * a controller that still runs on the store keeps it from moving (what it wrote after the copy would be
 * lost), and once moved, neither `portal controller start`, a second move, nor an administrator command
 * brings the old copy of the project back. Real processes: the embedded controller `portal enroll`
 * starts, the bundled CLI and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { processGone } from '../../src/shared/process-state.ts';
import { removeAdminHome } from '../support/admin-home.ts';
import { startPostgres, type Postgres } from '../support/postgres.ts';
import { portal } from '../support/processes.ts';
import { acceptsConnections } from '../support/tcp.ts';

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('portal controller migrate-store: moved once, from a stopped controller, and retired', function () {
  this.timeout(60_000);
  let server: Postgres;
  let dir: string;
  let home: string;
  let store: string;
  let url: string;
  let env: NodeJS.ProcessEnv;
  let controller: { pid: number; address: string; fingerprint: string };

  before(async () => {
    [server, dir] = await Promise.all([startPostgres(), mkdtemp(join(tmpdir(), 'portal-migrate-retire-'))]);
    home = join(dir, 'home');
    store = join(home, 'controller', 'controller.db');
    server.createDatabase('replicas');
    url = `postgres://${server.user}@127.0.0.1:${server.port}/replicas`;
    const passwordFile = join(dir, 'db.password');
    await writeFile(passwordFile, `${server.password}\n`, { mode: 0o600 });
    env = { PGPASSWORD: undefined, PORTAL_STORE_PASSWORD_FILE: passwordFile };
    const enrolled = await portal(home, ['enroll'], env);
    assert.equal(enrolled.code, 0, enrolled.stderr);
    controller = JSON.parse(await readFile(join(home, 'controller', 'runtime.json'), 'utf8')) as typeof controller;
  });
  after(async () => {
    await removeAdminHome(home);
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** The tables of the database `name`, as its owner sees them. */
  async function tablesOf(name: string): Promise<number> {
    const sql = postgres({
      host: '127.0.0.1',
      port: server.port,
      user: server.user,
      password: server.password,
      database: name,
    });
    try {
      const [row] = await sql<{ count: number }[]>`
        select count(*)::int as count from information_schema.tables where table_schema = 'public'`;
      return row?.count ?? -1;
    } finally {
      await sql.end();
    }
  }

  it('refuses while a controller runs on the store, naming its process, and leaves the database empty', async () => {
    const refused = await portal(home, ['controller', 'migrate-store', '--to', url], env);
    assert.deepEqual([refused.code, refused.stdout], [2, '']);
    assert.match(
      refused.stderr,
      new RegExp(
        `^portal: a controller runs on the store ${escaped(store)} \\(process ${controller.pid}, since \\S+\\): ` +
          'what it writes after the copy would be lost; nothing was copied; stop it first \\(portal controller ' +
          'stop for the embedded controller of a PORTAL_HOME, systemctl stop for a service, Ctrl-C in its ' +
          'terminal\\), then run portal controller migrate-store again\\n$',
      ),
    );
    assert.equal(await tablesOf('replicas'), 0);
  });

  it('moves the store once its controller is stopped with portal controller stop, and retires it', async () => {
    const stopped = await portal(home, ['controller', 'stop']);
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.ok(processGone(controller.pid));
    const moved = await portal(home, ['controller', 'migrate-store', '--to', url], env);
    assert.equal(moved.code, 0, moved.stderr);
    assert.match(
      moved.stdout,
      new RegExp(
        `^The SQLite store is retired: ${escaped(store)}\\.moved says where it moved, ` +
          'and no controller starts on it again \\(remove that file to go back to it on purpose\\)\\.$',
        'm',
      ),
    );
    const marker = JSON.parse(await readFile(`${store}.moved`, 'utf8')) as Record<string, string>;
    assert.deepEqual(Object.keys(marker).sort(), ['fingerprint', 'movedAt', 'to']);
    assert.deepEqual([marker.to, marker.fingerprint], [url, controller.fingerprint]);
    assert.ok(Math.abs(Date.now() - Date.parse(marker.movedAt ?? '')) < 60_000, marker.movedAt);
  });

  /** The one line a retired store is refused with. */
  const movedLine = () =>
    new RegExp(
      `^portal: the SQLite store ${escaped(store)} moved to ${escaped(url)} on \\S+ ` +
        `\\(portal controller migrate-store\\); start the controller replicas with --store ${escaped(url)}; ` +
        `to go back to this store on purpose, remove ${escaped(store)}\\.moved\\n$`,
    );

  it('refuses to start a controller on the moved store, in one line naming where it moved', async () => {
    const started = await portal(home, [
      'controller',
      'start',
      '--listen',
      '127.0.0.1:0',
      '--data-dir',
      join(home, 'controller'),
    ]);
    assert.deepEqual([started.code, started.stdout], [2, '']);
    assert.match(started.stderr, movedLine());
    assert.equal(existsSync(`${store}.holder`), false);
  });

  it('refuses to move the moved store a second time, even into another empty database', async () => {
    server.createDatabase('again');
    const again = await portal(
      home,
      ['controller', 'migrate-store', '--to', url.replace(/\/replicas$/, '/again')],
      env,
    );
    assert.equal(again.code, 2);
    assert.match(again.stderr, movedLine());
    assert.equal(await tablesOf('again'), 0);
  });

  it(
    'does not start the embedded controller again for an administrator command with the replicas down, ' +
      'and says why',
    async () => {
      const shown = await portal(home, ['project', 'show']);
      assert.deepEqual([shown.code, shown.stdout], [1, '']);
      assert.match(
        shown.stderr,
        new RegExp(
          `^portal: cannot reach the controller at ${escaped(controller.address)} \\([^)]+\\); ` +
            `the project moved from the embedded controller to controller replicas on ${escaped(url)} ` +
            '\\(portal controller migrate-store, \\S+\\), so it is not started again; start a replica on ' +
            `--store ${escaped(url)} with its password file, the sealing key and every replica's --public-address, ` +
            'as docs/replicas\\.md \\("Start the replicas"\\) shows\\n$',
        ),
      );
      const [host, port] = [controller.address.replace(/:\d+$/, ''), Number(controller.address.split(':').at(-1))];
      assert.equal(await acceptsConnections(host, port), false);
      assert.equal(existsSync(`${store}.holder`), false);
      // Nor does an enrollment in that home start it: the refusal is said as such, at once.
      await rename(join(home, 'admin'), join(dir, 'admin-aside'));
      const enrolled = await portal(home, ['enroll']);
      assert.equal(enrolled.code, 2);
      assert.match(enrolled.stderr, movedLine());
    },
  );
});
