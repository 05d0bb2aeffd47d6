import assert from 'node:assert/strict';
import { copyFile, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { AuditOutbox } from '../../src/node/audit-outbox.ts';
import { enrollWithTicket } from '../../src/node/enrollment.ts';
import type { StoredIdentity } from '../../src/node/identity-store.ts';
import { createLogger } from '../../src/node/logger.ts';
import { StandingChannel } from '../../src/node/standing-channel.ts';
import { callController, controllerTarget } from '../../src/wire/control-channel.ts';
import type { AuditRecordWire, ControllerOperations } from '../../src/wire/protocol.ts';
import { until } from '../support/in-process.ts';
import { createWorld, type World } from '../support/portal-world.ts';
import { auditExchangeVersion } from '../../src/wire/protocol/audit.ts';

describe('audit outbox: records kept on disk, bounded, while the controller is away', () => {
  let world: World;
  let node: StoredIdentity;
  const channels: StandingChannel<ControllerOperations>[] = [];
  const logged: string[] = [];
  const logger = createLogger({ write: (line) => logged.push(line) });

  before(async () => {
    world = await createWorld();
    node = await enrollWithTicket(join(world.dir, 'node'), await world.ticket({ attribute: 'a' }));
  });
  afterEach(() => channels.splice(0).forEach((channel) => channel.stop()));
  after(() => world.close());

  const channel = () => {
    const made = new StandingChannel<ControllerOperations>({
      target: controllerTarget(node.record),
      credentials: () => ({ key: node.privateKey, certificate: node.certificate }),
      logger,
    });
    channels.push(made);
    return made;
  };

  const trail = async (): Promise<AuditRecordWire[]> => {
    const { admin } = world;
    const answer = await callController(
      admin.record,
      'audit',
      { exchange: auditExchangeVersion, afterSeq: 0, limit: 200, since: 0, member: node.record.nodeId },
      { key: admin.privateKey, certificate: admin.certificate },
    );
    return answer.records.filter((record) => record.seenBy === node.record.nodeId);
  };

  /** What an inlet says of a client connection it carried through `portal`. */
  const sessionDetails = (portal: string) => ({
    portal,
    path: 'direct',
    relay: null,
    opened_at: new Date().toISOString(),
    duration_ms: 5,
    bytes_from_client: 1,
    bytes_to_client: 1,
    ended: 'closed',
  });

  const lines = async (file: string) => (await readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean);

  it('keeps at most its bound, counts the rest, and tells the trail of the loss once it is back', async () => {
    const file = join(world.dir, 'bounded.jsonl');
    const control = channel();
    const outbox = new AuditOutbox({ file, control, logger, maxRecords: 5, flushMs: 10 });
    await outbox.start();
    for (let n = 0; n < 8; n += 1) outbox.record('session', [node.record.nodeId], sessionDetails(`p${n}`));
    // One place is kept for the record of the loss.
    assert.deepEqual(outbox.stats(), { pending: 4, dropped: 4 });
    // The loss is itself a record, kept in the place left free.
    await until(async () => ((await lines(file)).length === 5 ? true : undefined), 'the records on disk');
    assert.deepEqual(outbox.stats(), { pending: 5, dropped: 0 });
    const beforeSending = join(world.dir, 'before-sending.jsonl');
    await copyFile(file, beforeSending);

    control.start();
    await until(() => (outbox.stats().pending === 0 ? true : undefined), 'the records sent');
    const records = await trail();
    assert.deepEqual(
      records.map((record) => record.event),
      ['session', 'session', 'session', 'session', 'reports-dropped'],
    );
    assert.deepEqual(
      records.slice(0, 4).map((record) => (JSON.parse(record.details) as { portal: string }).portal),
      ['p0', 'p1', 'p2', 'p3'],
    );
    assert.equal((JSON.parse(records[4]?.details ?? '{}') as { count: number }).count, 4);
    assert.ok(logged.some((line) => line.includes('4 records were lost')));
    await until(async () => ((await stat(file)).size === 0 ? true : undefined), 'the file emptied');
    await outbox.stop();

    // A run that stopped before its file was written again sends the same records: written once.
    const again = new AuditOutbox({ file: beforeSending, control, logger, flushMs: 10 });
    await again.start();
    assert.equal(again.stats().pending, 5);
    await until(() => (again.stats().pending === 0 ? true : undefined), 'the records sent again');
    await again.stop();
    assert.equal((await trail()).length, 5);
  });

  it('bounds the bytes on disk as well as the count', async () => {
    const file = join(world.dir, 'bytes.jsonl');
    const outbox = new AuditOutbox({ file, control: channel(), logger, maxBytes: 2000, flushMs: 10 });
    await outbox.start();
    for (let n = 0; n < 50; n += 1) outbox.record('refused', [], { reason: 'limits', detail: 'x'.repeat(100) });
    await outbox.stop();
    const { size } = await stat(file);
    assert.ok(size <= 2000, `${size} bytes on disk`);
    assert.ok(outbox.stats().dropped > 0);
    // Read back after a restart: what was kept, no more.
    const restarted = new AuditOutbox({ file, control: channel(), logger, maxBytes: 2000 });
    await restarted.start();
    assert.equal(restarted.stats().pending, (await lines(file)).length);
    await restarted.stop();
  });
});

describe('audit outbox: a reporter over its budget keeps what was not taken and waits as told', () => {
  let world: World;
  let node: StoredIdentity;
  let control: StandingChannel<ControllerOperations>;
  const logger = createLogger({ write: () => undefined });
  const budget = {
    member: { records: { perSecond: 20, burst: 5 }, bytes: { perSecond: 1_000_000, burst: 1_000_000 } },
    total: { records: { perSecond: 1000, burst: 1000 }, bytes: { perSecond: 1_000_000, burst: 1_000_000 } },
    keys: 100,
  };

  before(async () => {
    world = await createWorld({ auditBudget: budget });
    node = await enrollWithTicket(join(world.dir, 'node'), await world.ticket({ attribute: 'a' }));
    control = new StandingChannel<ControllerOperations>({
      target: controllerTarget(node.record),
      credentials: () => ({ key: node.privateKey, certificate: node.certificate }),
      logger,
    });
  });
  after(async () => {
    control.stop();
    await world.close();
  });

  it('sends the rest when the controller says, so that nothing is lost or counted as dropped', async () => {
    const outbox = new AuditOutbox({ file: join(world.dir, 'paced.jsonl'), control, logger, flushMs: 10 });
    await outbox.start();
    const started = Date.now();
    for (let n = 0; n < 30; n += 1)
      outbox.record('session', [node.record.nodeId], {
        portal: `p${n}`,
        path: 'direct',
        relay: null,
        opened_at: new Date().toISOString(),
        duration_ms: 5,
        bytes_from_client: 1,
        bytes_to_client: 1,
        ended: 'closed',
      });
    control.start();
    await until(() => (outbox.stats().pending === 0 ? true : undefined), 'every record taken', 20_000);
    const tookMs = Date.now() - started;
    await outbox.stop();
    // 5 at once, then 25 at 20 a second: paced by the controller's answers, not sent all at once.
    assert.ok(tookMs >= 1000, `${tookMs} ms`);
    await world.controller.service.reports.flush();
    const { records } = await callController(
      world.admin.record,
      'audit',
      { exchange: auditExchangeVersion, afterSeq: 0, limit: 200, since: 0, member: node.record.nodeId },
      { key: world.admin.privateKey, certificate: world.admin.certificate },
    );
    assert.deepEqual(
      records
        .filter((record) => record.event === 'session')
        .map((record) => (JSON.parse(record.details) as { portal: string }).portal),
      Array.from({ length: 30 }, (_, n) => `p${n}`),
    );
    assert.deepEqual(
      records.filter((record) => record.event === 'reports-dropped'),
      [],
      'an outbox that waits as told has nothing counted against it',
    );
  });
});
