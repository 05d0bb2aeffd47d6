import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, createServer, type Server, type TLSSocket } from 'node:tls';
import { createAuthority } from '../../src/pki/authority.ts';
import { refillQuietMs } from '../../src/node/limits.ts';
import { WarmStreamPool } from '../../src/node/warm-streams.ts';
import { until } from '../support/in-process.ts';
import { sessionMember } from '../support/session-members.ts';

describe("inlet's warm streams: replaced once clients pause", () => {
  let server: Server;
  let port: number;
  const accepted: TLSSocket[] = [];
  const opened: TLSSocket[] = [];

  before(async () => {
    const member = sessionMember(createAuthority('warm'), 'warm', 'n00000000000000c1', []);
    server = createServer({ key: member.key, cert: member.certificate }, (socket) => accepted.push(socket));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as { port: number }).port;
  });

  after(() => {
    for (const socket of [...opened, ...accepted]) socket.destroy();
    server.close();
  });

  it('hands out the streams made ahead of time during a burst, and makes new ones only once it pauses', async () => {
    const open = async (): Promise<TLSSocket> => {
      const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false });
      opened.push(socket);
      await once(socket, 'secureConnect');
      return socket;
    };
    const pool = new WarmStreamPool(2, open, { fill: () => true, keep: () => true });
    pool.fill();
    await until(() => (pool.size === 2 ? true : undefined), 'two warm streams');
    assert.equal(opened.length, 2);
    // A burst: clients take both streams, then keep coming well within the pause (50 ms), finding none.
    const taken = [pool.take(), pool.take()];
    assert.ok(taken.every((stream) => stream !== undefined && !stream.socket.destroyed));
    for (let client = 0; client < 5; client += 1) {
      assert.equal(pool.take(), undefined, 'the burst rides the session');
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.equal(opened.length, 2, 'no handshake while clients keep coming');
    const lastClient = performance.now();
    assert.equal(pool.take(), undefined);
    // The pause: both used streams are replaced, not before it.
    await until(() => (opened.length > 2 ? true : undefined), 'the first replacement');
    assert.ok(performance.now() - lastClient >= refillQuietMs - 1, 'made only once the clients paused');
    await until(() => (pool.size === 2 ? true : undefined), 'the streams replaced after the pause');
    assert.equal(opened.length, 4);
    pool.destroyAll();
  });

  it('closes the streams made through a relay once a direct session is in, and keeps the direct ones', async () => {
    const open = async (): Promise<TLSSocket> => {
      const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false });
      opened.push(socket);
      await once(socket, 'secureConnect');
      return socket;
    };
    const pool = new WarmStreamPool(3, open, { fill: () => false, keep: () => true });
    const relayed = [await open(), await open()];
    const direct = await open();
    for (const socket of relayed) await pool.making(Promise.resolve(socket), 'relay');
    await pool.making(Promise.resolve(direct), 'direct');
    assert.equal(pool.size, 3);
    pool.destroyRelayed();
    assert.equal(pool.size, 1);
    assert.ok(relayed.every((socket) => socket.destroyed));
    assert.deepEqual(pool.take(), { socket: direct, path: 'direct' });
    direct.destroy();
  });
});
