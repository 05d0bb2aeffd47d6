/**
 * The web console across controller replicas on a real PostgreSQL: a session signed in on one replica
 * is good on another and outlives the first, and a node's portals reported to one replica show on the
 * other's overview.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startController, type RunningController } from '../../src/controller/controller.ts';
import { Backoff } from '../../src/node/backoff.ts';
import { enrollAdministrator, enrollWithTicket } from '../../src/node/enrollment.ts';
import type { StoredIdentity } from '../../src/node/identity-store.ts';
import { createLogger } from '../../src/node/logger.ts';
import { reportPortals } from '../../src/node/portal-reporter.ts';
import { StandingChannel } from '../../src/node/standing-channel.ts';
import { callController, controllerTarget } from '../../src/wire/control-channel.ts';
import type { ControllerOperations } from '../../src/wire/protocol.ts';
import { startPostgres, type Postgres } from '../support/postgres.ts';

const as = (identity: StoredIdentity) => ({ key: identity.privateKey, certificate: identity.certificate });

describe('console across controller replicas on PostgreSQL', function () {
  this.timeout(60_000);
  let postgres: Postgres;
  let dir: string;
  const replicas: RunningController[] = [];
  const previousPassword = process.env.PGPASSWORD;
  const sealingKey = { kind: 'material', name: 'the test', material: randomBytes(32).toString('hex') } as const;

  before(async () => {
    [postgres, dir] = await Promise.all([startPostgres(), mkdtemp(join(tmpdir(), 'portal-console-replicas-'))]);
    process.env.PGPASSWORD = postgres.password;
    postgres.createDatabase('console');
    const store = `postgres://${postgres.user}@127.0.0.1:${postgres.port}/console`;
    for (const index of [0, 1])
      replicas.push(
        await startController({
          dataDir: join(dir, `replica-${index}`),
          store,
          sealingKey,
          console: { host: '127.0.0.1', port: 0 },
        }),
      );
  });
  after(async () => {
    await Promise.all(replicas.map((replica) => replica.close().catch(() => undefined)));
    if (previousPassword === undefined) delete process.env.PGPASSWORD;
    else process.env.PGPASSWORD = previousPassword;
    await postgres?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("serves one replica's session on another, after the first is gone, with the portals reported to it", async () => {
    const [first, second] = replicas as [RunningController, RunningController];
    const admin = await enrollAdministrator(join(dir, 'admin'), await first.service.createAdminCode(60_000));
    const { link } = await callController(admin.record, 'console-link', {}, as(admin));
    assert.ok(link.startsWith(first.console!.url), link);
    const signedIn = await fetch(`${first.console!.url}/sign-in`, {
      method: 'POST',
      body: new URLSearchParams({ secret: link.split('/').at(-1)! }),
      headers: { origin: first.console!.url },
      redirect: 'manual',
    });
    assert.equal(signedIn.status, 303);
    const cookie = (signedIn.headers.get('set-cookie') ?? '').split(';')[0]!;
    const overviewOn = async (replica: RunningController) =>
      fetch(`${replica.console!.url}/`, { headers: { cookie } }).then(async (page) => ({
        status: page.status,
        text: await page.text(),
      }));

    // A node connected to the first replica reports its portal; the second's overview shows it.
    const ticket = await callController(
      admin.record,
      'ticket',
      { expiresInMs: 3_600_000, usageCount: 1, attribute: 'db-outlet', relay: 'db', tls: false },
      as(admin),
    );
    const node = await enrollWithTicket(join(dir, 'outlet'), String(ticket.ticket));
    const control = new StandingChannel<ControllerOperations>({
      // The first replica's own address: the report is held there, and shared.
      target: controllerTarget({ controller: first.listening, fingerprint: first.fingerprint }),
      credentials: () => as(node),
      logger: createLogger({ level: 'error', write: () => undefined }),
      backoff: new Backoff({}),
    });
    const report = {
      part: 'outlet',
      name: 'db',
      relay: 'db',
      status: 'up',
      since: Date.now(),
      open: 2,
      total: 7,
      up: 3 * 1024 * 1024,
      down: 0,
      peers: [],
    };
    const stop = reportPortals(control, () => [report], 100);
    control.start();
    try {
      let overview = { status: 0, text: '' };
      for (let waited = 0; waited < 5000 && !overview.text.includes('3.0 MiB'); waited += 100) {
        overview = await overviewOn(second);
        if (!overview.text.includes('3.0 MiB')) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(overview.status, 200);
      assert.match(overview.text, new RegExp(`<code>${node.record.nodeId}</code> <span class="quiet">\\(db\\)</span>`));
      assert.match(overview.text, /<td>3\.0 MiB<\/td>/);
      // Connected to the first replica, it is no problem on the second's overview, nor away on its members page.
      assert.doesNotMatch(overview.text, new RegExp(`Node ${node.record.nodeId} is not connected`));
      const members = await (await fetch(`${second.console!.url}/members`, { headers: { cookie } })).text();
      const row = new RegExp(`<code>${node.record.nodeId}</code>[\\s\\S]*?</tr>`).exec(members)?.[0] ?? '';
      assert.match(row, /connected/, row);
    } finally {
      stop();
      control.stop();
    }

    // The replica that signed the session in is gone: the other still serves it.
    await first.close();
    const after = await overviewOn(second);
    assert.equal(after.status, 200);
    assert.match(after.text, new RegExp(`Signed in as <code>${admin.record.nodeId}</code>`));
  });
});
