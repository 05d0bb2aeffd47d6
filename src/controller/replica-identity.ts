/**
 * The TLS certificate and key that controller replicas on one PostgreSQL store share: every ticket and
 * node pins one fingerprint, and any replica must answer to it. The first replica to start makes the
 * pair and stores it, the key sealed under the sealing key every replica is given (never in the clear
 * in the database); replicas that start together race on one row, and all take the winner's.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { createServerCertificate } from '../pki/authority.ts';
import { UnsealError, seal, unseal } from '../pki/seal.ts';
import { RuntimeFailure } from '../shared/errors.ts';
import type { ServerCertificate } from '../shared/sealed-server-certificate.ts';
import type { Store } from './store/open.ts';

const rowId = 'controller';

export interface ReplicaIdentityOptions {
  readonly sealingKey: Buffer;
  /** Where the sealing key came from, for messages. */
  readonly sealingKeyName: string;
  readonly howToGiveKey: string;
  /** The store as messages show it. */
  readonly storeShown: string;
}

export async function loadReplicaIdentity(store: Store, options: ReplicaIdentityOptions): Promise<ServerCertificate> {
  let row = await readRow(store);
  if (!row) {
    const created = createServerCertificate('portal-controller');
    await store
      .insertInto('controller_identity')
      .values({
        id: rowId,
        certificate: created.certificate,
        sealed_key: seal(options.sealingKey, Buffer.from(created.privateKey)).toString('base64'),
        created_at: Date.now(),
      })
      .onConflict((conflict) => conflict.column('id').doNothing())
      .execute();
    row = await readRow(store);
    if (!row) throw damaged(options, 'its row was written but cannot be read back');
  }
  const privateKey = openKey(row.sealed_key, options);
  let matches: boolean;
  try {
    matches = new X509Certificate(row.certificate).checkPrivateKey(createPrivateKey(privateKey));
  } catch {
    matches = false;
  }
  if (!matches) throw damaged(options, 'its certificate is not that of its key');
  return { certificate: row.certificate, privateKey };
}

function readRow(store: Store) {
  return store
    .selectFrom('controller_identity')
    .select(['certificate', 'sealed_key'])
    .where('id', '=', rowId)
    .executeTakeFirst();
}

function openKey(sealed: string, options: ReplicaIdentityOptions): string {
  try {
    return unseal(options.sealingKey, Buffer.from(sealed, 'base64')).toString('utf8');
  } catch (error) {
    if (!(error instanceof UnsealError)) throw error;
    if (error.reason === 'damaged' || error.reason === 'not-sealed') throw damaged(options, error.message);
    throw new RuntimeFailure(
      'SEALING_KEY_WRONG',
      `the sealing key in ${options.sealingKeyName} does not open the controllers' TLS key in ${options.storeShown} ` +
        `(${error.message})`,
      {
        hint:
          `${options.howToGiveKey}: every replica must be given the key the first one was given ` +
          '(a new TLS key would change the fingerprint every ticket and node pins)',
      },
    );
  }
}

function damaged(options: ReplicaIdentityOptions, why: string): RuntimeFailure {
  return new RuntimeFailure(
    'STORE_DAMAGED',
    `the controllers' TLS identity in ${options.storeShown} cannot be used: ${why}`,
    { hint: 'restore the database from a backup; a new identity would change the fingerprint every node pins' },
  );
}
