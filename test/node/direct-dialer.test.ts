import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { DirectDialer, dialFirst, outletDials } from '../../src/node/direct-dialer.ts';
import { createLogger } from '../../src/node/logger.ts';
import { directPreambleOf, type InletAdvert } from '../../src/wire/protocol.ts';

const quiet = createLogger({ enabled: false });

async function listen(server: Server, port = 0): Promise<number> {
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

describe('direct path: the outlet dialling an inlet', () => {
  it('dials only inlets of its relay name whose attribute it allows', () => {
    const advert: InletAdvert = {
      inlet: 'n1',
      attributes: ['echo-inlet'],
      via: 'echo',
      addresses: ['10.0.0.1:22'],
      secret: 's'.repeat(32),
      warm: 2,
    };
    assert.equal(outletDials(advert, 'echo', 'echo-inlet'), true);
    // A member the outlet would refuse cannot point it at addresses of its choosing.
    assert.equal(outletDials({ ...advert, attributes: ['stranger'] }, 'echo', 'echo-inlet'), false);
    assert.equal(outletDials({ ...advert, attributes: [] }, 'echo', 'echo-inlet'), false);
    assert.equal(outletDials({ ...advert, via: 'other' }, 'echo', 'echo-inlet'), false);
    assert.equal(outletDials(undefined, 'echo', 'echo-inlet'), false);
    // An expression: the outlet dials only the inlets it admits.
    const policy = 'team = "ops" and env = "prod"';
    assert.equal(outletDials({ ...advert, attributes: ['team=ops', 'env=prod'] }, 'echo', policy), true);
    assert.equal(outletDials({ ...advert, attributes: ['team=ops', 'env=dev'] }, 'echo', policy), false);
    assert.equal(outletDials({ ...advert, attributes: ['team=ops', 'env=prod'] }, 'echo', 'team = '), false);
  });

  it('uses the first address that connects and fails when none does', async () => {
    const accepted: Socket[] = [];
    const server = createServer((socket) => accepted.push(socket));
    const port = await listen(server);
    const closed = createServer();
    const closedPort = await listen(closed);
    closed.close();
    try {
      const socket = await dialFirst([`127.0.0.1:${closedPort}`, 'not an address', `127.0.0.1:${port}`], 250);
      assert.equal(socket.remotePort, port);
      socket.destroy();
      await assert.rejects(dialFirst([`127.0.0.1:${closedPort}`], 250), /^Error: ECONNREFUSED from 127\.0\.0\.1:\d+$/);
    } finally {
      for (const socket of accepted) socket.destroy();
      server.close();
    }
  });

  it(
    'tries again later when the inlet cannot be reached, and stops dialling once it holds what ' +
      'the inlet asked for',
    async () => {
      // A port nothing listens on yet: the first dials are refused.
      const probe = createServer();
      const port = await listen(probe);
      probe.close();
      const carried: string[] = [];
      let held = { session: false, waiting: 0 };
      const dialer = new DirectDialer({
        logger: quiet,
        retry: { initialMs: 40, maxMs: 80 },
        holding: () => held,
        carry: async (raw, inlet) => {
          const [line] = (await once(raw, 'data')) as [Buffer];
          carried.push(`${inlet} ${line.toString()}`);
          raw.destroy();
          // The first becomes the session, the next the one waiting stream the advert asks for.
          held = held.session ? { session: true, waiting: held.waiting + 1 } : { session: true, waiting: 0 };
        },
      });
      const advert: InletAdvert = {
        inlet: 'n-inlet',
        attributes: ['echo-inlet'],
        via: 'echo',
        addresses: [`127.0.0.1:${port}`],
        secret: 's'.repeat(32),
        warm: 1,
      };
      const server = createServer((socket) => socket.pipe(socket));
      try {
        dialer.set(advert);
        await new Promise((resolve) => setTimeout(resolve, 150));
        assert.equal(carried.length, 0, 'nothing carried while the inlet is unreachable');
        assert.ok((dialer.describe()[0]?.failures ?? 0) >= 2, 'and it kept trying');
        await listen(server, port);
        for (let waited = 0; carried.length < 2 && waited < 2000; waited += 20)
          await new Promise((resolve) => setTimeout(resolve, 20));
        assert.deepEqual(carried, [
          `n-inlet ${directPreambleOf(advert.secret)}`,
          `n-inlet ${directPreambleOf(advert.secret)}`,
        ]);
        await new Promise((resolve) => setTimeout(resolve, 200));
        assert.equal(carried.length, 2, 'no more dials while the session and the waiting stream are held');
        held = { session: true, waiting: 0 };
        dialer.nudge('n-inlet');
        for (let waited = 0; carried.length < 3 && waited < 2000; waited += 20)
          await new Promise((resolve) => setTimeout(resolve, 20));
        assert.equal(carried.length, 3, 'a used stream is replaced');
        dialer.gone('n-inlet');
        assert.deepEqual(dialer.describe(), []);
      } finally {
        dialer.stop();
        server.close();
      }
    },
  );
});
