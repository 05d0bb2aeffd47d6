/**
 * The controller's store on a real PostgreSQL server: migrations that run once when replicas start
 * together, and the promises that must hold across controller replicas sharing one database (a one-use
 * ticket enrolls one node, a cancelled ticket enrolls nobody after, the audit trail stays one chain).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { verifyTrail } from '../../src/cli/audit-verify.ts';
import { embeddedRelay } from '../../src/cli/controller.ts';
import { startController, type RunningController } from '../../src/controller/controller.ts';
import { openStore } from '../../src/controller/store/open.ts';
import { migrationsFor } from '../../src/controller/store/migrations.ts';
import { createCertificateRequest } from '../../src/pki/authority.ts';
import { generateKeyPair } from '../../src/pki/keys.ts';
import { enrollAdministrator } from '../../src/node/enrollment.ts';
import type { StoredIdentity } from '../../src/node/identity-store.ts';
import { PortalError } from '../../src/shared/errors.ts';
import { callController, openControlChannel } from '../../src/wire/control-channel.ts';
import { decodeTicket } from '../../src/wire/ticket.ts';
import { startPostgres, type Postgres } from '../support/postgres.ts';
import { freePort, portalBundle, start } from '../support/processes.ts';
import { runPortal } from '../support/run-portal.ts';

describe('controller store on PostgreSQL (controller replicas on one database)', function () {
  this.timeout(120_000);
  let postgres: Postgres;
  let dir: string;
  let database = 0;
  const previousPassword = process.env.PGPASSWORD;

  before(async () => {
    [postgres, dir] = await Promise.all([startPostgres(), mkdtemp(join(tmpdir(), 'portal-store-pg-'))]);
    process.env.PGPASSWORD = postgres.password;
  });
  after(async () => {
    if (previousPassword === undefined) delete process.env.PGPASSWORD;
    else process.env.PGPASSWORD = previousPassword;
    await postgres?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** A new empty database owned by the test's user, and its URL (no password: PGPASSWORD holds it). */
  function freshDatabase(): string {
    database += 1;
    postgres.createDatabase(`portal_${database}`);
    return storeUrl(`portal_${database}`);
  }

  const storeUrl = (name: string) => `postgres://${postgres.user}@127.0.0.1:${postgres.port}/${name}`;

  it('migrates an empty database once when three controllers open it together', async () => {
    const url = freshDatabase();
    const stores = await Promise.all([openStore(url), openStore(url), openStore(url)]);
    try {
      const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(stores[0]);
      assert.deepEqual(
        applied.rows.map((row) => row.name),
        Object.keys(migrationsFor('postgres')).sort(),
      );
      // Every store reads and writes the same tables; epoch milliseconds come back as numbers.
      await stores[1]
        .insertInto('admin_codes')
        .values({ code_hash: 'h', expires_at: 1_800_000_000_000, used_at: null })
        .execute();
      const read = await stores[2].selectFrom('admin_codes').selectAll().execute();
      assert.deepEqual(read, [{ code_hash: 'h', expires_at: 1_800_000_000_000, used_at: null }]);
    } finally {
      await Promise.all(stores.map((store) => store.destroy()));
    }
  });

  it('refuses a password in the URL, reads one from --store-password-file, and says when it is wrong', async () => {
    const url = freshDatabase();
    const withPassword = url.replace(`${postgres.user}@`, `${postgres.user}:${postgres.password}@`);
    await assert.rejects(openStore(withPassword), (error: unknown) => {
      assert.ok(error instanceof PortalError);
      assert.equal(error.code, 'STORE_URL_INVALID');
      assert.equal(error.exitCode, 2);
      assert.ok(!error.message.includes(postgres.password), error.message);
      assert.match(error.hint ?? '', /PGPASSWORD or in a file named by --store-password-file/);
      return true;
    });
    delete process.env.PGPASSWORD;
    try {
      const right = join(dir, 'right.password');
      await writeFile(right, `${postgres.password}\n`, { mode: 0o600 });
      const store = await openStore(url, { passwordFile: right });
      await store.destroy();
      const wrong = join(dir, 'wrong.password');
      await writeFile(wrong, 'not-the-password\n', { mode: 0o600 });
      await assert.rejects(openStore(url, { passwordFile: wrong }), (error: unknown) => {
        assert.ok(error instanceof PortalError);
        assert.equal(error.code, 'STORE_UNREACHABLE');
        assert.equal(error.exitCode, 1);
        assert.match(error.message, /password authentication failed for user "app"/);
        assert.ok(!error.message.includes('\n'), 'one line');
        return true;
      });
    } finally {
      process.env.PGPASSWORD = postgres.password;
    }
  });

  it('answers the next request after the database closed a connection during a query', async () => {
    const store = await openStore(freshDatabase());
    try {
      const sleeping = sql`select pg_sleep(30)`.execute(store);
      await delay(300);
      postgres.asSuperuser(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'select pg_sleep%'",
      );
      await assert.rejects(
        sleeping,
        (error: unknown) => error instanceof PortalError && error.code === 'STORE_UNREACHABLE',
      );
      // The connection closed while in use goes back to the pool as closed, not as one to queue on.
      const next = sql<{ one: number }>`select 1 as one`.execute(store).then(({ rows }) => rows);
      assert.deepEqual(await Promise.race([next, delay(5_000).then(() => 'no answer in 5 s')]), [{ one: 1 }]);
    } finally {
      await store.destroy();
    }
  });

  it('takes a password rotated in its file at the next connection, with no restart', async () => {
    postgres.asSuperuser(
      "CREATE ROLE rotating LOGIN PASSWORD 'first-password'",
      'CREATE DATABASE rotating OWNER rotating',
    );
    const file = join(dir, 'rotating.password');
    await writeFile(file, 'first-password\n', { mode: 0o600 });
    const store = await openStore(`postgres://rotating@127.0.0.1:${postgres.port}/rotating`, { passwordFile: file });
    try {
      await sql`select 1`.execute(store);
      // As RDS rotates it: the role's password changes, the file is rewritten, and connections are lost.
      postgres.asSuperuser("ALTER ROLE rotating PASSWORD 'second-password'");
      await writeFile(file, 'second-password\n');
      postgres.asSuperuser("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'rotating'");
      // A query on a connection as it is cut may fail; the next ones open connections with the new password.
      let answered: unknown;
      for (let attempt = 0; attempt < 20 && answered === undefined; attempt += 1) {
        answered = (await sql<{ one: number }>`select 1 as one`.execute(store).catch(() => undefined))?.rows;
        if (answered === undefined) await delay(100);
      }
      assert.deepEqual(answered, [{ one: 1 }]);
    } finally {
      await store.destroy();
    }
  });

  it('portal controller start --store postgres://…: runs on it; a password in the URL or a database down is one line', async () => {
    const url = freshDatabase();
    const passwordFile = join(dir, 'cli.password');
    await writeFile(passwordFile, `${postgres.password}\n`, { mode: 0o600 });
    const env = { PGPASSWORD: undefined, PORTAL_HOME: join(dir, 'cli-home') };
    const common = ['controller', 'start', '--listen', '127.0.0.1:0', '--status-listen', 'off', '--ready-json'];
    const controller = start(
      process.execPath,
      [portalBundle, ...common, '--store', url, '--store-password-file', passwordFile],
      {
        env,
      },
    );
    try {
      const ready = JSON.parse(await controller.waitFor(/^\{"pid"/, 30_000)) as { adminCode?: string };
      assert.match(ready.adminCode ?? '', /^pa1\./);
    } finally {
      assert.equal(await controller.stop(), 0);
    }
    const store = await openStore(url);
    try {
      assert.equal((await store.selectFrom('admin_codes').select('code_hash').execute()).length, 1);
    } finally {
      await store.destroy();
    }
    const withPassword = await runPortal([...common, '--store', url.replace('app@', 'app:hunter2@')], { env });
    assert.equal(withPassword.code, 2);
    assert.match(
      withPassword.stderr,
      /^portal: --store postgres:\/\/app:\*\*\*@127\.0\.0\.1:\d+\/portal_\d+: holds a password/,
    );
    assert.ok(!withPassword.stderr.includes('hunter2'));
    const down = await runPortal(
      [
        ...common,
        '--store',
        `postgres://app@127.0.0.1:${await freePort()}/portal`,
        '--store-password-file',
        passwordFile,
      ],
      { env },
    );
    assert.equal(down.code, 1);
    assert.match(
      down.stderr,
      /^portal: the PostgreSQL store postgres:\/\/app@127\.0\.0\.1:\d+\/portal cannot be used: connect ECONNREFUSED/,
    );
    assert.ok(!/\n\s+at /.test(down.stderr), down.stderr);
  });

  describe('three replicas', () => {
    let replicas: RunningController[] = [];
    let admin: StoredIdentity;
    let url = '';

    before(async () => {
      url = freshDatabase();
      const sealingKey = { kind: 'material', name: 'the test', material: randomBytes(32).toString('hex') } as const;
      // Every replica's address in every ticket: ports chosen first, so that each can be told all three.
      const ports = [await freePort(), await freePort(), await freePort()];
      const publicAddress = ports.map((port) => `127.0.0.1:${port}`).join(',');
      replicas = await Promise.all(
        ports.map((port, index) =>
          startController({
            dataDir: join(dir, `replica-${index}`),
            store: url,
            sealingKey,
            port,
            publicAddress,
            relay: embeddedRelay(),
          }),
        ),
      );
      admin = await enrollAdministrator(join(dir, 'admin'), await replicas[0]!.service.createAdminCode(60_000));
    });
    const closed = new Set<RunningController>();
    after(() => Promise.all(replicas.filter((replica) => !closed.has(replica)).map((replica) => replica.close())));

    async function ticket(usageCount: number): Promise<string> {
      const credentials = { key: admin.privateKey, certificate: admin.certificate };
      const answer = await callController(
        admin.record,
        'ticket',
        { expiresInMs: 3_600_000, usageCount, attribute: 'db-inlet', tls: false },
        credentials,
      );
      return String(answer.ticket);
    }

    /** Where one replica answers (its public address lists all three). */
    const pinOf = (replica: RunningController) => ({ controller: replica.listening, fingerprint: replica.fingerprint });

    /** Enrolls with `text` through replica `index`: the error code when refused. */
    async function enrollThrough(index: number, text: string): Promise<string> {
      const replica = replicas[index % replicas.length] as RunningController;
      const { ticketId, secret } = decodeTicket(text);
      const keys = generateKeyPair();
      const request = createCertificateRequest(keys.privateKey, keys.publicKey, 'portal-node');
      try {
        await callController(pinOf(replica), 'enroll', { ticket: ticketId, secret, request });
        return 'enrolled';
      } catch (error) {
        return error instanceof PortalError ? error.code : String(error);
      }
    }

    it('answer to one certificate, which a replica given another sealing key cannot open', async () => {
      assert.equal(new Set(replicas.map((replica) => replica.fingerprint)).size, 1);
      const stranger = { kind: 'material', name: 'another key', material: randomBytes(32).toString('hex') } as const;
      await assert.rejects(
        startController({ dataDir: join(dir, 'replica-stranger'), store: url, sealingKey: stranger }),
        (error: unknown) => error instanceof PortalError && /^SEALING_KEY_/.test(error.code),
      );
      // A database with no project yet: the shared TLS key alone refuses the stranger.
      const empty = freshDatabase();
      const first = await startController({
        dataDir: join(dir, 'first-of-empty'),
        store: empty,
        sealingKey: { kind: 'material', name: 'the first key', material: randomBytes(32).toString('hex') },
      });
      await first.close();
      await assert.rejects(
        startController({ dataDir: join(dir, 'second-of-empty'), store: empty, sealingKey: stranger }),
        (error: unknown) =>
          error instanceof PortalError &&
          error.code === 'SEALING_KEY_WRONG' &&
          /^the sealing key in another key does not open the controllers' TLS key in postgres:/.test(error.message),
      );
    });

    it('of 20 enrollments with a one-use ticket, spread over the three, exactly one succeeds', async () => {
      const text = await ticket(1);
      const outcomes = await Promise.all(Array.from({ length: 20 }, (_, index) => enrollThrough(index, text)));
      assert.equal(outcomes.filter((outcome) => outcome === 'enrolled').length, 1, outcomes.join(' '));
      assert.deepEqual(new Set(outcomes.filter((outcome) => outcome !== 'enrolled')), new Set(['TICKET_CONSUMED']));
    });

    it('a ticket cancelled on one replica while enrollments race on the others enrolls nobody after', async () => {
      // More uses than enrollments: the ticket can still be cancelled however the race goes.
      const text = await ticket(40);
      const { ticketId } = decodeTicket(text);
      const credentials = { key: admin.privateKey, certificate: admin.certificate };
      const racing = Array.from({ length: 20 }, (_, index) => enrollThrough(1 + (index % 2), text));
      const cancelled = callController(admin.record, 'ticket-cancel', { ticket: ticketId }, credentials);
      const outcomes = await Promise.all(racing);
      await cancelled;
      const enrolled = outcomes.filter((outcome) => outcome === 'enrolled').length;
      for (const outcome of outcomes) assert.match(outcome, /^(enrolled|TICKET_CANCELLED)$/);
      // The store agrees with what the clients were told: one member per success, and no use left.
      const store = await openStore(url);
      try {
        const members = await store.selectFrom('members').select('node_id').where('ticket_id', '=', ticketId).execute();
        assert.equal(members.length, enrolled);
        const row = await store.selectFrom('tickets').selectAll().where('id', '=', ticketId).executeTakeFirstOrThrow();
        assert.equal(row.uses_left, 0);
      } finally {
        await store.destroy();
      }
      assert.equal(await enrollThrough(0, text), 'TICKET_CANCELLED');
    });

    it('members, tickets and revocations read the same through every replica', async () => {
      // A node of its own to revoke: this test needs no other to have run.
      assert.equal(await enrollThrough(1, await ticket(1)), 'enrolled');
      const credentials = { key: admin.privateKey, certificate: admin.certificate };
      const pin = (index: number) => pinOf(replicas[index] as RunningController);
      const through = {
        members: (index: number) => callController(pin(index), 'members', {}, credentials),
        tickets: (index: number) => callController(pin(index), 'tickets', {}, credentials),
        revocations: (index: number) => callController(pin(index), 'revocations', {}, credentials),
      };
      const members = await through.members(1);
      const node = members.members.find((member) => member.kind === 'node' && member.revoked === null);
      assert.ok(node, JSON.stringify(members));
      await callController(
        pinOf(replicas[2] as RunningController),
        'revoke',
        { member: node.id, reason: 'replica test' },
        credentials,
      );
      for (const index of [0, 1, 2]) {
        assert.deepEqual(
          (await through.revocations(index)).revoked.map((entry) => entry.nodeId),
          [node.id],
          `replica ${index}`,
        );
        assert.deepEqual(await through.tickets(index), await through.tickets(0));
        const listed = (await through.members(index)).members.map((member) => member.id);
        assert.deepEqual(
          listed,
          members.members.map((member) => member.id),
          `replica ${index} lists the same members`,
        );
      }
    });

    it("a revocation on one replica closes the member's connection to another in 1 s; refused there too", async () => {
      const credentials = { key: admin.privateKey, certificate: admin.certificate };
      const answer = await callController(
        admin.record,
        'ticket',
        { expiresInMs: 3_600_000, usageCount: 1, attribute: '', admin: true, tls: false },
        credentials,
      );
      const { ticketId, secret } = decodeTicket(String(answer.ticket));
      const keys = generateKeyPair();
      const request = createCertificateRequest(keys.privateKey, keys.publicKey, 'portal-admin');
      const [, second, third] = replicas as [RunningController, RunningController, RunningController];
      const enrolled = await callController(pinOf(second), 'enroll', { ticket: ticketId, secret, request });
      const other = { key: keys.privateKey, certificate: enrolled.certificate };
      // The other administrator holds a connection to the second replica; the third revokes it.
      const held = await openControlChannel(pinOf(second), other);
      const closedAt = new Promise<number>((resolve) => held.once('close', () => resolve(performance.now())));
      await held.request('members', {});
      await callController(
        pinOf(third),
        'revoke',
        { member: enrolled.identity.nodeId, reason: 'replicas' },
        credentials,
      );
      const revokedAt = performance.now();
      const closed = await Promise.race([closedAt, delay(5000, undefined, { ref: false })]);
      assert.ok(closed !== undefined, 'the connection to the second replica is still open 5 s after the revocation');
      assert.ok(closed - revokedAt < 1000, `closed ${(closed - revokedAt).toFixed(0)} ms after the revocation`);
      await assert.rejects(callController(pinOf(second), 'members', {}, other), (error: unknown) => {
        assert.ok(error instanceof PortalError, String(error));
        return true;
      });
    });

    it('the audit trail stays one chain while the three write at once', async () => {
      const project = admin.record.projectId;
      await Promise.all(
        replicas.flatMap((replica, index) =>
          Array.from({ length: 40 }, (_, record) =>
            replica.service.audit.record(project, 'ticket-issued', [admin.record.nodeId], {
              ticket: `t-storm-${index}-${record}`,
            }),
          ),
        ),
      );
      // Read through another replica than the one that made the project.
      const replica = replicas[2] as RunningController;
      const channel = await openControlChannel(pinOf(replica), {
        key: admin.privateKey,
        certificate: admin.certificate,
      });
      const verdict = await verifyTrail(channel).finally(() => channel.close());
      assert.match(verdict, /^the audit trail of project p[0-9a-f]+ is whole: \d+ records/);
      // Every record written: none lost to a replica that met another's record at its place in the chain.
      const store = await openStore(url);
      try {
        const storm = await store
          .selectFrom('audit_records')
          .select('details')
          .where('project_id', '=', project)
          .where('details', 'like', '%t-storm-%')
          .execute();
        assert.equal(storm.length, 120);
      } finally {
        await store.destroy();
      }
    });

    it("an administrator's command goes to another replica within 2 s of losing the one it used", async () => {
      const credentials = { key: admin.privateKey, certificate: admin.certificate };
      assert.equal(admin.record.controller.split(',').length, 3, admin.record.controller);
      await callController(admin.record, 'members', {}, credentials);
      const [first] = replicas as [RunningController];
      await first.close();
      closed.add(first);
      const started = performance.now();
      const answer = await callController(admin.record, 'members', {}, credentials);
      const tookMs = performance.now() - started;
      assert.ok(answer.members.length >= 2);
      assert.ok(tookMs < 2000, `the command took ${tookMs.toFixed(0)} ms`);
    });
  });
});
