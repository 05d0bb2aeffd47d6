/**
 * Which relays serve each project, as the controller tells its members: relays that serve every
 * project (the one inside the controller process), and relay nodes of a project, each for as long as
 * its announcing connection lasts. Members hear of every change.
 */
import type { RelayEntry } from '../wire/protocol.ts';

/** Relays one project may have announced at once: a bound on what a relay node's ticket can add. */
const maxAnnouncedPerProject = 64;

export class RelayDirectory {
  private readonly everywhere: RelayEntry[] = [];
  private readonly announced = new Map<string, Map<string, RelayEntry>>();
  private readonly listeners = new Set<(projectId: string | undefined) => void>();

  /** A relay that serves every project; `undefined` tells listeners every project changed. */
  addEverywhere(entry: RelayEntry): void {
    this.everywhere.push(entry);
    this.changed(undefined);
  }

  /**
   * A relay node of `projectId` serves it at `entry.address`; announcing again replaces the earlier
   * entry. Returns the function that withdraws it, or undefined past the bound.
   */
  announce(projectId: string, entry: RelayEntry): (() => void) | undefined {
    const relays = this.announced.get(projectId) ?? new Map<string, RelayEntry>();
    if (!relays.has(entry.id) && relays.size >= maxAnnouncedPerProject) return undefined;
    relays.set(entry.id, entry);
    this.announced.set(projectId, relays);
    this.changed(projectId);
    return () => {
      if (relays.get(entry.id) !== entry) return;
      relays.delete(entry.id);
      if (relays.size === 0) this.announced.delete(projectId);
      this.changed(projectId);
    };
  }

  relaysOf(projectId: string): RelayEntry[] {
    return [...this.everywhere, ...(this.announced.get(projectId)?.values() ?? [])];
  }

  /** Relays known now: those serving every project, and relay nodes announced in any project. */
  counts(): { readonly everywhere: number; readonly announced: number } {
    let announced = 0;
    for (const relays of this.announced.values()) announced += relays.size;
    return { everywhere: this.everywhere.length, announced };
  }

  onChange(listener: (projectId: string | undefined) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(projectId: string | undefined): void {
    for (const listener of this.listeners) listener(projectId);
  }
}
