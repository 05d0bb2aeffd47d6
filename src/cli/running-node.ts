/** The node that runs with a PORTAL_HOME, found through its runtime file, for the commands that talk to it. */
import { runningHolder, type RuntimeRecord } from '../node/home-claim.ts';
import { runtimeFile } from '../node/runtime-file.ts';
import { RuntimeFailure } from '../shared/errors.ts';

/** The runtime record of the node of `home`, or NODE_DOWN with `hint` when none runs. */
export async function runningNode(home: string, hint: string): Promise<RuntimeRecord> {
  const runtime = await runningHolder(runtimeFile(home));
  if (!runtime) throw new RuntimeFailure('NODE_DOWN', `no node runs with PORTAL_HOME=${home}`, { hint });
  return runtime;
}
