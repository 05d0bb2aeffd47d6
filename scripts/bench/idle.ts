/**
 * Many idle connections through one tunnel entrance: open them (each sends a byte and waits for the
 * echo), leave them idle, check that every one still answers, and report how much resident memory each
 * process on the path grew per connection.
 */
import { connect, type Socket } from 'node:net';
import { rssKiB } from './proc-stats.ts';
import { settings } from './settings.ts';

const answerTimeoutMs = 30_000;

export interface IdleResult {
  readonly wanted: number;
  /** Connections that got their first echo. */
  readonly opened: number;
  /** Of those, the ones that echoed again after the idle time. */
  readonly answered: number;
  /** Resident memory growth per opened connection, KiB, by role (inlet, outlet, relay). */
  readonly kibPerConnection: Readonly<Record<string, number>>;
}

/** Resolves once `socket` has received something after this call, false on close or timeout. */
function echoed(socket: Socket, byte: string): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('close', onClose);
      resolve(ok);
    };
    const onData = () => done(true);
    const onClose = () => done(false);
    const timer = setTimeout(() => done(false), answerTimeoutMs);
    socket.on('data', onData);
    socket.once('close', onClose);
    socket.write(byte);
  });
}

async function openOne(port: number): Promise<Socket | undefined> {
  const socket = connect({ host: '127.0.0.1', port, noDelay: true });
  socket.on('error', () => socket.destroy());
  const ok = await new Promise<boolean>((resolve) => {
    socket.once('connect', () => resolve(true));
    socket.once('close', () => resolve(false));
  });
  if (ok && (await echoed(socket, 'x'))) return socket;
  socket.destroy();
  return undefined;
}

/** Runs `task` over 0..count-1 with at most `width` at once. */
async function inBatches<T>(count: number, width: number, task: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array<T>(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next;
      next += 1;
      results[index] = await task(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, count) }, worker));
  return results;
}

const rssOf = (pids: readonly number[]) => pids.reduce((sum, pid) => sum + rssKiB(pid), 0);

/**
 * `roles` names the processes whose memory counts, as functions because a role's processes may
 * change while connections open (sshd forks no new child per channel, but a relay might).
 */
export async function idleConnections(
  port: number,
  roles: Readonly<Record<string, () => number[]>>,
  log: (text: string) => void,
): Promise<IdleResult> {
  const count = settings.idleConnections;
  const before = Object.fromEntries(Object.entries(roles).map(([role, pids]) => [role, rssOf(pids())]));
  const sockets = (await inBatches(count, settings.idleBatch, () => openOne(port))).filter(
    (socket): socket is Socket => socket !== undefined,
  );
  log(`${sockets.length} of ${count} open and echoed; idle for ${settings.idleSeconds} s`);
  await new Promise((resolve) => setTimeout(resolve, settings.idleSeconds * 1000));
  const during = Object.fromEntries(Object.entries(roles).map(([role, pids]) => [role, rssOf(pids())]));
  const answers = await inBatches(sockets.length, settings.idleBatch, (index) => echoed(sockets[index] as Socket, 'y'));
  for (const socket of sockets) socket.destroy();
  // The tunnel learns of the closes asynchronously and has no signal for "all gone": a short pause
  // keeps their teardown out of the next target's baseline.
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const answered = answers.filter(Boolean).length;
  const kibPerConnection = Object.fromEntries(
    Object.keys(roles).map((role) => [
      role,
      sockets.length > 0 ? ((during[role] as number) - (before[role] as number)) / sockets.length : Number.NaN,
    ]),
  );
  return { wanted: count, opened: sockets.length, answered, kibPerConnection };
}
