/**
 * The README's "Running the control plane on several machines", run as written after its quick start
 * (see test/support/readme-walkthrough.ts): every machine a home of its own on loopback, each name and
 * port of the commands made one of this machine (each replica and relay on a port of its own, the
 * database the test's PostgreSQL). The quick start's nodes are never restarted nor enrolled again; then
 * one process of each kind is killed and the portal answers on.
 */
import assert from 'node:assert/strict';
import { copyFile, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, statusWhen, type Running } from '../support/processes.ts';
import { startPostgres, type Postgres } from '../support/postgres.ts';
import { bash, readReadme, resetAdministrator, startQuickStart, stepsOf } from '../support/readme-walkthrough.ts';

const section = '## Running the control plane on several machines';
const storePassword = 'replicas-walkthrough-secret';

describe('the README: the quick start moved to three replicas on PostgreSQL, two relays and a pool', function () {
  this.timeout(180_000);
  let dir: string;
  let postgres: Postgres;
  const running: Running[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portal-readme-replicas-'));
    postgres = await startPostgres();
  });

  after(async () => {
    for (const process of running.reverse()) await process.stop();
    await postgres?.stop();
    await resetAdministrator(dir);
    await rm(dir, { recursive: true, force: true });
  });

  it('moves the project without re-enrolling a node, and answers with any one process killed', async () => {
    const quick = await startQuickStart(dir, postgres, running);
    const steps = stepsOf(await readReadme(), section);
    assert.deepEqual(
      steps.map((step) => step.title.split(/[,:]/)[0]),
      [
        'Two relays',
        "On the administrator's machine",
        "On each replica's machine (the administrator's",
        "A second outlet in the database's pool",
      ],
    );
    const [relays, move, replicas, pool] = steps as [
      (typeof steps)[0],
      (typeof steps)[0],
      (typeof steps)[0],
      (typeof steps)[0],
    ];
    const { admin } = quick.homes;
    // The empty database the section asks for, and its password where the commands read it.
    postgres.asSuperuser(`CREATE ROLE portal LOGIN PASSWORD '${storePassword}'`, 'CREATE DATABASE portal OWNER portal');
    await writeFile(join(admin, 'db.password'), `${storePassword}\n`, { mode: 0o600 });

    const [cp2, cp3, relay1, relay2] = [await freePort(), await freePort(), await freePort(), await freePort()];
    const names = new Map([
      ['cp2.example.net:4000', cp2],
      ['cp3.example.net:4000', cp3],
      ['relay1.example.net:4100', relay1],
      ['relay2.example.net:4100', relay2],
      ['db.example.net:5432', postgres.port],
    ]);
    /** A command of the section as machine `listen` runs it: its own listening port, every name on loopback. */
    const on = (command: string, listen?: { from: string; port: number }) => {
      let mapped = listen ? command.replace(listen.from, `127.0.0.1:${listen.port}`) : command;
      for (const [name, port] of names) mapped = mapped.replaceAll(name, `127.0.0.1:${port}`);
      return quick.onLoopback(mapped);
    };
    const homeOf = async (name: string) => {
      const home = join(dir, name);
      await mkdir(home, { recursive: true });
      return home;
    };

    // 1. The relay ticket (one shell, so that umask holds), then each relay on its machine, while the
    // embedded controller runs.
    const relayStart = relays.commands.at(-1) as string;
    await bash(
      relays.commands
        .slice(0, -1)
        .map((command) => on(command))
        .join('\n'),
      admin,
      quick.env,
    );
    assert.equal((await stat(join(admin, 'relay.ticket'))).mode & 0o777, 0o600, 'the relay ticket is private');
    const relayProcesses: Running[] = [];
    for (const [name, port] of [
      ['relay1', relay1],
      ['relay2', relay2],
    ] as const) {
      const home = await homeOf(name);
      await copyFile(join(admin, 'relay.ticket'), join(home, 'relay.ticket'));
      const command = relayStart.replace('relay1.example.net', `${name}.example.net`);
      const relay = quick.foreground(home, on(command, { from: '0.0.0.0:4100', port }));
      await relay.waitFor(/Portal relay \S+ of project \S+ listening on/, 30_000);
      relayProcesses.push(relay);
    }

    // 2. Stop the embedded controller and move its store.
    const moved = await bash(move.commands.map((command) => on(command)).join('\n'), admin, quick.env);
    assert.match(moved.stdout, /Copied 1 projects, \d+ members/);

    // 3. The replicas: the administrator's machine first, on the address the controller had.
    const replicaProcesses: Running[] = [];
    for (const [name, port] of [
      ['admin', undefined],
      ['cp2', cp2],
      ['cp3', cp3],
    ] as const) {
      const home = name === 'admin' ? admin : await homeOf(name);
      if (home !== admin) {
        await mkdir(join(home, '.portal', 'keys'), { recursive: true });
        await copyFile(join(admin, 'db.password'), join(home, 'db.password'));
        const key = join('.portal', 'keys', 'controller-seal.key');
        await copyFile(join(admin, key), join(home, key));
      }
      const command = replicas.commands[0] as string;
      const replica = quick.foreground(
        home,
        port === undefined ? on(command) : on(command, { from: '0.0.0.0:4000', port }),
      );
      await replica.waitFor(/controller listening on/, 30_000);
      replicaProcesses.push(replica);
    }

    // 4. The second outlet, enrolled with a ticket the replicas issue, joins the inlet's pool.
    await bash(on(pool.commands[0] as string), admin, quick.env);
    const outlet2 = await homeOf('outlet2');
    await copyFile(join(admin, 'outlet-2.ticket'), join(outlet2, 'outlet-2.ticket'));
    const second = quick.foreground(outlet2, on(pool.commands[1] as string));
    await second.waitFor(/Portal node setup completed successfully/, 30_000);
    const clientsHome = join(quick.homes.clients, '.portal');
    const openOutlets = (shown: Awaited<ReturnType<typeof statusWhen>>) =>
      new Set((shown.inlets[0]?.outlets ?? []).filter((m) => m.session === 'open' && m.outlet).map((m) => m.outlet))
        .size;
    // Both outlets open in the inlet's pool, and both relays reached at the addresses they announce.
    const relayAddresses = [`127.0.0.1:${relay1}`, `127.0.0.1:${relay2}`];
    await statusWhen(
      clientsHome,
      (shown) =>
        openOutlets(shown) === 2 &&
        relayAddresses.every((address) =>
          shown.relays.some((relay) => relay.address === address && relay.status === 'connected'),
        ),
      30_000,
    );

    // Each psql is a new client connection through the inlet.
    const psql = async () => bash(on(quick.steps[2]?.commands[2] as string), quick.homes.clients, quick.psqlEnv);
    const members = async () => bash('portal project members', admin, quick.env);
    assert.match((await psql()).stdout, /\b1\b/);
    assert.match((await members()).stdout, /relay/);

    // Any one process: the replica the nodes knew first, a relay, the quick start's outlet.
    await replicaProcesses[0]?.kill();
    assert.match((await psql()).stdout, /\b1\b/, 'the portal answers with the first replica gone');
    assert.match((await members()).stdout, /db-outlet/, 'the administrator reaches another replica');
    await relayProcesses[0]?.kill();
    assert.equal(relayProcesses[0]?.child.exitCode ?? relayProcesses[0]?.child.signalCode, 'SIGKILL');
    assert.match((await psql()).stdout, /\b1\b/, 'the portal answers with a relay gone');
    await quick.outlet.kill();
    await statusWhen(clientsHome, (shown) => openOutlets(shown) === 1, 10_000);
    assert.match((await psql()).stdout, /\b1\b/, 'the portal answers with the first outlet gone');
  });
});
