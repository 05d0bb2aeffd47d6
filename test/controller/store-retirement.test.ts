/**
 * How a SQLite store is held by its controller and retired once moved to PostgreSQL (store-holder.ts,
 * moved-marker.ts, controller-store.ts), in this process: the files, what they say, and what a
 * controller does with them. The moves themselves, with real processes: migrate-store-retire.test.ts.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startController } from '../../src/controller/controller.ts';
import { openControllerStore } from '../../src/controller/store/controller-store.ts';
import { movedMarkerFile, readMovedMarker, writeMovedMarker } from '../../src/controller/store/moved-marker.ts';
import { holderFile, holderRuns, holdStore, liveHolder } from '../../src/controller/store/store-holder.ts';
import { PortalError } from '../../src/shared/errors.ts';
import { processStart } from '../../src/shared/process-state.ts';

const marker = {
  to: 'postgres://portal@db.example.net:5432/portal',
  movedAt: '2030-01-02T03:04:05.000Z',
  fingerprint: 'ab:cd',
};

describe('controller store: held while a controller runs, retired once moved', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portal-store-retirement-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('writes the moved marker whole, reads it back, and takes one it cannot read for a move all the same', async () => {
    const store = join(dir, 'marked.db');
    assert.equal(await readMovedMarker(store), undefined);
    assert.equal(await writeMovedMarker(store, marker), movedMarkerFile(store));
    assert.deepEqual(JSON.parse(await readFile(`${store}.moved`, 'utf8')), marker);
    assert.equal(existsSync(`${store}.moved.tmp`), false);
    assert.deepEqual(await readMovedMarker(store), marker);
    await writeFile(`${store}.moved`, '{"to": 1');
    assert.deepEqual(await readMovedMarker(store), { to: 'unknown', movedAt: 'unknown', fingerprint: 'unknown' });
  });

  it('holds a SQLite store while a controller has it open, and lets go of it when closed', async () => {
    const store = join(dir, 'held.db');
    const opened = await openControllerStore(`sqlite:${store}`);
    try {
      const holder = await liveHolder(store);
      assert.equal(holder?.pid, process.pid);
      assert.equal(holder?.processStart, processStart(process.pid));
    } finally {
      await opened.close();
    }
    assert.equal(existsSync(holderFile(store)), false);
    assert.equal(await liveHolder(store), undefined);
  });

  it('refuses to open a SQLite store that another running controller holds, naming its process', async () => {
    const store = join(dir, 'taken.db');
    // The process that started this one runs, and is not this one: a controller of its own, as far as the file says.
    const other = { pid: process.ppid, processStart: processStart(process.ppid), startedAt: 'then', token: 'x' };
    await writeFile(holderFile(store), JSON.stringify(other));
    await assert.rejects(openControllerStore(`sqlite:${store}`), (error: unknown) => {
      assert.ok(error instanceof PortalError, String(error));
      assert.deepEqual([error.code, error.exitCode], ['STORE_IN_USE', 2]);
      assert.equal(
        error.message,
        `another controller runs on the store ${store} (process ${process.ppid}, since then)`,
      );
      return true;
    });
    assert.equal(existsSync(store), false, 'nothing was opened');
  });

  it('claims the holder file exclusively: taken over from a process gone, refused while another holds it', async () => {
    const store = join(dir, 'claimed.db');
    await writeFile(holderFile(store), JSON.stringify({ pid: 2 ** 31 - 1, startedAt: 'then', token: 'gone' }));
    const hold = await holdStore(store);
    assert.equal((await liveHolder(store))?.pid, process.pid, 'a holder that is gone is taken over');
    await hold.release();
    const other = { pid: process.ppid, processStart: processStart(process.ppid), startedAt: 'then', token: 'x' };
    await writeFile(holderFile(store), JSON.stringify(other));
    await assert.rejects(holdStore(store), (error: unknown) => {
      assert.ok(error instanceof PortalError, String(error));
      assert.equal(error.code, 'STORE_IN_USE');
      return true;
    });
    assert.equal((await liveHolder(store))?.token, 'x', 'the live holder is left alone');
  });

  it('takes a holder file of a process that is gone, or of a pid used again since, for no holder', async () => {
    assert.equal(holderRuns({ pid: process.pid }), true);
    // Above every pid_max: no such process.
    assert.equal(holderRuns({ pid: 2 ** 31 - 1 }), false);
    if (processStart(process.pid) !== undefined)
      assert.equal(holderRuns({ pid: process.pid, processStart: 'another start' }), false);
    const store = join(dir, 'stale.db');
    await writeFile(holderFile(store), JSON.stringify({ pid: 2 ** 31 - 1, startedAt: 'then', token: 'x' }));
    assert.equal(await liveHolder(store), undefined);
    await writeFile(holderFile(store), 'not JSON');
    assert.equal(await liveHolder(store), undefined);
  });

  it('refuses to start a controller on a moved SQLite store, in one line naming where it moved', async () => {
    const dataDir = join(dir, 'moved-controller');
    const store = join(dataDir, 'controller.db');
    const sealingKey = { kind: 'material', name: 'the test', material: randomBytes(32).toString('hex') } as const;
    await (await startController({ dataDir, sealingKey })).close();
    await writeMovedMarker(store, marker);
    await assert.rejects(startController({ dataDir, sealingKey }), (error: unknown) => {
      assert.ok(error instanceof PortalError, String(error));
      assert.deepEqual([error.code, error.exitCode], ['STORE_MOVED', 2]);
      assert.equal(
        `${error.message}; ${error.hint}`,
        `the SQLite store ${store} moved to ${marker.to} on ${marker.movedAt} (portal controller migrate-store); ` +
          `start the controller replicas with --store ${marker.to}; ` +
          `to go back to this store on purpose, remove ${store}.moved`,
      );
      return true;
    });
    assert.equal(existsSync(holderFile(store)), false);
  });
});
