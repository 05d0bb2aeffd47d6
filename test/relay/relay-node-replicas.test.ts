/**
 * A relay node with controller replicas: its ticket names every replica, and when the one it holds its
 * connection to stops, it announces itself to another within 2 s, so that the members go on hearing of
 * it from the replicas still running.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startController, type RunningController } from '../../src/controller/controller.ts';
import { enrollAdministrator } from '../../src/node/enrollment.ts';
import { createLogger } from '../../src/node/logger.ts';
import { startRelayNode, type RunningRelayNode } from '../../src/relay/relay-node.ts';
import { callController } from '../../src/wire/control-channel.ts';
import { startPostgres, type Postgres } from '../support/postgres.ts';
import { freePort } from '../support/processes.ts';

describe('relay node: following controller replicas', function () {
  this.timeout(60_000);
  let postgres: Postgres;
  let dir: string;
  let relay: RunningRelayNode | undefined;
  const replicas: RunningController[] = [];
  const previousPassword = process.env.PGPASSWORD;

  before(async () => {
    [postgres, dir] = await Promise.all([startPostgres(), mkdtemp(join(tmpdir(), 'portal-relay-replicas-'))]);
    process.env.PGPASSWORD = postgres.password;
  });
  after(async () => {
    await relay?.stop();
    await Promise.all(replicas.map((replica) => replica.close()));
    if (previousPassword === undefined) delete process.env.PGPASSWORD;
    else process.env.PGPASSWORD = previousPassword;
    await postgres?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('announces itself to another replica within 2 s of losing the one it used', async () => {
    postgres.createDatabase('relayfollow');
    const url = `postgres://${postgres.user}@127.0.0.1:${postgres.port}/relayfollow`;
    const sealingKey = { kind: 'material', name: 'the test', material: randomBytes(32).toString('hex') } as const;
    const ports = [await freePort(), await freePort()];
    const publicAddress = ports.map((port) => `127.0.0.1:${port}`).join(',');
    for (const [index, port] of ports.entries())
      replicas.push(
        await startController({ dataDir: join(dir, `replica-${index}`), store: url, sealingKey, port, publicAddress }),
      );
    const [first, second] = replicas as [RunningController, RunningController];
    const admin = await enrollAdministrator(join(dir, 'admin'), await first.service.createAdminCode(60_000));
    const ticket = await callController(
      admin.record,
      'ticket',
      { expiresInMs: 60_000, usageCount: 1, attribute: '', tls: false, relayNode: true },
      { key: admin.privateKey, certificate: admin.certificate },
    );
    relay = await startRelayNode({
      home: join(dir, 'relay-home'),
      ticket: String(ticket.ticket),
      listen: { host: '127.0.0.1', port: 0 },
      logger: createLogger({ enabled: false }),
    });
    const project = admin.record.projectId;
    const announcedTo = (replica: RunningController) =>
      replica.server.relays.announcedHere(project).some((entry) => entry.id === relay!.nodeId);
    const holder = await until(() => replicas.find(announcedTo), 'the relay announcing itself', 10_000);
    const other = holder === first ? second : first;
    const stoppedAt = performance.now();
    replicas.splice(replicas.indexOf(holder), 1);
    const closed = holder.close();
    await until(() => (announcedTo(other) ? true : undefined), 'the relay announcing itself to the other', 5000);
    const movedMs = performance.now() - stoppedAt;
    await closed;
    console.log(
      `      the relay node announced itself to the other replica ${movedMs.toFixed(0)} ms after the first stopped`,
    );
    assert.ok(movedMs < 2000, `announced to the other replica ${movedMs.toFixed(0)} ms after the first stopped`);
  });
});

/** `check`'s first value that is not undefined, polling every 10 ms; fails after `limitMs`. */
async function until<T>(check: () => T | undefined, what: string, limitMs: number): Promise<T> {
  const started = performance.now();
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (performance.now() - started > limitMs) assert.fail(`${what} did not happen within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
