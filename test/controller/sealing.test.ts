import assert from 'node:assert/strict';
import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { X509Certificate, createPrivateKey, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startController } from '../../src/controller/controller.ts';
import { KeptSqlite } from '../../src/controller/store/sqlite.ts';
import { createCertificateRequest, issueCertificate } from '../../src/pki/authority.ts';
import { generateKeyPair } from '../../src/pki/keys.ts';
import { enrollAdministrator, enrollWithTicket } from '../../src/node/enrollment.ts';
import { loadIdentity, type StoredIdentity } from '../../src/node/identity-store.ts';
import { sealingKeyFromMaterial, unseal } from '../../src/pki/seal.ts';
import { callController } from '../../src/wire/control-channel.ts';
import { portal, startPortal, type Running } from '../support/processes.ts';
import { joinedRegExp } from '../support/joined-regexp.ts';

interface Ready {
  readonly address: string;
  readonly fingerprint: string;
}

/** How the previous version sealed: the raw key in <data dir>/seal.key, no key identifier. */
function legacySeal(key: Buffer, plaintext: Buffer): Buffer {
  const magic = Buffer.from('PSEAL1');
  const nonce = randomBytes(24);
  return Buffer.concat([magic, nonce, xchacha20poly1305(key, nonce, magic).encrypt(plaintext)]);
}

