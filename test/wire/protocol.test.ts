import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, createServer, type TLSSocket } from 'node:tls';
import { createServerCertificate, fingerprintOf } from '../../src/pki/authority.ts';
import { parseHostPort } from '../../src/shared/address.ts';
import { ServiceChannel } from '../../src/wire/control-channel.ts';
import { readOneJsonLine } from '../../src/wire/json-lines.ts';
import {
  controllerEventFields,
  controllerFields,
  parseEvent,
  parseRequest,
  protocolVersion,
  relayEventFields,
  relayFields,
  serviceAlpn,
  type ControllerEvent,
  type ControllerOperations,
  type InletAdvert,
  type RelayEvent,
} from '../../src/wire/protocol.ts';
import { createWorld, type World } from '../support/portal-world.ts';

describe('protocol versions: the first line of every connection', () => {
  let world: World;
  let port: number;

  before(async () => {
    world = await createWorld();
    port = (parseHostPort(world.controller.listening) as { ok: true; address: { port: number } }).address.port;
  });

  after(async () => world?.close());

  async function rawClient(alpn?: string): Promise<TLSSocket> {
    const socket = connect({
      host: '127.0.0.1',
      port,
      rejectUnauthorized: false,
      minVersion: 'TLSv1.3',
      ...(alpn ? { ALPNProtocols: [alpn] } : {}),
    });
    await once(socket, 'secureConnect');
    return socket;
  }

  it('answers a client of the unversioned protocol with an error naming both versions, then closes', async () => {
    const socket = await rawClient();
    socket.write(`${JSON.stringify({ id: 1, op: 'ping' })}\n`);
    const answer = (await readOneJsonLine(socket, 5000)) as Record<string, unknown>;
    assert.equal(answer.id, 1);
    assert.equal(answer.ok, false);
    assert.equal(answer.code, 'PROTOCOL_VERSION');
    assert.equal(
      answer.message,
      `the controller speaks Portal protocol ${protocolVersion} and this client protocol 1 (no version line)`,
    );
    await once(socket, 'close');
  });

  it('refuses a client of a later version on both services, naming both versions', async () => {
    for (const service of ['control', 'relay'] as const) {
      const socket = await rawClient(serviceAlpn[service]);
      socket.write(`${JSON.stringify({ portal: service, version: protocolVersion + 1 })}\n`);
      const answer = (await readOneJsonLine(socket, 5000)) as Record<string, unknown>;
      // The relay refuses a peer without a member certificate before it reads anything.
      const expected =
        service === 'control'
          ? `the controller speaks Portal protocol ${protocolVersion} and this client protocol ${protocolVersion + 1}`
          : /serves members of its projects only/;
      assert.equal(answer.portal, service);
      assert.equal(answer.version, protocolVersion);
      if (typeof expected === 'string') assert.equal(answer.refused, expected);
      else assert.match(String(answer.refused), expected);
      await once(socket, 'close');
    }
  });

  it('gives a client that meets a server of another version one line naming both', async () => {
    // A server that answers the version line as an unknown operation speaks the unversioned protocol.
    const tls = createServerCertificate('old-controller');
    const old = createServer({ key: tls.privateKey, cert: tls.certificate, minVersion: 'TLSv1.3' }, (peer) => {
      peer.once('data', () =>
        peer.end(
          `${JSON.stringify({
            id: null,
            ok: false,
            code: 'UNKNOWN_OPERATION',
            message: 'the controller does not know the operation "?"',
            exit: 2,
          })}\n`,
        ),
      );
    });
    await new Promise<void>((resolve) => old.listen(0, '127.0.0.1', resolve));
    const address = `127.0.0.1:${(old.address() as { port: number }).port}`;
    try {
      await assert.rejects(
        ServiceChannel.open<ControllerOperations>({
          service: 'control',
          address,
          fingerprint: fingerprintOf(tls.certificate),
        }),
        (error: Error & { code?: string }) => {
          assert.equal(error.code, 'PROTOCOL_VERSION');
          assert.equal(
            error.message,
            `the controller speaks Portal protocol 1 (no version line) and this client protocol ${protocolVersion}`,
          );
          return true;
        },
      );
    } finally {
      old.close();
    }
  });
});

