/**
 * The members connected to each project, as pushed events reach them: a member's control connection
 * subscribes while it lasts, and an event goes to those of its project that a filter selects.
 */
import type { PeerIdentity } from '../pki/identity.ts';
import type { ControllerEvent } from '../wire/protocol.ts';

export interface Subscriber {
  readonly peer: PeerIdentity;
  readonly push: (event: ControllerEvent) => void;
}

export class ProjectSubscribers {
  private readonly byProject = new Map<string, Set<Subscriber>>();
  private welcome: ControllerEvent | undefined;

  add(subscriber: Subscriber): void {
    const set = this.byProject.get(subscriber.peer.projectId) ?? new Set();
    set.add(subscriber);
    this.byProject.set(subscriber.peer.projectId, set);
    // Not from within the connection's opening, which may not push yet.
    const welcome = this.welcome;
    if (welcome) queueMicrotask(() => subscriber.push(welcome));
  }

  /** Sends `event` to every member of every project now, and to each that connects from now on. */
  greet(event: ControllerEvent): void {
    this.welcome = event;
    for (const set of this.byProject.values()) for (const subscriber of set) subscriber.push(event);
  }

  /** The controller addresses members were last greeted with (replicas on one store); none without. */
  controllers(): readonly string[] | undefined {
    return this.welcome?.event === 'controllers' ? this.welcome.addresses : undefined;
  }

  delete(subscriber: Subscriber): void {
    const set = this.byProject.get(subscriber.peer.projectId);
    set?.delete(subscriber);
    if (set?.size === 0) this.byProject.delete(subscriber.peer.projectId);
  }

  /** The projects with a member connected. */
  projects(): IterableIterator<string> {
    return this.byProject.keys();
  }

  /** Sends `event` to the members of `projectId` that `to` selects; how many it was sent to. */
  tell(projectId: string, event: ControllerEvent, to: (peer: PeerIdentity) => boolean = () => true): number {
    let told = 0;
    for (const subscriber of this.byProject.get(projectId) ?? [])
      if (to(subscriber.peer)) {
        subscriber.push(event);
        told += 1;
      }
    return told;
  }
}
