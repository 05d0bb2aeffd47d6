/**
 * The audit trail's signatures: an Ed25519 key derived from the controller's sealing key, which is never
 * kept beside the store, so whoever can write the store cannot sign a record. The controller signs the
 * last record of each append; anyone holding the public half (the CLI gets it over the pinned TLS
 * connection) checks that nobody rewrote the chain, without the sealing key.
 */
import { createPrivateKey, createPublicKey, hkdfSync, sign, verify, type KeyObject } from 'node:crypto';

/** HKDF "info" of the trail key: the sealing key itself, or a key for another use, is never used to sign. */
const derivationInfo = 'portal/audit-signing-key/v1';

/** What a signature covers: this prefix and the record's hash, so that no other Portal signature passes for one. */
const signedPrefix = 'portal/audit-record/v2 ';

/** DER prefixes of an Ed25519 PKCS#8 private key and SPKI public key around their 32 raw bytes (RFC 8410). */
const pkcs8Prefix = Buffer.from('302e020100300506032b657004220420', 'hex');
const spkiPrefix = Buffer.from('302a300506032b6570032100', 'hex');

/** The controller's trail key: it signs, and names its public half (base64url of the 32 raw bytes). */
export interface AuditSigner {
  readonly publicKey: string;
  readonly sign: (hash: string) => string;
}

/** The trail key of a controller whose sealing key is `sealingKey` (HKDF-SHA256, its own info string). */
export function auditSignerOf(sealingKey: Uint8Array): AuditSigner {
  const seed = Buffer.from(hkdfSync('sha256', sealingKey, Buffer.alloc(0), derivationInfo, 32));
  const privateKey = createPrivateKey({ key: Buffer.concat([pkcs8Prefix, seed]), format: 'der', type: 'pkcs8' });
  const raw = createPublicKey(privateKey).export({ format: 'der', type: 'spki' }).subarray(spkiPrefix.length);
  return {
    publicKey: raw.toString('base64url'),
    sign: (hash) => sign(null, Buffer.from(signedPrefix + hash, 'utf8'), privateKey).toString('base64url'),
  };
}

/** The public half named by `text`, or undefined when it names no Ed25519 key. */
export function auditPublicKey(text: string): KeyObject | undefined {
  const raw = Buffer.from(text, 'base64url');
  if (raw.length !== 32 || raw.toString('base64url') !== text) return undefined;
  return createPublicKey({ key: Buffer.concat([spkiPrefix, raw]), format: 'der', type: 'spki' });
}

/** Whether `signature` is the trail key's signature of a record whose hash is `hash`. */
export function signatureHolds(key: KeyObject, hash: string, signature: string): boolean {
  const bytes = Buffer.from(signature, 'base64url');
  if (bytes.length !== 64) return false;
  return verify(null, Buffer.from(signedPrefix + hash, 'utf8'), key, bytes);
}
