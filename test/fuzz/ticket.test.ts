import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  decodeAdminCode,
  decodeTicket,
  encodeAdminCode,
  encodeTicket,
  type AdminCode,
  type EnrollmentTicket,
} from '../../src/wire/ticket.ts';
import { assertTypedRejection, fuzz, hostileText, timed } from './fuzz.ts';

const nonEmpty = fc.string({ unit: 'binary', minLength: 1, maxLength: 40 });
const fingerprint = fc.stringMatching(/^[0-9a-f]{64}$/);
const controller = fc.tuple(fc.domain(), fc.integer({ min: 1, max: 65535 })).map(([host, port]) => `${host}:${port}`);

const validTicket: fc.Arbitrary<EnrollmentTicket> = fc.record(
  {
    controller,
    fingerprint,
    projectId: nonEmpty,
    ticketId: nonEmpty,
    secret: nonEmpty,
    // encodeTicket leaves out an empty relay and a false tls: generate what survives the trip.
    grants: fc.record(
      { attribute: fc.string({ unit: 'binary', maxLength: 40 }), relay: nonEmpty, tls: fc.constant(true as const) },
      { requiredKeys: ['attribute'], noNullPrototype: true },
    ),
  },
  { requiredKeys: ['controller', 'fingerprint', 'projectId', 'ticketId', 'secret'], noNullPrototype: true },
);
const validCode: fc.Arbitrary<AdminCode> = fc.record(
  { controller, fingerprint, code: nonEmpty },
  { noNullPrototype: true },
);

/** A body as a hostile ticket might carry it: the real keys with values of any JSON type, and others. */
const anyBody = fc.dictionary(
  fc.oneof(
    fc.constantFrom('c', 'f', 'p', 'k', 's', 'a', 'r', 't', '__proto__', 'constructor'),
    fc.string({ maxLength: 4 }),
  ),
  fc.jsonValue({ maxDepth: 2 }),
  {
    maxKeys: 10,
  },
);
const base64url = (value: string | Uint8Array) => Buffer.from(value).toString('base64url');

/** Any text a user could paste where a ticket or admin code goes. */
const pasted = (prefix: string) =>
  fc.oneof(
    hostileText(12),
    fc.string({ unit: 'binary', maxLength: 300 }).map((text) => prefix + text),
    fc.uint8Array({ maxLength: 300 }).map((bytes) => prefix + base64url(bytes)),
    fc.jsonValue({ maxDepth: 3 }).map((value) => prefix + base64url(JSON.stringify(value) ?? '')),
    anyBody.map((body) => prefix + base64url(JSON.stringify(body))),
    fc
      .tuple(
        fc.constantFrom('', ' ', '\n', '\t'),
        fc.constantFrom('pt1.', 'pa1.', 'PT1.', 'pt2.', 'pt1', ''),
        fc.base64String({ maxLength: 120 }),
      )
      .map(([space, head, body]) => space + head + body),
  );

describe('fuzz: ticket and admin code text (decodeTicket, decodeAdminCode)', () => {
  it(
    'gives every pasted text back as a ticket with string fields or as TICKET_MALFORMED, ' + 'never another error',
    async () => {
      await fuzz(
        'ticket text',
        fc.property(pasted('pt1.'), (text) => {
          let ticket: EnrollmentTicket;
          try {
            ticket = timed(250, () => decodeTicket(text));
          } catch (error) {
            assertTypedRejection(error);
            assert.equal(error.code, 'TICKET_MALFORMED');
            assert.ok(error.hint, 'a hint says what to give instead');
            return;
          }
          for (const key of ['controller', 'fingerprint', 'projectId', 'ticketId', 'secret'] as const)
            assert.ok(typeof ticket[key] === 'string' && ticket[key].length > 0, key);
          assert.match(ticket.fingerprint, /^[0-9a-f]{64}$/);
          if (ticket.grants) assert.equal(typeof ticket.grants.attribute, 'string');
        }),
        400,
      );
    },
  );

  it('gives every pasted text back as an admin code or as ADMIN_CODE_MALFORMED, never another error', async () => {
    await fuzz(
      'admin code text',
      fc.property(pasted('pa1.'), (text) => {
        let code: AdminCode;
        try {
          code = timed(250, () => decodeAdminCode(text));
        } catch (error) {
          assertTypedRejection(error);
          assert.equal(error.code, 'ADMIN_CODE_MALFORMED');
          return;
        }
        assert.ok([code.controller, code.code].every((value) => typeof value === 'string' && value.length > 0));
        assert.match(code.fingerprint, /^[0-9a-f]{64}$/);
      }),
      300,
    );
  });

  it('decodes what it encodes (any code points, surrounding white space) and refuses any copy cut short', async () => {
    await fuzz(
      'ticket round trip',
      fc.property(
        validTicket,
        validCode,
        fc.constantFrom('', ' ', '\n', '\r\n'),
        fc.nat(),
        (ticket, code, space, cut) => {
          const text = encodeTicket(ticket);
          assert.match(text, /^pt1\.[A-Za-z0-9_-]+$/, 'survives shells, YAML and stack parameters unquoted');
          assert.deepEqual(decodeTicket(`${space}${text}${space}`), ticket);
          assert.deepEqual(decodeAdminCode(`${space}${encodeAdminCode(code)}${space}`), code);
          // A copy cut short anywhere loses at least the closing brace: refused, never half a ticket.
          const short = text.slice(0, 4 + (cut % (text.length - 4)));
          assert.throws(
            () => decodeTicket(short),
            (error) => {
              assertTypedRejection(error);
              return error.code === 'TICKET_MALFORMED';
            },
          );
        },
      ),
      200,
    );
  });
});
