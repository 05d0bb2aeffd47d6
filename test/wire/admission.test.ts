import assert from 'node:assert/strict';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { Admission } from '../../src/wire/admission.ts';
import { RateLimiter } from '../../src/shared/rate-limiter.ts';
import { sourceKeyOf } from '../../src/wire/source-key.ts';

/** `count` connections from `localAddress`; resolves when each is either accepted or closed. */
async function open(
  port: number,
  localAddress: string,
  count: number,
): Promise<{ sockets: Socket[]; closed: () => number }> {
  let closed = 0;
  const sockets = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Socket>((resolve) => {
          const socket = connect({ host: '127.0.0.1', port, localAddress }, () => resolve(socket));
          socket.on('error', () => undefined);
          socket.once('close', () => (closed += 1));
        }),
    ),
  );
  return { sockets, closed: () => closed };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

describe('controller admission: what a peer may cost before it proves anything', () => {
  let server: Server;
  let admission: Admission;
  let port: number;
  const opened: Socket[] = [];

  beforeEach(async () => {
    admission = new Admission({
      deadlineMs: 300,
      perSource: 4,
      total: 10,
      handshakesPerSource: { perSecond: 1, burst: 12 },
    });
    server = createServer((socket) => {
      socket.on('error', () => undefined);
      if (!admission.admit(socket)) return;
      if (socket.remoteAddress === '127.0.0.9') admission.release(socket);
      // 127.0.0.8 stands for peers that start TLS handshakes.
      if (socket.remoteAddress === '127.0.0.8' && admission.allowHandshake(socket)) admission.release(socket);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterEach(async () => {
    for (const socket of opened.splice(0)) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  it('holds one source to so many handshakes a second, closing the rest before they start', async () => {
    const handshakes = [];
    for (let i = 0; i < 3; i += 1) handshakes.push(await open(port, '127.0.0.8', 4));
    await settle();
    const late = await open(port, '127.0.0.8', 4);
    opened.push(...handshakes.flatMap((h) => h.sockets), ...late.sockets);
    await settle();
    // The burst of 12 passes (a handshake that proves itself no longer counts against the per-source
    // limit of 4); the next 4 within the same second exceed the rate.
    assert.deepEqual([...handshakes.map((h) => h.closed()), late.closed()], [0, 0, 0, 4]);
    assert.equal(admission.stats().refusedRate, 4);
  });

  it('holds one source to its limit, closing the rest at once', async () => {
    const attack = await open(port, '127.0.0.2', 10);
    opened.push(...attack.sockets);
    await settle();
    assert.equal(attack.closed(), 6);
    assert.equal(admission.stats().refusedPerSource, 6);
  });

  it('makes room by closing the oldest when the total is reached, so that a newcomer gets in', async () => {
    const early = await open(port, '127.0.0.3', 4);
    const middle = await Promise.all(['127.0.0.4', '127.0.0.5'].map((source) => open(port, source, 3)));
    const newcomer = await open(port, '127.0.0.6', 2);
    opened.push(...early.sockets, ...middle.flatMap((m) => m.sockets), ...newcomer.sockets);
    await settle();
    assert.equal(early.closed(), 2, 'the two oldest made room');
    assert.equal(newcomer.closed(), 0);
    assert.equal(admission.stats().evicted, 2);
    assert.equal(admission.stats().unauthenticated, 10);
  });

  it(
    'closes a connection that proves nothing by its deadline, however it dribbles, ' +
      'and keeps one that proved itself',
    async () => {
      const slow = await open(port, '127.0.0.7', 1);
      const proven = await open(port, '127.0.0.9', 1);
      opened.push(...slow.sockets, ...proven.sockets);
      const drip = setInterval(() => slow.sockets[0]?.write('P'), 50);
      await new Promise((resolve) => setTimeout(resolve, 500));
      clearInterval(drip);
      assert.equal(slow.closed(), 1, 'cut at its deadline although it kept sending');
      assert.equal(proven.closed(), 0);
      assert.equal(admission.stats().expired, 1);
    },
  );
});

describe('rate limiter', () => {
  it('allows the burst, then the rate, per key, and forgets keys beyond its bound', () => {
    let now = 0;
    const limiter = new RateLimiter(10, 5, 3, () => now);
    const taken = (key: string, times: number) =>
      Array.from({ length: times }, () => limiter.take(key)).filter(Boolean).length;
    assert.equal(taken('a', 20), 5, 'the burst');
    now += 500;
    assert.equal(taken('a', 20), 5, 'refilled at 10 per second, up to the burst');
    now += 100;
    assert.equal(taken('a', 20), 1);
    assert.equal(taken('b', 20), 5, 'another key has its own bucket');
    for (const key of ['c', 'd', 'e', 'f']) limiter.take(key);
    assert.equal(taken('a', 20), 5, 'a forgotten key starts full again');
  });
});

describe('source key: what a per-source bound counts as one source', () => {
  it('counts an IPv4 address alone', () => {
    assert.equal(sourceKeyOf('192.0.2.7'), '192.0.2.7');
    assert.notEqual(sourceKeyOf('192.0.2.7'), sourceKeyOf('192.0.2.8'));
  });

  it('counts an IPv6 address by its /64, however it is written', () => {
    const written = [
      '2001:db8:1:2::1',
      '2001:db8:1:2:ffff:ffff:ffff:ffff',
      '2001:0DB8:0001:0002:0:0:0:9',
      '2001:db8:1:2::192.0.2.1',
    ];
    assert.deepEqual(new Set(written.map(sourceKeyOf)), new Set(['2001:db8:1:2::/64']));
    assert.equal(sourceKeyOf('2001:db8:1:3::1'), '2001:db8:1:3::/64', 'the next /64 is another source');
    assert.equal(sourceKeyOf('::1'), '0:0:0:0::/64');
    assert.equal(sourceKeyOf('fd00::'), 'fd00:0:0:0::/64');
  });

  it('counts an IPv4-mapped IPv6 address as its IPv4 address, not as the one /64 every IPv4 peer shares', () => {
    assert.equal(sourceKeyOf('::ffff:192.0.2.7'), '192.0.2.7');
    assert.equal(sourceKeyOf('::ffff:c000:208'), '192.0.2.8');
    assert.equal(sourceKeyOf('0:0:0:0:0:ffff:10.1.2.3'), '10.1.2.3');
  });

  it('keeps the zone of a link-local address: each link has its own fe80::/64', () => {
    assert.equal(sourceKeyOf('fe80::1%eth0'), 'fe80:0:0:0::/64%eth0');
    assert.notEqual(sourceKeyOf('fe80::1%eth0'), sourceKeyOf('fe80::1%eth1'));
  });

  it('gives one key for a socket whose address is gone, and leaves anything else as it is', () => {
    assert.equal(sourceKeyOf(undefined), '?');
    assert.equal(sourceKeyOf(''), '?');
    assert.equal(sourceKeyOf('not-an-address'), 'not-an-address');
  });
});
