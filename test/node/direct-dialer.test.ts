import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { DirectDialBudget } from '../../src/node/direct-dial-budget.ts';
import { DirectDialer, dialFirst, outletDials } from '../../src/node/direct-dialer.ts';
import { directAddressesPerAdvert, directDistinctAddresses } from '../../src/node/limits.ts';
import { createLogger } from '../../src/node/logger.ts';
import { directPreambleOf, type InletAdvert } from '../../src/wire/protocol.ts';

const quiet = createLogger({ enabled: false });

async function listen(server: Server, port = 0, host = '127.0.0.1'): Promise<number> {
  server.listen(port, host);
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

  it(
    'dials a crafted advert of 40 addresses at 16 at most, and 32 distinct ones per inlet across ' +
      'adverts that change, so an inlet cannot make the outlet scan its network',
    async () => {
      // 120 real listeners on a loopback address of their own, each counting the connections the outlet
      // makes to it (on 127.0.0.1 a node of another test, dialling back a port it lost, may reach one).
      const host = '127.77.0.1';
      const reached = new Map<number, number>();
      const servers = await Promise.all(
        Array.from({ length: 120 }, async () => {
          const server = createServer((socket) => {
            const port = (server.address() as AddressInfo).port;
            reached.set(port, (reached.get(port) ?? 0) + 1);
            socket.destroy();
          });
          await listen(server, 0, host);
          return server;
        }),
      );
      const addresses = servers.map((server) => `${host}:${(server.address() as AddressInfo).port}`);
      const dialer = new DirectDialer({
        logger: quiet,
        // Every dial fails after its connection: the inlet is never held, so the dialer keeps trying.
        carry: (raw) => (raw.destroy(), Promise.reject(new Error('not an inlet'))),
        holding: () => ({ session: false, waiting: 0 }),
        retry: { initialMs: 10, maxMs: 20 },
      });
      const advert = (batch: number): InletAdvert => ({
        inlet: 'scanner',
        attributes: ['echo-inlet'],
        via: 'echo',
        addresses: addresses.slice(batch * 40, batch * 40 + 40),
        secret: 's'.repeat(32),
        warm: 1,
      });
      try {
        dialer.set(advert(0));
        await new Promise((resolve) => setTimeout(resolve, 500));
        assert.equal(reached.size, directAddressesPerAdvert, `one advert reached ${reached.size} addresses`);
        // Two more adverts with 40 new addresses each: only the rest of the inlet's budget is dialled.
        dialer.set(advert(1));
        await new Promise((resolve) => setTimeout(resolve, 500));
        dialer.set(advert(2));
        await new Promise((resolve) => setTimeout(resolve, 500));
        console.log(`      3 adverts of 40 addresses each: ${reached.size} distinct addresses dialled`);
        assert.equal(reached.size, directDistinctAddresses);
      } finally {
        dialer.stop();
        servers.forEach((server) => server.close());
      }
    },
  );

  it('forgets what an inlet dialled once its window has passed', () => {
    const budget = new DirectDialBudget({ perAdvert: 2, distinct: 3, windowMs: 1000 });
    assert.deepEqual(budget.allow('n', ['a', 'a', 'b', 'c'], 0), { dial: ['a', 'b'], withheld: 2 });
    assert.deepEqual(budget.allow('n', ['c', 'd'], 10).dial, ['c']);
    assert.deepEqual(budget.allow('n', ['a', 'd'], 20).dial, ['a'], 'a known address stays dialable');
    assert.deepEqual(budget.allow('other', ['d'], 20).dial, ['d'], 'each inlet has its own budget');
    assert.deepEqual(budget.allow('n', ['d', 'e'], 1000).dial, ['d', 'e']);
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
