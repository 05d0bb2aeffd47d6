import assert from 'node:assert/strict';
import { sameSecret } from '../../src/shared/secret-compare.ts';

describe('secret comparison', () => {
  it('is true for the same secret, as strings, as buffers or one of each', () => {
    assert.equal(sameSecret('s3cret-Ω', 's3cret-Ω'), true);
    assert.equal(sameSecret(Buffer.from('abc'), Buffer.from('abc')), true);
    assert.equal(sameSecret('abc', Buffer.from('abc')), true);
    assert.equal(sameSecret(Buffer.from('ab', 'hex'), Buffer.from('AB', 'hex')), true);
  });

  it('is false for a secret that differs anywhere, and for the empty one against another', () => {
    assert.equal(sameSecret('abcd', 'abce'), false);
    assert.equal(sameSecret('xbcd', 'abcd'), false);
    assert.equal(sameSecret('', 'abcd'), false);
  });

  it('is false, without throwing, when the lengths differ (timingSafeEqual alone throws)', () => {
    assert.equal(sameSecret('abc', 'abcd'), false);
    assert.equal(sameSecret('abcd', 'abc'), false);
    // One character of two bytes against two of one: as long in bytes, so compared, and unequal.
    assert.equal(sameSecret('é', 'ab'), false);
  });
});
