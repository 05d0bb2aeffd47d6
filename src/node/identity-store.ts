/**
 * An enrolled identity on disk, in a directory of its own under PORTAL_HOME: the private key sealed
 * (0600) under a key kept beside it, the certificate, the project CA, and where the controller is.
 * A restarted or replaced machine with the same directory needs no ticket again.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { newSealingKey, seal, unseal } from '../pki/seal.ts';
import { RuntimeFailure } from '../shared/errors.ts';
import type { ControllerPin } from '../wire/ticket.ts';

export interface IdentityRecord extends ControllerPin {
  readonly projectId: string;
  readonly nodeId: string;
  readonly networkDomain: string;
  readonly attributes: readonly string[];
  readonly relays: readonly string[];
  readonly tls: boolean;
}

export interface StoredIdentity {
  readonly record: IdentityRecord;
  readonly privateKey: string;
  readonly certificate: string;
  readonly authority: string;
}

const files = {
  record: 'identity.json',
  key: 'identity.key.sealed',
  sealingKey: 'seal.key',
  certificate: 'certificate.pem',
  authority: 'project-ca.pem',
} as const;

/** Writes `content` next to `path` and renames it into place, so readers never see half a file. */
async function writeAtomically(path: string, content: string | Buffer, mode: number): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, content, { mode });
  await rename(temporary, path);
}

export async function loadIdentity(directory: string): Promise<StoredIdentity | undefined> {
  let recordText: string;
  try {
    recordText = await readFile(join(directory, files.record), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const [sealingKey, sealedKey, certificate, authority] = await Promise.all([
      readFile(join(directory, files.sealingKey)),
      readFile(join(directory, files.key)),
      readFile(join(directory, files.certificate), 'utf8'),
      readFile(join(directory, files.authority), 'utf8'),
    ]);
    return { record: JSON.parse(recordText) as IdentityRecord, privateKey: unseal(sealingKey, sealedKey).toString(), certificate, authority };
  } catch (error) {
    throw new RuntimeFailure('IDENTITY_DAMAGED', `the identity in ${directory} cannot be read: ${(error as Error).message}`, {
      hint: 'restore the directory from a backup, or remove it and enroll again with a new ticket',
      cause: error,
    });
  }
}

export async function saveIdentity(directory: string, identity: StoredIdentity): Promise<void> {
  await mkdir(directory, { recursive: true, mode: 0o700 });
  const sealingKeyPath = join(directory, files.sealingKey);
  let sealingKey: Buffer;
  try {
    sealingKey = await readFile(sealingKeyPath);
  } catch {
    sealingKey = newSealingKey();
    await writeAtomically(sealingKeyPath, sealingKey, 0o600);
  }
  await writeAtomically(join(directory, files.key), seal(sealingKey, Buffer.from(identity.privateKey)), 0o600);
  await writeAtomically(join(directory, files.certificate), identity.certificate, 0o644);
  await writeAtomically(join(directory, files.authority), identity.authority, 0o644);
  // The record last: its presence means the identity is complete.
  await writeAtomically(join(directory, files.record), `${JSON.stringify(identity.record, null, 2)}\n`, 0o644);
}

/** Only the certificate changes on renewal. */
export async function saveCertificate(directory: string, certificate: string): Promise<void> {
  await writeAtomically(join(directory, files.certificate), certificate, 0o644);
}
