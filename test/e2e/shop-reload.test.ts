import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ready } from '../support/echo-portal.ts';
import { digest, echoClient, transferDuring } from '../support/echo-transfer.ts';
import { startFileServer, type FileServer } from '../support/http-files.ts';
import { nodeStatus, portal, statusWhen, type Running } from '../support/processes.ts';
import { startRedis, type Redis } from '../support/redis.ts';
import { shopOutletEnvironment, shopRetarget } from '../support/shop-targets.ts';
import { acceptsConnections, roundTrip, startEchoServer } from '../support/tcp.ts';
import { inletPortsByName, onFreePorts, runUseCase, type UseCaseRun } from '../support/usecase-run.ts';

const execFileAsync = promisify(execFile);
const total = 64 * 1024 * 1024;

describe('end to end: the compiled shop inlet reloads to add a portal while another carries 64 MiB', function () {
  this.timeout(120_000);
  let run: UseCaseRun;
  let echo: Awaited<ReturnType<typeof startEchoServer>>;
  let cache: Redis;
  let api: FileServer;
  let inlet: Running;
  /** The compiled inlet configuration on free ports: all three portals, and without api. */
  let full: Record<string, unknown>;
  let withoutApi: Record<string, unknown>;
  const portsNow = () => inletPortsByName(run.inletHome, false);
  // run.startNode runs the node with --configuration on this file: a reload reads it again.
  const inletFile = () => join(run.dir, 'inlet.json');

  before(async () => {
    [echo, cache, api] = await Promise.all([startEchoServer(), startRedis(), startFileServer({ health: 'ok\n' })]);
    run = await runUseCase('shop');
    // orders-db reaches the echo server here: the transfer is checked byte for byte.
    await run.startOutlet(
      shopRetarget({ 'orders-db': echo.port, cache: cache.port, api: api.port }),
      shopOutletEnvironment(cache.caFile),
    );
    full = onFreePorts(await run.compiledConfig('inlet'));
    const { api: _api, ...others } = full['tcp-inlets'] as Record<string, unknown>;
    assert.deepEqual(Object.keys(others), ['cache', 'orders-db']);
    withoutApi = { ...full, 'tcp-inlets': others };
    inlet = await run.startNode('inlet', withoutApi);
    await inlet.waitFor(ready);
  });

  after(async () => {
    await run?.close();
    await Promise.all([echo?.close(), cache?.stop(), api?.stop()]);
  });

  it('adds api by portal node reload: it answers /health, orders-db loses no byte, cache still PINGs', async () => {
    const before = await portsNow();
    assert.deepEqual(Object.keys(before), ['cache', 'orders-db']);
    const payload = randomBytes(total);
    const client = echoClient(before['orders-db'] as number);
    await once(client.socket, 'connect');
    const {
      result: reloaded,
      echoedBefore,
      echoedByThen,
    } = await transferDuring(client, payload, async () => {
      await writeFile(inletFile(), JSON.stringify(full));
      return portal(run.inletHome, ['node', 'reload']);
    });
    assert.equal(reloaded.code, 0, reloaded.stderr);
    assert.match(
      reloaded.stdout,
      /^Reloaded the configuration of the node \(process \d+\): added inlet api; 2 unchanged\.$/m,
    );
    client.socket.end();
    assert.equal(await client.ended, 'end', 'ended cleanly, not reset');
    const answer = Buffer.concat(client.received);
    assert.equal(answer.length, payload.length);
    assert.equal(digest(answer), digest(payload));
    assert.ok(echoedByThen < total, 'the transfer was under way when the reload answered');
    console.log(
      `      ${((echoedByThen - echoedBefore) / 1048576).toFixed(1)} MiB echoed while the node reloaded, ` +
        `${((total - echoedByThen) / 1048576).toFixed(1)} MiB after`,
    );

    const after = await portsNow();
    assert.equal(after['orders-db'], before['orders-db'], 'the unchanged inlets keep their listeners');
    assert.equal(after.cache, before.cache);
    await statusWhen(run.inletHome, (shown) => shown.inlets.find((entry) => entry.name === 'api')?.session === 'open');
    const health = await fetch(`http://127.0.0.1:${after.api}/health`);
    assert.equal(health.status, 200);
    assert.equal(await health.text(), 'ok\n');
    await api.served(/"GET \/health HTTP\/1\.1" 200 /);
    const { stdout } = await execFileAsync('redis-cli', ['-h', '127.0.0.1', '-p', String(after.cache), 'PING']);
    assert.equal(stdout.trim(), 'PONG');
    await inlet.waitFor(/INFO reloaded the configuration from .*inlet\.json: added inlet api; 2 unchanged$/);
  });

  it('removes api again on SIGHUP: its listener closes, orders-db and cache carry on', async () => {
    const before = await portsNow();
    await writeFile(inletFile(), JSON.stringify(withoutApi));
    inlet.child.kill('SIGHUP');
    await inlet.waitFor(/INFO reloaded the configuration from .*inlet\.json: removed inlet api; 2 unchanged$/);
    assert.equal(await acceptsConnections('127.0.0.1', before.api as number), false, 'its listener is closed');
    const shown = await nodeStatus(run.inletHome);
    assert.deepEqual(
      shown.inlets.map((entry) => entry.name),
      ['cache', 'orders-db'],
    );
    assert.equal(shown.status, 'up');
    const through = await roundTrip(before['orders-db'] as number, Buffer.from('order 42'));
    assert.equal(through.toString(), 'order 42');
    const { stdout } = await execFileAsync('redis-cli', ['-h', '127.0.0.1', '-p', String(before.cache), 'PING']);
    assert.equal(stdout.trim(), 'PONG');
  });
});
