import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BoundedLogFile, rotateIfFull } from '../../src/shared/bounded-log.ts';

describe('bounded log files', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portal-log-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('moves the file to <file>.1 before a line would take it past the limit, so both stay under twice the limit', async () => {
    const path = join(dir, 'controller.log');
    const log = new BoundedLogFile(path, 100);
    const line = (n: number) => `line ${String(n).padStart(3, '0')} ${'x'.repeat(30)}\n`; // 40 bytes
    for (let n = 0; n < 7; n += 1) log.write(line(n));
    log.close();
    // 0 1 | 2 3 | 4 5 | 6: each third line starts a new file, and the one before the last is kept.
    assert.equal(await readFile(`${path}.1`, 'utf8'), line(4) + line(5));
    assert.equal(await readFile(path, 'utf8'), line(6));
    assert.equal((await stat(path)).mode & 0o777, 0o600);
  });

  it('appends to what is there, and rotates a full file before a new process writes to it', async () => {
    const path = join(dir, 'controller.log');
    await writeFile(path, 'earlier\n');
    rotateIfFull(path, 100);
    assert.equal(existsSync(`${path}.1`), false, 'not full: kept');
    const log = new BoundedLogFile(path, 100);
    log.write('later\n');
    log.close();
    assert.equal(await readFile(path, 'utf8'), 'earlier\nlater\n');
    rotateIfFull(path, 10);
    assert.equal(await readFile(`${path}.1`, 'utf8'), 'earlier\nlater\n');
    assert.equal(existsSync(path), false);
    rotateIfFull(join(dir, 'missing.log'));
  });
});
