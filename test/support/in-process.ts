/**
 * For tests that run nodes in this process: their status as the status server reports it, and a
 * wait for a condition without fixed sleeps.
 */
import type { RunningNode } from '../../src/node/node.ts';
import type { NodeShowRunning } from '../../src/node/show.ts';

/** What a running node's status server answers (one shape, declared by its producer). */
export type InProcessShow = NodeShowRunning;

export async function showOf(node: RunningNode): Promise<InProcessShow> {
  const response = await fetch(`http://127.0.0.1:${node.statusPort}/show`);
  return (await response.json()) as InProcessShow;
}

/** Polls `probe` until it gives a value; fails after `timeoutMs` naming `what` it waited for. */
export async function until<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await Promise.resolve()
      .then(probe)
      .catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The port an in-process inlet listens on, once its inlet is up (its session may still be opening, or refused). */
export async function inletPortWhenUp(inlet: RunningNode): Promise<number> {
  const show = await until(
    async () => ((await showOf(inlet)).inlets[0]?.status === 'up' ? showOf(inlet) : undefined),
    'inlet up',
  );
  return Number(show.inlets[0]?.listening?.split(':').at(-1));
}
