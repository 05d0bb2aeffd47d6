import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditTrail, type AuditEntry } from '../../src/controller/audit-trail.ts';
import { openStore, type Store } from '../../src/controller/store/open.ts';
import { canonicalJson, recordHash } from '../../src/shared/audit-chain.ts';
import { auditPublicKey, auditSignerOf } from '../../src/shared/audit-signature.ts';
import { describeBreak, parseCheckpoint, TrailCheck, type AuditCheckpoint } from '../../src/shared/audit-verify.ts';
import { auditLimits, type AuditRecordWire } from '../../src/wire/protocol/audit.ts';

const sealingKey = randomBytes(32);
const signer = auditSignerOf(sealingKey);
const key = auditPublicKey(signer.publicKey)!;
const everything = { afterSeq: 0, limit: auditLimits.pageRecords, since: 0 };

const entry = (n: number, details: Record<string, string | number> = {}): AuditEntry => ({
  event: 'session',
  seenBy: 'n-inlet',
  reportId: `r-${String(n).padStart(12, '0')}`,
  time: 1_700_000_000_000 + n,
  members: ['n-inlet', 'n-outlet'],
  details: { n, ...details },
});

/** `record` with its content changed and its hash made again, as someone without the key would. */
const rehashed = (record: AuditRecordWire, change: Partial<AuditRecordWire>): AuditRecordWire => {
  const changed = { ...record, ...change };
  return { ...changed, hash: recordHash(changed) };
};

/** `records` from `from` on rewritten as a chain again (each prev the hash before), signatures kept. */
const relinked = (records: readonly AuditRecordWire[]): AuditRecordWire[] => {
  const out: AuditRecordWire[] = [];
  for (const record of records) out.push(out.length === 0 ? record : rehashed(record, { prev: out.at(-1)!.hash }));
  return out;
};

