import assert from 'node:assert/strict';
import { InputError } from '../../src/shared/errors.ts';
import { loggerFromEnvironment, loggerFromEnvironmentOrDefault, readLogSettings } from '../../src/node/logger.ts';

describe('the node log settings (NODE_LOGGING, NODE_LOG_LEVEL)', () => {
  it('reads the documented values in any case, and empty or unset as the default', () => {
    assert.deepEqual(readLogSettings({}), { ok: true, settings: { enabled: true, level: 'info' } });
    assert.deepEqual(readLogSettings({ NODE_LOGGING: '', NODE_LOG_LEVEL: '' }), {
      ok: true,
      settings: { enabled: true, level: 'info' },
    });
    assert.deepEqual(readLogSettings({ NODE_LOGGING: 'False', NODE_LOG_LEVEL: 'DEBUG' }), {
      ok: true,
      settings: { enabled: false, level: 'debug' },
    });
    for (const level of ['error', 'warn', 'info', 'debug', 'trace'])
      assert.equal(readLogSettings({ NODE_LOG_LEVEL: level }).ok, true, level);
  });

  it('refuses an unknown level or switch with exit code 2, naming what it accepts', () => {
    const refused = (environment: NodeJS.ProcessEnv) => {
      try {
        loggerFromEnvironment(environment);
      } catch (error) {
        assert.ok(error instanceof InputError, String(error));
        assert.equal(error.exitCode, 2);
        assert.equal(error.code, 'BAD_ENVIRONMENT');
        return `${error.message}; ${error.hint}`;
      }
      return assert.fail('accepted');
    };
    assert.equal(
      refused({ NODE_LOG_LEVEL: 'verbose' }),
      'NODE_LOG_LEVEL=verbose is not one of error, warn, info, debug, trace; set NODE_LOG_LEVEL to one of them, ' +
        'or leave it empty for info',
    );
    assert.equal(
      refused({ NODE_LOGGING: 'yes' }),
      'NODE_LOGGING=yes is not one of true, false; set NODE_LOGGING to one of them, or leave it empty for true',
    );
    assert.equal(
      refused({ NODE_LOGGING: '0', NODE_LOG_LEVEL: 'info' }),
      'NODE_LOGGING=0 is not one of true, false; set NODE_LOGGING to one of them, or leave it empty for true',
    );
    assert.equal(
      refused({ NODE_LOG_LEVEL: 'info\u001b[2J' }),
      'NODE_LOG_LEVEL=info\\u001b[2J is not one of error, warn, info, debug, trace; ' +
        'set NODE_LOG_LEVEL to one of them, or leave it empty for info',
    );
  });

  it('lets code that logs only in passing fall back to the default instead of failing', () => {
    assert.equal(typeof loggerFromEnvironmentOrDefault({ NODE_LOG_LEVEL: 'verbose' }).info, 'function');
  });
});
