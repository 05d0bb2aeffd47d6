import assert from 'node:assert/strict';
import { dealLanes } from '../../scripts/test-run.mjs';

describe('npm test deals files to lanes', () => {
  it('puts the longest files on different lanes and balances the rest', () => {
    const durations = { a: 100, b: 90, c: 50, d: 40, e: 10 };
    const lanes = dealLanes(['a', 'b', 'c', 'd', 'e'], durations, 2, []);
    assert.deepEqual(
      lanes.map((lane) => lane.files),
      [
        ['a', 'd', 'e'],
        ['b', 'c'],
      ],
    );
    assert.deepEqual(
      lanes.map((lane) => lane.load),
      [150, 140],
    );
  });

  it('runs every serial file on lane 0, first, and deals the others around them', () => {
    const durations = { s1: 60, s2: 60, x: 100, y: 10 };
    const lanes = dealLanes(['x', 's1', 'y', 's2'], durations, 3, ['s1', 's2']);
    assert.deepEqual(lanes[0]?.files, ['s1', 's2']);
    assert.deepEqual(
      lanes.slice(1).map((lane) => lane.files),
      [['x'], ['y']],
    );
  });

  it('deals a file never timed as a ten-second one, and makes no empty lane', () => {
    const lanes = dealLanes(['new', 'old'], { old: 20_000 }, 5, []);
    assert.equal(lanes.length, 2);
    assert.deepEqual(
      lanes.map((lane) => lane.load),
      [20_000, 10_000],
    );
  });
});
