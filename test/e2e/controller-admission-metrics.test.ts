/**
 * The controller's admission series, moved by the attacks that should move them, against a real
 * controller process: silent connections past one source's share and past the total, connections that
 * prove nothing by the deadline, a burst of TLS handshakes from one source, an anonymous peer asking
 * past its allowance, and a member holding more connections than it may. Each series is scraped before
 * and after, and asserted to have moved by what the attack did.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { loadAdministrator } from '../../src/cli/administrator.ts';
import { anonymousRequests } from '../../src/controller/limits.ts';
import {
  admissionDeadlineMs,
  admissionPerSource,
  admissionTotal,
  handshakesPerSource,
  memberConnections,
} from '../../src/wire/limits.ts';
import { openControlChannel, type ControlChannel } from '../../src/wire/control-channel.ts';
import { until } from '../support/in-process.ts';
import { startProject, type ProjectProcesses } from '../support/project-processes.ts';
import { scrape, valueOf } from '../support/scrape.ts';

const refusals = 'portal_controller_admission_refusals_total';
const unauthenticated = 'portal_controller_unauthenticated_connections';

describe('end to end: the controller counts what its admission limits refuse', function () {
  this.timeout(120_000);
  let project: ProjectProcesses;
  let host: string;
  let port: number;

  const status = () => {
    assert.ok(project.controller.status, 'the controller names its status server');
    return project.controller.status;
  };
  const read = async (name: string, labels: Record<string, string> = {}) =>
    valueOf(await scrape(status()), name, labels);
  const refused = (reason: string) => read(refusals, { reason });

  before(async () => {
    project = await startProject();
    const split = /^(.*):([0-9]+)$/.exec(project.controller.address);
    assert.ok(split);
    host = split[1] as string;
    port = Number(split[2]);
  });

  after(async () => {
    await project?.close();
  });

  /** A TCP connection from `localAddress` that sends nothing. */
  const silent = (localAddress: string): Promise<Socket> =>
    new Promise((resolve) => {
      const socket = connect({ host, port, localAddress });
      socket.on('error', () => undefined);
      socket.once('connect', () => resolve(socket));
      socket.once('close', () => resolve(socket));
    });

  it(
    'unauthenticated connections, and refusals by source_connections, evicted and deadline, ' +
      'move with silent connections',
    async () => {
      const before = {
        source: await refused('source_connections'),
        evicted: await refused('evicted'),
        deadline: await refused('deadline'),
      };
      assert.equal(await read(unauthenticated), 0);
      // One source past its share: 6 more than it may hold.
      const first = await Promise.all(Array.from({ length: admissionPerSource + 6 }, () => silent('127.0.0.2')));
      await until(
        async () => ((await refused('source_connections')) - before.source === 6 ? true : undefined),
        'six refusals by source',
      );
      assert.equal(await read(unauthenticated), admissionPerSource);
      // Sixteen more sources fill the total: the first source's connections, the oldest, make room.
      const sources = Array.from({ length: admissionTotal / admissionPerSource }, (_, index) => `127.0.0.${3 + index}`);
      const rest = await Promise.all(
        sources.flatMap((source) => Array.from({ length: admissionPerSource }, () => silent(source))),
      );
      const evicted = await until(async () => {
        const now = (await refused('evicted')) - before.evicted;
        return now >= admissionPerSource ? now : undefined;
      }, 'the oldest to be evicted');
      const peak = await read(unauthenticated);
      assert.equal(evicted, admissionPerSource);
      assert.equal(peak, admissionTotal);
      assert.ok(
        first.every((socket) => socket.destroyed || socket.readableEnded),
        'the first source was evicted',
      );
      // Nothing is proved by the deadline: every held connection is cut and counted.
      const deadline = await until(
        async () => {
          const now = (await refused('deadline')) - before.deadline;
          return now >= admissionTotal ? now : undefined;
        },
        'the deadline to cut the rest',
        admissionDeadlineMs + 10_000,
      );
      assert.equal(deadline, admissionTotal);
      assert.equal(await read(unauthenticated), 0);
      console.log(
        `      unauthenticated ${admissionPerSource} -> ${peak} -> 0; refused: source_connections +6, ` +
          `evicted +${evicted}, deadline +${deadline}`,
      );
      [...first, ...rest].forEach((socket) => socket.destroy());
    },
  );

  it('refusals by handshake_rate move with a burst of TLS handshakes from one source', async () => {
    const before = { rate: await refused('handshake_rate'), source: await refused('source_connections') };
    // A TLS handshake record the controller fails at once: each start costs a token of the source's rate.
    const start = () =>
      new Promise<void>((resolve) => {
        const socket = connect({ host, port, localAddress: '127.0.0.40' });
        socket.on('error', () => undefined);
        socket.once('connect', () => socket.write(Buffer.from([0x16, 0x03, 0x01, 0x00, 0x04, 0xff, 0, 0, 0])));
        socket.once('close', () => resolve());
        socket.resume();
        setTimeout(() => socket.destroy(), 2000);
      });
    const started = performance.now();
    // Waves below one source's share of unauthenticated connections, so that only the rate refuses.
    const attempts = 320;
    for (let wave = 0; wave < attempts / 40; wave += 1) await Promise.all(Array.from({ length: 40 }, start));
    const seconds = (performance.now() - started) / 1000;
    const moved = (await refused('handshake_rate')) - before.rate;
    const { perSecond, burst } = handshakesPerSource;
    const allowed = Math.ceil(burst + perSecond * seconds);
    console.log(
      `      ${attempts} handshakes started from one source in ${seconds.toFixed(1)} s: handshake_rate +${moved} ` +
        `(at most ${allowed} may pass)`,
    );
    assert.ok(moved > 0, 'the series moved');
    assert.ok(moved >= attempts - allowed, `${moved} refused, ${attempts - allowed} at least`);
    assert.equal((await refused('source_connections')) - before.source, 0);
  });

  it('refusals by anonymous_requests move with a peer without a certificate asking past its allowance', async () => {
    const { record } = await loadAdministrator(join(project.dir, 'admin'));
    const before = await refused('anonymous_requests');
    const connections = 3;
    for (let connection = 0; connection < connections; connection += 1) {
      // No certificate: the controller answers a few requests on such a connection, then closes it.
      const channel = await openControlChannel(record);
      let answered = 0;
      try {
        for (let request = 0; request < anonymousRequests + 4; request += 1) {
          await channel.request('project', {}, 5000).catch((error: { code?: string }) => {
            // Refused, as a peer without a certificate is, yet counted against its allowance.
            if (error.code === 'NOT_AUTHENTICATED') return;
            throw error;
          });
          answered += 1;
        }
      } catch {
        // The connection was closed past the allowance.
      } finally {
        channel.destroy();
      }
      assert.equal(answered, anonymousRequests, 'answered up to the allowance, then closed');
    }
    const moved = (await refused('anonymous_requests')) - before;
    console.log(
      `      ${connections} anonymous connections asking past ${anonymousRequests}: anonymous_requests +${moved}`,
    );
    assert.equal(moved, connections);
  });

  it('member connections, and refusals by member_connections, move with a member holding too many', async () => {
    const { record, privateKey, certificate } = await loadAdministrator(join(project.dir, 'admin'));
    const before = {
      refused: await refused('member_connections'),
      open: await read('portal_controller_member_connections'),
    };
    const tries = memberConnections + 4;
    const opened = await Promise.allSettled(
      Array.from({ length: tries }, () => openControlChannel(record, { key: privateKey, certificate })),
    );
    const channels = opened.flatMap((one) => (one.status === 'fulfilled' ? [one.value] : []));
    try {
      // A refused channel may open and then be closed with the refusal: count what the controller says.
      const moved = await until(async () => {
        const now = (await refused('member_connections')) - before.refused;
        return now >= 4 ? now : undefined;
      }, 'member connection refusals');
      const open = await read('portal_controller_member_connections');
      console.log(`      ${tries} connections of one member: ${open} open, member_connections +${moved}`);
      assert.equal(moved, 4);
      assert.equal(open - before.open, memberConnections);
    } finally {
      channels.forEach((channel: ControlChannel) => channel.destroy());
    }
  });
});
