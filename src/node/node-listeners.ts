/**
 * An inlet node's listeners, for its clients and for its direct path: bound before enrollment, so
 * that a taken address fails before a ticket is spent.
 */
import type { Server } from 'node:net';
import type { NodeConfig } from '../shared/types/node-config.ts';
import { DirectListener } from './direct-listener.ts';
import { bindInletListener } from './inlet-listener.ts';

export interface NodeListeners {
  /** The inlet's listener for its clients; none without an inlet. */
  readonly listener: Server | undefined;
  /** The inlet's direct path; none without an inlet, or with the direct path off. */
  readonly direct: DirectListener | undefined;
}

/** Binds the inlet's listeners; one that fails closes the other. */
export async function bindNodeListeners(
  config: NodeConfig,
  directAdvertise: readonly string[] | undefined,
): Promise<NodeListeners> {
  const inletConfig = config['tcp-inlet'];
  const listener = inletConfig ? await bindInletListener(inletConfig.from) : undefined;
  const directAddress = inletConfig ? directListenAddress(inletConfig.direct) : undefined;
  const direct = directAddress
    ? await DirectListener.bind(directAddress, directAdvertise).catch((error: unknown) => {
        listener?.close();
        throw error;
      })
    : undefined;
  return { listener, direct };
}

/** Where the direct path listens: every address on a port the system picks unless configured; none when false. */
function directListenAddress(direct: boolean | string | undefined): string | undefined {
  if (direct === false) return undefined;
  return typeof direct === 'string' ? direct : '0.0.0.0:0';
}
