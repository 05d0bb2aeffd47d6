/**
 * A local process holding a status server's connections: as many as it holds, half silent, half
 * sending headers a byte at a time, each reopened when the server closes it. Meanwhile `probe` runs in
 * a loop; what it saw is returned. The soak and the end-to-end tests run it against a node.
 */
import { connect, type Socket } from 'node:net';
import { statusLimits } from '../../src/shared/limits.ts';

export interface StatusHold {
  /** Probes made during the hold, those that failed, and the slowest in ms. */
  readonly probes: number;
  readonly failed: readonly string[];
  readonly slowestMs: number;
  /** Connections the attacker opened (the first ones and the reopened). */
  readonly opened: number;
}

export async function holdStatusServer(
  port: number,
  durationMs: number,
  probe: () => Promise<string | undefined>,
): Promise<StatusHold> {
  let opened = 0;
  const open = (index: number): Socket => {
    opened += 1;
    const socket = connect({ host: '127.0.0.1', port });
    socket.on('error', () => undefined);
    if (index % 2 === 1) socket.write('GET /show HTTP/1.1\r\n');
    return socket;
  };
  const held = Array.from({ length: statusLimits.connections }, (_, index) => open(index));
  const dribble = setInterval(() => held.forEach((socket, index) => index % 2 === 1 && socket.write('X')), 100);
  const reopen = setInterval(
    () => held.forEach((socket, index) => socket.destroyed && (held[index] = open(index))),
    20,
  );
  const failed: string[] = [];
  let probes = 0;
  let slowestMs = 0;
  try {
    for (const deadline = Date.now() + durationMs; Date.now() < deadline;) {
      const started = performance.now();
      const problem = await probe().catch((error: Error) => error.message);
      slowestMs = Math.max(slowestMs, performance.now() - started);
      probes += 1;
      if (problem !== undefined) failed.push(problem);
    }
  } finally {
    clearInterval(dribble);
    clearInterval(reopen);
    held.forEach((socket) => socket.destroy());
  }
  return { probes, failed, slowestMs: Math.round(slowestMs), opened };
}
