import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { createServer, type Server, type TLSSocket } from 'node:tls';
import { Backoff } from '../../src/node/backoff.ts';
import { createLogger } from '../../src/node/logger.ts';
import { StandingChannel } from '../../src/node/standing-channel.ts';
import { createServerCertificate, fingerprintOf } from '../../src/pki/authority.ts';
import { readOneJsonLine } from '../../src/wire/json-lines.ts';
import { helloOf, serviceAlpn, type RelayEvent, type RelayOperations } from '../../src/wire/protocol.ts';
import { until } from '../support/in-process.ts';

describe('standing channel: what a service pushes reaches the node only once read through its table', () => {
  let server: Server;
  let channel: StandingChannel<RelayOperations> | undefined;
  const lines: string[] = [];
  const dial: RelayEvent = { event: 'dial', splice: 'sp1', secret: 'x'.repeat(24), from: 'n2' };
  /** What the relay pushes right after its first line: two events no node reads, then one it does. */
  const pushed = [{ event: 'dial', splice: 7, secret: 'x', from: 'n2' }, { event: 'later-event\nFAKE' }, dial];

  before(async () => {
    const tls = createServerCertificate('pushes-events');
    server = createServer(
      { key: tls.privateKey, cert: tls.certificate, minVersion: 'TLSv1.3', ALPNProtocols: [serviceAlpn.relay] },
      (socket: TLSSocket) => {
        socket.on('error', () => socket.destroy());
        void readOneJsonLine(socket, 5000).then(() => {
          for (const message of [helloOf('relay'), ...pushed]) socket.write(`${JSON.stringify(message)}\n`);
        });
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = createServerCertificate('node');
    channel = new StandingChannel<RelayOperations>({
      target: {
        service: 'relay',
        address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
        fingerprint: fingerprintOf(tls.certificate),
      },
      credentials: () => ({ key: client.privateKey, certificate: client.certificate }),
      logger: createLogger({ level: 'debug', write: (line) => lines.push(line) }),
      heartbeatMs: 60_000,
      backoff: new Backoff({ initialMs: 50, maxMs: 300 }),
    });
  });

  after(async () => {
    channel?.stop();
    await new Promise((resolve) => server.close(resolve));
  });

  it('hands on the event it reads, and drops each other one with one warning naming it', async () => {
    const open = channel as StandingChannel<RelayOperations>;
    const events: RelayEvent[] = [];
    open.on('event', (event: RelayEvent) => events.push(event));
    open.start();
    await until(() => Promise.resolve(events.length > 0 ? true : undefined), 'a pushed event', 5000);
    assert.deepEqual(events, [dial]);
    const warnings = lines.filter((line) => line.includes(' WARN '));
    assert.equal(warnings.length, 2, warnings.join(''));
    assert.match(
      warnings[0] ?? '',
      /the relay 127\.0\.0\.1:\d+ sent an event "dial" that this node cannot read; dropped/,
    );
    assert.match(warnings[1] ?? '', /sent an event "later-event\\nFAKE" that this node cannot read; dropped\n$/);
  });
});
