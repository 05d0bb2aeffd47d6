import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const { releaseMemory } = createRequire(import.meta.url)('../support/lane-memory.cjs') as {
  releaseMemory: (done: (sizes: { before: number; after: number }) => void) => void;
};

describe('a lane between files: the memory a file left is handed back', () => {
  it('collects and trims once the lane is past 400 MB, so that its next programs fork from less', async () => {
    const held: Buffer[] = Array.from({ length: 450 }, () => Buffer.alloc(1024 * 1024, 1));
    assert.equal(held.length, 450);
    held.length = 0;
    const sizes = await new Promise<{ before: number; after: number }>((resolve) => releaseMemory(resolve));
    const mb = (bytes: number) => Math.round(bytes / 1048576);
    console.log(`      resident ${mb(sizes.before)} MB -> ${mb(sizes.after)} MB`);
    assert.ok(sizes.before > 450 * 1048576, `held ${mb(sizes.before)} MB`);
    assert.ok(sizes.before - sizes.after > 350 * 1048576, `gave back ${mb(sizes.before - sizes.after)} MB`);
  });
});
