import assert from 'node:assert/strict';
import { readTar, writeTar } from '../../src/controller/backup-archive.ts';
import { InputError } from '../../src/shared/errors.ts';

const names = new Set(['backup.json', 'controller.db', 'tls.crt']);
const entries = [
  { name: 'backup.json', mode: 0o600, content: Buffer.from('{"format":"portal-controller-backup"}\n') },
  { name: 'controller.db', mode: 0o600, content: Buffer.alloc(1500, 7) },
  { name: 'tls.crt', mode: 0o644, content: Buffer.alloc(0) },
];

describe('the backup archive (ustar)', () => {
  it('reads back what it wrote: names, modes, contents, in 512-byte blocks ending in two zero blocks', () => {
    const archive = writeTar(entries);
    assert.equal(archive.length % 512, 0);
    assert.ok(archive.subarray(-1024).every((byte) => byte === 0));
    assert.deepEqual([...readTar(archive, names, 'b.tar').values()], entries);
  });

  it('refuses what it never writes: an unexpected name, a damaged header, a cut archive, a name twice', () => {
    const archive = writeTar(entries);
    const refused = (bytes: Buffer, expected = names) =>
      assert.throws(
        () => readTar(bytes, expected, 'b.tar'),
        (error: unknown) =>
          error instanceof InputError &&
          error.code === 'BACKUP_INVALID' &&
          error.message.startsWith('b.tar is not a Portal controller backup: '),
      );
    refused(archive, new Set(['backup.json', 'tls.crt']));
    const damaged = Buffer.from(archive);
    damaged[10] = 0x41;
    refused(damaged);
    refused(archive.subarray(0, 1024));
    refused(archive.subarray(0, archive.length - 1024));
    refused(writeTar([entries[0]!, entries[0]!]));
    refused(Buffer.alloc(1024, 1));
  });
});
