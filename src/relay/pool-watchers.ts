/**
 * Inlets watching a relay name's pool: which of its outlets each pairs with, by node id, told again
 * whenever that list changes (an outlet registers, leaves, or is revoked), so that an inlet keeps a
 * session with every outlet of the pool and stops choosing one the moment it is gone.
 */
import type { PeerIdentity } from '../pki/identity.ts';
import type { Policy } from '../shared/policy.ts';
import type { RelayEvent } from '../wire/protocol.ts';
import { poolListed } from './limits.ts';
import { pairs, type PairedOutlet } from './pairing.ts';

interface Watcher {
  readonly peer: PeerIdentity;
  readonly policy: Policy;
  readonly push: (event: RelayEvent) => void;
  /** The list it was told last, joined: it hears only of a change. */
  told: string;
}

/** A registered outlet, as a watcher's list names it. */
type Listed = PairedOutlet & { readonly nodeId: string };

export class PoolWatchers {
  private readonly byKey = new Map<string, Set<Watcher>>();

  /**
   * Watches the outlets of `relay` in `peer`'s project that it pairs with (`policy`: what it requires
   * of them); `outletsOf` reads a key's registrations. Returns the list now and the function that ends
   * the watch.
   */
  watch(
    peer: PeerIdentity,
    relay: string,
    policy: Policy,
    push: (event: RelayEvent) => void,
    outletsOf: (key: string) => readonly Listed[],
  ): { outlets: string[]; stop: () => void } {
    const key = `${peer.projectId}/${relay}`;
    const watcher: Watcher = { peer, policy, push, told: '' };
    const outlets = listFor(watcher, outletsOf(key));
    watcher.told = outlets.join(' ');
    const watching = this.byKey.get(key) ?? new Set<Watcher>();
    this.byKey.set(key, watching.add(watcher));
    return {
      outlets,
      stop: () => {
        watching.delete(watcher);
        if (watching.size === 0 && this.byKey.get(key) === watching) this.byKey.delete(key);
      },
    };
  }

  /** The registrations of `key` are now `outlets`: each watcher whose list changed is told. */
  changed(key: string, outlets: readonly Listed[]): void {
    const relay = key.slice(key.indexOf('/') + 1);
    for (const watcher of this.byKey.get(key) ?? []) {
      const listed = listFor(watcher, outlets);
      const told = listed.join(' ');
      if (told === watcher.told) continue;
      watcher.told = told;
      watcher.push({ event: 'outlets', relay, outlets: listed });
    }
  }

  /** Ends every watch of the member `nodeId` (revoked). */
  forget(nodeId: string): void {
    for (const watching of this.byKey.values())
      for (const watcher of watching) if (watcher.peer.nodeId === nodeId) watching.delete(watcher);
  }

  clear(): void {
    this.byKey.clear();
  }
}

/** The outlets a watcher pairs with, by node id, at most `poolListed` of them. */
function listFor(watcher: Watcher, outlets: readonly Listed[]): string[] {
  return outlets
    .filter((outlet) => pairs(watcher.peer, watcher.policy, outlet))
    .slice(0, poolListed)
    .map((outlet) => outlet.nodeId);
}
