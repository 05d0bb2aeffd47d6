/**
 * What members announce, across controller replicas on a real PostgreSQL: a relay node or an inlet's
 * direct path announced to one replica is told to the members connected to another, and withdrawn there
 * when its connection closes or when the replica that held it stops renewing its lease (a crash).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminDirectory } from '../../src/cli/home.ts';
import { startController, type RunningController } from '../../src/controller/controller.ts';
import {
  leaseRenewMs,
  liveNotices,
  ReplicaLiveState,
  type SharedKind,
} from '../../src/controller/replica-live-state.ts';
import { noticesOf } from '../../src/controller/store/notices.ts';
import { setTimeout as delay } from 'node:timers/promises';
import { openStore } from '../../src/controller/store/open.ts';
import { sql } from 'kysely';
import { createCertificateRequest } from '../../src/pki/authority.ts';
import { generateKeyPair } from '../../src/pki/keys.ts';
import { followControllers } from '../../src/node/controller-addresses.ts';
import { enrollAdministrator, enrollWithTicket } from '../../src/node/enrollment.ts';
import { loadIdentity, type StoredIdentity } from '../../src/node/identity-store.ts';
import { createLogger } from '../../src/node/logger.ts';
import { StandingChannel } from '../../src/node/standing-channel.ts';
import { callController, openControlChannel, type ControlChannel } from '../../src/wire/control-channel.ts';
import type { ControllerEvent, ControllerOperations, RelayEntry } from '../../src/wire/protocol.ts';
import { decodeTicket } from '../../src/wire/ticket.ts';
import { startPostgres, type Postgres } from '../support/postgres.ts';
import { runPortal } from '../support/run-portal.ts';

describe('relay nodes and direct paths across controller replicas on PostgreSQL', function () {
  this.timeout(60_000);
  let postgres: Postgres;
  let dir: string;
  let url: string;
  const replicas: RunningController[] = [];
  const channels: ControlChannel[] = [];
  const previousPassword = process.env.PGPASSWORD;
  const sealingKey = { kind: 'material', name: 'the test', material: randomBytes(32).toString('hex') } as const;

  before(async () => {
    [postgres, dir] = await Promise.all([startPostgres(), mkdtemp(join(tmpdir(), 'portal-replica-relays-'))]);
    process.env.PGPASSWORD = postgres.password;
    postgres.createDatabase('relays');
    url = `postgres://${postgres.user}@127.0.0.1:${postgres.port}/relays`;
    for (const index of [0, 1])
      replicas.push(await startController({ dataDir: join(dir, `replica-${index}`), store: url, sealingKey }));
  });
  after(async () => {
    for (const channel of channels) channel.close();
    await Promise.all(replicas.map((replica) => replica.close()));
    if (previousPassword === undefined) delete process.env.PGPASSWORD;
    else process.env.PGPASSWORD = previousPassword;
    await postgres?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const pinOf = (replica: RunningController) => ({ controller: replica.listening, fingerprint: replica.fingerprint });

  /** Waits until `check` holds, polling every 10 ms; fails after `limitMs`. */
  async function until(check: () => boolean, what: string, limitMs = 1000): Promise<number> {
    const started = performance.now();
    while (!check()) {
      if (performance.now() - started > limitMs) assert.fail(`${what} did not happen within ${limitMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return performance.now() - started;
  }

  /**
   * A member granted by `grant`, enrolled through `through` with a ticket its administrator issues, and
   * its connection to `replica`.
   */
  async function enrolledMember(
    admin: { readonly key: string; readonly certificate: string },
    through: RunningController,
    replica: RunningController,
    grant: { readonly attribute: string; readonly relay?: string; readonly relayNode?: boolean },
  ) {
    const ticket = { expiresInMs: 3_600_000, usageCount: 1, tls: false, ...grant };
    const answer = await callController(pinOf(through), 'ticket', ticket, admin);
    const { ticketId, secret } = decodeTicket(String(answer.ticket));
    const keys = generateKeyPair();
    const request = createCertificateRequest(keys.privateKey, keys.publicKey, 'portal-node');
    const enrolled = await callController(pinOf(through), 'enroll', { ticket: ticketId, secret, request });
    const channel = await openControlChannel(pinOf(replica), {
      key: keys.privateKey,
      certificate: enrolled.certificate,
    });
    channels.push(channel);
    return { id: enrolled.identity.nodeId, channel };
  }

  it('tells the members of another replica within 1 s, and withdraws it when it goes or its replica does', async () => {
    const [first, second] = replicas as [RunningController, RunningController];
    const admin = await enrollAdministrator(join(dir, 'admin'), await first.service.createAdminCode(60_000));
    const credentials = { key: admin.privateKey, certificate: admin.certificate };
    // A relay node, enrolled and connected to the first replica.
    const relayNode = await enrolledMember(credentials, first, first, { attribute: '', relayNode: true });
    const relayChannel = relayNode.channel;
    // The administrator listens on the second replica.
    const listener = await openControlChannel(pinOf(second), credentials);
    channels.push(listener);
    let told: readonly RelayEntry[] = [];
    listener.on('event', (event: ControllerEvent) => {
      if (event.event === 'relays') told = event.relays;
    });
    await listener.request('ping', {});
    const ids = () => told.map((entry) => entry.id);

    await relayChannel.request('relay-announce', { address: '127.0.0.1:7001', fingerprint: 'a'.repeat(64) });
    const toldIn = await until(() => ids().includes(relayNode.id), 'the second replica telling of the relay');
    console.log(`      told on the other replica ${toldIn.toFixed(0)} ms after the announcement returned`);
    const asked = await listener.request('relays', {});
    assert.ok(
      asked.relays.some((entry) => entry.id === relayNode.id && entry.address === '127.0.0.1:7001'),
      JSON.stringify(asked.relays),
    );

    relayChannel.close();
    await until(() => !ids().includes(relayNode.id), 'the second replica withdrawing the relay');

    // A replica that crashed holds a relay: the others sweep both once its lease has run out.
    const store = await openStore(url);
    try {
      const now = Date.now();
      await store
        .insertInto('controller_replicas')
        .values({ id: 'rcrashed', addresses: '', started_at: now, expires_at: now + 60_000 })
        .execute();
      const crashedRelay = { id: 'nrelayofcrashed', address: '127.0.0.1:7002', fingerprint: 'b'.repeat(64) };
      await store
        .insertInto('live_entries')
        .values({
          replica: 'rcrashed',
          kind: 'relay',
          project_id: admin.record.projectId,
          key: crashedRelay.id,
          body: JSON.stringify(crashedRelay),
        })
        .execute();
      // Told by a notice as a replica sends it (the one that crashed sent it before it crashed).
      await sql`select pg_notify('portal_live', ${`relay ${admin.record.projectId}`})`.execute(store);
      await until(() => ids().includes('nrelayofcrashed'), "the crashed replica's relay being told");
      await store
        .updateTable('controller_replicas')
        .set({ expires_at: now - 1 })
        .where('id', '=', 'rcrashed')
        .execute();
      await until(() => !ids().includes('nrelayofcrashed'), 'the sweep of the crashed replica', leaseRenewMs + 2000);
      const left = await store.selectFrom('controller_replicas').select('id').execute();
      assert.deepEqual(left.map((row) => row.id).sort().length, 2, 'the two running replicas hold their leases');
    } finally {
      await store.destroy();
    }
  });

  it("tells an inlet's direct path to the outlets it admits on another replica, and its end", async () => {
    const [first, second] = replicas as [RunningController, RunningController];
    const admin = await enrollAdministrator(join(dir, 'admin-adverts'), await first.service.createAdminCode(60_000));
    const credentials = { key: admin.privateKey, certificate: admin.certificate };
    /** A member enrolled through the first replica: its channel to `replica`, and the events it is told. */
    async function member(attribute: string, replica: RunningController, relay?: string) {
      const { id, channel } = await enrolledMember(credentials, first, replica, {
        attribute,
        ...(relay ? { relay } : {}),
      });
      const events: ControllerEvent[] = [];
      channel.on('event', (event: ControllerEvent) => {
        if (event.event === 'inlet' || event.event === 'inlet-gone') events.push(event);
      });
      await channel.request('ping', {});
      return { id, channel, events };
    }
    const outlet = await member('app-outlet', second, 'app');
    const rogue = await member('rogue', second, 'app');
    const inlet = await member('app-inlet', first);
    const secret = 's'.repeat(32);
    await inlet.channel.request('advertise', {
      via: 'app',
      allow: 'app-outlet',
      addresses: ['127.0.0.1:7100'],
      secret,
      warm: 2,
    });
    await until(() => outlet.events.length > 0, 'the outlet on the other replica being told of the direct path');
    assert.deepEqual(outlet.events[0], {
      event: 'inlet',
      advert: {
        inlet: inlet.id,
        attributes: ['app-inlet'],
        via: 'app',
        addresses: ['127.0.0.1:7100'],
        secret,
        warm: 2,
      },
    });
    assert.deepEqual(
      (await outlet.channel.request('inlets', {})).inlets.map((advert) => advert.secret),
      [secret],
    );
    await rogue.channel.request('ping', {});
    assert.deepEqual(rogue.events, [], 'a member the inlet does not admit hears nothing');
    assert.deepEqual((await rogue.channel.request('inlets', {})).inlets, []);
    // The secret is sealed in the database: who reads it there cannot dial the direct path.
    const store = await openStore(url);
    try {
      const rows = await store.selectFrom('live_entries').select('body').where('kind', '=', 'advert').execute();
      assert.equal(rows.length, 1);
      assert.ok(!rows[0]!.body.includes(secret), rows[0]!.body);
    } finally {
      await store.destroy();
    }
    inlet.channel.close();
    await until(
      () => outlet.events.some((event) => event.event === 'inlet-gone' && event.inlet === inlet.id),
      "the outlet being told of the direct path's end",
    );
  });

  it('tells every member where the replicas are, and a replica added later; a node keeps the list', async () => {
    const [first] = replicas as [RunningController];
    // These replicas were started without --public-address: a third one, with two, is the first to name any.
    const admin = await enrollAdministrator(
      join(dir, 'admin-controllers'),
      await first.service.createAdminCode(60_000),
    );
    const answer = await callController(
      pinOf(first),
      'ticket',
      { expiresInMs: 3_600_000, usageCount: 1, attribute: 'app-inlet', tls: false },
      { key: admin.privateKey, certificate: admin.certificate },
    );
    const node = await enrollWithTicket(join(dir, 'follower'), String(answer.ticket));
    const channel = await openControlChannel(pinOf(first), { key: node.privateKey, certificate: node.certificate });
    channels.push(channel);
    let told: readonly string[] = [];
    channel.on('event', (event: ControllerEvent) => {
      if (event.event === 'controllers') told = event.addresses;
    });
    await channel.request('ping', {});
    const third = await startController({
      dataDir: join(dir, 'replica-added'),
      store: url,
      sealingKey,
      publicAddress: 'cp3.example.net:4000,cp4.example.net:4000',
    });
    replicas.push(third);
    await until(() => told.length > 0, 'the members being told of the added replica');
    assert.deepEqual(told, ['cp3.example.net:4000', 'cp4.example.net:4000']);
    // An administrator's command keeps the list too (the bundled CLI, as the administrator runs it).
    const home = join(dir, 'admin-home');
    await enrollAdministrator(adminDirectory(home), await first.service.createAdminCode(60_000));
    const listed = await runPortal(['project', 'tickets'], { env: { PORTAL_HOME: home } });
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal((await loadIdentity(adminDirectory(home)))?.record.controller, told.join(','));
    // A member that connects now is told at once.
    const late = await openControlChannel(pinOf(first), { key: node.privateKey, certificate: node.certificate });
    channels.push(late);
    let greeted: readonly string[] = [];
    late.on('event', (event: ControllerEvent) => {
      if (event.event === 'controllers') greeted = event.addresses;
    });
    await late.request('ping', {});
    assert.deepEqual(greeted, told);

    // The node keeps what it was told in its identity record, and dials there from then on.
    let current = node;
    const control = new StandingChannel<ControllerOperations>({
      target: { service: 'control', address: node.record.controller, fingerprint: node.record.fingerprint },
      credentials: () => ({ key: node.privateKey, certificate: node.certificate }),
      logger: createLogger({ enabled: false }),
    });
    const follow = {
      directory: join(dir, 'follower'),
      current: () => current,
      update: (next: StoredIdentity) => (current = next),
      control,
      logger: createLogger({ enabled: false }),
    };
    await followControllers(follow, told);
    assert.equal(control.target.address, 'cp3.example.net:4000,cp4.example.net:4000');
    assert.equal(
      (await loadIdentity(join(dir, 'follower')))?.record.controller,
      'cp3.example.net:4000,cp4.example.net:4000',
    );
    await followControllers(follow, ['not an address']);
    assert.equal(
      current.record.controller,
      'cp3.example.net:4000,cp4.example.net:4000',
      'a list that does not read is ignored',
    );
  });

  it('a member announcing 1,000 times in a row costs a few publications, and the last state arrives', async () => {
    const store = await openStore(url);
    const notices = noticesOf(store);
    assert.ok(notices, 'a PostgreSQL store takes notices');
    let held = 0;
    let changed: (projectId: string) => void = () => undefined;
    const kind: SharedKind = {
      kind: 'flood',
      here: () => [{ key: 'k', body: String(held) }],
      projectsHere: () => ['pflood'],
      setElsewhere: () => undefined,
      projectsElsewhere: () => [],
      onChangedHere: (listener) => {
        changed = listener;
        return () => undefined;
      },
    };
    const heard: string[] = [];
    const listening = await notices.listen(
      liveNotices,
      (payload) => void (payload === 'flood pflood' && heard.push(payload)),
      () => undefined,
    );
    const state = await ReplicaLiveState.start(store, notices, [kind], { addresses: '' });
    try {
      for (held = 1; held <= 1000; held += 1) changed('pflood');
      held = 1000;
      const last = async () =>
        (await store.selectFrom('live_entries').select('body').where('kind', '=', 'flood').executeTakeFirst())?.body;
      for (const deadline = Date.now() + 5000; (await last()) !== '1000'; await delay(10))
        if (Date.now() > deadline) assert.fail(`the last state never arrived: ${await last()}`);
      await delay(200);
      assert.ok(heard.length >= 1 && heard.length <= 3, `${heard.length} publications for 1,000 announcements`);
    } finally {
      await state.stop();
      await listening.stop();
      await store.destroy();
    }
  });
});
