import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { DirectListener } from '../../src/node/direct-listener.ts';
import { createMetrics } from '../../src/node/metrics.ts';
import { startStatusServer } from '../../src/node/status-server.ts';
import { RuntimeFailure } from '../../src/shared/errors.ts';
import { listenOrExplain } from '../../src/shared/listen.ts';

const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

/** A port on 127.0.0.1 that something listens on until `release`. */
async function takenPort(): Promise<{ port: number; release: () => Promise<void> }> {
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', () => resolve()));
  return { port: (holder.address() as AddressInfo).port, release: () => close(holder) };
}

/** Asserts that `attempt` rejects with ADDRESS_IN_USE and exactly this message and hint. */
async function refuses(attempt: Promise<unknown>, message: string, hint: string): Promise<void> {
  await assert.rejects(attempt, (error: unknown) => {
    assert.ok(error instanceof RuntimeFailure);
    assert.equal(error.code, 'ADDRESS_IN_USE');
    assert.equal(error.message, message);
    assert.equal(error.hint, hint);
    return true;
  });
}

describe('listening where the user said', () => {
  it('listens, and resolves once it does', async () => {
    const server = createServer();
    await listenOrExplain(server, { host: '127.0.0.1', port: 0, subject: 'x', address: 'x', hint: 'h' });
    assert.ok(server.listening);
    await close(server);
  });

  it('explains an address in use with the subject, the address as written and the hint', async () => {
    const taken = await takenPort();
    const server = createServer();
    const options = { host: '127.0.0.1', port: taken.port, subject: 'the thing', address: `here:${taken.port}` };
    await refuses(
      listenOrExplain(server, { ...options, hint: 'move it' }),
      `the thing cannot listen on here:${taken.port}: the address is in use`,
      'move it',
    );
    await refuses(
      listenOrExplain(createServer(), { ...options, inUse: 'the port is in use', hint: 'move it' }),
      `the thing cannot listen on here:${taken.port}: the port is in use`,
      'move it',
    );
    await taken.release();
  });

  it("gives any other failure in the system's words", async () => {
    // 192.0.2.1 (TEST-NET-1) is no address of this machine.
    await assert.rejects(
      listenOrExplain(createServer(), {
        host: '192.0.2.1',
        port: 0,
        subject: 'the thing',
        address: 'there',
        hint: 'h',
      }),
      (error: unknown) => {
        assert.ok(error instanceof RuntimeFailure);
        assert.match(error.message, /^the thing cannot listen on there: listen EADDRNOTAVAIL/);
        return true;
      },
    );
  });

  describe("as the node's listeners word it", () => {
    it('the status server', async () => {
      const taken = await takenPort();
      await refuses(
        startStatusServer({
          port: taken.port,
          show: () => ({ status: 'starting', version: '0', problems: [] }),
          registry: createMetrics().registry,
        }),
        `the status server cannot listen on 127.0.0.1:${taken.port}: the port is in use`,
        'another node on this machine uses it (a node with this PORTAL_HOME runs already? see portal node show): ' +
          'set http-server-port to a free port',
      );
      await taken.release();
    });

    it("the inlet's direct path", async () => {
      const taken = await takenPort();
      await refuses(
        DirectListener.bind(`127.0.0.1:${taken.port}`),
        `the inlet's direct path cannot listen on 127.0.0.1:${taken.port}: the address is in use`,
        'stop whatever listens there, change tcp-inlet.direct, or set it to false to use relays only',
      );
      await taken.release();
    });
  });
});
