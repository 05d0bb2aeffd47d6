import assert from 'node:assert/strict';
import { parseStoreUrl, shownUrl } from '../../src/controller/store/store-url.ts';
import { PortalError } from '../../src/shared/errors.ts';

const refusal = (code: string, pattern: RegExp) => (error: unknown) => {
  assert.ok(error instanceof PortalError);
  assert.equal(error.code, code);
  assert.equal(error.exitCode, 2);
  assert.match(`${error.message} (${error.hint ?? ''})`, pattern);
  return true;
};

describe('--store URLs', () => {
  it('reads sqlite:PATH as the file', () => {
    assert.deepEqual(parseStoreUrl('sqlite:/var/lib/portal/controller.db'), {
      kind: 'sqlite',
      path: '/var/lib/portal/controller.db',
    });
  });

  it('reads a PostgreSQL URL as libpq does: user, hosts, database; TLS verified unless on loopback', () => {
    const remote = parseStoreUrl('postgres://portal@db.example.net:6432/portal');
    assert.deepEqual(remote, {
      kind: 'postgres',
      hosts: [{ host: 'db.example.net', port: 6432 }],
      database: 'portal',
      user: 'portal',
      sslMode: 'verify-full',
      sslRootCert: undefined,
      sessionTarget: 'any',
      shown: 'postgres://portal@db.example.net:6432/portal',
    });
    const local = parseStoreUrl('postgresql://portal@127.0.0.1/portal');
    assert.equal(local.kind === 'postgres' && local.sslMode, 'prefer');
    assert.deepEqual(local.kind === 'postgres' && local.hosts, [{ host: '127.0.0.1', port: 5432 }]);
  });

  it('takes several hosts (a primary and standbys), which then default to the one that takes writes', () => {
    const target = parseStoreUrl(
      'postgres://portal@db1:5432,db2:5433,[fd00::3]/portal?sslmode=verify-ca&sslrootcert=/etc/portal/db-ca.pem',
    );
    assert.ok(target.kind === 'postgres');
    assert.deepEqual(target.hosts, [
      { host: 'db1', port: 5432 },
      { host: 'db2', port: 5433 },
      { host: 'fd00::3', port: 5432 },
    ]);
    assert.equal(target.sessionTarget, 'read-write');
    assert.equal(target.sslMode, 'verify-ca');
    assert.equal(target.sslRootCert, '/etc/portal/db-ca.pem');
    const any = parseStoreUrl('postgres://portal@db1,db2/portal?target_session_attrs=any');
    assert.equal(any.kind === 'postgres' && any.sessionTarget, 'any');
  });

  it('fills what the URL leaves out from the libpq variables', () => {
    const target = parseStoreUrl('postgres:///', {
      PGHOST: 'db.internal',
      PGPORT: '5433',
      PGUSER: 'ops',
      PGDATABASE: 'control',
      PGSSLMODE: 'require',
    });
    assert.ok(target.kind === 'postgres');
    assert.deepEqual(
      [target.hosts, target.user, target.database, target.sslMode],
      [[{ host: 'db.internal', port: 5433 }], 'ops', 'control', 'require'],
    );
  });

  it('refuses a password in the URL without repeating it, and says where a password goes', () => {
    assert.throws(
      () => parseStoreUrl('postgres://portal:s3cret@db/portal'),
      (error: unknown) =>
        refusal(
          'STORE_URL_INVALID',
          /holds a password.* PGPASSWORD or in a file named by --store-password-file/,
        )(error) && !(error as Error).message.includes('s3cret'),
    );
    assert.equal(shownUrl('postgres://portal:s3cret@db/portal'), 'postgres://portal:***@db/portal');
  });

  it('refuses what libpq would not take: an unknown sslmode, a bad port, an unknown parameter, another scheme', () => {
    assert.throws(
      () => parseStoreUrl('postgres://p@db/p?sslmode=verify'),
      refusal(
        'STORE_URL_INVALID',
        /sslmode=verify is not one of disable, allow, prefer, require, verify-ca, verify-full/,
      ),
    );
    assert.throws(
      () => parseStoreUrl('postgres://p@db:70000/p'),
      refusal('STORE_URL_INVALID', /not between 1 and 65535/),
    );
    assert.throws(
      () => parseStoreUrl('postgres://p@db/p?connect_timeout=1'),
      refusal('STORE_URL_INVALID', /does not know the parameter "connect_timeout"/),
    );
    assert.throws(() => parseStoreUrl('mysql://p@db/p'), refusal('STORE_UNSUPPORTED', /unknown store .*postgres:\/\//));
  });
});
