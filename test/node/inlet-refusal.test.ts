import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { join } from 'node:path';
import { clientWaitMs } from '../../src/node/limits.ts';
import { createLogger } from '../../src/node/logger.ts';
import { startNode, type RunningNode } from '../../src/node/node.ts';
import { showOf, until } from '../support/in-process.ts';
import { createWorld, type World } from '../support/portal-world.ts';

const quiet = createLogger({ enabled: process.env.PORTAL_TEST_LOG === '1', level: 'debug' });

describe('inlet (in process): a client it cannot serve', function () {
  this.timeout(30_000);
  let world: World;
  let inlet: RunningNode | undefined;

  before(async () => {
    world = await createWorld();
  });

  after(async () => {
    await inlet?.stop();
    await world.close();
  });

  it('resets a client when it has no session to an outlet, after waiting for one', async () => {
    // No outlet ever registers under "nowhere": the inlet listens, and has no session.
    inlet = await startNode({
      home: join(world.dir, 'inlet'),
      ticket: await world.ticket({ attribute: 'lonely-inlet' }),
      logger: quiet,
      config: { 'http-server-port': 0, 'tcp-inlet': { from: '127.0.0.1:0', via: 'nowhere', allow: 'nowhere-outlet' } },
    });
    const running = inlet;
    const listening = await until(
      async () => (await showOf(running)).inlets[0]?.listening ?? undefined,
      'the inlet listening',
    );
    const started = performance.now();
    const ending = await new Promise<{ how: string; bytes: number }>((resolve) => {
      let bytes = 0;
      const client = connect({ host: '127.0.0.1', port: Number(listening.split(':').at(-1)) });
      client.on('data', (chunk: Buffer) => (bytes += chunk.length));
      client.once('error', (error: NodeJS.ErrnoException) => resolve({ how: error.code ?? error.message, bytes }));
      client.once('end', () => resolve({ how: 'end', bytes }));
      client.once('close', () => resolve({ how: 'close', bytes }));
    });
    assert.deepEqual(ending, { how: 'ECONNRESET', bytes: 0 }, 'a reset: the client knows it was not served');
    assert.ok(performance.now() - started >= clientWaitMs - 50, 'after waiting for a session');
  });
});
