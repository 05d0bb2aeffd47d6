import assert from 'node:assert/strict';
import { countsExternalMemoryInHeapLimit } from '../../src/shared/heap-tuning.ts';

describe('heap tuning for the data path', () => {
  it('asks V8 to count external memory in its global limit on Node.js 24 and later only', () => {
    // Node.js 20 and 22 do not know the flag: V8 would print an error for it on every start.
    assert.equal(countsExternalMemoryInHeapLimit('20.20.2'), false);
    assert.equal(countsExternalMemoryInHeapLimit('22.23.3'), false);
    assert.equal(countsExternalMemoryInHeapLimit('24.0.0'), true);
    assert.equal(countsExternalMemoryInHeapLimit('24.21.0'), true);
    assert.equal(countsExternalMemoryInHeapLimit('26.1.0'), true);
  });
});
