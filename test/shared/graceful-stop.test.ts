import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { drainFromEnvironment, stopOnSignal, stoppedAtOnce, type Stoppable } from '../../src/shared/graceful-stop.ts';
import { PortalError } from '../../src/shared/errors.ts';

/** A process carrying `open` connections; `finishOne` ends one. */
function fakeProcess(open: number) {
  const steps: string[] = [];
  let idle: (() => void) | undefined;
  const target: Stoppable & { finishOne(): void } = {
    stopAccepting: () => void steps.push('stop accepting'),
    openConnections: () => open,
    whenIdle: () => (open === 0 ? Promise.resolve() : new Promise<void>((resolve) => (idle = resolve))),
    close: () => Promise.resolve(void steps.push(`close with ${open} open`)),
    finishOne() {
      open -= 1;
      if (open === 0) idle?.();
    },
  };
  return { target, steps };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('stopping on a signal', () => {
  it('stops accepting, waits for the open connections, then closes: one line when idle', async () => {
    const signals = new EventEmitter();
    const lines: string[] = [];
    const { target, steps } = fakeProcess(0);
    const stopped = stopOnSignal(target, {
      drainMs: 10_000,
      log: (line) => lines.push(line),
      name: 'the node',
      signals,
    });
    await tick();
    signals.emit('SIGTERM', 'SIGTERM');
    await stopped;
    assert.deepEqual(steps, ['stop accepting', 'close with 0 open']);
    assert.equal(lines.length, 1);
    assert.match(lines[0] ?? '', /^the node stopped on SIGTERM after 0s$/);
    assert.equal(signals.listenerCount('SIGTERM') + signals.listenerCount('SIGINT'), 0);
  });

  it('lets carried connections finish', async () => {
    const signals = new EventEmitter();
    const lines: string[] = [];
    const { target, steps } = fakeProcess(2);
    const stopped = stopOnSignal(target, {
      drainMs: 10_000,
      log: (line) => lines.push(line),
      name: 'the relay',
      signals,
    });
    await tick();
    signals.emit('SIGINT', 'SIGINT');
    await tick();
    assert.equal(
      lines[0],
      'the relay is stopping on SIGINT: it takes no new connections and gives the 2 open connections up to 10s to ' +
        'finish (a second signal stops it at once)',
    );
    target.finishOne();
    target.finishOne();
    await stopped;
    assert.deepEqual(steps, ['stop accepting', 'close with 0 open']);
    assert.match(lines[1] ?? '', /^the relay stopped on SIGINT after [0-9.]+s: 2 of 2 connections finished, 0 cut$/);
  });

  it('cuts what is left after the drain time, or at once on a second signal', async () => {
    const timedOut = fakeProcess(1);
    const lines: string[] = [];
    await stopOnSignal(timedOut.target, { drainMs: 50, log: (line) => lines.push(line), signals: emitSoon('SIGTERM') });
    assert.deepEqual(timedOut.steps, ['stop accepting', 'close with 1 open']);
    assert.match(lines.at(-1) ?? '', /0 of 1 connection finished, 1 cut$/);

    const signals = new EventEmitter();
    const forced = fakeProcess(1);
    const stopped = stopOnSignal(forced.target, { drainMs: 60_000, log: () => undefined, signals });
    await tick();
    signals.emit('SIGTERM', 'SIGTERM');
    await tick();
    signals.emit('SIGTERM', 'SIGTERM');
    await stopped;
    assert.deepEqual(forced.steps, ['stop accepting', 'close with 1 open']);
  });

  it('hears a signal that comes while the process starts, and stops it once started', async () => {
    const signals = new EventEmitter();
    const { target, steps } = fakeProcess(0);
    let started: (value: typeof target) => void = () => undefined;
    const stopped = stopOnSignal(new Promise((resolve) => (started = resolve)), {
      drainMs: 1000,
      log: () => undefined,
      signals,
    });
    signals.emit('SIGTERM', 'SIGTERM');
    await tick();
    assert.deepEqual(steps, []);
    started(target);
    await stopped;
    assert.deepEqual(steps, ['stop accepting', 'close with 0 open']);
  });

  it('gives up a start on a second signal, at once', async () => {
    const signals = new EventEmitter();
    const lines: string[] = [];
    const stopped = stopOnSignal(new Promise<never>(() => undefined), {
      drainMs: 1000,
      log: (line) => lines.push(line),
      name: 'the node',
      signals,
    });
    signals.emit('SIGTERM', 'SIGTERM');
    await tick();
    signals.emit('SIGINT', 'SIGINT');
    await stopped;
    assert.deepEqual(lines, ['the node stopped on SIGINT while it was starting']);
    assert.equal(stoppedAtOnce(), true);
    assert.equal(signals.listenerCount('SIGINT'), 0);
  });

  it('passes on a failed start, listening no more', async () => {
    const signals = new EventEmitter();
    const failed = new Error('address in use');
    const starting = Promise.reject(failed);
    await assert.rejects(
      stopOnSignal(starting, {
        drainMs: 1000,
        log: () => undefined,
        signals,
        finished: starting.then(() => undefined),
      }),
      failed,
    );
    assert.equal(signals.listenerCount('SIGTERM'), 0);
  });

  it('closes and passes on a fatal error the process stopped with', async () => {
    const { target, steps } = fakeProcess(0);
    const fatal = new Error('relay not granted');
    await assert.rejects(
      stopOnSignal(target, {
        drainMs: 1000,
        log: () => undefined,
        signals: new EventEmitter(),
        finished: Promise.reject(fatal),
      }),
      fatal,
    );
    assert.deepEqual(steps, ['close with 0 open']);
  });

  it('reads PORTAL_DRAIN_TIMEOUT: 10s by default, 0s to 10m', () => {
    assert.equal(drainFromEnvironment({}), 10_000);
    assert.equal(drainFromEnvironment({ PORTAL_DRAIN_TIMEOUT: '0s' }), 0);
    assert.equal(drainFromEnvironment({ PORTAL_DRAIN_TIMEOUT: '1m30s' }), 90_000);
    for (const [bad, reason] of [
      ['11m', 'is longer than 10m'],
      ['soon', 'is not a duration'],
      ['10', 'has no unit'],
    ]) {
      assert.throws(
        () => drainFromEnvironment({ PORTAL_DRAIN_TIMEOUT: bad }),
        (error: PortalError) =>
          error.code === 'BAD_ENVIRONMENT' &&
          error.message === `PORTAL_DRAIN_TIMEOUT=${bad} ${reason}` &&
          error.hint ===
            'give a whole number followed by ms, s, m, h or d (such as 10s or 1m), at most 10m, ' +
              'or 0s to close connections at once',
      );
    }
  });
});

function emitSoon(signal: string): EventEmitter {
  const signals = new EventEmitter();
  setImmediate(() => signals.emit(signal, signal));
  return signals;
}
