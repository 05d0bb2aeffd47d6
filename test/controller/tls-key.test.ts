import assert from 'node:assert/strict';
import { X509Certificate, createPrivateKey, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { startController, type ControllerOptions } from '../../src/controller/controller.ts';
import { createServerCertificate, fingerprintOf } from '../../src/pki/authority.ts';
import { sealingKeyFromMaterial, unseal } from '../../src/pki/seal.ts';
import { RuntimeFailure } from '../../src/shared/errors.ts';
import { servedFingerprint } from '../support/served-fingerprint.ts';
import { joinedRegExp } from '../support/joined-regexp.ts';

/** Rejects with a RuntimeFailure of exit code 1; answers its code and its one line as the CLI prints it. */
async function failure(start: Promise<unknown>): Promise<{ code: string; line: string }> {
  const error = await start.then(
    () => assert.fail('the controller started'),
    (thrown: unknown) => thrown,
  );
  assert.ok(error instanceof RuntimeFailure, String(error));
  assert.equal(error.exitCode, 1);
  assert.ok(!error.message.includes('\n'));
  return { code: error.code, line: `${error.message}; ${error.hint}` };
}

describe(
  'controller TLS key: sealed at rest, ' + 'so a copy of the data directory cannot pose as the controller',
  function () {
    this.timeout(30_000);
    let work: string;
    const keyFile = () => join(work, 'keys', 'controller-seal.key');
    const sealingKey = async () => sealingKeyFromMaterial((await readFile(keyFile(), 'utf8')).trim());

    /** Starts, reads what it needs, and always stops again. */
    async function startAndStop(options: ControllerOptions): Promise<{ fingerprint: string; served: string }> {
      const controller = await startController(options);
      try {
        return { fingerprint: controller.fingerprint, served: await servedFingerprint(controller.address) };
      } finally {
        await controller.close();
      }
    }

    beforeEach(async () => {
      work = await mkdtemp(join(tmpdir(), 'portal-tls-key-'));
    });

    afterEach(async () => {
      await rm(work, { recursive: true, force: true });
    });

    it(
      'keeps no plain tls.key: the key is sealed (0600, no PEM in it), opens with the sealing key, ' +
        'and the same key serves after a restart',
      async () => {
        const dataDir = join(work, 'controller');
        const first = await startAndStop({ dataDir });
        assert.equal(first.served, first.fingerprint);
        assert.deepEqual((await readdir(dataDir)).filter((name) => name.startsWith('tls.')).sort(), [
          'tls.crt',
          'tls.key.sealed',
        ]);
        const sealed = await readFile(join(dataDir, 'tls.key.sealed'));
        assert.equal((await stat(join(dataDir, 'tls.key.sealed'))).mode & 0o777, 0o600);
        assert.equal(sealed.subarray(0, 6).toString(), 'PSEAL2');
        assert.ok(!sealed.toString('latin1').includes('PRIVATE KEY'));
        const privateKey = unseal(await sealingKey(), sealed).toString();
        assert.match(privateKey, /^-----BEGIN PRIVATE KEY-----\n/);
        assert.ok(
          new X509Certificate(await readFile(join(dataDir, 'tls.crt'))).checkPrivateKey(createPrivateKey(privateKey)),
        );

        const second = await startAndStop({ dataDir });
        assert.equal(second.fingerprint, first.fingerprint);
        assert.equal(second.served, first.fingerprint);
        assert.deepEqual(await readFile(join(dataDir, 'tls.key.sealed')), sealed, 'opened, not re-sealed or replaced');
      },
    );

    it('resumes no TLS session: every connection is a full handshake, which proves the key anew', async () => {
      const controller = await startController({ dataDir: join(work, 'tickets') });
      try {
        const [host, port] = controller.address.split(':') as [string, string];
        const options = { host, port: Number(port), rejectUnauthorized: false, minVersion: 'TLSv1.3' } as const;
        /** Connects (offering `session`); whether the server resumed it, and the session it gave. */
        const handshake = (session?: Buffer) =>
          new Promise<{ reused: boolean; session: Buffer | undefined }>((resolve, reject) => {
            let given: Buffer | undefined;
            const socket = connect({ ...options, ...(session ? { session } : {}) });
            socket.on('session', (ticket: Buffer) => (given = ticket));
            socket.on('error', reject);
            // What the server sends after the handshake arrives before its answer to a first line.
            socket.once('secureConnect', () => socket.write('{}\n'));
            socket.once('data', () => {
              const reused = socket.isSessionReused();
              setTimeout(() => (socket.destroy(), resolve({ reused, session: given })), 100);
            });
          });
        const first = await handshake();
        assert.equal(first.reused, false);
        if (first.session) assert.equal((await handshake(first.session)).reused, false, 'the session was resumed');
      } finally {
        await controller.close();
      }
    });

    it('a wrong sealing key stops the start in one line naming the sealed TLS key, and changes nothing', async () => {
      const dataDir = join(work, 'controller');
      const { fingerprint } = await startAndStop({ dataDir });
      const before = await Promise.all([readFile(join(dataDir, 'tls.key.sealed')), readFile(join(dataDir, 'tls.crt'))]);
      const wrongFile = join(work, 'wrong.key');
      await writeFile(wrongFile, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
      const byFile = await failure(startController({ dataDir, sealingKey: { kind: 'file', path: wrongFile } }));
      assert.deepEqual(byFile, {
        code: 'SEALING_KEY_WRONG',
        line:
          `the sealing key in ${wrongFile} does not open the TLS key in ${join(dataDir, 'tls.key.sealed')} ` +
          '(sealed under another key); give it with --sealing-key-file, PORTAL_CONTROLLER_SEALING_KEY_FILE, ' +
          'PORTAL_CONTROLLER_SEALING_KEY or the systemd credential controller-seal.key: ' +
          'the one that sealed it (a new TLS key would change the fingerprint every ticket and node pins)',
      });
      const secret = randomBytes(32).toString('base64');
      const byVariable = await failure(
        startController({
          dataDir,
          sealingKey: { kind: 'material', name: 'PORTAL_CONTROLLER_SEALING_KEY', material: secret },
        }),
      );
      assert.equal(byVariable.code, 'SEALING_KEY_WRONG');
      assert.match(
        byVariable.line,
        joinedRegExp(
          /^the sealing key in PORTAL_CONTROLLER_SEALING_KEY does not open the TLS key in /,
          /\S+\/controller\/tls\.key\.sealed \(sealed under another key\); /,
        ),
      );
      assert.ok(!byVariable.line.includes(secret));

      assert.deepEqual(
        await Promise.all([readFile(join(dataDir, 'tls.key.sealed')), readFile(join(dataDir, 'tls.crt'))]),
        before,
      );
      assert.equal(existsSync(join(dataDir, 'tls.key')), false);
      assert.equal((await startAndStop({ dataDir })).fingerprint, fingerprint, 'the right key still opens it');
    });

    it('a copy of the data directory without its sealing key file stops in one line and makes no key', async () => {
      await startAndStop({ dataDir: join(work, 'controller') });
      const copy = join(work, 'copy', 'controller');
      await cp(join(work, 'controller'), copy, { recursive: true });
      const missing = join(work, 'copy', 'keys', 'controller-seal.key');
      assert.deepEqual(await failure(startController({ dataDir: copy })), {
        code: 'SEALING_KEY_MISSING',
        line:
          `the TLS key in ${join(copy, 'tls.key.sealed')} is sealed, but the sealing key file ${missing} does not ` +
          'exist; give it with --sealing-key-file, PORTAL_CONTROLLER_SEALING_KEY_FILE, PORTAL_CONTROLLER_SEALING_KEY ' +
          'or the systemd credential controller-seal.key (the key that sealed it: a new one cannot open it)',
      });
      assert.equal(existsSync(join(work, 'copy', 'keys')), false, 'no silent new sealing key');
    });

    it(
      'seals the plain tls.key of an earlier version once, logs it, removes the plain file, ' +
        'and keeps the fingerprint',
      async () => {
        const dataDir = join(work, 'earlier');
        const earlier = createServerCertificate('portal-controller');
        // What an earlier version left: the key in the clear beside its certificate.
        await mkdir(dataDir, { recursive: true, mode: 0o700 });
        await writeFile(join(dataDir, 'tls.key'), earlier.privateKey, { mode: 0o600 });
        await writeFile(join(dataDir, 'tls.crt'), earlier.certificate, { mode: 0o644 });
        const lines: string[] = [];
        const first = await startAndStop({ dataDir, log: (line) => lines.push(line) });
        assert.equal(first.fingerprint, fingerprintOf(earlier.certificate));
        assert.equal(first.served, first.fingerprint);
        assert.deepEqual(lines, [
          `sealed the TLS key of ${dataDir}: ${join(dataDir, 'tls.key.sealed')} under ` +
            `${join(work, 'keys', 'earlier-seal.key')}, and the unsealed ${join(dataDir, 'tls.key')} was removed`,
        ]);
        assert.equal(existsSync(join(dataDir, 'tls.key')), false);
        const material = (await readFile(join(work, 'keys', 'earlier-seal.key'), 'utf8')).trim();
        assert.equal(
          unseal(sealingKeyFromMaterial(material), await readFile(join(dataDir, 'tls.key.sealed'))).toString(),
          earlier.privateKey,
        );

        const again: string[] = [];
        const second = await startAndStop({ dataDir, log: (line) => again.push(line) });
        assert.equal(second.fingerprint, first.fingerprint);
        assert.deepEqual(again, [], 'once');
      },
    );

    it(
      'a migration cut short (the plain copy still beside the sealed key) finishes: the copy goes, ' +
        'the sealed key stays',
      async () => {
        const dataDir = join(work, 'controller');
        const { fingerprint } = await startAndStop({ dataDir });
        const sealed = await readFile(join(dataDir, 'tls.key.sealed'));
        await writeFile(join(dataDir, 'tls.key'), unseal(await sealingKey(), sealed), { mode: 0o600 });
        assert.equal((await startAndStop({ dataDir })).fingerprint, fingerprint);
        assert.equal(existsSync(join(dataDir, 'tls.key')), false);
        assert.deepEqual(await readFile(join(dataDir, 'tls.key.sealed')), sealed);
      },
    );

    it(
      'half a pair stops the start and names the missing file: ' + 'a new key would change the pinned fingerprint',
      async () => {
        const dataDir = join(work, 'controller');
        await startAndStop({ dataDir });
        const certificate = join(dataDir, 'tls.crt');
        const sealedKey = join(dataDir, 'tls.key.sealed');
        const saved = await readFile(certificate);
        await rm(certificate);
        assert.deepEqual(await failure(startController({ dataDir })), {
          code: 'TLS_KEY_DAMAGED',
          line:
            `${certificate} is missing, but its key ${sealedKey} is there; restore it from a backup, or remove ` +
            `${sealedKey} to make a new pair (every ticket and node pinned the old fingerprint: enroll them again)`,
        });
        await writeFile(certificate, saved);
        await rm(sealedKey);
        const withoutKey = await failure(startController({ dataDir }));
        assert.equal(withoutKey.code, 'TLS_KEY_DAMAGED');
        assert.ok(
          withoutKey.line.startsWith(
            `${sealedKey} is missing, but its certificate ${certificate} is there; ` +
              `restore it from a backup, or remove ${certificate}`,
          ),
          withoutKey.line,
        );
        assert.deepEqual(
          (await readdir(dataDir)).filter((name) => name.startsWith('tls.')),
          ['tls.crt'],
          'no key was made',
        );
      },
    );
  },
);
