import assert from 'node:assert/strict';
import { count, flag, pathNames, subset } from '../../scripts/bench/settings.ts';
import { InputError } from '../../src/shared/errors.ts';

const name = 'BENCH_TEST_SETTING';

function withSetting<T>(value: string | undefined, read: () => T): T {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
  try {
    return read();
  } finally {
    delete process.env[name];
  }
}

describe('bench settings: what the environment may say', () => {
  it('reads a switch as 1 or 0, and its fallback when unset or empty', () => {
    assert.equal(
      withSetting('0', () => flag(name, true)),
      false,
    );
    assert.equal(
      withSetting('1', () => flag(name, false)),
      true,
    );
    assert.equal(
      withSetting(undefined, () => flag(name, true)),
      true,
    );
    assert.equal(
      withSetting('', () => flag(name, false)),
      false,
    );
  });

  it('refuses any other switch value in one line that names the setting and the fix', () => {
    const error = withSetting('no', () => captured(() => flag(name, true)));
    assert.match(error.message, /^BENCH_TEST_SETTING=no is neither 1 nor 0$/);
    assert.equal(error.code, 'BAD_SETTING');
    assert.match(error.hint ?? '', /give 1 or 0, or leave it unset \(1\)/);
  });

  it('refuses a count that is not a positive number', () => {
    assert.equal(
      withSetting('7', () => count(name, 3)),
      7,
    );
    const error = withSetting('-2', () => captured(() => count(name, 3)));
    assert.match(error.message, /^BENCH_TEST_SETTING=-2 is not a positive number$/);
    assert.equal(error.code, 'BAD_SETTING');
  });

  it('reads a subset, all when unset, and refuses a name it does not know with the ones it does', () => {
    assert.deepEqual([...withSetting(undefined, () => subset(name, pathNames, 'path'))], ['relayed', 'direct']);
    assert.deepEqual([...withSetting(' direct ', () => subset(name, pathNames, 'path'))], ['direct']);
    const error = withSetting('direct,sideways', () => captured(() => subset(name, pathNames, 'path')));
    assert.match(error.message, /^BENCH_TEST_SETTING=direct,sideways names no path sideways$/);
    assert.equal(error.code, 'BAD_SETTING');
    assert.match(error.hint ?? '', /give some of relayed, direct, comma-separated/);
  });
});

function captured(run: () => unknown): InputError {
  try {
    run();
  } catch (error) {
    if (error instanceof InputError) return error;
    throw error;
  }
  assert.fail('no InputError');
}
