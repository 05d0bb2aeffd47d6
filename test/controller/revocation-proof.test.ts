import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { isProven, proven, revocationProofKey } from '../../src/controller/revocation-proof.ts';

describe('revocation proofs (what a restored controller takes back from its nodes)', () => {
  const key = revocationProofKey(randomBytes(32));
  const entry = proven(key, 'p1', { nodeId: 'n0123456789abcdef', until: 1_900_000_000_000 });

  it('proves an entry the controller made, for its project', () => {
    assert.match(entry.proof ?? '', /^[A-Za-z0-9_-]{43}$/);
    assert.equal(isProven(key, 'p1', entry), true);
  });

  it('refuses what a member could forge: no proof, another member, another date, another project, another key', () => {
    assert.equal(isProven(key, 'p1', { nodeId: entry.nodeId, until: entry.until }), false);
    assert.equal(isProven(key, 'p1', { ...entry, nodeId: 'n1111111111111111' }), false);
    assert.equal(isProven(key, 'p1', { ...entry, until: entry.until + 1 }), false);
    assert.equal(isProven(key, 'p2', entry), false);
    assert.equal(isProven(revocationProofKey(randomBytes(32)), 'p1', entry), false);
    assert.equal(isProven(key, 'p1', { ...entry, proof: 'x' }), false);
    assert.equal(isProven(key, 'p1', { ...entry, until: Number.NaN }), false);
  });
});
