import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { maxLineBytes, readJsonLines, readOneJsonLine } from '../../src/wire/json-lines.ts';

describe('JSON lines', () => {
  it('reads one line and leaves every later byte for the next reader, even from a paused stream', async () => {
    const stream = new PassThrough();
    stream.pause();
    const line = readOneJsonLine(stream, 1000);
    stream.write('{"verdict":true}\nTLS-OR-HTTP2-BYTES');
    assert.deepEqual(await line, { verdict: true });
    const rest: Buffer[] = [];
    assert.equal(stream.isPaused(), true, 'left paused for whoever reads next');
    stream.on('data', (chunk: Buffer) => rest.push(chunk));
    stream.resume();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(Buffer.concat(rest).toString(), 'TLS-OR-HTTP2-BYTES');
  });

  it('stops at garbage and at a line longer than the bound, reporting each once', async () => {
    const errors: string[] = [];
    const garbage = new PassThrough();
    readJsonLines(garbage, () => undefined, (error) => errors.push(error.message));
    garbage.write('not json\n{"ok":1}\n');
    const long = new PassThrough();
    readJsonLines(long, () => undefined, (error) => errors.push(error.message));
    long.write(Buffer.alloc(maxLineBytes + 1, 0x61));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(errors, ['the peer sent something that is not a JSON line', `the peer sent a line longer than ${maxLineBytes} bytes`]);
  });

  it('times out when no line comes', async () => {
    await assert.rejects(readOneJsonLine(new PassThrough(), 20), /no answer within 20 ms/);
  });
});
