import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { X509Certificate, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createCertificateRequest, issueCertificate } from '../../src/pki/authority.ts';
import { publicKeyOf } from '../../src/pki/keys.ts';
import { enrollWithTicket } from '../../src/node/enrollment.ts';
import { loadIdentity, saveCertificate, type StoredIdentity } from '../../src/node/identity-store.ts';
import { sealingKeyFromMaterial, unseal } from '../../src/pki/seal.ts';
import { portal, portalBundle, startPortal } from '../support/processes.ts';
import { statusFromStart } from '../support/node-checks.ts';
import { createWorld, type World } from '../support/portal-world.ts';
import { joinedRegExp } from '../support/joined-regexp.ts';
import { rejectsWith } from '../support/portal-errors.ts';

/** How the previous version sealed: the raw key in <directory>/seal.key, no key identifier. */
function legacySeal(key: Buffer, plaintext: Buffer): Buffer {
  const magic = Buffer.from('PSEAL1');
  const nonce = randomBytes(24);
  return Buffer.concat([magic, nonce, xchacha20poly1305(key, nonce, magic).encrypt(plaintext)]);
}

/** The CLI run to its end, killed if it runs past `limitMs` (a node that retries forever must not hang the test). */
async function portalWithin(
  home: string,
  args: readonly string[],
  limitMs: number,
): Promise<{ code: number | null; stdout: string; stderr: string; elapsedMs: number }> {
  const started = Date.now();
  const child = spawn(process.execPath, [portalBundle, ...args], {
    env: { ...process.env, NODE_DEVELOPER: undefined, PORTAL_HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
  // 'close', not 'exit': the last of stderr may come after the exit on a loaded machine.
  const [code] = (await once(child, 'close')) as [number | null];
  clearTimeout(timer);
  return { code, stdout, stderr, elapsedMs: Date.now() - started };
}

describe('node identity store: sealing key kept apart, state checked on load', function () {
  this.timeout(60_000);
  let world: World;
  /** PORTAL_HOME of an enrolled node "a", and of another node "b" of the same project. */
  let homeA: string;
  let homeB: string;
  let identityA: StoredIdentity;
  const nodeDir = (home: string) => join(home, 'node');
  const inletConfig = JSON.stringify({
    'http-server-port': 0,
    'tcp-inlet': { from: '127.0.0.1:0', via: 'x', allow: 'x-outlet' },
  });

  before(async () => {
    world = await createWorld();
    homeA = join(world.dir, 'a');
    homeB = join(world.dir, 'b');
    identityA = await enrollWithTicket(nodeDir(homeA), await world.ticket({ attribute: 'a-inlet' }));
    await enrollWithTicket(nodeDir(homeB), await world.ticket({ attribute: 'b-inlet' }));
  });

  after(async () => {
    await world.close();
  });

  /** A copy of node a's PORTAL_HOME (state and key), to damage. */
  async function copyOfA(name: string): Promise<string> {
    const home = join(world.dir, 'copies', name);
    await cp(homeA, home, { recursive: true });
    return home;
  }

  it('keeps the sealing key outside the state directory, 0600 in a 0700 directory', async () => {
    const keyFile = join(homeA, 'keys', 'node-seal.key');
    assert.equal((await stat(keyFile)).mode & 0o777, 0o600);
    assert.equal((await stat(join(homeA, 'keys'))).mode & 0o777, 0o700);
    assert.equal(
      existsSync(join(nodeDir(homeA), 'seal.key')),
      false,
      'nothing that opens the key is in the state directory',
    );
    const material = (await readFile(keyFile, 'utf8')).trim();
    assert.ok(material.length >= 32, `key material of ${material.length} characters`);
    const opened = unseal(
      sealingKeyFromMaterial(material),
      await readFile(join(nodeDir(homeA), 'identity.key.sealed')),
    );
    assert.equal(opened.toString(), identityA.privateKey);
  });

  it(
    'takes the key from PORTAL_SEALING_KEY_FILE, ' + 'making it before the ticket is used when it does not exist',
    async () => {
      const home = join(world.dir, 'named');
      const keyFile = join(world.dir, 'instance-disk', 'secrets', 'node.key');
      const environment = { PORTAL_SEALING_KEY_FILE: keyFile };
      assert.equal(await loadIdentity(nodeDir(home), { environment }), undefined);
      assert.equal((await stat(keyFile)).mode & 0o777, 0o600, 'made at once, before any ticket is spent');
      assert.equal((await stat(join(world.dir, 'instance-disk', 'secrets'))).mode & 0o777, 0o700);
      const before = await readFile(keyFile, 'utf8');
      // enrollment.ts saves with the process environment, as the node does.
      process.env.PORTAL_SEALING_KEY_FILE = keyFile;
      try {
        await enrollWithTicket(nodeDir(home), await world.ticket({ attribute: 'named-inlet' }));
      } finally {
        delete process.env.PORTAL_SEALING_KEY_FILE;
      }
      assert.equal(await readFile(keyFile, 'utf8'), before, 'the key is not replaced');
      assert.equal(existsSync(join(home, 'keys')), false, 'no default key file beside it');
      assert.ok(await loadIdentity(nodeDir(home), { environment }));
      await rejectsWith(
        loadIdentity(nodeDir(home), { environment: {} }),
        'SEALING_KEY_MISSING',
        /node-seal\.key does not exist$/,
      );
    },
  );

  it('refuses a key file inside the state directory', async () => {
    await rejectsWith(
      loadIdentity(nodeDir(homeA), { sealingKeyFile: join(nodeDir(homeA), 'seal.key') }),
      'SEALING_KEY_BESIDE_STATE',
      /beside what it seals/,
    );
  });

  it('moves the key of the previous version out of the state directory once, and logs it', async () => {
    const home = await copyOfA('legacy');
    const directory = nodeDir(home);
    const legacyKey = randomBytes(32);
    await writeFile(join(directory, 'seal.key'), legacyKey, { mode: 0o600 });
    await writeFile(join(directory, 'identity.key.sealed'), legacySeal(legacyKey, Buffer.from(identityA.privateKey)));
    await rm(join(home, 'keys'), { recursive: true });
    const lines: string[] = [];
    const loaded = await loadIdentity(directory, { log: (line) => lines.push(line) });
    assert.equal(loaded?.privateKey, identityA.privateKey);
    assert.equal(lines.length, 1);
    assert.match(
      lines[0] as string,
      joinedRegExp(
        /^moved the sealing key out of .*legacy\/node: /,
        /.*identity\.key\.sealed is now sealed under .*legacy\/keys\/node-seal\.key, and .*seal\.key was removed$/,
      ),
    );
    assert.equal(existsSync(join(directory, 'seal.key')), false);
    assert.equal((await stat(join(home, 'keys', 'node-seal.key'))).mode & 0o777, 0o600);
    const again = await loadIdentity(directory, { log: (line) => lines.push(line) });
    assert.equal(again?.privateKey, identityA.privateKey);
    assert.equal(lines.length, 1, 'once');
  });

  it('moves the previous version key under an operator key that already exists', async () => {
    const home = await copyOfA('legacy-named');
    const directory = nodeDir(home);
    const legacyKey = randomBytes(32);
    await writeFile(join(directory, 'seal.key'), legacyKey, { mode: 0o600 });
    await writeFile(join(directory, 'identity.key.sealed'), legacySeal(legacyKey, Buffer.from(identityA.privateKey)));
    const keyFile = join(world.dir, 'operator.key');
    await writeFile(keyFile, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
    const lines: string[] = [];
    const loaded = await loadIdentity(directory, { sealingKeyFile: keyFile, log: (line) => lines.push(line) });
    assert.equal(loaded?.privateKey, identityA.privateKey);
    assert.equal(lines.length, 1);
    assert.equal(existsSync(join(directory, 'seal.key')), false);
    await rejectsWith(
      loadIdentity(directory),
      'SEALING_KEY_WRONG',
      /node-seal\.key does not open .*identity\.key\.sealed \(sealed under another key\)$/,
    );
  });

  it('a wrong key: one line naming the key file, exit 1', async () => {
    const home = await copyOfA('wrong-key');
    const keyFile = join(home, 'wrong.key');
    await writeFile(keyFile, randomBytes(32).toString('base64'), { mode: 0o600 });
    const run = await portal(home, ['node', 'create', '--foreground', '--configuration', inletConfig], {
      PORTAL_SEALING_KEY_FILE: keyFile,
    });
    assert.equal(run.code, 1);
    assert.equal(
      run.stderr,
      `portal: the sealing key in ${keyFile} does not open ${join(home, 'node', 'identity.key.sealed')} ` +
        '(sealed under another key); give the key that sealed it ' +
        '(set PORTAL_SEALING_KEY_FILE to the file that holds it), ' +
        `or remove ${join(home, 'node')} and enroll again with a new ticket\n`,
    );
  });

  it('a missing key while sealed state exists: one line naming the file, exit 1, no new key made', async () => {
    const home = await copyOfA('no-key');
    await rm(join(home, 'keys'), { recursive: true });
    const run = await portal(home, ['node', 'create', '--foreground', '--configuration', inletConfig]);
    assert.equal(run.code, 1);
    const keyFile = join(home, 'keys', 'node-seal.key');
    assert.equal(
      run.stderr,
      `portal: the node key in ${join(home, 'node', 'identity.key.sealed')} is sealed, ` +
        `but its sealing key file ${keyFile} does not exist; set PORTAL_SEALING_KEY_FILE to the file that holds it; ` +
        `without it this identity cannot be used: remove ${join(home, 'node')} and enroll again with a new ticket\n`,
    );
    assert.equal(existsSync(keyFile), false, 'no silent new key');
  });
  it('a key file too short to be a secret is refused', async () => {
    const keyFile = join(world.dir, 'short.key');
    await mkdir(world.dir, { recursive: true });
    await writeFile(keyFile, 'hunter2\n');
    await rejectsWith(
      loadIdentity(nodeDir(homeA), { sealingKeyFile: keyFile }),
      'SEALING_KEY_TOO_SHORT',
      /has 7 characters; at least 32 are needed$/,
    );
  });

  // State checked on load.
  it('loads an expired certificate: the node renews it, it is not damage', async () => {
    const home = await copyOfA('expired');
    const authority = await world.controller.service.authorityOf(identityA.record.projectId);
    const request = createCertificateRequest(identityA.privateKey, publicKeyOf(identityA.privateKey), 'portal-node');
    const identity = {
      projectId: identityA.record.projectId,
      nodeId: identityA.record.nodeId,
      attributes: ['a-inlet'],
      relays: [],
      admin: false,
      tls: false,
      relayNode: false,
    };
    const expired = issueCertificate({
      authority,
      request,
      identity,
      lifetimeMs: 1000,
      now: new Date(Date.now() - 3600_000),
    });
    await saveCertificate(nodeDir(home), expired);
    const loaded = await loadIdentity(nodeDir(home));
    assert.ok(loaded);
    assert.ok(Date.parse(new X509Certificate(loaded.certificate).validTo) < Date.now(), 'expired');
  });

  describe('portal node create on damaged state: one line naming the file, exit 1, nothing claims success', () => {
    const truncate = async (path: string) => {
      const bytes = await readFile(path);
      await writeFile(path, bytes.subarray(0, Math.floor(bytes.length / 2)));
    };
    const damages: { name: string; file: string; damage: (home: string) => Promise<void>; says: RegExp }[] = [
      {
        name: 'identity-empty-object',
        file: 'node/identity.json',
        damage: (h) => writeFile(join(nodeDir(h), 'identity.json'), '{}'),
        says: /missing or wrong: controller \(host:port, or several comma-separated\), fingerprint/,
      },
      {
        name: 'identity-array',
        file: 'node/identity.json',
        damage: (h) => writeFile(join(nodeDir(h), 'identity.json'), '[]'),
        says: /it is not a JSON object/,
      },
      {
        name: 'identity-garbage',
        file: 'node/identity.json',
        damage: (h) => writeFile(join(nodeDir(h), 'identity.json'), randomBytes(200)),
        says: /it is not JSON/,
      },
      {
        name: 'identity-truncated',
        file: 'node/identity.json',
        damage: (h) => truncate(join(nodeDir(h), 'identity.json')),
        says: /it is not JSON/,
      },
      {
        name: 'certificate-empty',
        file: 'node/certificate.pem',
        damage: (h) => writeFile(join(nodeDir(h), 'certificate.pem'), ''),
        says: /it is empty/,
      },
      {
        name: 'certificate-garbage',
        file: 'node/certificate.pem',
        damage: (h) => writeFile(join(nodeDir(h), 'certificate.pem'), 'garbage\n'),
        says: /not a PEM X\.509 certificate/,
      },
      {
        name: 'certificate-of-another-node',
        file: 'node/certificate.pem',
        damage: (h) => cp(join(nodeDir(homeB), 'certificate.pem'), join(nodeDir(h), 'certificate.pem')),
        says: /not this node's certificate/,
      },
      {
        name: 'authority-garbage',
        file: 'node/project-ca.pem',
        damage: (h) => writeFile(join(nodeDir(h), 'project-ca.pem'), '-----BEGIN CERTIFICATE-----\nAAAA\n'),
        says: /not a PEM X\.509 certificate/,
      },
      {
        name: 'sealed-key-truncated',
        file: 'node/identity.key.sealed',
        damage: (h) => truncate(join(nodeDir(h), 'identity.key.sealed')),
        says: /fails its integrity check/,
      },
    ];

    const exitTimes: number[] = [];
    after(() => {
      if (exitTimes.length > 0)
        console.log(
          `      ${exitTimes.length} damaged states: ` +
            `exit 1 after ${Math.min(...exitTimes)}-${Math.max(...exitTimes)} ms`,
        );
    });

    it('starts from an undamaged copy (the copies are sound)', async () => {
      const home = await copyOfA('sound');
      const node = startPortal(home, ['node', 'create', '--foreground', '--configuration', inletConfig]);
      try {
        // Running: it tried for a session (no outlet answers relay "x", so it is never set up).
        await node.waitFor(/ listens on /);
        await statusFromStart(home, (shown) => shown.inlets[0]?.session_failure?.reason === 'no_outlet', 10_000);
      } finally {
        assert.equal(await node.stop(), 0);
      }
    });

    for (const { name, file, damage, says } of damages) {
      it(`${name}: stops with one line naming ${file}`, async () => {
        const home = await copyOfA(name);
        await damage(home);
        const run = await portalWithin(
          home,
          ['node', 'create', '--foreground', '--configuration', inletConfig],
          10_000,
        );
        assert.equal(run.code, 1, `${run.stderr} (after ${run.elapsedMs} ms)`);
        const lines = run.stderr.split('\n').filter((line) => line !== '');
        assert.equal(lines.length, 1, run.stderr);
        assert.ok((lines[0] as string).startsWith(`portal: ${join(home, file)} is damaged: `), lines[0]);
        assert.match(lines[0] as string, says);
        assert.match(
          lines[0] as string,
          /; restore .* from a backup, or remove it and enroll again with a new ticket$/,
        );
        assert.doesNotMatch(run.stdout + run.stderr, /setup completed successfully|internal error/);
        assert.ok(run.elapsedMs < 5000, `exited after ${run.elapsedMs} ms`);
        exitTimes.push(run.elapsedMs);
      });
    }
  });
});
