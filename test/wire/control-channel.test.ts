import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { createServer, type Server, type TLSSocket } from 'node:tls';
import { createServerCertificate, fingerprintOf } from '../../src/pki/authority.ts';
import { PortalError } from '../../src/shared/errors.ts';
import { maxPendingRequests, openControlChannel, type ControlChannel } from '../../src/wire/control-channel.ts';
import {
  controllerFields,
  serviceAlpn,
  type ControllerOperations,
  type OperationHandlers,
} from '../../src/wire/protocol.ts';
import { serveService } from '../../src/wire/service-connection.ts';

describe('control channel client: what a server that stops answering may cost the node', () => {
  let server: Server;
  let channel: ControlChannel | undefined;
  let address: string;
  let fingerprint: string;
  /** The operations of the requests the server has read (and will never answer), in order. */
  let received: string[] = [];

  /** A handler that notes each request of `op` and never answers it. */
  const neverAnswers = (op: string) => () => {
    received.push(op);
    return new Promise<never>(() => undefined);
  };
  const neverAnswering: OperationHandlers<ControllerOperations> = {
    ping: neverAnswers('ping'),
    'admin-enroll': neverAnswers('admin-enroll'),
    enroll: neverAnswers('enroll'),
    renew: neverAnswers('renew'),
    'reissue-challenge': neverAnswers('reissue-challenge'),
    reissue: neverAnswers('reissue'),
    ticket: neverAnswers('ticket'),
    project: neverAnswers('project'),
    ca: neverAnswers('ca'),
    relays: neverAnswers('relays'),
    'relay-announce': neverAnswers('relay-announce'),
    advertise: neverAnswers('advertise'),
    unadvertise: neverAnswers('unadvertise'),
    inlets: neverAnswers('inlets'),
    members: neverAnswers('members'),
    revoke: neverAnswers('revoke'),
    grant: neverAnswers('grant'),
    revocations: neverAnswers('revocations'),
    'revocations-return': neverAnswers('revocations-return'),
    tickets: neverAnswers('tickets'),
    'ticket-cancel': neverAnswers('ticket-cancel'),
    'console-link': neverAnswers('console-link'),
    'member-report': neverAnswers('member-report'),
    'portal-report': neverAnswers('portal-report'),
    'audit-report': neverAnswers('audit-report'),
    audit: neverAnswers('audit'),
  };

  before(async () => {
    const tls = createServerCertificate('never-answers');
    fingerprint = fingerprintOf(tls.certificate);
    server = createServer(
      { key: tls.privateKey, cert: tls.certificate, minVersion: 'TLSv1.3', ALPNProtocols: [serviceAlpn.control] },
      (socket: TLSSocket) => {
        socket.on('error', () => socket.destroy());
        serveService(socket, {
          service: 'control',
          fields: controllerFields,
          maxInFlight: 10 * maxPendingRequests,
          maxQueuedBytes: 1024 * 1024,
          handlers: neverAnswering,
        });
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterEach(() => {
    channel?.destroy();
    channel = undefined;
    received = [];
  });

  after(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  /** Resolves once the server has read `count` requests (each line is read as soon as it arrives). */
  async function serverHasRead(count: number): Promise<void> {
    const deadline = Date.now() + 5000;
    while (received.length < count) {
      if (Date.now() > deadline) throw new Error(`the server read ${received.length} requests, not ${count}`);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  it(
    `keeps at most ${maxPendingRequests} requests waiting, ` + 'and refuses the next at once without sending it',
    async () => {
      channel = await openControlChannel({ controller: address, fingerprint });
      const open = channel;
      const outcome = (request: Promise<unknown>) =>
        request.then(
          () => 'answered',
          (error: PortalError) => error.code,
        );
      const waiting = Array.from({ length: maxPendingRequests - 1 }, () => outcome(open.request('ping', {}, 60_000)));
      const short = outcome(open.request('ping', {}, 300));
      await serverHasRead(maxPendingRequests);
      assert.equal(channel.pending, maxPendingRequests);

      for (let more = 0; more < 3; more += 1) {
        await assert.rejects(channel.request('ping', {}), (error: unknown) => {
          assert.ok(error instanceof PortalError);
          assert.equal(error.code, 'TOO_MANY_PENDING_REQUESTS');
          assert.equal(
            error.message,
            `${maxPendingRequests} requests to the controller at ${address} wait for answers already; ` +
              'ping was not sent',
          );
          assert.equal(
            error.hint,
            'check the controller: it answers slowly or not at all ' +
              '(waiting requests time out by themselves, and then new ones are sent)',
          );
          assert.equal(error.exitCode, 1);
          return true;
        });
      }
      assert.equal(channel.pending, maxPendingRequests, 'a refused request holds nothing');

      // A waiting request that times out makes room for one more: on the same connection, in order, so
      // a refused request that had been sent would reach the server before it.
      assert.equal(await short, 'CONTROLLER_TIMEOUT');
      assert.equal(channel.pending, maxPendingRequests - 1);
      waiting.push(outcome(channel.request('project', {}, 60_000)));
      await serverHasRead(maxPendingRequests + 1);
      assert.deepEqual(
        received,
        [...Array<string>(maxPendingRequests).fill('ping'), 'project'],
        'the refused requests were never sent',
      );

      channel.destroy();
      assert.deepEqual(
        new Set(await Promise.all(waiting)),
        new Set(['CONTROLLER_LOST']),
        'the waiting requests fail when the channel closes',
      );
      assert.equal(channel.pending, 0);
    },
  );

  it('takes requests again once waiting ones have timed out', async () => {
    channel = await openControlChannel({ controller: address, fingerprint });
    const open = channel;
    const timedOut = Array.from({ length: maxPendingRequests }, () =>
      open.request('ping', {}, 100).catch((error: PortalError) => error.code),
    );
    await assert.rejects(channel.request('ping', {}), { code: 'TOO_MANY_PENDING_REQUESTS' });
    assert.deepEqual(new Set(await Promise.all(timedOut)), new Set(['CONTROLLER_TIMEOUT']));
    assert.equal(channel.pending, 0);
    const late = channel.request('ping', {}, 100).catch((error: PortalError) => error.code);
    assert.equal(channel.pending, 1, 'sent: the bound counts only requests still waiting');
    assert.equal(await late, 'CONTROLLER_TIMEOUT');
  });
});
