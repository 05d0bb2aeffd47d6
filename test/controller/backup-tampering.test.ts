import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { portal } from '../support/processes.ts';
import { startProject, type ProjectProcesses } from '../support/project-processes.ts';

/** Where each entry's content starts in a tar archive, by name. */
function contentOffsets(archive: Buffer): Map<string, { offset: number; size: number }> {
  const found = new Map<string, { offset: number; size: number }>();
  let offset = 0;
  while (offset + 512 <= archive.length && !archive.subarray(offset, offset + 512).every((byte) => byte === 0)) {
    const name = archive
      .subarray(offset, offset + 100)
      .toString('latin1')
      .replace(/\0.*$/s, '');
    const size = Number.parseInt(archive.subarray(offset + 124, offset + 136).toString('latin1'), 8);
    found.set(name, { offset: offset + 512, size });
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return found;
}

describe('portal controller restore: a backup changed by whoever can write where it is kept', function () {
  this.timeout(120_000);
  let project: ProjectProcesses;
  let backup: string;
  let archive: Buffer;
  const controllerHome = () => join(project.dir, 'controller-home');
  let attempt = 0;

  before(async () => {
    project = await startProject();
    backup = join(project.dir, 'controller.tar');
    const run = await portal(controllerHome(), [
      'controller',
      'backup',
      '--data-dir',
      project.controller.dataDir,
      '--output',
      backup,
    ]);
    assert.equal(run.code, 0, run.stderr);
    archive = await readFile(backup);
    await project.controller.process.stop();
  });

  after(async () => {
    await project?.close();
  });

  /** Restores `file` into a new directory under restores/: the result, the directory, what its parent holds. */
  async function restore(file: string, flags: string[] = []) {
    const parent = join(project.dir, 'restores', String(++attempt));
    await mkdir(parent, { recursive: true });
    const dataDir = join(parent, 'controller');
    const run = await portal(controllerHome(), [
      'controller',
      'restore',
      '--input',
      file,
      '--data-dir',
      dataDir,
      ...flags,
    ]);
    return { run, dataDir, left: await readdir(parent) };
  }

  const tampered = (file: string) =>
    new RegExp(
      `^portal: ${file} was changed after it was written: it fails its authentication under the sealing key ` +
        `\\S+, so nothing was restored; restore another backup, and find out who could write where this one ` +
        `was kept\\n$`,
    );

  it('refuses the issue attack: an administrator ticket with a chosen secret inserted into the store', async () => {
    const unpacked = join(project.dir, 'unpacked');
    await mkdir(unpacked);
    assert.equal(spawnSync('tar', ['-xf', backup, '-C', unpacked]).status, 0);
    const database = new Database(join(unpacked, 'controller.db'));
    const projectId = (database.prepare('SELECT id FROM projects').get() as { id: string }).id;
    database
      .prepare(
        'INSERT INTO tickets (id, project_id, secret_hash, attribute, relay, tls, relay_node, attributes, ' +
          'expires_at, uses_left, created_at, issued_by, admin, cancelled_at) ' +
          "VALUES ('t-forged', ?, ?, '', NULL, 0, 0, NULL, ?, 1, ?, NULL, 1, NULL)",
      )
      .run(projectId, createHash('sha256').update('chosen-secret').digest('hex'), Date.now() + 3_600_000, Date.now());
    database.close();
    const forged = join(project.dir, 'forged.tar');
    const names = ['backup.mac', 'backup.json', 'controller.db', 'tls.crt', 'tls.key.sealed'];
    const packed = spawnSync('tar', ['--format=ustar', '-cf', forged, '-C', unpacked, ...names]);
    assert.equal(packed.status, 0, packed.stderr.toString());
    const { run, dataDir, left } = await restore(forged);
    assert.deepEqual([run.code, run.stdout], [2, '']);
    assert.match(run.stderr, tampered(forged));
    assert.equal(existsSync(dataDir), false, 'no data directory');
    assert.deepEqual(left, [], 'nothing left beside it either');

    // The same forgery without the tag, claiming to be a backup of the earlier, unauthenticated format.
    const manifest = JSON.parse(await readFile(join(unpacked, 'backup.json'), 'utf8')) as Record<string, unknown>;
    await writeFile(join(unpacked, 'backup.json'), JSON.stringify({ ...manifest, version: 1 }));
    const stripped = join(project.dir, 'stripped.tar');
    assert.equal(spawnSync('tar', ['--format=ustar', '-cf', stripped, '-C', unpacked, ...names.slice(1)]).status, 0);
    const old = await restore(stripped);
    assert.deepEqual([old.run.code, old.run.stdout], [2, '']);
    assert.match(
      old.run.stderr,
      new RegExp(
        `^portal: ${stripped} carries no authentication: it was written by an earlier Portal, or stripped of it, ` +
          'and nothing proves that it is unchanged; restore a backup this Portal wrote; only if you know that no ' +
          'one else could write where this one was kept, pass --accept-unauthenticated\\n$',
      ),
    );
    assert.equal(existsSync(old.dataDir), false);
  });

  it('refuses a backup with one byte of any one of its files flipped, and writes nothing', async () => {
    const offsets = contentOffsets(archive);
    assert.deepEqual(
      [...offsets.keys()],
      ['backup.mac', 'backup.json', 'controller.db', 'tls.crt', 'tls.key.sealed'],
      'the files of a backup',
    );
    for (const [name, { offset, size }] of offsets) {
      // backup.mac: a digit of its tag; any other file: a byte in its middle.
      const at = name === 'backup.mac' ? offset + size - 2 : offset + Math.floor(size / 2);
      const changed = Buffer.from(archive);
      changed[at] = name === 'backup.mac' ? (changed[at] === 0x30 ? 0x31 : 0x30) : (changed[at] as number) ^ 0x01;
      const file = join(project.dir, `flipped-${name}.tar`);
      await writeFile(file, changed);
      const { run, dataDir, left } = await restore(file);
      assert.deepEqual([run.code, run.stdout], [2, ''], name);
      assert.match(run.stderr, tampered(file), name);
      assert.equal(existsSync(dataDir), false, name);
      assert.deepEqual(left, [], name);
    }
  });

  it('refuses another sealing key and a missing one in one line; the archive as written restores', async () => {
    const otherKey = join(project.dir, 'other-seal.key');
    await writeFile(otherKey, `${'k'.repeat(44)}\n`, { mode: 0o600 });
    const wrong = await restore(backup, ['--sealing-key-file', otherKey]);
    assert.deepEqual([wrong.run.code, wrong.run.stdout], [2, '']);
    assert.equal(
      wrong.run.stderr,
      `portal: ${backup} was authenticated under another sealing key than ${otherKey}; give the key the ` +
        'controller that wrote the backup ran with (or the backup was changed)\n',
    );
    assert.equal(existsSync(wrong.dataDir), false);
    const missingKey = join(project.dir, 'no-such.key');
    const missing = await restore(backup, ['--sealing-key-file', missingKey]);
    assert.deepEqual([missing.run.code, missing.run.stdout], [2, '']);
    assert.match(missing.run.stderr, new RegExp(`^portal: the sealing key ${missingKey} does not exist, .*\\n$`));
    assert.equal(existsSync(missing.dataDir), false);

    const whole = await restore(backup);
    assert.equal(whole.run.code, 0, whole.run.stderr);
    assert.deepEqual((await readdir(whole.dataDir)).sort(), ['controller.db', 'tls.crt', 'tls.key.sealed']);
  });
});
