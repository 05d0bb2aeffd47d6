import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { controllerSealingKey } from '../../src/cli/controller-sealing-key.ts';
import { InputError } from '../../src/shared/errors.ts';

describe("where the controller's sealing key comes from", () => {
  let credentials: string;
  before(async () => {
    credentials = await mkdtemp(join(tmpdir(), 'portal-credentials-'));
    await writeFile(join(credentials, 'controller-seal.key'), 'k'.repeat(44), { mode: 0o400 });
  });
  after(async () => {
    await rm(credentials, { recursive: true, force: true });
  });

  it('takes the systemd credential controller-seal.key when nobody names another key', () => {
    const environment = { PORTAL_HOME: '/var/lib/portal/controller', CREDENTIALS_DIRECTORY: credentials };
    assert.deepEqual(controllerSealingKey(undefined, environment), {
      source: { kind: 'file', path: join(credentials, 'controller-seal.key') },
      defaulted: false,
    });
  });

  it(
    'prefers the flag, then either variable, to the credential; the file under PORTAL_HOME comes last, ' +
      'and is the one it warns about',
    () => {
      const base = { PORTAL_HOME: '/srv/portal', CREDENTIALS_DIRECTORY: credentials };
      assert.deepEqual(controllerSealingKey('/etc/key', { ...base }).source, { kind: 'file', path: '/etc/key' });
      assert.deepEqual(
        controllerSealingKey(undefined, { ...base, PORTAL_CONTROLLER_SEALING_KEY_FILE: '/etc/other' }).source,
        { kind: 'file', path: '/etc/other' },
      );
      const material = { ...base, PORTAL_CONTROLLER_SEALING_KEY: 'm'.repeat(40) };
      assert.deepEqual(controllerSealingKey(undefined, material).source, {
        kind: 'material',
        name: 'PORTAL_CONTROLLER_SEALING_KEY',
        material: 'm'.repeat(40),
      });
      assert.equal('PORTAL_CONTROLLER_SEALING_KEY' in material, false, 'the material leaves the environment');
      assert.deepEqual(
        controllerSealingKey(undefined, {
          PORTAL_HOME: '/srv/portal',
          CREDENTIALS_DIRECTORY: join(credentials, 'none'),
        }),
        {
          source: { kind: 'file', path: '/srv/portal/keys/controller-seal.key' },
          defaulted: true,
        },
      );
      assert.throws(
        () =>
          controllerSealingKey(undefined, {
            PORTAL_CONTROLLER_SEALING_KEY: 'm'.repeat(40),
            PORTAL_CONTROLLER_SEALING_KEY_FILE: '/etc/k',
          }),
        InputError,
      );
    },
  );
});
