import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../support/usecases.ts';

const script = join(projectRoot, 'scripts/patch-postgres-driver.mjs');

/** The part of the driver's index.js that the script guards. */
const indexLike = ['    sql.release = () => {', '      c.reserved = null', '      onopen(c)', '    }'].join('\n');

/**
 * A driver folder holding `text` as both of its connection.js files and `index` as both index.js files;
 * the script run in it.
 */
async function runOn(text: string, index = indexLike) {
  const dir = await mkdtemp(join(tmpdir(), 'portal-driver-'));
  for (const folder of ['src', 'cjs/src']) {
    await mkdir(join(dir, 'node_modules/postgres', folder), { recursive: true });
    await writeFile(join(dir, 'node_modules/postgres', folder, 'connection.js'), text);
    await writeFile(join(dir, 'node_modules/postgres', folder, 'index.js'), index);
  }
  const run = spawnSync(process.execPath, [script], { cwd: dir, encoding: 'utf8' });
  const patched = await readFile(join(dir, 'node_modules/postgres/src/connection.js'), 'utf8');
  const patchedIndex = await readFile(join(dir, 'node_modules/postgres/cjs/src/index.js'), 'utf8');
  await rm(dir, { recursive: true, force: true });
  return { code: run.status, stderr: run.stderr, patched, patchedIndex };
}

describe('scripts: the PostgreSQL driver guarded at install', () => {
  const driverLike = [
    '  function nextWrite(fn) {',
    '    const x = socket.write(chunk, fn)',
    '  }',
    '  function terminate() {',
    '    clearImmediate(nextWriteTimer)',
    '  }',
    '  function closed() {',
    '    clearImmediate(nextWriteTimer)',
    '  }',
    '  function ReadyForQuery(x) {',
    '      if (needsTypes) {',
    '        return fetchArrayTypes()',
    '      }',
    '  }',
  ].join('\n');

  it('guards the batched write, both teardowns, the type fetch and the release, once however often', async () => {
    const { code, patched, patchedIndex } = await runOn(driverLike);
    assert.equal(code, 0);
    assert.match(patched, /if \(!socket\) return/);
    assert.equal(patched.split('nextWriteTimer = chunk = null').length - 1, 2);
    assert.match(patched, /return fetchArrayTypes\(\)\.catch\(\(\) => undefined\)/);
    assert.match(
      patchedIndex,
      /sql\.release = \(\) => \{\n {6}if \(c\.queue !== reserved && c\.queue !== full\) return/,
    );
    const again = await runOn(patched, patchedIndex);
    assert.equal(again.code, 0);
    assert.equal(again.patched, patched, 'a second run changes nothing');
    assert.equal(again.patchedIndex, patchedIndex, 'nor in index.js');
  });

  it('adds a guard that a driver guarded by an earlier version of the script lacks', async () => {
    const earlier = driverLike
      .replace(
        '    const x = socket.write',
        '    if (!socket) return (chunk = nextWriteTimer = null, false) /* portal: guarded */\n' +
          '    const x = socket.write',
      )
      .replaceAll(
        '    clearImmediate(nextWriteTimer)\n',
        '    clearImmediate(nextWriteTimer), nextWriteTimer = chunk = null /* portal: guarded */\n',
      );
    const { code, patched } = await runOn(earlier);
    assert.equal(code, 0);
    assert.match(patched, /return fetchArrayTypes\(\)\.catch/);
    assert.equal(patched.split('if (!socket) return').length - 1, 1, 'the earlier guards are not added twice');
  });

  it('fails the install on a driver whose code it does not know, and says what to check', async () => {
    const { code, stderr } = await runOn(driverLike.replace('const x = socket.write', 'const y = socket.write'));
    assert.equal(code, 1);
    assert.match(stderr, /^patch-postgres-driver: \S+connection\.js has 0 of the 1 places of the batched write/);
  });

  it('has guarded the driver this checkout installed', async () => {
    const guards = async (file: string) =>
      (await readFile(join(projectRoot, 'node_modules/postgres', file), 'utf8')).split('/* portal: guarded */').length -
      1;
    assert.equal(await guards('src/connection.js'), 4, 'npm ci ran scripts/patch-postgres-driver.mjs');
    assert.equal(await guards('src/index.js'), 1, 'and guarded the release of a reserved connection');
  });
});
