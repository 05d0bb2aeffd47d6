import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { inletPort, type Running } from '../support/processes.ts';
import { startRedis, type Redis } from '../support/redis.ts';
import { runProgram } from '../support/run-program.ts';
import { onFreePorts, runUseCase, type Retarget, type UseCaseRun } from '../support/usecase-run.ts';
import { projectRoot } from '../support/usecases.ts';

/** redis-cli in plain TCP through the inlet, as a client on the inlet machine runs it. */
const throughInlet = (port: number, args: readonly string[], input?: string) =>
  runProgram('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { input });

/** The compiled verification, run as the guide says, against the inlet's port on this machine. */
const compiledVerify = (port: number) =>
  runProgram('bash', [join(projectRoot, 'out/redis/tickets.sh'), 'verify'], { env: { INLET_PORT: String(port) } });

/** As the stack does: the placeholder becomes the cache's host name (its certificate's), on the test server's port. */
const toRedis =
  (redis: Redis): Retarget =>
  (to) =>
    to.replace('$REDIS_ENDPOINT', 'localhost').replace(/:6379$/, `:${redis.port}`);

describe('end to end: the Redis cache use case (TLS to a real redis-server, redis-cli at the inlet)', function () {
  this.timeout(60_000);
  let redis: Redis;

  before(async () => {
    redis = await startRedis();
  });

  after(async () => {
    await redis?.stop();
  });

  describe('an outlet that trusts the cache CA (NODE_EXTRA_CA_CERTS)', () => {
    let run: UseCaseRun;
    let port: number;

    before(async () => {
      run = await runUseCase('redis');
      const started = await run.startPortal(toRedis(redis), { NODE_EXTRA_CA_CERTS: redis.caFile });
      assert.equal(started.compiledTarget, '$REDIS_ENDPOINT:6379');
      port = started.inletPort;
    });

    after(async () => {
      await run?.close();
    });

    it('passes the compiled verification: redis-cli PING through the inlet answers PONG', async () => {
      const verify = await compiledVerify(port);
      assert.equal(verify.code, 0, verify.stderr);
      assert.equal(verify.stdout, 'portal redis: PONG\n');
    });

    it('round-trips SET and GET through the inlet, into the TLS server itself', async () => {
      const set = await throughInlet(port, ['SET', 'portal:greeting', 'it works']);
      assert.equal(set.stdout, 'OK\n', set.stderr);
      const got = await throughInlet(port, ['GET', 'portal:greeting']);
      assert.equal(got.stdout, 'it works\n', got.stderr);
      // Read back on the server's own TLS port: the value reached the real cache, not something on the way.
      const direct = await runProgram('redis-cli', [
        '--tls',
        '--cacert',
        redis.caFile,
        '-h',
        'localhost',
        '-p',
        String(redis.port),
        'GET',
        'portal:greeting',
      ]);
      assert.equal(direct.stdout, 'it works\n', direct.stderr);
    });

    it('carries a 4 MiB value both ways exactly', async () => {
      const value = randomBytes(3 * 1024 * 1024).toString('base64');
      assert.equal(value.length, 4 * 1024 * 1024);
      // -x: the value is read from standard input, as the last argument.
      const set = await throughInlet(port, ['-x', 'SET', 'portal:large'], value);
      assert.equal(set.stdout, 'OK\n', set.stderr);
      const length = await throughInlet(port, ['STRLEN', 'portal:large']);
      assert.equal(length.stdout, `${value.length}\n`, length.stderr);
      const got = await throughInlet(port, ['GET', 'portal:large']);
      assert.equal(got.code, 0, got.stderr);
      assert.ok(got.stdout === `${value}\n`, `GET answered ${got.stdout.length} characters, not the value sent`);
    });
  });

  describe('an outlet that does not trust the cache CA: verification is on by default', () => {
    let run: UseCaseRun;
    let outlet: Running;
    let port: number;

    before(async () => {
      run = await runUseCase('redis');
      // The nodes are started by hand, as startPortal does, to keep the outlet's log at hand.
      const compiledOutlet = onFreePorts(await run.compiledConfig('outlet'));
      const portal = compiledOutlet['tcp-outlet'] as Record<string, unknown>;
      const retargeted = { ...compiledOutlet, 'tcp-outlet': { ...portal, to: toRedis(redis)(String(portal.to), '') } };
      // Nothing extra to trust, even if this test runs with NODE_EXTRA_CA_CERTS set.
      outlet = await run.startNode('outlet', retargeted, { NODE_EXTRA_CA_CERTS: undefined });
      const inlet = await run.startNode('inlet', onFreePorts(await run.compiledConfig('inlet')));
      await Promise.all([outlet, inlet].map((node) => node.waitFor(/Portal node setup completed successfully/)));
      port = await inletPort(run.inletHome);
    });

    after(async () => {
      await run?.close();
    });

    it('closes the client without PONG, fails the compiled verification, and logs why', async () => {
      const ping = await throughInlet(port, ['PING']);
      assert.doesNotMatch(ping.stdout, /PONG/);
      assert.equal(ping.code, 1, `redis-cli exited ${ping.code}: ${ping.stdout}`);
      // The inlet passes the refusal on as a reset, so no client takes the cut for an answer.
      assert.equal(ping.stderr, 'Error: Connection reset by peer\n');

      const verify = await compiledVerify(port);
      assert.equal(verify.code, 1, verify.stdout);
      assert.equal(verify.stdout, '');
      assert.equal(
        verify.stderr,
        'Error: Connection reset by peer\n' +
          `portal redis: the check's command failed (exit 1) through localhost:${port}\n`,
      );

      // The log line without its timestamp: which target, which check failed, and what to do.
      const reason = (await outlet.waitFor(/does not verify/)).replace(/^\S+ /, '');
      assert.equal(
        reason,
        `WARN outlet: the TLS certificate of localhost:${redis.port} does not verify ` +
          '(SELF_SIGNED_CERT_IN_CHAIN: self-signed certificate in certificate chain); ' +
          'check the target name, or add its CA to NODE_EXTRA_CA_CERTS',
      );
    });
  });
});
