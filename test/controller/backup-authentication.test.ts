import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { readTar, writeTar } from '../../src/controller/backup-archive.ts';
import { authenticatedTar, authenticationEntry, verifyArchive } from '../../src/controller/backup-authentication.ts';
import { subkeyOf } from '../../src/pki/seal.ts';

const sealingKey = randomBytes(32);
const entries = [
  { name: 'backup.json', mode: 0o600, content: Buffer.from('{"format":"portal-controller-backup","version":2}\n') },
  { name: 'controller.db', mode: 0o600, content: randomBytes(1500) },
  { name: 'tls.crt', mode: 0o644, content: Buffer.from('-----BEGIN CERTIFICATE-----\n') },
  { name: 'tls.key.sealed', mode: 0o600, content: randomBytes(120) },
];
const names = new Set([authenticationEntry, ...entries.map((entry) => entry.name)]);

describe('the backup authentication (HMAC-SHA256 over every byte, under a subkey of the sealing key)', () => {
  const archive = authenticatedTar(entries, sealingKey);

  it('is a tar archive whose first entry is the tag, and whose other entries are what was written', () => {
    const read = readTar(archive, names, 'b.tar');
    assert.deepEqual([...read.keys()], [authenticationEntry, ...entries.map((entry) => entry.name)]);
    assert.deepEqual([...read.values()].slice(1), entries);
    assert.match(
      read.get(authenticationEntry)!.content.toString(),
      /^portal-backup-mac\/1 [0-9a-f]{16} [0-9a-f]{64}\n$/,
    );
    assert.equal(verifyArchive(archive, sealingKey), 'authentic');
  });

  it('tells a change of any one byte of the file, headers, padding and end blocks included', () => {
    const changedAt: number[] = [];
    for (let offset = 0; offset < archive.length; offset += 1) {
      const changed = Buffer.from(archive);
      changed[offset] = (changed[offset] as number) ^ 0x01;
      if (verifyArchive(changed, sealingKey) === 'authentic') changedAt.push(offset);
    }
    assert.deepEqual(changedAt, [], 'no byte changes unseen');
    assert.equal(verifyArchive(Buffer.concat([archive, Buffer.alloc(512)]), sealingKey), 'changed', 'appended');
    assert.equal(verifyArchive(archive.subarray(0, archive.length - 512), sealingKey), 'changed', 'cut');
  });

  it('tells another key, an archive with no tag, and is never keyed by the sealing key itself', () => {
    assert.equal(verifyArchive(archive, randomBytes(32)), 'wrong-key');
    assert.equal(verifyArchive(writeTar(entries), sealingKey), 'unauthenticated');
    // The tag is not an HMAC under the sealing key itself, nor under a subkey of another use.
    const line = archive.subarray(512, 1024).toString('latin1');
    const tagAt = 512 + line.lastIndexOf(' ') + 1;
    const blanked = Buffer.from(archive);
    blanked.fill('0', tagAt, tagAt + 64, 'latin1');
    for (const key of [sealingKey, subkeyOf(sealingKey, 'portal/sealing-key/id')]) {
      const keyed = Buffer.from(blanked);
      keyed.write(createHmac('sha256', key).update(blanked).digest('hex'), tagAt, 'latin1');
      assert.equal(verifyArchive(keyed, sealingKey), 'changed');
    }
    assert.equal(verifyArchive(blanked, sealingKey), 'changed');
  });
});
