/**
 * Secrets at rest: XChaCha20-Poly1305 (@noble/ciphers) under a 32-byte key that is kept somewhere else
 * (see src/shared/sealing-key.ts). Only for small values such as a private key; never on the data path.
 *
 * A sealed value names its key by a short identifier (an HMAC of a fixed label under the key), so a
 * wrong key is told apart from a damaged value: the identifier differs for the first, the
 * authentication tag fails for the second.
 */
import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { createHmac, hkdfSync, randomBytes } from 'node:crypto';

const nonceLength = 24;
const keyIdLength = 8;
/** Earlier versions: magic, nonce, ciphertext; no key identifier. Still opened, never written. */
const legacyMagic = Buffer.from('PSEAL1');
const magic = Buffer.from('PSEAL2');
/** HKDF "info" of Portal sealing keys: the same material gives another key to any other use. */
const derivationInfo = 'portal/sealing-key/v1';

export type UnsealFailure = 'not-sealed' | 'wrong-key' | 'damaged' | 'wrong-key-or-damaged';

/** Why a sealed value did not open: a different key sealed it, or its bytes changed. */
export class UnsealError extends Error {
  constructor(readonly reason: UnsealFailure) {
    super(
      {
        'not-sealed': 'not a sealed Portal value',
        'wrong-key': 'sealed under another key',
        damaged: 'damaged (it fails its integrity check)',
        'wrong-key-or-damaged': 'sealed under another key, or damaged',
      }[reason],
    );
    this.name = 'UnsealError';
  }
}

export function newSealingKey(): Buffer {
  return randomBytes(32);
}

/** The 32-byte key for secret text (HKDF-SHA256 with a Portal-specific info string, no salt). */
export function sealingKeyFromMaterial(material: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(material, 'utf8'), Buffer.alloc(0), derivationInfo, 32));
}

/**
 * A key for one other use of a sealing key (authenticating backups, proving revocations): HKDF-SHA256
 * of the key under `label`, so the sealing key itself never keys anything but sealing, and each use has
 * its own key.
 */
export function subkeyOf(key: Uint8Array, label: string): Buffer {
  return Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), label, 32));
}

/** A short public name of `key` (an HMAC of a fixed label under it): tells a wrong key from damage. */
export function keyIdOf(key: Uint8Array): Buffer {
  return createHmac('sha256', key).update('portal/sealing-key/id').digest().subarray(0, keyIdLength);
}

export function seal(key: Uint8Array, plaintext: Uint8Array): Buffer {
  const nonce = randomBytes(nonceLength);
  const header = Buffer.concat([magic, keyIdOf(key)]);
  const sealed = xchacha20poly1305(key, nonce, header).encrypt(plaintext);
  return Buffer.concat([header, nonce, sealed]);
}

/** True when `data` was written by an earlier version (it is re-sealed on migration). */
export function isLegacySealed(data: Uint8Array): boolean {
  return Buffer.from(data).subarray(0, legacyMagic.length).equals(legacyMagic);
}

/** Opens a sealed value; throws UnsealError saying whether the key or the value is at fault. */
export function unseal(key: Uint8Array, data: Uint8Array): Buffer {
  const buffer = Buffer.from(data);
  const tagLength = 16;
  if (isLegacySealed(buffer)) {
    if (buffer.length < legacyMagic.length + nonceLength + tagLength) throw new UnsealError('damaged');
    const nonce = buffer.subarray(legacyMagic.length, legacyMagic.length + nonceLength);
    return open(key, nonce, legacyMagic, buffer.subarray(legacyMagic.length + nonceLength), 'wrong-key-or-damaged');
  }
  if (!buffer.subarray(0, magic.length).equals(magic))
    throw new UnsealError(buffer.length < magic.length ? 'damaged' : 'not-sealed');
  const headerLength = magic.length + keyIdLength;
  if (buffer.length < headerLength) throw new UnsealError('damaged');
  const header = buffer.subarray(0, headerLength);
  if (!header.subarray(magic.length).equals(keyIdOf(key))) throw new UnsealError('wrong-key');
  if (buffer.length < headerLength + nonceLength + tagLength) throw new UnsealError('damaged');
  const nonce = buffer.subarray(headerLength, headerLength + nonceLength);
  return open(key, nonce, header, buffer.subarray(headerLength + nonceLength), 'damaged');
}

function open(
  key: Uint8Array,
  nonce: Uint8Array,
  header: Uint8Array,
  ciphertext: Uint8Array,
  failure: UnsealFailure,
): Buffer {
  try {
    return Buffer.from(xchacha20poly1305(key, nonce, header).decrypt(ciphertext));
  } catch {
    throw new UnsealError(failure);
  }
}
