/**
 * How every long-running Portal process (node, relay, controller) stops: on the first SIGINT or
 * SIGTERM it stops accepting, lets the connections it carries finish for a bounded time, then closes
 * everything and returns, so the process exits 0; a second signal closes everything at once. A service
 * manager's stop (systemctl, docker stop) is therefore quick and clean, and nothing keeps being
 * carried by a process that was told to stop.
 */
import type { EventEmitter } from 'node:events';
import { durationRanges, durationSyntax, readDuration } from './duration.ts';
import { InputError, printable } from './errors.ts';
import { defaultDrainMs } from './limits.ts';

/** What can drain: stop taking new work, and say when what it carries is done. */
export interface Draining {
  /** Stops taking new connections and sessions; what is carried goes on. */
  stopAccepting(): Promise<void> | void;
  /** Connections carried right now. */
  openConnections(): number;
  /** Settles once no connection is carried. */
  whenIdle(): Promise<void>;
}

/** What a process does to stop: the steps `stopOnSignal` takes, in order. */
export interface Stoppable extends Draining {
  /** Closes everything that is left, at once. */
  close(): Promise<void>;
}

export interface StopOptions {
  /** How long carried connections may take to finish (PORTAL_DRAIN_TIMEOUT). @default defaultDrainMs */
  readonly drainMs: number;
  /** One line per event, for the process's log. */
  readonly log: (line: string) => void;
  /** What the log lines call this process. @default "the process" */
  readonly name?: string;
  /** Settles (or rejects, with a fatal error) when the process stops by itself. */
  readonly finished?: Promise<void>;
  /** Where signals come from. @default process */
  readonly signals?: EventEmitter;
}

let signalled = false;
let atOnce = false;

/** Whether this process stopped on a signal (its CLI then does not wait for stray handles to close). */
export const stoppedOnSignal = (): boolean => signalled;

/** Whether it stopped on a second signal before it had started: nothing to close, exit now. */
export const stoppedAtOnce = (): boolean => atOnce;

/**
 * Runs until a signal (or `finished`), then stops the target as described above. Resolves once it is
 * stopped; rejects with the error `finished` rejected with, after closing the target. Given the
 * target's start (a promise), it listens from this call on: a signal during the start stops the
 * target as soon as it has started, rather than killing the process half-way.
 */
export async function stopOnSignal(starting: Stoppable | Promise<Stoppable>, options: StopOptions): Promise<void> {
  const emitter = options.signals ?? process;
  const name = options.name ?? 'the process';
  // Handled here whatever happens first: a start that fails rejects `finished` too, unawaited, and a
  // start given up on a second signal may still fail.
  options.finished?.catch(() => undefined);
  Promise.resolve(starting).catch(() => undefined);
  const received: string[] = [];
  let wake: () => void = () => undefined;
  let next = new Promise<void>((resolve) => (wake = resolve));
  const onSignal = (signal: string) => {
    received.push(signal);
    wake();
    next = new Promise<void>((resolve) => (wake = resolve));
  };
  const signals = ['SIGINT', 'SIGTERM'];
  signals.forEach((signal) => emitter.on(signal, onSignal));
  const unlisten = () => signals.forEach((signal) => emitter.off(signal, onSignal));
  let target: Stoppable;
  try {
    // A second signal while it starts stops the process at once (main() exits on stoppedAtOnce).
    const twice = (async () => {
      while (received.length < 2) await next;
    })();
    const first = await Promise.race([starting, twice.then(() => undefined)]);
    if (!first) {
      unlisten();
      signalled = true;
      atOnce = true;
      options.log(`${name} stopped on ${received[1]} while it was starting`);
      return;
    }
    target = first;
  } catch (error) {
    unlisten();
    throw error;
  }
  try {
    if (received.length === 0) await Promise.race([next, options.finished ?? new Promise<never>(() => undefined)]);
  } catch (error) {
    unlisten();
    await target.close();
    throw error;
  }
  if (received.length === 0) {
    unlisten();
    await target.close();
    return;
  }
  signalled = true;
  const signal = received[0] as string;
  const startedAt = Date.now();
  const forced = next;
  await target.stopAccepting();
  const open = target.openConnections();
  if (open > 0 && received.length === 1 && options.drainMs > 0) {
    options.log(
      `${name} is stopping on ${signal}: ` +
        `it takes no new connections and gives the ${plural(open, 'open connection')} up to ` +
        `${seconds(options.drainMs)} to finish (a second signal stops it at once)`,
    );
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      target.whenIdle(),
      forced,
      new Promise<void>((resolve) => (timer = setTimeout(resolve, options.drainMs))),
    ]);
    clearTimeout(timer);
  }
  const cut = target.openConnections();
  await target.close();
  unlisten();
  const took = seconds(Date.now() - startedAt);
  const tally = open > 0 ? `: ${open - cut} of ${plural(open, 'connection')} finished, ${cut} cut` : '';
  options.log(`${name} stopped on ${signal} after ${took}${tally}`);
}

/** PORTAL_DRAIN_TIMEOUT: a duration up to 10m, or 0s to close connections at once. @default 10s */
export function drainFromEnvironment(environment: NodeJS.ProcessEnv): number {
  const value = environment.PORTAL_DRAIN_TIMEOUT;
  if (value === undefined || value === '') return defaultDrainMs;
  if (/^0+(ms|s|m|h|d)$/.test(value)) return 0;
  const reading = readDuration(value, durationRanges.drain);
  if (reading.ok) return reading.ms;
  throw new InputError('BAD_ENVIRONMENT', printable(`PORTAL_DRAIN_TIMEOUT=${value} ${reading.reason}`), {
    hint: `give ${durationSyntax(durationRanges.drain)}, or 0s to close connections at once`,
  });
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;
/** A duration as a log says it: tenths of a second below 10 s where they are not zero ("0.1s", "2s", "0s"). */
function seconds(ms: number): string {
  const tenths = Math.round(ms / 100);
  return ms < 10_000 && tenths % 10 !== 0 ? `${(tenths / 10).toFixed(1)}s` : `${Math.round(ms / 1000)}s`;
}
