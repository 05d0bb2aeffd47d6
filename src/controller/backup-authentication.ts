/**
 * A backup's authentication: an HMAC-SHA256 over every byte of the archive, under a key derived from
 * the controller's sealing key (HKDF, its own label), so that whoever can write the backup's storage but
 * does not hold the sealing key cannot change it unseen, not even the parts that are not sealed (the
 * store's tickets, members and revocations, the certificate, the manifest).
 *
 * The tag is the content of the archive's first entry, `backup.mac`: one line naming the format, the
 * key (a short id, so a wrong key is told from a changed byte) and the tag. The tag covers the whole
 * file with its own 64 hex digits read as zeros: headers, padding, the end blocks and anything appended.
 * Pure: bytes in, bytes or a verdict out.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { keyIdOf, subkeyOf } from '../pki/seal.ts';
import { writeTar, type ArchiveEntry } from './backup-archive.ts';

/** The name of the entry that carries the tag, first in every authenticated archive. */
export const authenticationEntry = 'backup.mac';

/** The HKDF label of the backup key: the same sealing key gives another key to every other use. */
const backupKeyLabel = 'portal/backup-mac/v1';
const lineFormat = 'portal-backup-mac/1';
const tagHexLength = 64;
const keyIdHexLength = 16;
/** Where the tag's hex digits start: after the entry's 512-byte header, the format and the key id. */
const tagOffset = 512 + lineFormat.length + 1 + keyIdHexLength + 1;

const backupKeyOf = (sealingKey: Uint8Array) => subkeyOf(sealingKey, backupKeyLabel);
const keyIdHex = (backupKey: Uint8Array) => keyIdOf(backupKey).toString('hex').slice(0, keyIdHexLength);

function tagOf(backupKey: Uint8Array, archive: Buffer): Buffer {
  const blanked = Buffer.from(archive);
  blanked.fill('0', tagOffset, tagOffset + tagHexLength, 'latin1');
  return createHmac('sha256', backupKey).update(blanked).digest();
}

/** The archive of `entries`, authenticated under `sealingKey`: its first entry is the tag. */
export function authenticatedTar(entries: readonly ArchiveEntry[], sealingKey: Uint8Array, mtime?: Date): Buffer {
  const backupKey = backupKeyOf(sealingKey);
  const line = `${lineFormat} ${keyIdHex(backupKey)} ${'0'.repeat(tagHexLength)}\n`;
  const archive = writeTar(
    [{ name: authenticationEntry, mode: 0o600, content: Buffer.from(line, 'latin1') }, ...entries],
    mtime,
  );
  archive.write(tagOf(backupKey, archive).toString('hex'), tagOffset, 'latin1');
  return archive;
}

/**
 * Whether `archive` is what authenticatedTar wrote under `sealingKey`, byte for byte:
 * `unauthenticated` when it carries no tag (an archive of an earlier version, or one stripped of it),
 * `wrong-key` when another key wrote it, `changed` when any byte differs from what was written.
 */
export type ArchiveVerdict = 'authentic' | 'unauthenticated' | 'wrong-key' | 'changed';

export function verifyArchive(archive: Buffer, sealingKey: Uint8Array): ArchiveVerdict {
  const firstName = archive.subarray(0, 100).toString('latin1').replace(/\0.*$/s, '');
  if (firstName !== authenticationEntry) return 'unauthenticated';
  if (archive.length < tagOffset + tagHexLength) return 'changed';
  const line = archive.subarray(512, tagOffset + tagHexLength + 1).toString('latin1');
  const match = new RegExp(`^${lineFormat} ([0-9a-f]{${keyIdHexLength}}) ([0-9a-f]{${tagHexLength}})\n$`).exec(line);
  if (!match) return 'changed';
  const backupKey = backupKeyOf(sealingKey);
  if (match[1] !== keyIdHex(backupKey)) return 'wrong-key';
  const claimed = Buffer.from(match[2]!, 'hex');
  return timingSafeEqual(claimed, tagOf(backupKey, archive)) ? 'authentic' : 'changed';
}
