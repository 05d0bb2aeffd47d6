import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { RuntimeFailure } from '../../src/shared/errors.ts';
import { maxLineBytes, readJsonLines, readOneJsonLine, writeJsonLine } from '../../src/wire/json-lines.ts';
import { chunked, fuzz } from './fuzz.ts';

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** What a reader over `chunks` hands on: every message, every error, in order; then whether it still reads. */
async function readAll(chunks: readonly Buffer[]) {
  const stream = new PassThrough();
  const messages: unknown[] = [];
  const errors: RuntimeFailure[] = [];
  readJsonLines(
    stream,
    (message) => {
      assert.equal(errors.length, 0, 'no message after an error');
      messages.push(message);
    },
    (error) => errors.push(error),
  );
  for (const chunk of chunks) {
    stream.write(chunk);
    await tick();
  }
  // After an error the reader has let go: a good line that follows is not read, nor reported.
  const [messagesBefore, errorsBefore] = [messages.length, errors.length];
  stream.write('{"after":true}\n');
  await tick();
  const stillReading = messages.length > messagesBefore;
  const reportedAfter = errors.length > errorsBefore;
  stream.destroy();
  return {
    messages: messages.slice(0, messagesBefore),
    errors: errors.slice(0, errorsBefore),
    stillReading,
    reportedAfter,
  };
}

/** The same bytes read the obvious way: whole lines, in order, up to the first that is not JSON. */
function expectedOf(bytes: Buffer): { messages: unknown[]; failed: boolean } {
  const lines = bytes.toString('binary').split('\n').slice(0, -1);
  const messages: unknown[] = [];
  for (const line of lines) {
    try {
      messages.push(JSON.parse(Buffer.from(line, 'binary').toString('utf8')));
    } catch {
      return { messages, failed: true };
    }
  }
  return { messages, failed: false };
}

/** Every byte a stream holds, read synchronously (a PassThrough that nobody reads keeps them). */
function drain(stream: PassThrough): Buffer {
  const parts: Buffer[] = [];
  for (let part = stream.read() as Buffer | null; part !== null; part = stream.read() as Buffer | null)
    parts.push(part);
  return Buffer.concat(parts);
}

/** Bytes a hostile peer might send on a control channel: JSON lines, near-JSON, noise, split anywhere. */
const peerBytes = fc.oneof(
  fc
    .array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 6 })
    .map((values) => Buffer.from(values.map((value) => `${JSON.stringify(value)}\n`).join(''))),
  fc
    .array(
      fc.oneof(
        fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value)),
        fc.string({ unit: 'binary', maxLength: 30 }),
        fc.constantFrom('{', '}', '"', '\\', '\r', '\n', '\u2028', 'null'),
      ),
      { maxLength: 10 },
    )
    .map((parts) => Buffer.from(parts.join(''))),
  fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
);

describe('fuzz: JSON-lines control messages (readJsonLines, readOneJsonLine, writeJsonLine)', () => {
  it(
    'reads back every JSON value written, in order, ' + 'however the bytes are split (inside UTF-8 sequences too)',
    async () => {
      await fuzz(
        'json lines round trip',
        fc.asyncProperty(
          fc
            .array(fc.jsonValue({ maxDepth: 4 }), { minLength: 1, maxLength: 8 })
            .chain((values) => fc.tuple(fc.constant(values), chunked(linesOfSync(values)))),
          async ([values, chunks]) => {
            const read = await readAll(chunks);
            assert.deepEqual(read.errors, []);
            assert.deepEqual(read.messages, JSON.parse(JSON.stringify(values)));
            assert.equal(read.stillReading, true);
          },
        ),
        150,
      );
    },
  );

  it('hands on exactly the whole JSON lines before the first bad one, reports one error and lets go', async () => {
    await fuzz(
      'json lines, hostile bytes',
      fc.asyncProperty(
        peerBytes.chain((bytes) => fc.tuple(fc.constant(bytes), chunked(bytes))),
        async ([bytes, chunks]) => {
          const expected = expectedOf(bytes);
          const read = await readAll(chunks);
          assert.deepEqual(read.messages, expected.messages);
          assert.equal(read.errors.length, expected.failed ? 1 : 0, 'one error, only for a line that is not JSON');
          for (const error of read.errors) {
            assert.ok(error instanceof Error && /^[^\n]+$/.test(error.message), 'a one-line reason');
            assert.equal(error.code, 'JSON_LINE_INVALID');
          }
          if (expected.failed)
            assert.deepEqual([read.stillReading, read.reportedAfter], [false, false], 'let go after the error');
        },
      ),
      200,
    );
  });

  it(
    'buffers at most its bound: ' + 'a line without end is refused once it passes maxLineBytes, however it arrives',
    async () => {
      await fuzz(
        'json lines, long line',
        fc.asyncProperty(
          fc.integer({ min: maxLineBytes - 2048, max: maxLineBytes + 70_000 }),
          fc.integer({ min: 1024, max: 65_536 }),
          async (length, chunkSize) => {
            const line = Buffer.alloc(length, 0x20);
            const chunks: Buffer[] = [];
            for (let start = 0; start < length; start += chunkSize)
              chunks.push(line.subarray(start, start + chunkSize));
            const read = await readAll(chunks);
            assert.equal(read.errors.length, length > maxLineBytes ? 1 : 0, `${length} bytes without a newline`);
            if (length > maxLineBytes)
              assert.deepEqual([read.stillReading, read.reportedAfter], [false, false], 'let go after the error');
          },
        ),
        12,
      );
    },
  );

  it('readOneJsonLine gives the first line and leaves every later byte, exactly, to whoever reads next', async () => {
    await fuzz(
      'json lines, one line then another protocol',
      fc.asyncProperty(
        fc.tuple(fc.jsonValue({ maxDepth: 3 }), fc.uint8Array({ maxLength: 200 })).chain(([value, rest]) => {
          const bytes = Buffer.concat([Buffer.from(`${JSON.stringify(value)}\n`), Buffer.from(rest)]);
          return fc.tuple(fc.constant(value), fc.constant(Buffer.from(rest)), chunked(bytes));
        }),
        async ([value, rest, chunks]) => {
          const stream = new PassThrough();
          stream.pause();
          const line = readOneJsonLine(stream, 5000);
          for (const chunk of chunks) {
            stream.write(chunk);
            await tick();
          }
          assert.deepEqual(await line, JSON.parse(JSON.stringify(value)));
          assert.equal(stream.isPaused(), true, 'left paused for the next protocol');
          assert.deepEqual(drain(stream), rest);
          stream.destroy();
        },
      ),
      150,
    );
  });
});

/** The bytes writeJsonLine puts on a stream for `values`. */
function linesOfSync(values: readonly unknown[]): Buffer {
  const sink = new PassThrough();
  for (const value of values) writeJsonLine(sink, value);
  return drain(sink);
}
