import assert from 'node:assert/strict';
import {
  durationRanges,
  durationSyntax,
  formatDuration,
  rangeProblem,
  readDuration,
} from '../../src/shared/duration.ts';

const ticket = durationRanges.ticket;

describe('durations', () => {
  it('reads whole numbers with ms, s, m, h or d, alone or combined', () => {
    assert.deepEqual(readDuration('10h', ticket), { ok: true, ms: 36_000_000 });
    assert.deepEqual(readDuration('1h30m', ticket), { ok: true, ms: 5_400_000 });
    assert.deepEqual(readDuration('500ms', durationRanges.heartbeat), { ok: true, ms: 500 });
    assert.deepEqual(readDuration('0h30m', ticket), { ok: true, ms: 1_800_000 });
    assert.deepEqual(readDuration('30d', ticket), { ok: true, ms: 30 * 86_400_000 });
  });

  it('says what is wrong with text that is not a duration', () => {
    assert.deepEqual(readDuration('10', ticket), { ok: false, reason: 'has no unit' });
    assert.deepEqual(readDuration('1w', ticket), { ok: false, reason: 'has an unknown unit "w"' });
    assert.deepEqual(readDuration('10H', ticket), { ok: false, reason: 'has an unknown unit "H"' });
    assert.deepEqual(readDuration('1constructor', ticket), { ok: false, reason: 'has an unknown unit "constructor"' });
    assert.deepEqual(readDuration('', ticket), { ok: false, reason: 'is empty' });
    for (const text of ['soon', '1h 30m', '-1h', '1.5h', 'h', '10h-'])
      assert.deepEqual(readDuration(text, ticket), { ok: false, reason: 'is not a duration' }, text);
  });

  it('refuses zero with its own reason, and durations outside the bounds of their use', () => {
    assert.deepEqual(readDuration('0h', ticket), { ok: false, reason: 'must be positive' });
    assert.deepEqual(readDuration('0ms0s', ticket), { ok: false, reason: 'must be positive' });
    assert.deepEqual(readDuration('400d', ticket), { ok: false, reason: 'is longer than 30d' });
    assert.deepEqual(readDuration('30d1ms', ticket), { ok: false, reason: 'is longer than 30d' });
    assert.deepEqual(readDuration('9'.repeat(400) + 'd', ticket), { ok: false, reason: 'is longer than 30d' });
    assert.deepEqual(readDuration('1999ms', durationRanges.credential), { ok: false, reason: 'is shorter than 2s' });
    assert.deepEqual(readDuration('31d', durationRanges.credential), { ok: false, reason: 'is longer than 30d' });
    assert.deepEqual(readDuration('499ms', durationRanges.heartbeat), { ok: false, reason: 'is shorter than 500ms' });
    assert.deepEqual(readDuration('5m1s', durationRanges.heartbeat), { ok: false, reason: 'is longer than 5m' });
  });

  it('checks milliseconds from elsewhere against the same bounds', () => {
    assert.equal(rangeProblem(1, ticket), undefined);
    assert.equal(rangeProblem(0, ticket), 'must be positive');
    assert.equal(rangeProblem(31 * 86_400_000, ticket), 'is longer than 30d');
    for (const ms of [Number.NaN, -5, 1.5])
      assert.equal(rangeProblem(ms, ticket), 'is not a whole number of milliseconds', String(ms));
  });

  it('words the units and the bounds of each use for help and hints', () => {
    assert.equal(
      durationSyntax(ticket),
      'a whole number followed by ms, s, m, h or d (such as 10h or 1h30m), at most 30d',
    );
    assert.equal(
      durationSyntax(durationRanges.credential),
      'a whole number followed by ms, s, m, h or d (such as 1h or 12h), from 2s to 30d',
    );
    assert.equal(
      durationSyntax(durationRanges.heartbeat),
      'a whole number followed by ms, s, m, h or d (such as 5s or 1m30s), from 500ms to 5m',
    );
    assert.deepEqual([1, 500, 2000, 90_000, 300_000, 86_400_000].map(formatDuration), [
      '1ms',
      '500ms',
      '2s',
      '90s',
      '5m',
      '1d',
    ]);
  });

  it('gives every use an example within its own bounds', () => {
    for (const [use, range] of Object.entries(durationRanges)) {
      for (const example of range.examples.split(' or '))
        assert.equal(readDuration(example, range).ok, true, `${use}: ${example}`);
    }
  });
});