describe('audit trail: signatures, stored text, checkpoints and restores', () => {
  let work: string;
  let store: Store;
  let trail: AuditTrail;
  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'portal-audit-verify-'));
  });
  beforeEach(async () => {
    store = await openStore(`sqlite:${join(work, `controller-${Math.random()}.db`)}`);
    trail = new AuditTrail(store, { signer });
  });
  afterEach(() => store.destroy());
  after(() => rm(work, { recursive: true, force: true }));

  const all = async () => (await trail.query('p1', everything)).records;

  it('derives the trail key from the sealing key alone, and signs the last record of each append', async () => {
    assert.equal(auditSignerOf(Buffer.from(sealingKey)).publicKey, signer.publicKey);
    assert.notEqual(auditSignerOf(randomBytes(32)).publicKey, signer.publicKey);
    await trail.append('p1', [entry(1), entry(2), entry(3)]);
    await trail.record('p1', 'renewed', ['n-inlet']);
    const records = await all();
    assert.deepEqual(
      records.map((record) => [record.seq, record.encoding, record.signature !== null]),
      [
        [1, 2, false],
        [2, 2, false],
        [3, 2, true],
        [4, 2, true],
      ],
    );
    const check = new TrailCheck({ key });
    assert.equal(check.page(records), undefined);
    assert.equal(check.finish(4), undefined);
    assert.equal(check.signedFrom, 1);
    assert.equal((await trail.query('p1', everything)).key, signer.publicKey);
  });

  it('names the records rewritten by someone without the key, though every hash and link holds', async () => {
    await trail.append('p1', [entry(1), entry(2), entry(3)]);
    await trail.append('p1', [entry(4), entry(5)]);
    const records = await all();
    const rewritten = relinked([
      records[0]!,
      ...records.slice(1).map((r) => (r.seq === 2 ? rehashed(r, { details: '{"n":22}' }) : r)),
    ]);
    assert.equal(new TrailCheck().page(rewritten), undefined, 'the chain alone holds');
    const broken = new TrailCheck({ key }).page(rewritten);
    assert.deepEqual(broken, { kind: 'signature', seq: 3, after: 0 });
    // Only from record 4 on: record 3's signature still holds, record 5's does not.
    const later = relinked([
      ...records.slice(0, 3),
      ...records.slice(3).map((r) => (r.seq === 4 ? rehashed(r, { details: '{"n":44}' }) : r)),
    ]);
    const named = new TrailCheck({ key }).page(later);
    assert.deepEqual(named, { kind: 'signature', seq: 5, after: 3 });
    assert.match(describeBreak(named), /record 5 was rewritten, or one after record 3/);
  });

  it('names a tail cut inside an append, and an unsigned record after signed ones', async () => {
    await trail.append('p1', [entry(1), entry(2), entry(3)]);
    const records = await all();
    const cut = new TrailCheck({ key });
    assert.equal(cut.page(records.slice(0, 2)), undefined);
    assert.deepEqual(cut.finish(2), { kind: 'cut', seq: 2 });
    assert.match(describeBreak({ kind: 'cut', seq: 2 }), /its tail was cut after record 2/);
    const downgraded = relinked([...records.slice(0, 2), rehashed(records[2]!, { encoding: 1, signature: null })]);
    assert.deepEqual(new TrailCheck({ key }).page(downgraded), { kind: 'encoding', seq: 3 });
  });

  it('hashes the stored text: a \\u escape fails the record, and the member filter still finds it', async () => {
    await trail.append('p1', [entry(1)]);
    const [record] = await all();
    const escaped = { ...record!, members: record!.members.replace('"n-outlet"', '"\\u006e-outlet"') };
    assert.deepEqual(JSON.parse(escaped.members), JSON.parse(record!.members));
    assert.deepEqual(new TrailCheck({ key }).page([escaped]), { kind: 'content', seq: 1 });
    await store.updateTable('audit_records').set({ members: escaped.members }).where('seq', '=', 1).execute();
    const found = await trail.query('p1', { ...everything, member: 'n-outlet' });
    assert.deepEqual(
      found.records.map((r) => r.seq),
      [1],
    );
  });

  it("accepts a signed restore's one gap, refuses a forged one, and tells a lost checkpoint", async () => {
    await trail.append('p1', [entry(1), entry(2)]);
    await trail.append('p1', [entry(3), entry(4)]);
    const records = await all();
    const backup = records[1]!;
    const previous = records[3]!;
    const restored = (sign: (hash: string) => string): AuditRecordWire => {
      const record = {
        project: 'p1',
        seq: previous.seq + 1,
        time: 1,
        recorded: 1,
        event: 'restored',
        seenBy: 'controller',
        reportId: 'restore-0001',
        members: '[]',
        details: canonicalJson({
          backupHead: { seq: backup.seq, hash: backup.hash },
          previousHead: { seq: previous.seq, hash: previous.hash },
        }),
        prev: backup.hash,
        encoding: 2,
      };
      const hash = recordHash(record);
      return { ...record, hash, signature: sign(hash) };
    };
    const checkpoint = (record: AuditRecordWire): AuditCheckpoint => ({
      portal: 'audit-checkpoint',
      project: 'p1',
      seq: record.seq,
      hash: record.hash,
      key: signer.publicKey,
      signature: record.signature!,
      record,
    });
    const trailAfter = [...records.slice(0, 2), restored(signer.sign)];
    const check = new TrailCheck({ key, checkpoint: checkpoint(previous) });
    assert.equal(check.page(trailAfter), undefined);
    assert.equal(check.finish(previous.seq + 1), undefined);
    assert.deepEqual(check.restores, [{ seq: 5, backupSeq: 2, previousSeq: 4 }]);
    assert.deepEqual(check.checkpointLostTo, { seq: 5, backupSeq: 2, previousSeq: 4 });
    const forged = [...records.slice(0, 2), restored(auditSignerOf(randomBytes(32)).sign)];
    assert.deepEqual(new TrailCheck({ key }).page(forged), { kind: 'gap', seq: 5, expected: 3 });
    // The same cut with no restore record: the checkpoint names it.
    const cut = new TrailCheck({ key, checkpoint: checkpoint(previous) });
    assert.equal(cut.page(records.slice(0, 2)), undefined);
    assert.deepEqual(cut.finish(2), { kind: 'checkpoint-cut', seq: 2, checkpoint: 4 });
    // A checkpoint is bound to its record: another seq is refused.
    assert.equal(typeof parseCheckpoint(JSON.stringify(checkpoint(previous))), 'object');
    assert.match(
      parseCheckpoint(JSON.stringify({ ...checkpoint(previous), seq: 3 })) as string,
      /signature does not hold/,
    );
  });

  it('bounds a page in bytes, and a member filter in rows read, saying where the next starts', async () => {
    const wide = 'x'.repeat(2000);
    const entries = Array.from({ length: 300 }, (_, n) => entry(n, { wide }));
    await trail.append('p1', entries);
    const page = await trail.query('p1', everything);
    const bytes = page.records.reduce((sum, record) => sum + Buffer.byteLength(JSON.stringify(record)), 0);
    assert.ok(bytes <= auditLimits.pageBytes, `${bytes} bytes`);
    assert.ok(page.records.length > 1 && page.records.length < 300);
    assert.equal(page.more, true);
    assert.equal(page.next, page.records.at(-1)!.seq);
    const rest = await trail.query('p1', { ...everything, afterSeq: page.next });
    assert.equal(rest.records[0]!.seq, page.next + 1);
    // A member no record names: each request reads at most scanRecords rows, and says so.
    const many = Array.from({ length: auditLimits.scanRecords + 10 }, (_, n) => ({
      ...entry(1000 + n),
      reportId: `m-${n}-${randomBytes(6).toString('hex')}`,
    }));
    for (let at = 0; at < many.length; at += 1000) await trail.append('p2', many.slice(at, at + 1000));
    const first = await trail.query('p2', { ...everything, member: 'n-nobody' });
    assert.deepEqual(
      { records: first.records.length, next: first.next, more: first.more },
      { records: 0, next: auditLimits.scanRecords, more: true },
    );
    const second = await trail.query('p2', { ...everything, member: 'n-nobody', afterSeq: first.next });
    assert.deepEqual({ next: second.next, more: second.more }, { next: many.length, more: false });
  });
});
