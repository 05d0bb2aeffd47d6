import assert from 'node:assert/strict';
import { once } from 'node:events';
import { Duplex, PassThrough, Readable } from 'node:stream';
import { pump } from '../../src/wire/pump.ts';

/** A destination that records each write it is handed and completes them only when told to. */
class RecordingSink extends Duplex {
  readonly writes: Buffer[][] = [];
  private pending: (() => void)[] = [];
  constructor(
    readonly holdWrites: boolean,
    highWaterMark: number,
  ) {
    super({ highWaterMark });
  }
  override _read(): void {}
  override _writev(chunks: { chunk: Buffer }[], callback: () => void): void {
    this.writes.push(chunks.map(({ chunk }) => chunk));
    if (this.holdWrites) this.pending.push(callback);
    else callback();
  }
  override _write(chunk: Buffer, _encoding: string, callback: () => void): void {
    this._writev([{ chunk }], callback);
  }
  release(): void {
    for (const callback of this.pending.splice(0)) callback();
  }
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('pump', () => {
  it('hands what arrives within one turn of the event loop to one write', async () => {
    // Like a TLS socket decrypting one read: several records pushed in one go.
    const source = new Readable({ read() {} });
    const sink = new RecordingSink(false, 1024 * 1024);
    pump(source as unknown as Duplex, sink);
    await turn();
    for (let i = 0; i < 8; i += 1) source.push(Buffer.alloc(16 * 1024, i));
    await turn();
    await turn();
    assert.equal(sink.writes.length, 1, `one write, not ${sink.writes.length}`);
    assert.deepEqual(
      sink.writes[0]!.map((chunk) => chunk[0]),
      [0, 1, 2, 3, 4, 5, 6, 7],
    );
  });

  it('writes a small chunk (a query, an answer) at once, without waiting for the turn to end', async () => {
    const source = new Readable({ read() {} });
    const sink = new RecordingSink(false, 1024 * 1024);
    pump(source as unknown as Duplex, sink);
    await turn();
    source.push(Buffer.from('SELECT 1'));
    await new Promise((resolve) => process.nextTick(resolve));
    assert.deepEqual(sink.writes, [[Buffer.from('SELECT 1')]], 'written before the turn ends');
  });

  it('pauses the source while the destination is full and resumes it when it drains', async () => {
    const source = new PassThrough();
    const sink = new RecordingSink(true, 64 * 1024);
    pump(source, sink);
    await turn();
    source.write(Buffer.alloc(48 * 1024));
    await turn();
    source.write(Buffer.alloc(48 * 1024));
    await turn();
    await turn();
    assert.equal(source.isPaused(), true, 'paused above the destination high-water mark');
    sink.release();
    await turn();
    sink.release();
    await turn();
    assert.equal(source.isPaused(), false, 'resumed after drain');
  });

  it('ends the destination after the last bytes, even when the source ended before it was handed over', async () => {
    const source = new PassThrough();
    source.end('last words');
    source.on('data', () => undefined);
    await once(source, 'end');
    source.removeAllListeners('data');
    source.pause();
    const sink = new PassThrough();
    const received: Buffer[] = [];
    sink.on('data', (chunk: Buffer) => received.push(chunk));
    pump(source, sink);
    await once(sink, 'end');
    assert.equal(Buffer.concat(received).length, 0, 'nothing left to pass on');

    const live = new PassThrough();
    const liveSink = new PassThrough();
    const liveReceived: Buffer[] = [];
    liveSink.on('data', (chunk: Buffer) => liveReceived.push(chunk));
    pump(live, liveSink);
    live.write('first ');
    live.end('and last');
    await once(liveSink, 'end');
    assert.equal(Buffer.concat(liveReceived).toString(), 'first and last');
  });
});
