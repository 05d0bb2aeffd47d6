import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../../src/node/logger.ts';
import { RevocationList, revocationMaxAgeMs } from '../../src/node/revocation-list.ts';
import { PortalError } from '../../src/shared/errors.ts';

const quiet = createLogger({ enabled: false });
const minute = 60_000;

describe('node: the list of revoked members', () => {
  let dir: string;
  let clock: number;
  const now = () => clock;
  const listIn = (file: string, maxAgeMs?: number) =>
    new RevocationList({ file, logger: quiet, now, ...(maxAgeMs === undefined ? {} : { maxAgeMs }) });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portal-revoked-'));
    clock = 1_000_000_000_000;
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('announces each newly revoked member once, and keeps the list on disk for the next start', async () => {
    const file = join(dir, 'revoked.json');
    const list = listIn(file);
    const announced: string[] = [];
    list.on('revoked', (nodeId: string) => announced.push(nodeId));
    list.replace([{ nodeId: 'n0000000000000001', until: clock + 60 * minute }]);
    list.add([
      { nodeId: 'n0000000000000001', until: clock + 60 * minute },
      { nodeId: 'n0000000000000002', until: clock + 30 * minute },
    ]);
    assert.deepEqual(announced, ['n0000000000000001', 'n0000000000000002']);
    await list.flushed();
    assert.equal((await stat(file)).mode & 0o777, 0o600);

    const restarted = listIn(file);
    await restarted.restore();
    assert.equal(restarted.refusal('n0000000000000002'), 'revoked');
    assert.equal(restarted.refusal('n0000000000000003'), undefined);
    // Past the member's last certificate, the entry is of no use: forgotten.
    clock += 45 * minute;
    assert.equal(restarted.has('n0000000000000002'), false);
    assert.equal(restarted.has('n0000000000000001'), true);
  });

  it('with a maximum age, refuses every peer once the controller has been away longer', async () => {
    const file = join(dir, 'revoked.json');
    const list = listIn(file, 5 * minute);
    assert.equal(list.refusal('n0000000000000009'), 'stale', 'never current: nothing is accepted');
    list.replace([]);
    clock += 60 * minute;
    assert.equal(list.ageMs(), 0, 'current while the controller is connected');
    assert.equal(list.refusal('n0000000000000009'), undefined);
    list.lost();
    clock += 5 * minute;
    assert.equal(list.refusal('n0000000000000009'), undefined, 'at the bound, still accepted');
    clock += 1;
    assert.equal(list.refusal('n0000000000000009'), 'stale');
    await list.flushed();
    // A restart does not make an old list new.
    const restarted = listIn(file, 5 * minute);
    await restarted.restore();
    assert.equal(restarted.refusal('n0000000000000009'), 'stale');
    restarted.replace([]);
    assert.equal(restarted.refusal('n0000000000000009'), undefined);
  });

  it('reads a damaged file as an empty list never made current, and refuses odd entries', async () => {
    const file = join(dir, 'revoked.json');
    await writeFile(file, '{"currentAt": 5, "revoked": [{"nodeId": "../x", "until": 9e99}, 7]}');
    const list = listIn(file);
    await list.restore();
    assert.deepEqual(list.revoked(), []);
    await writeFile(file, 'not json');
    await listIn(file).restore();
    list.add([{ nodeId: 'n000000000000000a', until: clock - 1 }]);
    assert.deepEqual(list.revoked(), [], 'an entry past its date is not taken');
    await list.flushed();
    assert.match(await readFile(file, 'utf8'), /"revoked":\[\]/);
  });

  it('holds a new peer while the list is fetched, and judges it by the list that arrived', async () => {
    const list = new RevocationList({ file: join(dir, 'held.json'), logger: quiet, now, waitMs: 60_000 });
    await list.ready(); // Nothing fetched: no wait.
    list.fetchStarted();
    let judged: string | undefined | null = null;
    const peer = list.ready().then(() => {
      judged = list.refusal('n0000000000000009');
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(judged, null, 'still waiting for the list');
    list.replace([{ nodeId: 'n0000000000000009', until: clock + minute }]);
    await peer;
    assert.equal(judged, 'revoked', 'revoked while this node was away: refused from the first peer on');
    await list.flushed();
  });

  it('stops holding peers when the fetch fails or the wait runs out; the kept list decides', async () => {
    const failing = new RevocationList({ file: join(dir, 'failed.json'), logger: quiet, now, waitMs: 60_000 });
    failing.fetchStarted();
    const released = failing.ready();
    failing.fetchFailed();
    await released;
    const slow = new RevocationList({ file: join(dir, 'slow.json'), logger: quiet, now, waitMs: 20 });
    slow.fetchStarted();
    const started = Date.now();
    await slow.ready();
    assert.ok(Date.now() - started < 5_000);
    assert.equal(slow.refusal('n0000000000000009'), undefined);
  });

  it('reads revocation-max-age as a duration within its range', () => {
    assert.equal(revocationMaxAgeMs('5m'), 5 * minute);
    assert.throws(
      () => revocationMaxAgeMs('500ms', '--revocation-max-age'),
      (error: unknown) =>
        error instanceof PortalError && error.code === 'BAD_FLAG' && /--revocation-max-age/.test(error.message),
    );
  });
});
