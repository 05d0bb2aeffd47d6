/**
 * The compiled control plane for one machine (control-plane/compose.yaml), run as its guide says: the
 * secrets made beside the file, the file resolved by Debian's docker-compose itself (first without the
 * relays' profile, then with it and the relay ticket), and each service's command run as the image would
 * run it, on a real PostgreSQL server that the database service's settings describe. The one change a test
 * machine needs: the store's port is the test server's, the status servers take port 0, and the secrets
 * are the files compose resolved. Then the use case's own tickets.sh enrolls the administrator with the
 * printed admin code and a portal runs through the compiled relays.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { compileUseCase } from '../../src/compile/compile.ts';
import { manifestProblems } from '../../src/compile/manifest.ts';
import type { UseCaseManifest } from '../../src/shared/types/manifest.ts';
import { ready } from '../support/echo-portal.ts';
import { newConnections } from '../support/node-checks.ts';
import { startPostgres, type Postgres } from '../support/postgres.ts';
import {
  freePortRun,
  inletPort,
  portal,
  portalOnPath,
  startPortal,
  statusWhen,
  type Running,
} from '../support/processes.ts';
import { startEchoServer } from '../support/tcp.ts';

const execFileAsync = promisify(execFile);

interface ResolvedService {
  readonly command: string[];
  readonly environment?: Record<string, string>;
  readonly secrets?: { source: string; target?: string }[];
  readonly profiles?: string[];
}

interface Resolved {
  readonly services: Record<string, ResolvedService>;
  readonly secrets: Record<string, { file: string }>;
}

const adminCodeLine = /one-time admin code \(valid 24h\): (\S+)/;
const relayListening = /Portal relay \S+ of project \S+ listening on/;

describe('end to end: the compiled control plane for one machine (PostgreSQL, 3 replicas, 2 relays)', function () {
  this.timeout(180_000);
  let dir: string;
  let postgres: Postgres;
  let echo: Awaited<ReturnType<typeof startEchoServer>>;
  const processes: Running[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portal-control-plane-'));
    [postgres, echo] = await Promise.all([startPostgres(), startEchoServer()]);
  });
  after(async () => {
    for (const running of processes.reverse()) await running.stop();
    await postgres?.stop();
    await echo?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('runs the replicas and relays it describes, and a portal goes through them', async () => {
    const [port, relayPort] = [await freePortRun(3), await freePortRun(2)];
    const text = [
      'usecase: plane',
      'title: A service behind its own control plane',
      'outlet:',
      `  to: 127.0.0.1:${echo.port}`,
      'inlet:',
      '  port: 15432',
      'control-plane:',
      '  address: 127.0.0.1',
      `  port: ${port}`,
      `  relay-port: ${relayPort}`,
    ].join('\n');
    const { manifest, problems } = manifestProblems('plane.yaml', `${text}\n`);
    assert.deepEqual(problems, []);
    const compiled = dir;
    for (const file of compileUseCase(manifest as UseCaseManifest)) {
      await mkdir(join(compiled, file.path, '..'), { recursive: true });
      await writeFile(join(compiled, file.path), file.content, { mode: file.mode });
    }
    const plane = join(compiled, 'control-plane');
    // The guide's secrets (its openssl lines; the chown is for the image's user).
    const password = randomBytes(18).toString('base64url');
    await writeFile(join(plane, 'database.password'), `${password}\n`, { mode: 0o600 });
    await writeFile(join(plane, 'controller-seal.key'), `${randomBytes(36).toString('base64')}\n`, { mode: 0o600 });

    const first = await resolve(plane, {});
    // Without the relays' profile, `up -d` starts the database and the replicas (docker-compose 1.x still
    // lists every service in `config`; 2.x only the active ones).
    const startedFirst = Object.entries(first.services)
      .filter(([, service]) => !service.profiles?.includes('relays'))
      .map(([name]) => name);
    assert.deepEqual(startedFirst.sort(), ['controller-1', 'controller-2', 'controller-3', 'database']);
    // The database service's own settings make the server the replicas use.
    const database = first.services.database?.environment ?? {};
    assert.equal(database.POSTGRES_PASSWORD_FILE, '/run/secrets/database-password');
    postgres.asSuperuser(
      `CREATE ROLE ${database.POSTGRES_USER} LOGIN PASSWORD '${password}'`,
      `CREATE DATABASE ${database.POSTGRES_DB} OWNER ${database.POSTGRES_USER}`,
    );

    const asRun = (command: string[]) =>
      command.map((argument) =>
        argument
          .replace(/^\/run\/secrets\/(.+)$/, (_, name: string) => first.secrets[name]?.file ?? argument)
          .replace(/^(postgres:\/\/[^@]+@127\.0\.0\.1:)5432\//, `$1${postgres.port}/`)
          .replace(/^127\.0\.0\.1:9[0-9]{3}$/, '127.0.0.1:0'),
      );
    let adminCode = '';
    for (const name of ['controller-1', 'controller-2', 'controller-3']) {
      const command = first.services[name]?.command ?? [];
      assert.ok(command.includes('--no-relay'), `${name} serves no relay of its own`);
      const replica = startPortal(join(dir, 'homes', name), asRun(command));
      processes.push(replica);
      await replica.waitFor(/controller listening on/, 30_000);
      if (name === 'controller-1') adminCode = adminCodeLine.exec(await replica.waitFor(adminCodeLine))?.[1] ?? '';
    }
    assert.match(adminCode, /^pa1\./);

    // The guide's administrator lines: the use case's tickets.sh with the code (--local: every node is on
    // this machine), then the relay ticket.
    const admin = join(dir, 'homes', 'admin');
    const bin = await portalOnPath(admin);
    const env = { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`, PORTAL_HOME: admin };
    const tickets = await execFileAsync(
      'bash',
      ['../tickets.sh', '--controller', `127.0.0.1:${port}`, '--code', adminCode, '--local'],
      {
        cwd: plane,
        env,
      },
    );
    assert.match(tickets.stdout + tickets.stderr, /outlet\.ticket/);
    const relayTicket = await portal(admin, ['project', 'ticket', '--relay-node', '--usage-count', '2']);
    assert.equal(relayTicket.code, 0, relayTicket.stderr);

    const all = await resolve(plane, { RELAY_TICKET: relayTicket.stdout.trim() }, ['--profile', 'relays']);
    for (const name of ['relay-1', 'relay-2']) {
      const service = all.services[name];
      assert.ok(service, `the relays profile has ${name}`);
      assert.equal(service.environment?.ENROLLMENT_TICKET, relayTicket.stdout.trim());
      const relay = startPortal(join(dir, 'homes', name), asRun(service.command), {
        ENROLLMENT_TICKET: service.environment?.ENROLLMENT_TICKET,
      });
      processes.push(relay);
      await relay.waitFor(relayListening, 30_000);
    }

    // The use case's nodes, enrolled with the tickets tickets.sh wrote; the inlet goes through a relay.
    const node = (role: 'outlet' | 'inlet', configuration: object) =>
      readFile(join(plane, `${role}.ticket`), 'utf8').then((ticket) => {
        const started = startPortal(
          join(dir, 'homes', role),
          ['node', 'create', '--foreground', '--configuration', JSON.stringify(configuration)],
          { ENROLLMENT_TICKET: ticket.trim() },
        );
        processes.push(started);
        return started.waitFor(ready, 30_000);
      });
    await node('outlet', {
      'http-server-port': 0,
      relay: 'plane',
      'tcp-outlet': { to: `127.0.0.1:${echo.port}`, allow: 'plane-inlet' },
    });
    await node('inlet', {
      'http-server-port': 0,
      'tcp-inlet': { from: '127.0.0.1:0', via: 'plane', allow: 'plane-outlet', direct: false },
    });
    const inletHome = join(dir, 'homes', 'inlet');
    // Both relays reached at the addresses the compose file announces, and the portal through one.
    const relayAddresses = [`127.0.0.1:${relayPort}`, `127.0.0.1:${relayPort + 1}`];
    const shown = await statusWhen(
      inletHome,
      (now) =>
        now.inlets[0]?.session === 'open' &&
        relayAddresses.every((address) =>
          now.relays.some((relay) => relay.address === address && relay.status === 'connected'),
        ),
      30_000,
    );
    assert.match(shown.inlets[0]?.path ?? '', /^relay /);
    assert.equal(await newConnections(await inletPort(inletHome), 20), 0, 'no new connection failed');
  });
});

/** `docker-compose -f compose.yaml [flags] config` in `dir`, as the guide's `up -d` lines would take the file. */
async function resolve(dir: string, env: Record<string, string>, flags: string[] = []): Promise<Resolved> {
  const { stdout } = await execFileAsync('docker-compose', ['-f', 'compose.yaml', ...flags, 'config'], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, ...env },
  });
  return parse(stdout) as Resolved;
}
