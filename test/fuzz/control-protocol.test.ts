import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect as connectTcp } from 'node:net';
import { connect, type TLSSocket } from 'node:tls';
import fc from 'fast-check';
import { createCertificateRequest } from '../../src/pki/authority.ts';
import { generateKeyPair } from '../../src/pki/keys.ts';
import { parseHostPort } from '../../src/shared/address.ts';
import { openControlChannel, type ControlChannel } from '../../src/wire/control-channel.ts';
import { helloOf } from '../../src/wire/protocol.ts';
import { encodeAdminCode, encodeTicket } from '../../src/wire/ticket.ts';
import { createWorld, type World } from '../support/portal-world.ts';
import { fuzz, hostileText, longRun } from './fuzz.ts';

/** The operations of the control protocol, and the ones an anonymous peer may be answered yes to. */
const operations = [
  'ping',
  'admin-enroll',
  'enroll',
  'renew',
  'ticket',
  'project',
  'ca',
  'relays',
  'relay-announce',
  'register',
  'connect',
  'reissue-challenge',
  'reissue',
];
const answeredToAnyone = new Set(['ping', 'reissue-challenge']);
const fields = [
  'code',
  'request',
  'project',
  'ticket',
  'secret',
  'expiresInMs',
  'usageCount',
  'attribute',
  'relay',
  'tls',
  'relayNode',
  'node',
  'certificate',
  'address',
  'fingerprint',
];
/** Requests per connection: within what the controller answers one anonymous connection. */
const maxRequests = 5;
/** A controller that takes longer than this over loopback is stuck, not slow. */
const answerWithinMs = 10_000;

interface Peer {
  readonly socket: TLSSocket;
  /** Every line received so far, parsed (or the text when it is not JSON). */
  readonly lines: unknown[];
  /** Resolves once `count` lines have arrived; false when the connection closed first. Fails after `answerWithinMs`. */
  linesReceived(count: number): Promise<boolean>;
  readonly closed: Promise<void>;
}

/**
 * An anonymous control connection (TLS, no client certificate) from `source`, reading lines on its own,
 * past the exchange of versions: `lines` holds what follows the controller's first line.
 */
async function anonymousPeer(port: number, source: string): Promise<Peer> {
  const peer = await rawPeer(port, source);
  peer.socket.write(`${JSON.stringify(helloOf('control'))}\n`);
  assert.equal(await peer.linesReceived(1), true, 'the controller answers the version line');
  assert.deepEqual(peer.lines.shift(), helloOf('control'));
  return peer;
}

