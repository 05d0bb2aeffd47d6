import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { entriesOfReports } from '../../src/controller/audit-reports.ts';
import { AuditTrail, type AuditEntry } from '../../src/controller/audit-trail.ts';
import { openStore, type Store } from '../../src/controller/store/open.ts';
import { KeptSqlite } from '../../src/controller/store/sqlite.ts';
import type { PeerIdentity } from '../../src/pki/identity.ts';
import { canonicalJson, genesisHash, recordHash } from '../../src/shared/audit-chain.ts';
import {
  chainStart,
  describeBreak,
  TrailCheck,
  type ChainBreak,
  type ChainCursor,
} from '../../src/shared/audit-verify.ts';
import type { AuditRecordWire } from '../../src/wire/protocol/audit.ts';

/** The chain's check of one run of records, without signatures (this trail signs nothing). */
function checkChain(
  records: readonly AuditRecordWire[],
  from: ChainCursor,
): { readonly broken: ChainBreak } | { readonly cursor: ChainCursor } {
  const check = new TrailCheck({ from });
  const broken = check.page(records);
  return broken ? { broken } : { cursor: check.cursor };
}

const node: PeerIdentity = {
  projectId: 'p1',
  nodeId: 'n-inlet',
  attributes: ['a'],
  relays: [],
  admin: false,
  tls: false,
  relayNode: false,
};

const everything = { afterSeq: 0, limit: 200, since: 0 };

/** The reporter's project as the store would know it: the inlet and one outlet. */
const context = {
  peer: node,
  now: 1_700_000_100_000,
  members: new Map([
    ['n-inlet', { relayNode: false, revoked: false }],
    ['n-outlet', { relayNode: false, revoked: false }],
  ]),
};
/** A session record as the inlet reports it, with the id `id`. */
const sessionReport = (id: string) => ({
  id,
  event: 'session',
  time: 1_700_000_000_000,
  members: ['n-inlet', 'n-outlet'],
  details: JSON.stringify({
    portal: 'db',
    path: 'direct',
    relay: null,
    opened_at: '2023-11-14T22:13:19.000Z',
    duration_ms: 1000,
    bytes_from_client: 10,
    bytes_to_client: 20,
    ended: 'closed',
  }),
});
const written = (entries: readonly (AuditEntry | undefined)[]) =>
  entries.filter((entry): entry is AuditEntry => entry !== undefined);

