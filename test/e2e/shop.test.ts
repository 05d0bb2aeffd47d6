import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startFileServer, type FileServer } from '../support/http-files.ts';
import { metricsOf } from '../support/node-checks.ts';
import { startPostgres, type Postgres } from '../support/postgres.ts';
import { nodeStatus, portal, portalOnPath, statusWhen } from '../support/processes.ts';
import { startRedis, type Redis } from '../support/redis.ts';
import { shopOutletEnvironment, shopRetarget } from '../support/shop-targets.ts';
import { runUseCase, type UseCaseRun } from '../support/usecase-run.ts';
import { projectRoot } from '../support/usecases.ts';

const execFileAsync = promisify(execFile);
const portals = ['orders-db', 'cache', 'api'] as const;

/** The sum of a metric's samples (over paths, directions, reasons) whose labels include every one of `labels`. */
function total(metrics: string, name: string, ...labels: string[]): number {
  return metrics
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) && labels.every((label) => line.includes(label)))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

describe('end to end: the shop use case, three portals on one compiled pair of nodes', function () {
  this.timeout(120_000);
  let run: UseCaseRun;
  let database: Postgres;
  let cache: Redis;
  let api: FileServer;
  let ports: Record<string, number>;

  before(async () => {
    [database, cache, api] = await Promise.all([startPostgres(), startRedis(), startFileServer({ health: 'ok\n' })]);
    run = await runUseCase('shop');
    const started = await run.startPortal(
      shopRetarget({ 'orders-db': database.port, cache: cache.port, api: api.port }),
      shopOutletEnvironment(cache.caFile),
    );
    ports = started.inletPorts;
    assert.deepEqual(Object.keys(ports).sort(), [...portals].sort());
  });

  after(async () => {
    await run?.close();
    await Promise.all([database?.stop(), cache?.stop(), api?.stop()]);
  });

  it("passes the compiled tickets.sh verify on every portal, each on the inlet's own port", async () => {
    // Asynchronous, so this process goes on reading the servers' output while the script runs.
    const verify = await execFileAsync('bash', [join(projectRoot, 'out/shop/tickets.sh'), 'verify'], {
      cwd: run.dir,
      env: {
        ...process.env,
        PATH: `${await portalOnPath(run.dir)}:${process.env.PATH}`,
        PORTAL_HOME: run.adminHome,
        INLET_PORT_ORDERS_DB: String(ports['orders-db']),
        INLET_PORT_CACHE: String(ports.cache),
        INLET_PORT_API: String(ports.api),
      },
    }).catch((error: { code?: number; stdout?: string; stderr?: string }) => {
      assert.fail(`tickets.sh verify exited ${error.code}: ${error.stderr}${error.stdout}`);
    });
    assert.equal(
      verify.stdout,
      [
        `portal orders-db: connecting to localhost:${ports['orders-db']}`,
        `localhost:${ports['orders-db']} answers`,
        `portal cache: connecting to localhost:${ports.cache}`,
        `localhost:${ports.cache} answers b'+PONG'`,
        'portal api: HTTP 200',
        '',
      ].join('\n'),
    );
    // The check's request reached the real HTTP server, once.
    await api.served(/"GET \/health HTTP\/1\.1" 200 /);
    assert.equal(api.requests().length, 1, api.requests().join('\n'));
  });

  it('runs a query with real psql through orders-db, on the real PostgreSQL', async () => {
    const { stdout } = await execFileAsync(
      'psql',
      ['-tA', '-v', 'ON_ERROR_STOP=1', '-c', 'SELECT current_database(), current_user, inet_server_port()'],
      { env: database.clientEnvironment(ports['orders-db']) },
    );
    assert.equal(stdout.trim(), `appdb|app|${database.port}`);
  });

  it('PINGs and stores with redis-cli through cache, the outlet speaking TLS to a TLS-only Redis', async () => {
    const cli = (...args: string[]) =>
      execFileAsync('redis-cli', ['-h', '127.0.0.1', '-p', String(ports.cache), ...args]).then(({ stdout }) =>
        stdout.trim(),
      );
    assert.equal(await cli('PING'), 'PONG');
    assert.equal(await cli('SET', 'shop:order:1', 'paid'), 'OK');
    assert.equal(await cli('GET', 'shop:order:1'), 'paid');
    // Without the portal, a plain client is turned away: the TLS on the way is the outlet's.
    const plain = spawnSync('redis-cli', ['-h', '127.0.0.1', '-p', String(cache.port), 'PING'], {
      encoding: 'utf8',
      timeout: 10_000,
    });
    assert.notEqual(plain.stdout.trim(), 'PONG');
  });

  it('reports the three portals by name on both nodes, each target with its placeholder filled', async () => {
    const outlet = await nodeStatus(run.outletHome);
    assert.equal(outlet.status, 'up');
    assert.deepEqual(outlet.outlets.map((entry) => [entry.name, entry.configured_at, entry.relay, entry.to]).sort(), [
      ['api', '/tcp-outlets/api', 'api', `localhost:${api.port}`],
      ['cache', '/tcp-outlets/cache', 'cache', `localhost:${cache.port}`],
      ['orders-db', '/tcp-outlets/orders-db', 'orders-db', `127.0.0.1:${database.port}`],
    ]);
    const inlet = await statusWhen(run.inletHome, (shown) => shown.inlets.every((entry) => entry.session === 'open'));
    assert.equal(inlet.status, 'up');
    assert.deepEqual(
      inlet.inlets.map((entry) => [entry.name, entry.via, Number(entry.listening?.split(':').at(-1))]).sort(),
      [
        ['api', 'api', ports.api],
        ['cache', 'cache', ports.cache],
        ['orders-db', 'orders-db', ports['orders-db']],
      ],
    );
    const show = await portal(run.inletHome, ['node', 'show']);
    assert.equal(show.code, 0, show.stderr);
    for (const name of portals)
      assert.match(show.stdout, new RegExp(`^ {2}inlet ${name}: 127\\.0\\.0\\.1:${ports[name]} via ${name}, `, 'm'));
  });

  it("labels each portal's series by name in both nodes' /metrics", async () => {
    const [inletMetrics, outletMetrics] = await Promise.all([metricsOf(run.inletHome), metricsOf(run.outletHome)]);
    for (const name of portals) {
      const portalLabel = `portal="${name}"`;
      assert.ok(total(inletMetrics, 'portal_connections_total', 'part="inlet"', portalLabel) >= 1, name);
      assert.ok(total(outletMetrics, 'portal_connections_total', 'part="outlet"', portalLabel) >= 1, name);
      assert.ok(
        total(inletMetrics, 'portal_bytes_total', 'part="inlet"', 'direction="to_client"', portalLabel) > 0,
        name,
      );
      assert.equal(total(outletMetrics, 'portal_failures_total', portalLabel), 0, `no failure on ${name}`);
    }
  });
});