describe('protocol: the attribute an inlet allows rides on its advert and its splice requests', () => {
  it('reads allow on advertise and connect, as empty text when a peer leaves it out', () => {
    const advert = { id: 1, op: 'advertise', via: 'app', addresses: ['127.0.0.1:1'], secret: 's'.repeat(32), warm: 1 };
    assert.deepEqual(parseRequest(controllerFields, { ...advert, allow: 'app-outlet' })?.body, {
      via: 'app',
      allow: 'app-outlet',
      addresses: ['127.0.0.1:1'],
      secret: 's'.repeat(32),
      warm: 1,
    });
    assert.equal((parseRequest(controllerFields, advert)?.body as { allow?: unknown }).allow, '');
    assert.deepEqual(parseRequest(relayFields, { id: 2, op: 'connect', relay: 'app', allow: 'app-outlet' })?.body, {
      relay: 'app',
      allow: 'app-outlet',
    });
    assert.deepEqual(parseRequest(relayFields, { id: 3, op: 'connect', relay: 'app', allow: 7 })?.body, {
      relay: 'app',
      allow: '',
    });
  });
});

describe('protocol: pushed events are read through their field tables', () => {
  const fingerprint = 'ab'.repeat(32);
  const advert: InletAdvert = {
    inlet: 'n1',
    attributes: ['app-inlet'],
    via: 'app',
    addresses: ['127.0.0.1:4000', '[::1]:4000'],
    secret: 's'.repeat(32),
    warm: 2,
  };
  const controllerEvents: ControllerEvent[] = [
    { event: 'relays', relays: [{ id: 'controller', address: '127.0.0.1:1', fingerprint }] },
    { event: 'inlet', advert },
    { event: 'inlet-gone', inlet: 'n1' },
  ];
  const relayEvents: RelayEvent[] = [
    { event: 'dial', splice: 'sp1', secret: 'x'.repeat(24), from: 'n2' },
    { event: 'refused', from: 'n3', attributes: ['db-inlet'], count: 4 },
  ];

  it('reads every event a controller or a relay pushes as it was sent, whatever else the line holds', () => {
    for (const event of controllerEvents) {
      assert.deepEqual(parseEvent(controllerEventFields, { ...event }), event);
      assert.deepEqual(parseEvent(controllerEventFields, { ...event, later: 'ignored' }), event);
    }
    for (const event of relayEvents) {
      assert.deepEqual(parseEvent(relayEventFields, { ...event }), event);
      assert.deepEqual(parseEvent(relayEventFields, { ...event, id: 3 }), event);
    }
  });

  it('drops an event of another service, an unknown one, or one with a field missing or of another kind', () => {
    const unreadable: [Record<string, unknown>, 'control' | 'relay'][] = [
      [{ event: 'dial', splice: 'sp1', secret: 'x', from: 'n2' }, 'control'],
      [{ event: 'relays', relays: [] }, 'relay'],
      [{ event: 'toString' }, 'control'],
      [{ event: 'hasOwnProperty' }, 'relay'],
      [{ event: 'later-event', inlet: 'n1' }, 'control'],
      [{ event: 'relays' }, 'control'],
      [{ event: 'relays', relays: { id: 'r' } }, 'control'],
      [{ event: 'inlet', advert: 'n1' }, 'control'],
      [{ event: 'inlet', advert: [advert] }, 'control'],
      [{ event: 'inlet', advert: { ...advert, warm: '2' } }, 'control'],
      [{ event: 'inlet', advert: { ...advert, secret: undefined } }, 'control'],
      [{ event: 'inlet', advert: { ...advert, addresses: '127.0.0.1:4000' } }, 'control'],
      [{ event: 'inlet-gone' }, 'control'],
      [{ event: 'inlet-gone', inlet: null }, 'control'],
      [{ event: 'dial', splice: 7, secret: 'x', from: 'n2' }, 'relay'],
      [{ event: 'dial', splice: 'sp1', secret: 'x' }, 'relay'],
      [{ event: 'refused', from: 'n3', attributes: ['db-inlet'], count: '4' }, 'relay'],
      [{ event: 'refused', from: 'n3', count: 4 }, 'relay'],
    ];
    for (const [message, service] of unreadable) {
      const read =
        service === 'control' ? parseEvent(controllerEventFields, message) : parseEvent(relayEventFields, message);
      assert.equal(read, undefined, JSON.stringify(message));
    }
  });

  it('keeps the entries of a list it can read, and bounds a list of texts as in requests', () => {
    const good = { id: 'r1', address: '127.0.0.1:2', fingerprint };
    assert.deepEqual(
      parseEvent(controllerEventFields, { event: 'relays', relays: [good, { id: 'r2' }, 'r3', null, [good]] }),
      { event: 'relays', relays: [good] },
    );
    const attributes = ['a', 7, 'b'.repeat(301), ...Array.from({ length: 20 }, (_, index) => `x${index}`)];
    const refused = parseEvent(relayEventFields, { event: 'refused', from: 'n3', attributes, count: 1 });
    assert.deepEqual(refused, {
      event: 'refused',
      from: 'n3',
      attributes: ['a', ...Array.from({ length: 13 }, (_, index) => `x${index}`)],
      count: 1,
    });
  });
});
