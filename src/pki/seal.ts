/**
 * Secrets at rest: XChaCha20-Poly1305 (@noble/ciphers) under a 32-byte key kept beside them. Only for
 * small files such as a private key; never on the data path.
 */
import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { randomBytes } from 'node:crypto';

const nonceLength = 24;
const magic = Buffer.from('PSEAL1');

export function newSealingKey(): Buffer {
  return randomBytes(32);
}

export function seal(key: Uint8Array, plaintext: Uint8Array): Buffer {
  const nonce = randomBytes(nonceLength);
  const sealed = xchacha20poly1305(key, nonce, magic).encrypt(plaintext);
  return Buffer.concat([magic, nonce, sealed]);
}

export function unseal(key: Uint8Array, data: Uint8Array): Buffer {
  const buffer = Buffer.from(data);
  if (!buffer.subarray(0, magic.length).equals(magic)) throw new Error('not a sealed Portal file');
  const nonce = buffer.subarray(magic.length, magic.length + nonceLength);
  return Buffer.from(xchacha20poly1305(key, nonce, magic).decrypt(buffer.subarray(magic.length + nonceLength)));
}
