import assert from 'node:assert/strict';
import { CounterMap } from '../../src/shared/counter-map.ts';

describe('counter map', () => {
  it('counts up and down by key, and forgets a key at zero', () => {
    const counts = new CounterMap<string>();
    assert.equal(counts.add('a'), 1);
    assert.equal(counts.add('a'), 2);
    assert.equal(counts.add('b'), 1);
    assert.deepEqual([counts.get('a'), counts.get('b'), counts.size, counts.total], [2, 1, 2, 3]);
    assert.equal(counts.remove('a'), 1);
    assert.equal(counts.remove('b'), 0);
    assert.deepEqual([counts.get('a'), counts.get('b'), counts.size, counts.total], [1, 0, 1, 1]);
    assert.equal(counts.remove('a'), 0);
    assert.deepEqual([counts.size, counts.total], [0, 0]);
  });

  it('reads 0 for a key it never counted, and leaves everything alone when such a key is removed', () => {
    const counts = new CounterMap<string>();
    counts.add('held');
    assert.equal(counts.get('never'), 0);
    assert.equal(counts.remove('never'), 0);
    assert.deepEqual([counts.get('held'), counts.size, counts.total], [1, 1, 1]);
  });

  it('holds no key once every count it took is given back, however they interleave', () => {
    const counts = new CounterMap<number>();
    const taken: number[] = [];
    for (let i = 0; i < 200; i += 1) {
      const key = (i * 7) % 13;
      counts.add(key);
      taken.push(key);
    }
    assert.equal(counts.total, 200);
    assert.equal(counts.size, 13);
    for (const key of taken.reverse()) counts.remove(key);
    assert.deepEqual([counts.size, counts.total], [0, 0]);
  });
});
