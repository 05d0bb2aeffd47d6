import assert from 'node:assert/strict';
import { parseStatusListen } from '../../src/cli/status-listen.ts';
import { InputError } from '../../src/shared/errors.ts';

describe('--status-listen: where a controller or a relay serves /metrics and /healthz', () => {
  it('reads HOST:PORT, a bare PORT on loopback, 0 for a free port, and off', () => {
    assert.deepEqual(parseStatusListen('127.0.0.1:0'), { host: '127.0.0.1', port: 0 });
    assert.deepEqual(parseStatusListen('0'), { host: '127.0.0.1', port: 0 });
    assert.deepEqual(parseStatusListen('9464'), { host: '127.0.0.1', port: 9464 });
    assert.deepEqual(parseStatusListen('[::1]:9464'), { host: '::1', port: 9464 });
    assert.deepEqual(parseStatusListen('0.0.0.0:9464'), { host: '0.0.0.0', port: 9464 });
    assert.equal(parseStatusListen('off'), undefined);
  });

  it('refuses anything else in one line that says what it takes (exit 2)', () => {
    for (const [text, reason] of [
      ['localhost', 'it has no :port'],
      ['127.0.0.1:99999', 'port 99999 is out of range (1 to 65535)'],
      ['on', 'it has no :port'],
      ['host name:80', '"host name" is not a host name or address'],
    ] as const) {
      assert.throws(
        () => parseStatusListen(text),
        (error: unknown) =>
          error instanceof InputError &&
          error.code === 'BAD_FLAG' &&
          error.exitCode === 2 &&
          error.message === `--status-listen ${text}: expected HOST:PORT, PORT, 0 or off, but ${reason}`,
      );
    }
  });
});
