/**
 * An inlet's listeners, for its clients and for its direct path: bound before enrollment (at start) or
 * before anything running is touched (on reload), so that a taken address fails first.
 */
import type { Server } from 'node:net';
import { DirectListener } from './direct-listener.ts';
import { bindInletListener } from './inlet-listener.ts';
import type { InletPortal } from './portals.ts';

export interface InletListeners {
  /** For its clients. */
  readonly listener: Server;
  /** Its direct path; none with the direct path off. */
  readonly direct: DirectListener | undefined;
}

/** What listens where for one inlet: its clients' listener and its direct path, each bound or to bind. */
export interface ListenerPlan {
  /** A listener bound already (one a replaced inlet hands over), or none: bind `from`. */
  readonly listener?: Server;
  /** Whether to bind the direct path (an inlet with it on). */
  readonly direct: boolean;
}

/** Binds one inlet's listeners (those `plan` does not give); one that fails closes what this bound. */
export async function bindInletListeners(
  inlet: InletPortal,
  directAdvertise: readonly string[] | undefined,
  plan: ListenerPlan = { direct: true },
): Promise<InletListeners> {
  const listener = plan.listener ?? (await bindInletListener(inlet.from));
  const direct =
    plan.direct && inlet.direct !== false
      ? await DirectListener.bind(inlet.direct, directAdvertise).catch((error: unknown) => {
          if (!plan.listener) listener.close();
          throw error;
        })
      : undefined;
  return { listener, direct };
}

/** Binds the listeners of every inlet, by name; one that fails closes all the others. */
export async function bindNodeListeners(
  inlets: readonly InletPortal[],
  directAdvertise: readonly string[] | undefined,
): Promise<Map<string, InletListeners>> {
  const bound = new Map<string, InletListeners>();
  try {
    for (const inlet of inlets) bound.set(inlet.name, await bindInletListeners(inlet, directAdvertise));
    return bound;
  } catch (error) {
    closeListeners(bound.values());
    throw error;
  }
}

/** Closes listeners no inlet took. */
export function closeListeners(listeners: Iterable<InletListeners>): void {
  for (const { listener, direct } of listeners) {
    listener.close();
    void direct?.close();
  }
}
