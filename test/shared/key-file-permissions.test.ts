import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAuthority, createCertificateRequest, issueCertificate } from '../../src/pki/authority.ts';
import { generateKeyPair } from '../../src/pki/keys.ts';
import { loadIdentity, saveIdentity } from '../../src/node/identity-store.ts';
import { sealingKeyFromMaterial } from '../../src/pki/seal.ts';
import { warnIfKeyFileOpen } from '../../src/shared/key-file-permissions.ts';
import { loadServerCertificate } from '../../src/shared/sealed-server-certificate.ts';
import { readSealingKey } from '../../src/shared/sealing-key.ts';
import { joinedRegExp } from '../support/joined-regexp.ts';

/** A warn function that keeps what it is given. */
function collector(): { warn: (line: string) => void; lines: string[] } {
  const lines: string[] = [];
  return { warn: (line) => lines.push(line), lines };
}

describe('key files that other users may read or write: one warning per file, naming the fix', () => {
  let directory: string;

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'portal-key-permissions-'));
  });

  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  async function keyFile(name: string, mode: number): Promise<string> {
    const path = join(directory, name);
    await writeFile(path, `${randomBytes(32).toString('base64')}\n`);
    await chmod(path, mode);
    return path;
  }

  it('warns once for a 0644 key, naming the file, its mode and the chmod that fixes it', async () => {
    const path = await keyFile('open.key', 0o644);
    const { warn, lines } = collector();
    await warnIfKeyFileOpen(path, 'the sealing key file', warn);
    await warnIfKeyFileOpen(path, 'the sealing key file', warn);
    assert.deepEqual(lines, [
      `the sealing key file ${path} may be read or changed by users other than its owner (mode 0644); ` +
        `run chmod 600 ${path}`,
    ]);
  });

  it('says nothing for a 0600 or a 0400 key, nor for a file that is not there', async () => {
    const { warn, lines } = collector();
    await warnIfKeyFileOpen(await keyFile('owner.key', 0o600), 'the sealing key file', warn);
    await warnIfKeyFileOpen(await keyFile('read-only.key', 0o400), 'the sealing key file', warn);
    await warnIfKeyFileOpen(join(directory, 'missing.key'), 'the sealing key file', warn);
    assert.deepEqual(lines, []);
  });

  it('counts a key that only the group may write as open too, and quotes a path the shell would split', async () => {
    const path = await keyFile('group writable.key', 0o620);
    const { warn, lines } = collector();
    await warnIfKeyFileOpen(path, 'the sealing key file', warn);
    assert.deepEqual(lines, [
      `the sealing key file ${path} may be read or changed by users other than its owner (mode 0620); ` +
        `run chmod 600 '${path}'`,
    ]);
  });

  it('warns once when a sealing key is read from a 0644 file, however often it is read', async () => {
    const path = await keyFile('node-seal.key', 0o644);
    const { warn, lines } = collector();
    const first = await readSealingKey({ kind: 'file', path }, warn);
    const second = await readSealingKey({ kind: 'file', path }, warn);
    assert.ok(first && second && first.equals(second), 'the key is still used');
    assert.equal(lines.length, 1);
    assert.match(
      lines[0] ?? '',
      joinedRegExp(
        /^the sealing key file .*node-seal\.key may be read or changed by users other than its owner \(mode 0644\); /,
        /run chmod 600 \S*node-seal\.key$/,
      ),
    );
  });

  it(
    "warns through the identity store's logger about a node's open sealing key and sealed private key, " + 'once each',
    async () => {
      const node = join(directory, 'node');
      const sealingKeyFile = join(directory, 'keys', 'node-seal.key');
      await mkdir(join(directory, 'keys'), { mode: 0o700 });
      const authority = createAuthority('p1');
      const keys = generateKeyPair();
      const identity = {
        projectId: 'p1',
        nodeId: 'n1',
        attributes: ['a'],
        relays: [],
        admin: false,
        tls: false,
        relayNode: false,
      };
      const certificate = issueCertificate({
        authority,
        request: createCertificateRequest(keys.privateKey, keys.publicKey, 'n1'),
        identity,
        lifetimeMs: 3600_000,
      });
      const record = {
        controller: '127.0.0.1:4000',
        fingerprint: 'ab'.repeat(32),
        projectId: 'p1',
        nodeId: 'n1',
        networkDomain: 'portal.test',
        attributes: ['a'],
        relays: [],
        tls: false,
      };
      const quiet = collector();
      await saveIdentity(
        node,
        { record, privateKey: keys.privateKey, certificate, authority: authority.certificate },
        { sealingKeyFile, warn: quiet.warn },
      );
      await loadIdentity(node, { sealingKeyFile, warn: quiet.warn });
      assert.deepEqual(quiet.lines, [], 'what Portal writes is 0600');

      await chmod(sealingKeyFile, 0o644);
      await chmod(join(node, 'identity.key.sealed'), 0o640);
      const { warn, lines } = collector();
      for (let load = 0; load < 3; load += 1)
        assert.equal((await loadIdentity(node, { sealingKeyFile, warn }))?.privateKey, keys.privateKey);
      const sealedKey = join(node, 'identity.key.sealed');
      assert.deepEqual(lines.sort(), [
        `the sealed private key file ${sealedKey} may be read or changed by users other than its owner (mode 0640); ` +
          `run chmod 600 ${sealedKey}`,
        `the sealing key file ${sealingKeyFile} may be read or changed by users other than its owner (mode 0644); ` +
          `run chmod 600 ${sealingKeyFile}`,
      ]);
    },
  );

  it('warns once about a sealed TLS key (tls.key.sealed) open to other users, and still serves with it', async () => {
    const server = join(directory, 'controller');
    const options = {
      directory: server,
      commonName: 'portal-controller',
      sealingKey: sealingKeyFromMaterial(randomBytes(32).toString('base64')),
      sealingKeyName: 'the test key',
      howToGiveKey: 'give it',
    };
    const quiet = collector();
    const made = await loadServerCertificate({ ...options, warn: quiet.warn });
    assert.equal((await loadServerCertificate({ ...options, warn: quiet.warn })).privateKey, made.privateKey);
    assert.deepEqual(quiet.lines, [], 'what Portal writes is 0600');

    const sealedKey = join(server, 'tls.key.sealed');
    await chmod(sealedKey, 0o644);
    const { warn, lines } = collector();
    for (let load = 0; load < 3; load += 1)
      assert.equal((await loadServerCertificate({ ...options, warn })).privateKey, made.privateKey);
    assert.deepEqual(lines, [
      `the sealed TLS key file ${sealedKey} may be read or changed by users other than its owner (mode 0644); ` +
        `run chmod 600 ${sealedKey}`,
    ]);
  });
});