describe('audit trail: an append-only hash chain per project', () => {
  let work: string;
  let store: Store;
  let trail: AuditTrail;
  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'portal-audit-'));
  });
  beforeEach(async () => {
    store = await openStore(`sqlite:${join(work, `controller-${Math.random()}.db`)}`);
    trail = new AuditTrail(store);
  });
  afterEach(() => store.destroy());
  after(() => rm(work, { recursive: true, force: true }));

  it('encodes canonically: sorted keys, no whitespace, finite numbers only', () => {
    assert.equal(
      canonicalJson({ b: 1, a: [true, null, 'x'], c: { z: 0, y: -1.5 } }),
      '{"a":[true,null,"x"],"b":1,"c":{"y":-1.5,"z":0}}',
    );
    assert.throws(() => canonicalJson({ n: Number.NaN }), /finite/);
  });

  it('chains each record to the one before, per project, from the genesis hash', async () => {
    await trail.record('p1', 'ticket-issued', ['a1'], { ticket: 't1', uses: 1 });
    await trail.record('p2', 'ticket-issued', ['a2'], { ticket: 't2', uses: 1 });
    await trail.record('p1', 'enrolled', ['n1'], { ticket: 't1' });
    const { records, head } = await trail.query('p1', everything);
    assert.equal(head, 2);
    assert.deepEqual(
      records.map((r) => [r.seq, r.event, r.seenBy]),
      [
        [1, 'ticket-issued', 'controller'],
        [2, 'enrolled', 'controller'],
      ],
    );
    assert.equal(records[0]?.prev, genesisHash);
    assert.equal(records[1]?.prev, records[0]?.hash);
    assert.deepEqual(checkChain(records, chainStart), { cursor: { seq: 2, hash: records[1]?.hash } });
    assert.equal((await trail.query('p2', everything)).records[0]?.prev, genesisHash);
  });

  it('writes records made at once in batches, as one chain, each counted for the first that asked', async () => {
    const report = sessionReport('r-batch-000001');
    const sent = written(entriesOfReports(context, [report]));
    let transactions = 0;
    const counting = new AuditTrail(store, { onWritten: () => (transactions += 1) });
    const results = await Promise.all([
      ...Array.from({ length: 30 }, (_, index) => counting.record('p1', 'enrolled', [`n${index}`], { ticket: 't' })),
      counting.append('p1', sent),
      counting.append('p1', sent),
    ]);
    const [twice, again] = results.slice(-2);
    assert.deepEqual([twice, again], [1, 0], 'the report written once, counted for the first append');
    const { records } = await counting.query('p1', everything);
    assert.equal(records.length, 31);
    assert.deepEqual(checkChain(records, chainStart), { cursor: { seq: 31, hash: records.at(-1)?.hash } });
    assert.ok(transactions < 10, `${transactions} transactions for 31 records`);
  });

  it('writes a reported record once however often it is sent, with the reporter as its witness', async () => {
    const report = sessionReport('r-0123456789');
    const entries = written(entriesOfReports(context, [report, { ...report, id: 'r-other-01234' }]));
    assert.equal(await trail.append('p1', entries), 2);
    assert.equal(await trail.append('p1', written(entriesOfReports(context, [report]))), 0);
    const { records } = await trail.query('p1', everything);
    assert.deepEqual(
      records.map((r) => [r.reportId, r.seenBy, r.time]),
      [
        ['r-0123456789', 'n-inlet', 1_700_000_000_000],
        ['r-other-01234', 'n-inlet', 1_700_000_000_000],
      ],
    );
  });

  it('leaves out reports a member may not make: controller kinds, nested details, bad ids', () => {
    const good = {
      id: 'r-0123456789',
      event: 'refused',
      time: 1,
      members: [],
      details: '{"count":1,"reason":"allow"}',
    };
    const kept = written(
      entriesOfReports(context, [
        good,
        { ...good, event: 'enrolled' },
        { ...good, details: '{"nested":{"a":1}}' },
        { ...good, details: '[1]' },
        { ...good, id: 'short' },
        { ...good, time: Number.NaN },
        { ...good, members: ['not an id'] },
      ]),
    );
    assert.equal(kept.length, 1);
  });

  it('counts refusals anyone may cause and records them once per window', async () => {
    for (let n = 0; n < 1000; n += 1) trail.tally('p1', 'ticket-refused', [], { ticket: 't1', reason: 'wrong-secret' });
    trail.tally('p1', 'ticket-refused', [], { ticket: 't1', reason: 'expired' });
    assert.deepEqual((await trail.query('p1', everything)).records, []);
    await trail.flushTallies();
    const { records } = await trail.query('p1', everything);
    assert.deepEqual(
      records.map((r) => {
        const { count, reason } = JSON.parse(r.details) as { count: number; reason: string };
        return [r.event, reason, count];
      }),
      [
        ['ticket-refused', 'wrong-secret', 1000],
        ['ticket-refused', 'expired', 1],
      ],
    );
  });

  it('filters by time, member and event, and pages after a seq', async () => {
    let now = 1000;
    trail = new AuditTrail(store, { now: () => now });
    await trail.record('p1', 'ticket-issued', ['a1']);
    now = 2000;
    await trail.record('p1', 'enrolled', ['n1']);
    now = 3000;
    await trail.record('p1', 'renewed', ['n2']);
    const seqs = async (query: Partial<typeof everything> & { member?: string; event?: string }) =>
      (await trail.query('p1', { ...everything, ...query })).records.map((r) => r.seq);
    assert.deepEqual(await seqs({ since: 2000 }), [2, 3]);
    assert.deepEqual(await seqs({ member: 'n1' }), [2]);
    assert.deepEqual(await seqs({ event: 'renewed' }), [3]);
    assert.deepEqual(await seqs({ afterSeq: 1, limit: 1 }), [2]);
  });

  it('finds a record edited in the store, one removed, and one whose hash was recomputed', async () => {
    for (let n = 1; n <= 4; n += 1) await trail.record('p1', 'renewed', [`n${n}`], { n });
    const path = join(work, 'tampered.db');
    await store.destroy();
    store = await openStore(`sqlite:${path}`);
    trail = new AuditTrail(store);
    for (let n = 1; n <= 4; n += 1) await trail.record('p1', 'renewed', [`n${n}`], { n });
    const records = (await trail.query('p1', everything)).records;
    const edited = records.map((r): AuditRecordWire => (r.seq === 3 ? { ...r, details: '{"n":33}' } : r));
    const broken = checkChain(edited, chainStart);
    assert.ok('broken' in broken);
    assert.deepEqual(broken.broken, { kind: 'content', seq: 3 });
    assert.match(describeBreak(broken.broken), /record 3 was changed/);
    // Edited with its hash made again: the next record's link gives it away.
    const rehashed = edited.map((r) => (r.seq === 3 ? { ...r, hash: recordHash(r) } : r));
    const relinked = checkChain(rehashed, chainStart);
    assert.ok('broken' in relinked);
    assert.deepEqual(relinked.broken, { kind: 'link', seq: 4 });
    const removed = checkChain(
      records.filter((r) => r.seq !== 2),
      chainStart,
    );
    assert.ok('broken' in removed && removed.broken.kind === 'gap' && removed.broken.expected === 2);
    // Directly in the SQLite file, as an intruder with the file would.
    const raw = await KeptSqlite.open(path);
    raw.run('UPDATE audit_records SET members = \'["n9"]\' WHERE seq = 2');
    raw.close();
    const after = (await trail.query('p1', everything)).records;
    const found = checkChain(after, chainStart);
    assert.ok('broken' in found);
    assert.deepEqual(found.broken, { kind: 'content', seq: 2 });
  });
});
