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
  /** Relay nodes announced to other controller replicas (replica-relays.ts), by project. */
  private readonly elsewhere = new Map<string, RelayEntry[]>();
  private readonly listeners = new Set<(projectId: string | undefined) => void>();
  private readonly announcedListeners = new Set<(projectId: string) => void>();

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
    this.changedHere(projectId);
    return () => {
      if (relays.get(entry.id) !== entry) return;
      relays.delete(entry.id);
      if (relays.size === 0) this.announced.delete(projectId);
      this.changedHere(projectId);
    };
  }

  /** The relay nodes announced to this controller itself in `projectId`. */
  announcedHere(projectId: string): RelayEntry[] {
    return [...(this.announced.get(projectId)?.values() ?? [])];
  }

  /** Projects with relay nodes announced to this controller itself. */
  projectsAnnouncedHere(): string[] {
    return [...this.announced.keys()];
  }

  /** The relay nodes of `projectId` other replicas hold now (replaces what they held before). */
  setElsewhere(projectId: string, entries: readonly RelayEntry[]): void {
    const before = JSON.stringify(this.elsewhere.get(projectId) ?? []);
    if (entries.length === 0) this.elsewhere.delete(projectId);
    else this.elsewhere.set(projectId, [...entries]);
    if (JSON.stringify(entries) !== before) this.changed(projectId);
  }

  /** Projects with relay nodes other replicas hold. */
  projectsElsewhere(): string[] {
    return [...this.elsewhere.keys()];
  }

  /** Every relay of the project: a relay node announced to several replicas (while it moves) once. */
  relaysOf(projectId: string): RelayEntry[] {
    const here = [...this.everywhere, ...(this.announced.get(projectId)?.values() ?? [])];
    const ids = new Set(here.map((entry) => entry.id));
    return [...here, ...(this.elsewhere.get(projectId) ?? []).filter((entry) => !ids.has(entry.id))];
  }

  /** Called when a relay node announces itself to this controller, or is withdrawn. */
  onAnnouncedHere(listener: (projectId: string) => void): () => void {
    this.announcedListeners.add(listener);
    return () => this.announcedListeners.delete(listener);
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

  private changedHere(projectId: string): void {
    for (const listener of this.announcedListeners) listener(projectId);
    this.changed(projectId);
  }

  private changed(projectId: string | undefined): void {
    for (const listener of this.listeners) listener(projectId);
  }
}
