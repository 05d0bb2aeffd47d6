/**
 * A reload applied to the running portals: what did not change is not touched (its listener, sessions
 * and warm streams stay as they are); what was removed stops taking new work and drains; what changed
 * is replaced (the new one takes over the old one's listener where it listens at the same address);
 * what was added starts. Listeners on free addresses are bound before anything running is touched, so
 * that a taken address refuses the reload whole.
 */
import { RuntimeFailure } from '../shared/errors.ts';
import { bindInletListeners, closeListeners, type InletListeners } from './node-listeners.ts';
import type { NodePortalSet } from './node-portals.ts';
import { planListeners, type InletListenerPlan } from './listener-plan.ts';
import { changesOf, type InletPortal, type NodePortals, type OutletPortal, type PortalChanges } from './portals.ts';

export interface AppliedChanges {
  readonly outlets: PortalChanges<OutletPortal>;
  readonly inlets: PortalChanges<InletPortal>;
  /** Inlets that could not listen once those they replaced had stopped (an address taken meanwhile). */
  readonly failures: readonly string[];
}

/** Applies `next` to `set`; rejects, with nothing changed, when a listener on a free address cannot bind. */
export async function applyPortals(set: NodePortalSet, next: NodePortals): Promise<AppliedChanges> {
  const { directAdvertise } = set.options.node;
  const outlets = changesOf(set.portals().outlets, next.outlets);
  const inlets = changesOf(set.portals().inlets, next.inlets);
  const going = [...inlets.removed, ...inlets.changed.map(({ before }) => before)];
  const coming = [...inlets.added, ...inlets.changed.map(({ after }) => after)];
  const plans = planListeners(coming, going);

  const early = new Map<string, InletListeners>();
  try {
    for (const plan of plans) {
      // An inlet whose listener or direct path must wait binds both later.
      if (plan.listener !== 'early' || plan.direct === 'late') continue;
      early.set(plan.inlet.name, await bindInletListeners(plan.inlet, directAdvertise));
    }
  } catch (error) {
    closeListeners(early.values());
    throw error;
  }
  const bounds = outlets.added.length + outlets.changed.length > 0 ? await set.options.connectionBounds() : undefined;
  // A stop that came while the listeners were bound wins: nothing is started on a stopping node.
  if (set.stopped) {
    closeListeners(early.values());
    throw new RuntimeFailure('NODE_DOWN', 'the node is stopping', {
      hint: 'start it again with the new configuration',
    });
  }

  // Outlets: the new set first, so that a relay's dial for a replaced outlet's name finds its successor.
  const nextRelays = new Set(next.outlets.map((portal) => portal.relay));
  const oldOutlets = set.outlets;
  set.outlets = new Map();
  for (const portal of next.outlets) {
    const kept = oldOutlets.get(portal.name);
    if (kept && outlets.unchanged.includes(kept.portal)) set.outlets.set(portal.name, kept);
    else set.startOutlet(portal, bounds);
  }
  for (const [name, { portal, outlet }] of oldOutlets) {
    if (set.outlets.get(name)?.outlet === outlet) continue;
    outlet.stopAccepting();
    if (!nextRelays.has(portal.relay)) outlet.withdraw();
    set.drain(`outlet ${name}`, next.outlets.some((other) => other.name === name) ? 'replaced' : 'removed', {
      openConnections: () => outlet.openConnections(),
      whenIdle: () => outlet.whenIdle(),
      stop: () => outlet.stop(),
    });
  }

  // Inlets: those going away stop listening (or hand their listener over), then the new ones start.
  const nextDirectVias = new Set(next.inlets.flatMap((portal) => (portal.direct === false ? [] : [portal.via])));
  const oldInlets = set.inlets;
  const handedOver = new Map<string, InletListeners['listener']>();
  for (const plan of plans) {
    const donor = plan.donor === undefined ? undefined : oldInlets.get(plan.donor);
    if (donor) handedOver.set(plan.inlet.name, donor.inlet.releaseListener());
  }
  for (const { portal, inlet } of oldInlets.values()) {
    if (!going.includes(portal)) continue;
    inlet.stopAccepting();
    if (portal.direct !== false && !nextDirectVias.has(portal.via)) inlet.withdraw();
    const why = next.inlets.some((other) => other.name === portal.name) ? 'replaced' : 'removed';
    set.drain(`inlet ${portal.name}`, why, {
      openConnections: () => inlet.openConnections(),
      whenIdle: () => inlet.whenIdle(),
      stop: () => inlet.stop(),
    });
  }
  const failures: string[] = [];
  const bound = new Map(early);
  for (const plan of plans) {
    if (bound.has(plan.inlet.name)) continue;
    const taken = handedOver.get(plan.inlet.name);
    const listeners = await bindLate(plan, taken, directAdvertise).catch((error: Error) => {
      taken?.close();
      failures.push(`inlet ${plan.inlet.name}: ${error.message}`);
      return undefined;
    });
    if (listeners) bound.set(plan.inlet.name, listeners);
  }
  if (set.stopped) {
    // Stopped while binding: the new inlets are not started, and what they would listen on is let go.
    closeListeners(bound.values());
    bound.clear();
  }
  set.inlets = new Map();
  for (const portal of next.inlets) {
    const kept = oldInlets.get(portal.name);
    if (kept && inlets.unchanged.includes(kept.portal)) {
      set.inlets.set(portal.name, kept);
      continue;
    }
    const listeners = bound.get(portal.name);
    if (listeners) set.startInlet(portal, listeners);
  }
  return { outlets, inlets, failures };
}

/** The listeners of an inlet bound once those going away stopped, or handed over by one of them. */
function bindLate(
  plan: InletListenerPlan,
  handedOver: InletListeners['listener'] | undefined,
  directAdvertise: readonly string[] | undefined,
): Promise<InletListeners> {
  return bindInletListeners(plan.inlet, directAdvertise, {
    ...(handedOver ? { listener: handedOver } : {}),
    direct: plan.direct !== 'none',
  });
}
