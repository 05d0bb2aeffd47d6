/**
 * Proofs of revocation. Nodes and relays keep the list of revoked members on their own disks, so they
 * know of revocations that a controller restored from an older backup has forgotten. For the controller
 * to take such a revocation back from them, it must know that it made it: each entry it hands out
 * carries an HMAC-SHA256 of (project, member, until) under a key derived from its sealing key (HKDF,
 * its own label), which no member holds. A member can return only what the controller once said, so it
 * can make the controller revoke no one that the controller had not revoked already. Pure.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { subkeyOf } from '../pki/seal.ts';
import { canonicalJson } from '../shared/audit-chain.ts';
import type { RevokedEntry } from '../wire/protocol.ts';

const proofKeyLabel = 'portal/revocation-proof/v1';
const proofDomain = 'portal/revocation/v1';

/** The key proofs are made with, from the controller's sealing key. */
export const revocationProofKey = (sealingKey: Uint8Array): Buffer => subkeyOf(sealingKey, proofKeyLabel);

function tagOf(proofKey: Uint8Array, projectId: string, nodeId: string, until: number): Buffer {
  return createHmac('sha256', proofKey)
    .update(canonicalJson([proofDomain, projectId, nodeId, until]))
    .digest();
}

/** `entry` with its proof. */
export function proven(proofKey: Uint8Array, projectId: string, entry: RevokedEntry): RevokedEntry {
  return {
    nodeId: entry.nodeId,
    until: entry.until,
    proof: tagOf(proofKey, projectId, entry.nodeId, entry.until).toString('base64url'),
  };
}

/** Whether `entry` carries the controller's proof for `projectId`. */
export function isProven(proofKey: Uint8Array, projectId: string, entry: RevokedEntry): boolean {
  if (typeof entry.proof !== 'string' || !Number.isSafeInteger(entry.until)) return false;
  const claimed = Buffer.from(entry.proof, 'base64url');
  const expected = tagOf(proofKey, projectId, entry.nodeId, entry.until);
  return claimed.length === expected.length && timingSafeEqual(claimed, expected);
}
