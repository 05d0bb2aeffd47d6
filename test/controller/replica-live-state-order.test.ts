/**
 * What one controller replica reads of another's announcements on a real PostgreSQL, when reads answer
 * out of order or fail: what it tells its members is what the table holds last, never an older read.
 */
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import { ReplicaLiveState, type SharedKind } from '../../src/controller/replica-live-state.ts';
import { noticesOf } from '../../src/controller/store/notices.ts';
import { openStore, type Store } from '../../src/controller/store/open.ts';
import { startPostgres, type Postgres } from '../support/postgres.ts';

/** A replica's kind of announcement whose holding the test sets, and whose view of the others it records. */
function testKind(projectId: string) {
  let held: string[] = [];
  let changed: (projectId: string) => void = () => undefined;
  const seen: string[][] = [];
  const kind: SharedKind = {
    kind: 'order',
    here: () => held.map((body) => ({ key: body, body })),
    projectsHere: () => (held.length > 0 ? [projectId] : []),
    setElsewhere: (project, bodies) => void (project === projectId && seen.push([...bodies])),
    projectsElsewhere: () => (seen.at(-1)?.length ? [projectId] : []),
    onChangedHere: (listener) => {
      changed = listener;
      return () => undefined;
    },
  };
  return {
    kind,
    seen,
    hold: (bodies: string[]) => {
      held = bodies;
      changed(projectId);
    },
  };
}

/**
 * Between a replica and the database: holds back the answer of the first read of other replicas'
 * entries until `release` (telling `held` once that read has run, its snapshot taken), and fails the
 * reads while `failReads`, the writes of entries while `failWrites`.
 */
class StoreGate implements KyselyPlugin {
  failReads = false;
  failWrites = false;
  private readonly reads = new Set<unknown>();
  private readonly writes = new Set<unknown>();
  private gated = false;
  private opened!: () => void;
  private readonly gate = new Promise<void>((resolve) => (this.opened = resolve));
  private holding!: () => void;
  readonly held = new Promise<void>((resolve) => (this.holding = resolve));

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    const text = JSON.stringify(args.node);
    if (args.node.kind === 'SelectQueryNode' && text.includes('live_entries') && text.includes('controller_replicas'))
      this.reads.add(args.queryId);
    if (args.node.kind === 'InsertQueryNode' && text.includes('live_entries')) this.writes.add(args.queryId);
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    if (this.writes.delete(args.queryId) && this.failWrites) throw new Error('the database is away (the test)');
    if (!this.reads.delete(args.queryId)) return args.result;
    if (this.failReads) throw new Error('the database is away (the test)');
    if (!this.gated) {
      this.gated = true;
      this.holding();
      await this.gate;
    }
    return args.result;
  }

  release(): void {
    this.opened();
  }
}

describe('one replica reading what another announces, out of order and through failures', function () {
  this.timeout(30_000);
  let postgres: Postgres;
  let store: Store;
  const started: ReplicaLiveState[] = [];
  const previousPassword = process.env.PGPASSWORD;

  before(async () => {
    postgres = await startPostgres();
    postgres.createDatabase('ordering');
    process.env.PGPASSWORD = postgres.password;
    store = await openStore(`postgres://${postgres.user}@127.0.0.1:${postgres.port}/ordering`);
  });
  after(async () => {
    for (const state of started) await state.stop();
    await store?.destroy();
    await postgres?.stop();
    if (previousPassword === undefined) delete process.env.PGPASSWORD;
    else process.env.PGPASSWORD = previousPassword;
  });

  async function replica(kinds: SharedKind[], through: Store = store): Promise<ReplicaLiveState> {
    const notices = noticesOf(store);
    assert.ok(notices, 'a PostgreSQL store takes notices');
    const state = await ReplicaLiveState.start(through, notices, kinds, { addresses: '' });
    started.push(state);
    return state;
  }

  async function until(check: () => boolean, what: string, limitMs = 3000): Promise<void> {
    for (const deadline = Date.now() + limitMs; !check(); await delay(10))
      if (Date.now() > deadline) assert.fail(`${what} did not happen within ${limitMs} ms`);
  }

  it('a read answered after a later one never puts back what a change replaced', async () => {
    const project = 'pout-of-order';
    const announcer = testKind(project);
    await replica([announcer.kind]);
    announcer.hold(['relay-1']);
    const rows = () => store.selectFrom('live_entries').select('body').where('kind', '=', 'order').execute();
    for (const deadline = Date.now() + 3000; (await rows()).length !== 1; await delay(10))
      if (Date.now() > deadline) assert.fail('the first announcement was never written');

    // A replica starts: its first read (of relay-1 alone) is answered only after the second relay is
    // announced and its notice read again.
    const gate = new StoreGate();
    const reader = testKind(project);
    await replica([reader.kind], store.withPlugin(gate));
    await gate.held;
    announcer.hold(['relay-1', 'relay-2']);
    await delay(300);
    gate.release();
    await until(() => reader.seen.length >= 2, 'the read after the notice');
    await delay(300);
    assert.deepEqual(reader.seen.at(-1), ['relay-1', 'relay-2'], JSON.stringify(reader.seen));
  });

  it('a publication that failed is made again, and a read that failed too', async () => {
    const project = 'pfailing';
    const [readerGate, announcerGate] = [new StoreGate(), new StoreGate()];
    readerGate.release();
    const reader = testKind(project);
    const announcer = testKind(project);
    await replica([reader.kind], store.withPlugin(readerGate));
    await replica([announcer.kind], store.withPlugin(announcerGate));
    announcerGate.failWrites = true;
    readerGate.failReads = true;
    announcer.hold(['relay-3']);
    await delay(300);
    announcerGate.failWrites = false;
    await delay(700);
    assert.equal(reader.seen.filter((bodies) => bodies.includes('relay-3')).length, 0, 'the reads failed');
    readerGate.failReads = false;
    await until(() => reader.seen.at(-1)?.includes('relay-3') === true, 'the read made again', 6000);
  });
});
