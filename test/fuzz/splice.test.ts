import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  directMagic,
  directPreambleOf,
  maxPreambleBytes,
  parseDirectPreamble,
  parseSplicePreamble,
  spliceMagic,
  type SplicePreamble,
} from '../../src/wire/protocol.ts';
import { fuzz, timed } from './fuzz.ts';

const token = fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/);
const role = fc.constantFrom('inlet' as const, 'outlet' as const);
/** The line dialSplice writes. */
const preambleOf = (splice: string, side: string, secret: string) => `${spliceMagic} ${splice} ${side} ${secret}\n`;

/** Bytes a peer of the relay's port might send first: noise, near-misses of a preamble, TLS records. */
const received = fc.oneof(
  fc.uint8Array({ maxLength: 400 }).map((bytes) => Buffer.from(bytes)),
  fc
    .tuple(
      fc.constantFrom(spliceMagic, `${spliceMagic} `, 'PORTAL-SPLIC', 'portal-splice', `${spliceMagic}\t`, ''),
      fc.array(
        fc.oneof(
          token,
          fc.string({ unit: 'binary', maxLength: 70 }),
          fc.constantFrom('inlet', 'outlet', ' ', '  ', '\n', '\r\n', '\0'),
        ),
        { maxLength: 6 },
      ),
      fc.uint8Array({ maxLength: 40 }),
    )
    .map(([head, words, tail]) => Buffer.concat([Buffer.from(head + words.join(' ')), Buffer.from(tail)])),
  fc
    .tuple(token, role, token, fc.uint8Array({ maxLength: 64 }))
    .map(([splice, side, secret, rest]) => Buffer.concat([Buffer.from(preambleOf(splice, side, secret)), rest])),
  fc.constant(Buffer.from([0x16, 0x03, 0x01, 0x00, 0xc8, 0x01])),
);

function parse(bytes: Buffer): SplicePreamble {
  return timed(250, () => parseSplicePreamble(bytes));
}

describe('fuzz: the relay splice preamble (parseSplicePreamble)', () => {
  it(
    'never throws; a splice is exactly one well-formed line and the bytes after it; ' + 'incomplete only while short',
    async () => {
      await fuzz(
        'splice preamble',
        fc.property(received, (bytes) => {
          const result = parse(bytes);
          if (result.kind === 'incomplete') {
            assert.equal(bytes.indexOf(0x0a), -1, 'incomplete only before a newline');
            assert.ok(
              bytes.length <= maxPreambleBytes,
              'incomplete only within the bound: a peer cannot make the relay buffer more',
            );
            const head = bytes.subarray(0, spliceMagic.length).toString('latin1');
            assert.ok(spliceMagic.startsWith(head), 'incomplete only while it can still be a preamble');
          } else if (result.kind === 'invalid') {
            assert.ok(result.reason.length > 0);
          } else {
            assert.match(result.splice, /^[A-Za-z0-9_-]{1,64}$/);
            assert.match(result.secret, /^[A-Za-z0-9_-]{1,64}$/);
            assert.ok(result.role === 'inlet' || result.role === 'outlet');
            assert.deepEqual(
              Buffer.concat([Buffer.from(preambleOf(result.splice, result.role, result.secret)), result.rest]),
              bytes,
              'the line and the rest are the bytes received',
            );
          }
        }),
        1000,
      );
    },
  );

  it(
    'decides the same however the bytes arrive: once invalid, never valid; ' +
      'a preamble read byte by byte is the same splice',
    async () => {
      await fuzz(
        'splice preamble, growing',
        fc.property(received, fc.uint8Array({ maxLength: 40 }), (bytes, more) => {
          const first = parse(bytes);
          const grown = parse(Buffer.concat([bytes, Buffer.from(more)]));
          if (first.kind === 'invalid')
            assert.equal(grown.kind, 'invalid', 'a relay that closed on these bytes was right to');
          if (first.kind === 'splice') {
            assert.equal(grown.kind, 'splice');
            assert.deepEqual([grown.splice, grown.role, grown.secret], [first.splice, first.role, first.secret]);
          }
          if (first.kind === 'splice') {
            const line = bytes.length - first.rest.length;
            for (let length = 0; length < line; length += 1)
              assert.equal(parse(bytes.subarray(0, length)).kind, 'incomplete', `first ${length} bytes`);
          }
        }),
        500,
      );
    },
  );
});

/** Bytes a peer of an inlet's direct path might send first: noise, near-misses, a splice's line, the real line. */
const directReceived = fc.oneof(
  fc.uint8Array({ maxLength: 400 }).map((bytes) => Buffer.from(bytes)),
  fc
    .tuple(
      fc.constantFrom(directMagic, `${directMagic} `, 'PORTAL-DIRECT/1 ', 'PORTAL-DIREC', spliceMagic, ''),
      fc.array(fc.oneof(token, fc.string({ unit: 'binary', maxLength: 70 }), fc.constantFrom(' ', '\n', '\0')), {
        maxLength: 4,
      }),
    )
    .map(([head, words]) => Buffer.from(head + words.join(' '))),
  fc
    .tuple(token, fc.uint8Array({ maxLength: 64 }))
    .map(([secret, rest]) => Buffer.concat([Buffer.from(directPreambleOf(secret)), rest])),
);

describe('fuzz: the direct path preamble (parseDirectPreamble)', () => {
  it(
    'never throws; a direct line is exactly one well-formed line and the bytes after it; ' +
      'incomplete only while short',
    async () => {
      await fuzz(
        'direct preamble',
        fc.property(directReceived, (bytes) => {
          const result = timed(250, () => parseDirectPreamble(bytes));
          if (result.kind === 'incomplete') {
            assert.equal(bytes.indexOf(0x0a), -1, 'incomplete only before a newline');
            assert.ok(bytes.length <= maxPreambleBytes, 'incomplete only within the bound');
            assert.ok(
              directMagic.startsWith(bytes.subarray(0, directMagic.length).toString('latin1')),
              'incomplete only while it can still be the line',
            );
          } else if (result.kind === 'invalid') {
            assert.ok(result.reason.length > 0);
          } else {
            assert.match(result.secret, /^[A-Za-z0-9_-]{1,64}$/);
            assert.deepEqual(
              Buffer.concat([Buffer.from(directPreambleOf(result.secret)), result.rest]),
              bytes,
              'the line and the rest are the bytes received',
            );
          }
        }),
        1000,
      );
    },
  );
});