async function rawPeer(port: number, source: string): Promise<Peer> {
  const tcp = connectTcp({ host: '127.0.0.1', port, localAddress: source });
  const socket = connect({ socket: tcp, rejectUnauthorized: false, minVersion: 'TLSv1.3' });
  tcp.on('error', () => socket.destroy());
  socket.on('error', () => socket.destroy());
  await once(socket, 'secureConnect');
  const lines: unknown[] = [];
  let pending = '';
  const waiters = new Set<() => void>();
  socket.setEncoding('utf8');
  socket.on('data', (text: string) => {
    pending += text;
    for (let newline = pending.indexOf('\n'); newline >= 0; newline = pending.indexOf('\n')) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      try {
        lines.push(JSON.parse(line));
      } catch {
        lines.push(line);
      }
    }
    waiters.forEach((wake) => wake());
  });
  const closed = once(socket, 'close').then(() => undefined);
  return {
    socket,
    lines,
    closed,
    linesReceived: (count) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no answer within ${answerWithinMs} ms: ${lines.length} of ${count} lines`));
        }, answerWithinMs);
        const check = () => {
          if (lines.length >= count) resolve(true);
          else if (socket.destroyed) resolve(false);
          else return false;
          clearTimeout(timer);
          waiters.delete(check);
          return true;
        };
        if (!check()) {
          waiters.add(check);
          void closed.then(check);
        }
      }),
  };
}

/**
 * An answer as the protocol promises it: the request's id, and a refusal with a stable code unless the
 * operation is open to all.
 */
function assertAnswer(answer: unknown, request: Record<string, unknown>): void {
  assert.ok(
    answer !== null && typeof answer === 'object' && !Array.isArray(answer),
    `a JSON object, not ${JSON.stringify(answer)}`,
  );
  const body = answer as Record<string, unknown>;
  assert.equal(body.id, typeof request.id === 'number' ? request.id : null, 'the request id, or null');
  if (body.ok === true) {
    assert.ok(
      answeredToAnyone.has(String(request.op)),
      `only ${[...answeredToAnyone].join(' and ')} answer yes to anyone, not ${JSON.stringify(request.op)}`,
    );
    return;
  }
  assert.equal(body.ok, false);
  assert.match(String(body.code), /^[A-Z][A-Z0-9_]*$/, 'a stable code');
  assert.notEqual(body.code, 'INTERNAL', `no internal error: ${String(body.message)}`);
  assert.ok(typeof body.message === 'string' && body.message.length > 0, 'a message');
  assert.ok(body.exit === 1 || body.exit === 2, 'an exit code');
}

describe('fuzz: the control protocol of a live controller (TLS without a client certificate)', function () {
  if (longRun) this.timeout(0);
  let world: World;
  let admin: ControlChannel;
  let port: number;
  const logged: string[] = [];
  /**
   * Real-looking values that reach deeper than the first check: a signed request, a certificate, forged
   * tickets and codes.
   */
  let realistic: fc.Arbitrary<unknown>;

  before(async () => {
    world = await createWorld({ log: (line) => logged.push(line) });
    port = (parseHostPort(world.controller.listening) as { ok: true; address: { port: number } }).address.port;
    admin = await openControlChannel(world.admin.record, {
      key: world.admin.privateKey,
      certificate: world.admin.certificate,
    });
    const keys = generateKeyPair();
    const pin = { controller: world.controller.address, fingerprint: world.controller.fingerprint };
    realistic = fc.constantFrom(
      createCertificateRequest(keys.privateKey, keys.publicKey, 'fuzz'),
      createCertificateRequest(keys.privateKey, keys.publicKey, 'fuzz', 'c'.repeat(43)),
      world.admin.certificate,
      world.admin.record.projectId,
      world.admin.record.nodeId,
      encodeTicket({
        ...pin,
        projectId: world.admin.record.projectId,
        ticketId: 't0000000000000000',
        secret: 'x'.repeat(43),
      }),
      encodeAdminCode({ ...pin, code: 'y'.repeat(43) }),
    );
  });

  after(async () => {
    admin?.close();
    await world?.close();
  });

  it(
    'answers every request once, refusing all but ping and the re-issue challenge with a stable code; ' +
      'garbage only closes its own connection',
    async () => {
      const value = fc.oneof(
        fc.jsonValue({ maxDepth: 2 }),
        hostileText(6),
        realistic,
        fc.string({ maxLength: 4000 }),
        fc.double(),
        fc.integer(),
      );
      const request = fc
        .record(
          {
            id: fc.oneof(fc.integer(), fc.jsonValue({ maxDepth: 1 })),
            op: fc.oneof(
              { weight: 8, arbitrary: fc.constantFrom(...operations) },
              { weight: 1, arbitrary: fc.string({ maxLength: 60 }) },
              { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
            ),
            fields: fc.dictionary(
              fc.oneof(
                { weight: 6, arbitrary: fc.constantFrom(...fields) },
                { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
              ),
              value,
              { maxKeys: 6 },
            ),
          },
          { requiredKeys: ['fields'] },
        )
        // What the controller receives is the JSON text: compare answers with the request as it parses.
        .map(
          ({ id, op, fields: body }) =>
            JSON.parse(
              JSON.stringify({ ...body, ...(op === undefined ? {} : { op }), ...(id === undefined ? {} : { id }) }),
            ) as Record<string, unknown>,
        );
      const garbage = fc.oneof(
        fc
          .jsonValue({ maxDepth: 2 })
          .filter((line) => line === null || typeof line !== 'object' || Array.isArray(line))
          .map((line) => JSON.stringify(line)),
        fc.string({ unit: 'binary', maxLength: 200 }).filter(
          (line) =>
            !line.includes('\n') &&
            (() => {
              try {
                JSON.parse(line);
                return false;
              } catch {
                return true;
              }
            })(),
        ),
      );
      let connection = 0;
      await fuzz(
        'control protocol',
        fc.asyncProperty(
          fc.array(request, { minLength: 1, maxLength: maxRequests }),
          fc.option(garbage, { nil: undefined }),
          fc.boolean(),
          async (requests, tail, pipelined) => {
            // Many source addresses on loopback, as many peers would come from: the per-source limits are
            // not what this exercises.
            const source = `127.0.${1 + (connection % 200)}.${1 + ((connection += 1) % 250)}`;
            const peer = await anonymousPeer(port, source);
            try {
              const lines = requests.map((body) => `${JSON.stringify(body)}\n`);
              if (tail !== undefined) lines.push(`${tail}\n`);
              if (pipelined) peer.socket.write(lines.join(''));
              else {
                for (const [index, line] of lines.entries()) {
                  peer.socket.write(line);
                  if (index < requests.length)
                    assert.ok(
                      await peer.linesReceived(index + 1),
                      `answer ${index + 1} of ${requests.length} came before the connection closed`,
                    );
                }
              }
              if (tail === undefined) {
                assert.ok(
                  await peer.linesReceived(requests.length),
                  `${peer.lines.length} answers to ${requests.length} requests before the connection closed`,
                );
                assert.equal(peer.lines.length, requests.length, 'one answer per request');
              } else {
                // Closed, or an answer too many; neither within the bound is a controller that hangs.
                await Promise.race([peer.closed, peer.linesReceived(requests.length + 1)]).catch(() =>
                  assert.fail(`the connection stayed open ${answerWithinMs} ms after garbage`),
                );
                await peer.closed;
                assert.ok(peer.lines.length <= requests.length, 'no answer to garbage');
              }
              peer.lines.forEach((answer, index) => assertAnswer(answer, requests[index] as Record<string, unknown>));
            } finally {
              peer.socket.destroy();
            }
            // The administrator's connection, open all along, is served as before.
            const answer = await admin.request('project', {});
            assert.equal(answer.project.id, world.admin.record.projectId);
          },
        ),
        25,
      );
      assert.deepEqual(
        logged.filter((line) => /internal error/i.test(line)),
        [],
        'no internal error logged',
      );
      // And a new anonymous peer and the administrator's tickets still work.
      const peer = await anonymousPeer(port, '127.0.0.1');
      peer.socket.write('{"id":7,"op":"ping"}\n');
      assert.ok(await peer.linesReceived(1));
      assert.deepEqual(peer.lines, [{ id: 7, ok: true }]);
      peer.socket.destroy();
      assert.match(await world.ticket({ attribute: 'after-fuzz' }), /^pt1\./);
    },
  );
});
