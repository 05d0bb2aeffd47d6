/**
 * What end-to-end tests ask of a running portal: new client connections, a node's /show from its first
 * moment (before its status server exists), its /metrics, and a bound on a wait that has none.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { nodeStatus, type NodeShow } from './processes.ts';
import { roundTrip } from './tcp.ts';

/** `count` new client connections one after another, each a round trip; how many failed. */
export async function newConnections(port: number, count: number): Promise<number> {
  let failed = 0;
  for (let i = 0; i < count; i += 1) {
    const payload = Buffer.from(`client ${i}`);
    const answer = await roundTrip(port, payload).catch(() => Buffer.alloc(0));
    if (!answer.equals(payload)) failed += 1;
  }
  return failed;
}

/** Polls /show until `check` holds, from before the status server exists (a node just started). */
export async function statusFromStart(
  home: string,
  check: (shown: NodeShow) => boolean,
  limitMs: number,
): Promise<NodeShow> {
  const started = Date.now();
  let last: unknown;
  while (Date.now() - started <= limitMs) {
    const shown = await nodeStatus(home).catch((error: unknown) => {
      last = error;
      return undefined;
    });
    if (shown && check(shown)) return shown;
    if (shown) last = shown;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`not within ${limitMs} ms: ${last instanceof Error ? last.message : JSON.stringify(last)}`);
}

/** The node's Prometheus text (GET /metrics). */
export async function metricsOf(home: string): Promise<string> {
  const { statusPort } = JSON.parse(await readFile(join(home, 'node', 'runtime.json'), 'utf8')) as {
    statusPort: number;
  };
  return (await fetch(`http://127.0.0.1:${statusPort}/metrics`)).text();
}

/** A sample's value, `name{labels}` as Prometheus prints it; 0 for a label set never set. */
export function sample(metrics: string, name: string, labels: string): number {
  const line = metrics.split('\n').find((candidate) => candidate.startsWith(`${name}{${labels}} `));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

/** Rejects after `ms`: a bound on a wait that has no bound of its own. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)),
  );
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}
