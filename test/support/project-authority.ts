/**
 * The project CA of a running test controller, read as its operator could (the store and the sealing
 * key file it was started with), to issue one member a certificate of a lifetime of the test's choosing
 * while the controller's --credential-lifetime stays what the rest of the project needs.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { createCertificateRequest, issueCertificate } from '../../src/pki/authority.ts';
import { identityOf } from '../../src/pki/identity.ts';
import { publicKeyOf } from '../../src/pki/keys.ts';
import { unseal } from '../../src/pki/seal.ts';
import { keysDirectory, readSealingKey, sealingKeyFileNames } from '../../src/shared/sealing-key.ts';
import type { StoredIdentity } from '../../src/node/identity-store.ts';

/**
 * A certificate for `identity`'s own key and attributes, valid from now for `lifetimeMs`, signed by the
 * CA of its project in the controller whose data directory is `dataDir` (its SQLite store), started with
 * PORTAL_HOME `controllerHome` and no sealing key named (so the key is the file under its keys/).
 */
export async function certificateWithLifetime(
  dataDir: string,
  controllerHome: string,
  identity: StoredIdentity,
  lifetimeMs: number,
): Promise<string> {
  const keyFile = join(keysDirectory(controllerHome), sealingKeyFileNames.controller);
  const sealingKey = await readSealingKey({ kind: 'file', path: keyFile });
  if (!sealingKey) throw new Error(`no sealing key in ${keyFile}`);
  const store = new Database(join(dataDir, 'controller.db'), { readonly: true, fileMustExist: true });
  let row: { ca_certificate: string; ca_private_key: string } | undefined;
  try {
    row = store
      .prepare('SELECT ca_certificate, ca_private_key FROM projects WHERE id = ?')
      .get(identity.record.projectId) as typeof row;
  } finally {
    store.close();
  }
  if (!row) throw new Error(`no project ${identity.record.projectId} in ${dataDir}`);
  const authority = {
    certificate: row.ca_certificate,
    privateKey: unseal(sealingKey, Buffer.from(row.ca_private_key, 'base64')).toString(),
  };
  const member = identityOf(identity.certificate);
  if (!member) throw new Error('the identity holds no member certificate');
  const request = createCertificateRequest(
    identity.privateKey,
    publicKeyOf(identity.privateKey),
    identity.record.nodeId,
  );
  return issueCertificate({ authority, request, identity: member, lifetimeMs });
}
