import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { BoundedLogFile, redirectStandardError, rotateIfFull } from '../../src/shared/bounded-log.ts';

describe('bounded log files', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portal-log-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it(
    'moves the file to <file>.1 before a line would take it past the limit, ' + 'so both stay under twice the limit',
    async () => {
      const path = join(dir, 'controller.log');
      const log = new BoundedLogFile(path, 100);
      const line = (n: number) => `line ${String(n).padStart(3, '0')} ${'x'.repeat(30)}\n`; // 40 bytes
      for (let n = 0; n < 7; n += 1) log.write(line(n));
      log.close();
      // 0 1 | 2 3 | 4 5 | 6: each third line starts a new file, and the one before the last is kept.
      assert.equal(await readFile(`${path}.1`, 'utf8'), line(4) + line(5));
      assert.equal(await readFile(path, 'utf8'), line(6));
      assert.equal((await stat(path)).mode & 0o777, 0o600);
    },
  );

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

  it('starts a new file when the current one was removed, instead of failing to rotate it', async () => {
    const path = join(dir, 'controller.log');
    const log = new BoundedLogFile(path, 100);
    log.write(`${'a'.repeat(60)}\n`);
    await rm(path);
    log.write(`${'b'.repeat(60)}\n`);
    log.close();
    assert.equal(await readFile(path, 'utf8'), `${'b'.repeat(60)}\n`);
    assert.equal(existsSync(`${path}.1`), false);
  });

  it(
    'sends standard error to the file, and to the real standard error, once it says why, ' +
      'when the file refuses a write',
    async () => {
      const written: string[] = [];
      const stream = new Writable({
        write(chunk: Buffer, _encoding, done) {
          written.push(chunk.toString());
          done();
        },
      });
      const path = join(dir, 'controller.log');
      redirectStandardError(new BoundedLogFile(path), stream);
      stream.write('into the file\n');
      assert.equal(written.length, 0, 'nothing on the stream');
      assert.equal(await readFile(path, 'utf8'), 'into the file\n');

      // /dev/full refuses every write with ENOSPC, as a full disk does.
      const full = new Writable({
        write(chunk: Buffer, _encoding, done) {
          written.push(chunk.toString());
          done();
        },
      });
      redirectStandardError(new BoundedLogFile('/dev/full'), full);
      assert.doesNotThrow(() => full.write('first\n'));
      let called = false;
      full.write(Buffer.from('second\n'), () => (called = true));
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(written.length, 3, written.join(''));
      assert.match(
        written[0] ?? '',
        /^\S+ WARN cannot write the log file \/dev\/full \(ENOSPC\): logging to standard error from now on\n$/,
      );
      assert.deepEqual(written.slice(1), ['first\n', 'second\n']);
      assert.equal(called, true, 'the callback is called');
    },
  );
});
