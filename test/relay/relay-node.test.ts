import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chmod, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createLogger } from '../../src/node/logger.ts';
import { sealingKeyFromMaterial, unseal } from '../../src/pki/seal.ts';
import { enrollWithTicket } from '../../src/node/enrollment.ts';
import {
  relayDirectory,
  relaySealingKeyFile,
  startRelayNode,
  type RunningRelayNode,
} from '../../src/relay/relay-node.ts';
import { ServiceChannel, callController } from '../../src/wire/control-channel.ts';
import { decodeTicket, encodeTicket } from '../../src/wire/ticket.ts';
import type { RelayOperations } from '../../src/wire/protocol.ts';
import { until } from '../support/in-process.ts';
import { rejectsWith } from '../support/portal-errors.ts';
import { createWorld, type World } from '../support/portal-world.ts';
import { servedFingerprint } from '../support/served-fingerprint.ts';

describe('relay node: its TLS key is sealed like its identity', function () {
  this.timeout(30_000);
  let world: World;
  let home: string;
  let ticket: string | undefined;
  const directory = () => relayDirectory(home);
  const sealingKey = async () => sealingKeyFromMaterial((await readFile(relaySealingKeyFile(home), 'utf8')).trim());

  /** Starts the relay (enrolling it the first time), reads what it needs, and always stops it again. */
  async function startAndStop(): Promise<{ fingerprint: string; served: string; lines: string[] }> {
    const lines: string[] = [];
    const relay = await startRelayNode({
      home,
      ...(ticket ? { ticket } : {}),
      listen: { host: '127.0.0.1', port: 0 },
      logger: createLogger({ write: (line) => lines.push(line) }),
    });
    ticket = undefined;
    try {
      return { fingerprint: relay.fingerprint, served: await servedFingerprint(relay.listening), lines };
    } finally {
      await relay.stop();
    }
  }

  before(async () => {
    world = await createWorld();
    home = join(world.dir, 'relay-home');
    const answer = await callController(
      world.admin.record,
      'ticket',
      { expiresInMs: 60_000, usageCount: 1, attribute: '', tls: false, relayNode: true },
      { key: world.admin.privateKey, certificate: world.admin.certificate },
    );
    ticket = String(answer.ticket);
  });

  after(async () => {
    await world.close();
  });

  it(
    'keeps no plain tls.key: the key is sealed under the relay sealing key, ' +
      'and the same key serves after a restart',
    async () => {
      const first = await startAndStop();
      assert.equal(first.served, first.fingerprint);
      assert.deepEqual((await readdir(directory())).filter((name) => name.startsWith('tls.')).sort(), [
        'tls.crt',
        'tls.key.sealed',
      ]);
      const sealed = await readFile(join(directory(), 'tls.key.sealed'));
      assert.equal((await stat(join(directory(), 'tls.key.sealed'))).mode & 0o777, 0o600);
      assert.ok(!sealed.toString('latin1').includes('PRIVATE KEY'));
      assert.match(unseal(await sealingKey(), sealed).toString(), /^-----BEGIN PRIVATE KEY-----\n/);
      const second = await startAndStop();
      assert.equal(second.fingerprint, first.fingerprint);
      assert.equal(second.served, first.fingerprint);
    },
  );

  it('enrolls through --controller when the ticket names an address this machine does not reach', async () => {
    const answer = await callController(
      world.admin.record,
      'ticket',
      { expiresInMs: 60_000, usageCount: 1, attribute: '', tls: false, relayNode: true },
      { key: world.admin.privateKey, certificate: world.admin.certificate },
    );
    // As inside a cluster: the ticket's public name leads nowhere from here; the controller's Service does.
    const unreachable = encodeTicket({ ...decodeTicket(String(answer.ticket)), controller: '127.0.0.1:1' });
    const relay = await startRelayNode({
      home: join(world.dir, 'relay-through-service'),
      ticket: unreachable,
      controller: world.admin.record.controller,
      listen: { host: '127.0.0.1', port: 0 },
      logger: createLogger({ write: () => undefined }),
    });
    try {
      assert.equal(await servedFingerprint(relay.listening), relay.fingerprint);
    } finally {
      await relay.stop();
    }
  });

  it('seals the plain tls.key of an earlier version once, logs it, and keeps the fingerprint', async () => {
    const { fingerprint } = await startAndStop();
    const sealedPath = join(directory(), 'tls.key.sealed');
    const plainPath = join(directory(), 'tls.key');
    // What an earlier version left: the key in the clear, nothing sealed.
    await writeFile(plainPath, unseal(await sealingKey(), await readFile(sealedPath)), { mode: 0o600 });
    await rm(sealedPath);
    const migrated = await startAndStop();
    assert.equal(migrated.fingerprint, fingerprint);
    assert.equal(existsSync(plainPath), false);
    const logged = migrated.lines.filter((line) => line.includes('sealed the TLS key'));
    assert.equal(logged.length, 1);
    assert.ok(
      logged[0]?.endsWith(
        ` INFO sealed the TLS key of ${directory()}: ${sealedPath} under ${join(home, 'keys', 'relay-seal.key')}, ` +
          `and the unsealed ${plainPath} was removed\n`,
      ),
      logged[0],
    );
    const again = await startAndStop();
    assert.equal(again.fingerprint, fingerprint);
    assert.equal(again.lines.filter((line) => line.includes('sealed the TLS key')).length, 0, 'once');
  });

  it(
    "warns through the relay's logger, once per file, " +
      'about key files open to other users (its TLS key too), and still serves',
    async () => {
      const { fingerprint } = await startAndStop();
      const files = [
        relaySealingKeyFile(home),
        join(directory(), 'identity.key.sealed'),
        join(directory(), 'tls.key.sealed'),
      ];
      await Promise.all(files.map((path) => chmod(path, 0o644)));
      try {
        const open = await startAndStop();
        assert.equal(open.fingerprint, fingerprint);
        const warned = open.lines.filter((line) => line.includes(' WARN '));
        const what = ['the sealing key file', 'the sealed private key file', 'the sealed TLS key file'];
        assert.deepEqual(
          warned.map((line) => line.slice(line.indexOf(' WARN ') + ' WARN '.length)).sort(),
          files
            .map(
              (path, index) =>
                `${what[index]} ${path} may be read or changed by users other than its owner (mode 0644); ` +
                `run chmod 600 ${path}\n`,
            )
            .sort(),
        );
        const again = await startAndStop();
        assert.deepEqual(
          again.lines.filter((line) => line.includes(' WARN ')),
          [],
          'once per file and process',
        );
      } finally {
        await Promise.all(files.map((path) => chmod(path, 0o600)));
      }
    },
  );
});