async function filesUnder(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

async function projectRows(
  databasePath: string,
): Promise<{ id: string; ca_certificate: string; ca_private_key: string }[]> {
  const database = await KeptSqlite.open(databasePath, { readonly: true });
  try {
    return database.all('select id, ca_certificate, ca_private_key from projects');
  } finally {
    database.close();
  }
}

describe(
  'sealing: a stolen copy of the controller data directory or node state ' + 'opens nothing without its key',
  function () {
    this.timeout(60_000);
    let work: string;
    /** Where the thief copies what they took: stolen/controller (all of --data-dir) and stolen/node. */
    let stolen: string;
    let admin: StoredIdentity;
    let node: StoredIdentity;
    const controllerKey = () => join(work, 'keys', 'controller-seal.key');
    const nodeKey = () => join(work, 'keys', 'node-seal.key');
    const running: Running[] = [];

    const startCopy = (home: string, args: string[], env: NodeJS.ProcessEnv = {}) => {
      const controller = startPortal(
        home,
        [
          'controller',
          'start',
          '--data-dir',
          join(stolen, 'controller'),
          '--listen',
          '127.0.0.1:0',
          '--ready-json',
          ...args,
        ],
        env,
      );
      running.push(controller);
      return controller;
    };
    const ready = async (controller: Running) => JSON.parse(await controller.waitFor(/^\{"pid"/)) as Ready;

    before(async () => {
      work = await mkdtemp(join(tmpdir(), 'portal-sealing-'));
      stolen = join(work, 'stolen');
      const controller = await startController({ dataDir: join(work, 'controller') });
      try {
        admin = await enrollAdministrator(join(work, 'admin'), await controller.service.createAdminCode(60_000));
        const ticket = await callController(
          admin.record,
          'ticket',
          { expiresInMs: 60_000, usageCount: 1, attribute: 'db-outlet' },
          { key: admin.privateKey, certificate: admin.certificate },
        );
        node = await enrollWithTicket(join(work, 'node'), String(ticket.ticket));
      } finally {
        await controller.close();
      }
      await cp(join(work, 'controller'), join(stolen, 'controller'), { recursive: true });
      await cp(join(work, 'node'), join(stolen, 'node'), { recursive: true });
    });

    afterEach(async () => {
      await Promise.all(running.splice(0).map((controller) => controller.stop()));
    });

    after(async () => {
      await rm(work, { recursive: true, force: true });
    });

    it('keeps the keys outside the directories they seal', async () => {
      assert.deepEqual((await readdir(join(work, 'keys'))).sort(), [
        'admin-seal.key',
        'controller-seal.key',
        'node-seal.key',
      ]);
      for (const file of await filesUnder(join(work, 'keys')))
        assert.equal((await stat(file)).mode & 0o777, 0o600, file);
      assert.equal(existsSync(join(stolen, 'controller', 'seal.key')), false);
      assert.equal(existsSync(join(stolen, 'node', 'seal.key')), false);
    });

    it(
      'with the copy alone, no file in it unseals the project CA key, ' + 'the controller TLS key or the node key',
      async () => {
        const [project] = await projectRows(join(stolen, 'controller', 'controller.db'));
        assert.ok(project);
        const sealedCa = Buffer.from(project.ca_private_key, 'base64');
        const sealedTls = await readFile(join(stolen, 'controller', 'tls.key.sealed'));
        const sealedNode = await readFile(join(stolen, 'node', 'identity.key.sealed'));
        const files = await filesUnder(stolen);
        // Every file taken as a raw key (where it has 32 bytes) and as key material.
        const candidates = (await Promise.all(files.map((file) => readFile(file)))).flatMap((bytes) => [
          ...(bytes.length === 32 ? [bytes] : []),
          sealingKeyFromMaterial(bytes.toString('utf8').trim()),
        ]);
        assert.ok(
          files.length >= 6 && candidates.length >= files.length,
          `${files.length} files, ${candidates.length} candidate keys`,
        );
        for (const key of candidates) {
          assert.throws(() => unseal(key, sealedCa));
          assert.throws(() => unseal(key, sealedTls));
          assert.throws(() => unseal(key, sealedNode));
        }
        console.log(
          `      ${files.length} files in the copy, ${candidates.length} candidate keys from them: ` +
            '0 open the CA key, the TLS key or the node key',
        );
        // No private key in the clear: not even the controller's TLS key, which would let the thief pose as
        // the controller.
        const clear = [];
        for (const file of files) if ((await readFile(file, 'latin1')).includes('PRIVATE KEY')) clear.push(file);
        assert.deepEqual(clear, []);
        assert.equal(existsSync(join(stolen, 'controller', 'tls.key')), false);
      },
    );

    it('with the copy alone, portal controller start refuses in one line and makes no key', async () => {
      const home = join(work, 'thief-home');
      const started = Date.now();
      const run = await portal(home, [
        'controller',
        'start',
        '--data-dir',
        join(stolen, 'controller'),
        '--listen',
        '127.0.0.1:0',
        '--ready-json',
      ]);
      assert.equal(run.code, 1);
      assert.equal(
        run.stderr,
        `portal: the project CA keys in sqlite:${join(stolen, 'controller', 'controller.db')} are sealed, ` +
          `but the sealing key file ${join(home, 'keys', 'controller-seal.key')} does not exist; ` +
          'give it with --sealing-key-file, PORTAL_CONTROLLER_SEALING_KEY_FILE, PORTAL_CONTROLLER_SEALING_KEY or the ' +
          `systemd credential controller-seal.key (the key that sealed them: a new one cannot open them)\n`,
      );
      assert.equal(run.stdout, '');
      assert.equal(existsSync(join(home, 'keys')), false, 'no silent new key');
      assert.ok(Date.now() - started < 5000);
    });

    it('with the copy alone, portal node create refuses in one line', async () => {
      const home = join(work, 'thief-node');
      await cp(join(stolen, 'node'), join(home, 'node'), { recursive: true });
      const config = JSON.stringify({
        'http-server-port': 0,
        'tcp-inlet': { from: '127.0.0.1:0', via: 'x', allow: 'x' },
      });
      const run = await portal(home, ['node', 'create', '--foreground', '--configuration', config]);
      assert.equal(run.code, 1);
      assert.match(
        run.stderr,
        joinedRegExp(
          /^portal: the node key in .*thief-node\/node\/identity\.key\.sealed is sealed, /,
          /but its sealing key file .*thief-node\/keys\/node-seal\.key does not exist; [^\n]*\n$/,
        ),
      );
    });

    it(
      'with the key as well, the copy signs an administrator certificate that the controller accepts: ' +
        'the key is what protects',
      async () => {
        const copy = startCopy(join(work, 'keyed-home'), ['--sealing-key-file', controllerKey()]);
        const { address, fingerprint } = await ready(copy);
        assert.equal(
          copy.lines.filter((line) => / WARN /.test(line)).length,
          0,
          'an operator-supplied key draws no warning',
        );
        const [project] = await projectRows(join(stolen, 'controller', 'controller.db'));
        assert.ok(project);
        const material = (await readFile(controllerKey(), 'utf8')).trim();
        const authority = {
          certificate: project.ca_certificate,
          privateKey: unseal(
            sealingKeyFromMaterial(material),
            Buffer.from(project.ca_private_key, 'base64'),
          ).toString(),
        };
        const keys = generateKeyPair();
        const forged = issueCertificate({
          authority,
          request: createCertificateRequest(keys.privateKey, keys.publicKey, 'forged'),
          identity: {
            projectId: project.id,
            nodeId: 'aforged',
            attributes: [],
            relays: [],
            admin: true,
            tls: false,
            relayNode: false,
          },
          lifetimeMs: 600_000,
        });
        const answer = await callController(
          { controller: address, fingerprint },
          'project',
          {},
          { key: keys.privateKey, certificate: forged },
        );
        assert.equal((answer.project as { id: string }).id, admin.record.projectId);
        // And the node's key opens with its own key file.
        const loaded = await loadIdentity(join(stolen, 'node'), { sealingKeyFile: nodeKey() });
        assert.equal(loaded?.privateKey, node.privateKey);
        assert.ok(new X509Certificate(node.certificate).checkPrivateKey(createPrivateKey(loaded.privateKey)));
      },
    );

    it(
      'takes the key material from PORTAL_CONTROLLER_SEALING_KEY, ' +
        'and the file from PORTAL_CONTROLLER_SEALING_KEY_FILE',
      async () => {
        const material = await readFile(controllerKey(), 'utf8');
        const byMaterial = startCopy(join(work, 'env-home'), [], { PORTAL_CONTROLLER_SEALING_KEY: material });
        await ready(byMaterial);
        assert.equal(
          byMaterial.lines.filter((line) => line.includes(material.trim())).length,
          0,
          'the key is never printed',
        );
        await byMaterial.stop();
        const byFile = startCopy(join(work, 'env-home'), [], { PORTAL_CONTROLLER_SEALING_KEY_FILE: controllerKey() });
        await ready(byFile);
        assert.equal(existsSync(join(work, 'env-home', 'keys')), false, 'no default key was made');
      },
    );

    it('a wrong key: one line naming the file (or the variable), exit 1', async () => {
      const wrong = join(work, 'wrong.key');
      await writeFile(wrong, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
      const database = `sqlite:${join(stolen, 'controller', 'controller.db')}`;
      const run = await portal(join(work, 'wrong-home'), [
        'controller',
        'start',
        '--data-dir',
        join(stolen, 'controller'),
        '--listen',
        '127.0.0.1:0',
        '--sealing-key-file',
        wrong,
      ]);
      assert.equal(run.code, 1);
      assert.equal(
        run.stderr,
        `portal: the sealing key in ${wrong} does not open the project CA keys in ${database} ` +
          '(sealed under another key); give it with --sealing-key-file, PORTAL_CONTROLLER_SEALING_KEY_FILE, ' +
          `PORTAL_CONTROLLER_SEALING_KEY or the systemd credential controller-seal.key: the one that sealed them\n`,
      );
      const secret = randomBytes(32).toString('base64');
      const byVariable = await portal(
        join(work, 'wrong-home'),
        ['controller', 'start', '--data-dir', join(stolen, 'controller'), '--listen', '127.0.0.1:0'],
        {
          PORTAL_CONTROLLER_SEALING_KEY: secret,
        },
      );
      assert.equal(byVariable.code, 1);
      assert.match(
        byVariable.stderr,
        /^portal: the sealing key in PORTAL_CONTROLLER_SEALING_KEY does not open the project CA keys in [^\n]*\n$/,
      );
      assert.ok(!byVariable.stderr.includes(secret));
    });

    it(
      'a wrong key for a sealed TLS key (no project yet): ' + 'one line naming the file, exit 1, nothing changed',
      async () => {
        const dataDir = join(work, 'fresh', 'controller');
        const rightKey = join(work, 'fresh-right.key');
        const first = await startController({ dataDir, sealingKey: { kind: 'file', path: rightKey } });
        await first.close();
        const sealed = await readFile(join(dataDir, 'tls.key.sealed'));
        const wrong = join(work, 'fresh-wrong.key');
        await writeFile(wrong, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
        const run = await portal(join(work, 'fresh-home'), [
          'controller',
          'start',
          '--data-dir',
          dataDir,
          '--listen',
          '127.0.0.1:0',
          '--sealing-key-file',
          wrong,
        ]);
        assert.equal(run.code, 1);
        assert.equal(
          run.stderr,
          `portal: the sealing key in ${wrong} does not open the TLS key in ${join(dataDir, 'tls.key.sealed')} ` +
            '(sealed under another key); give it with --sealing-key-file, PORTAL_CONTROLLER_SEALING_KEY_FILE, ' +
            'PORTAL_CONTROLLER_SEALING_KEY or the systemd credential controller-seal.key: ' +
            `the one that sealed it (a new TLS key would change the fingerprint every ticket and node pins)\n`,
        );
        assert.equal(run.stdout, '');
        assert.deepEqual(await readFile(join(dataDir, 'tls.key.sealed')), sealed, 'no new key');
      },
    );

    it('refuses a key file inside the data directory, and key material too short, with exit 2', async () => {
      const inside = await portal(join(work, 'bad-home'), [
        'controller',
        'start',
        '--data-dir',
        join(stolen, 'controller'),
        '--sealing-key-file',
        join(stolen, 'controller', 'seal.key'),
      ]);
      assert.equal(inside.code, 2);
      assert.match(
        inside.stderr,
        joinedRegExp(
          /^portal: the sealing key file .*stolen\/controller\/seal\.key lies inside .*stolen\/controller, /,
          /beside what it seals; keep the sealing key on other storage/,
        ),
      );
      const short = await portal(
        join(work, 'bad-home'),
        ['controller', 'start', '--data-dir', join(stolen, 'controller')],
        { PORTAL_CONTROLLER_SEALING_KEY: 'too short' },
      );
      assert.equal(short.code, 2);
      assert.equal(
        short.stderr,
        'portal: the sealing key in PORTAL_CONTROLLER_SEALING_KEY has 9 characters; at least 32 are needed; ' +
          'make one with openssl rand -base64 32\n',
      );
    });

    it(
      'moves the key of the previous version (seal.key in the data directory) out once, seals its plain tls.key, ' +
        'logs both, and warns about the default place',
      async () => {
        const legacyDir = join(work, 'legacy');
        await cp(join(stolen, 'controller'), legacyDir, { recursive: true });
        const legacyKey = randomBytes(32);
        const material = (await readFile(controllerKey(), 'utf8')).trim();
        // The previous version kept the TLS key in the clear.
        await writeFile(
          join(legacyDir, 'tls.key'),
          unseal(sealingKeyFromMaterial(material), await readFile(join(legacyDir, 'tls.key.sealed'))),
          { mode: 0o600 },
        );
        await rm(join(legacyDir, 'tls.key.sealed'));
        const database = await KeptSqlite.open(join(legacyDir, 'controller.db'));
        for (const row of database.all<{ id: string; ca_private_key: string }>(
          'select id, ca_private_key from projects',
        )) {
          const plain = unseal(sealingKeyFromMaterial(material), Buffer.from(row.ca_private_key, 'base64'));
          database.run(
            'update projects set ca_private_key = ? where id = ?',
            legacySeal(legacyKey, plain).toString('base64'),
            row.id,
          );
        }
        database.close();
        await writeFile(join(legacyDir, 'seal.key'), legacyKey, { mode: 0o600 });
        const home = join(work, 'legacy-home');
        const first = startPortal(home, [
          'controller',
          'start',
          '--data-dir',
          legacyDir,
          '--listen',
          '127.0.0.1:0',
          '--ready-json',
        ]);
        running.push(first);
        const { address, fingerprint } = JSON.parse(await first.waitFor(/^\{"pid"/)) as Ready;
        const newKey = join(home, 'keys', 'controller-seal.key');
        assert.match(
          await first.waitFor(/moved the sealing key/),
          new RegExp(
            `INFO moved the sealing key out of ${legacyDir}: 1 project CA keys re-sealed under ${newKey}, ` +
              `and ${join(legacyDir, 'seal.key')} was removed$`,
          ),
        );
        assert.match(
          await first.waitFor(/ WARN /),
          new RegExp(
            `WARN the sealing key of this controller is ${newKey}, outside its data directory but on this machine: ` +
              'move it to a secret store',
          ),
        );
        assert.match(
          await first.waitFor(/sealed the TLS key/),
          new RegExp(
            `INFO sealed the TLS key of ${legacyDir}: ${join(legacyDir, 'tls.key.sealed')} under ${newKey}, ` +
              `and the unsealed ${join(legacyDir, 'tls.key')} was removed$`,
          ),
        );
        assert.equal(fingerprint, admin.record.fingerprint, 'the same TLS key: every pin still holds');
        assert.equal(existsSync(join(legacyDir, 'seal.key')), false);
        assert.equal(existsSync(join(legacyDir, 'tls.key')), false);
        assert.equal((await stat(newKey)).mode & 0o777, 0o600);
        // The migrated CA still signs: a node enrolls.
        const pin = { controller: address, fingerprint };
        const ticket = await callController(
          pin,
          'ticket',
          { expiresInMs: 60_000, usageCount: 1, attribute: 'after-migration' },
          { key: admin.privateKey, certificate: admin.certificate },
        );
        const enrolled = await enrollWithTicket(join(work, 'after-migration', 'node'), String(ticket.ticket));
        assert.deepEqual(enrolled.record.attributes, ['after-migration']);
        await first.stop();
        const second = startPortal(home, [
          'controller',
          'start',
          '--data-dir',
          legacyDir,
          '--listen',
          '127.0.0.1:0',
          '--ready-json',
        ]);
        running.push(second);
        await second.waitFor(/^\{"pid"/);
        assert.equal(
          second.lines.filter((line) => line.includes('moved the sealing key') || line.includes('sealed the TLS key'))
            .length,
          0,
          'once',
        );
      },
    );
  },
);
