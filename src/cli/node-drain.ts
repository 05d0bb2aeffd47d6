/**
 * `portal node drain`: the node of this PORTAL_HOME stops as it does on SIGTERM, and this waits until
 * it has. Its outlets first leave their pools (the relays and the inlets hear of it, and what an inlet
 * opened before it heard is still served), then it takes nothing new and lets its connections finish,
 * for up to PORTAL_DRAIN_TIMEOUT as the node was started with, and exits. Exit 0 once it has, 1 when no
 * node runs or it did not stop in time.
 */
import { runningHolder, type RuntimeRecord } from '../node/home-claim.ts';
import { runtimeFile } from '../node/runtime-file.ts';
import { RuntimeFailure } from '../shared/errors.ts';
import { durationRanges } from '../shared/duration.ts';
import { portalHome } from './home.ts';
import { runningNode } from './running-node.ts';
import { drainPollMs, statusAnswerMs } from './limits.ts';
import { readNodeShow } from './status-request.ts';

/** Past the longest drain a node may be given, and its closing. */
const drainWaitMs = durationRanges.drain.maxMs + 30_000;

export async function drainNode(): Promise<void> {
  const home = portalHome();
  const runtime = await runningNode(home, 'give the PORTAL_HOME the node runs with');
  const open = await openConnections(runtime);
  signal(runtime);
  console.log(
    `Draining the node (process ${runtime.pid}): its outlets leave their pools, it takes no new connection, ` +
      `and ${open === undefined ? 'its connections' : `${open} open connection${open === 1 ? '' : 's'}`} ` +
      'may finish (up to its PORTAL_DRAIN_TIMEOUT).',
  );
  const startedAt = Date.now();
  let said = open;
  while (Date.now() - startedAt < drainWaitMs) {
    if ((await runningHolder(runtimeFile(home)))?.pid !== runtime.pid) {
      console.log(
        `The node (process ${runtime.pid}) stopped, ${((Date.now() - startedAt) / 1000).toFixed(1)} s after.`,
      );
      return;
    }
    const now = await openConnections(runtime);
    if (now !== undefined && now !== said && process.stdout.isTTY) console.log(`  ${now} still open`);
    said = now ?? said;
    await new Promise((resolve) => setTimeout(resolve, drainPollMs));
  }
  throw new RuntimeFailure(
    'STOP_TIMED_OUT',
    `the node (process ${runtime.pid}) did not stop within ${drainWaitMs / 1000} s`,
    {
      hint: `stop it at once with a second signal (kill ${runtime.pid})`,
    },
  );
}

function signal(runtime: RuntimeRecord): void {
  try {
    process.kill(runtime.pid, 'SIGTERM');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return;
    throw new RuntimeFailure('NOT_PERMITTED', `the node (process ${runtime.pid}) belongs to another user`, {
      hint: `drain it as that user or as root (kill -TERM ${runtime.pid})`,
    });
  }
}

/** The connections the node carries now, from its /show; none when it does not answer. */
async function openConnections(runtime: RuntimeRecord): Promise<number | undefined> {
  if (runtime.statusPort === undefined) return undefined;
  try {
    const shown = await readNodeShow(runtime.statusPort, statusAnswerMs);
    if (!('inlets' in shown)) return undefined;
    const parts = [...shown.inlets, ...shown.outlets];
    return parts.reduce((sum, part) => sum + part.connections_active, 0);
  } catch {
    return undefined;
  }
}