describe('relay node: a revoked member is refused at its connection, and the trail says so', function () {
  this.timeout(30_000);
  let world: World;
  let relay: RunningRelayNode | undefined;

  before(async () => {
    world = await createWorld();
  });

  after(async () => {
    await relay?.stop();
    await world.close();
  });

  it('refuses the member it heard was revoked, and reports refused/revoked with no portal', async () => {
    const admin = { key: world.admin.privateKey, certificate: world.admin.certificate };
    const member = await enrollWithTicket(join(world.dir, 'member'), await world.ticket({ attribute: 'db-inlet' }));
    const relayTicket = await callController(
      world.admin.record,
      'ticket',
      { expiresInMs: 60_000, usageCount: 1, attribute: '', tls: false, relayNode: true },
      admin,
    );
    const running = await startRelayNode({
      home: join(world.dir, 'relay-home'),
      ticket: String(relayTicket.ticket),
      listen: { host: '127.0.0.1', port: 0 },
      logger: createLogger({ enabled: false }),
    });
    relay = running;
    const target = { service: 'relay' as const, address: running.address, fingerprint: running.fingerprint };
    const credentials = { key: member.privateKey, certificate: member.certificate };
    (await ServiceChannel.open<RelayOperations>(target, credentials)).destroy();

    const nodeId = member.record.nodeId;
    await callController(world.admin.record, 'revoke', { member: nodeId, reason: 'stolen' }, admin);
    await until(() => (running.server.refuses(nodeId) ? true : undefined), 'the relay hearing of the revocation');
    await rejectsWith(ServiceChannel.open<RelayOperations>(target, credentials), 'NOT_AUTHENTICATED');

    // Refusals are tallied per window, then reported over the relay's connection to the controller.
    const refused = await until(
      async () => {
        const { records } = await world.controller.service.audit.query(member.record.projectId, {
          afterSeq: 0,
          limit: 200,
          since: 0,
          event: 'refused',
        });
        return records.find((record) => record.seenBy === running.nodeId);
      },
      'the relay reporting its refusal',
      20_000,
    );
    assert.deepEqual(JSON.parse(refused.members), [nodeId]);
    const details = JSON.parse(refused.details) as Record<string, unknown>;
    assert.equal(details.reason, 'revoked');
    assert.equal(details.portal, null);
    assert.ok(Number(details.count) >= 1);
  });
});
