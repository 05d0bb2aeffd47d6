/**
 * The allow refusals a node took part in lately, on either side: the ones its own allow made (or the
 * relay made on its behalf), and the ones a peer's allow made of it. Each names the attributes the
 * refusing side saw and the allow it held, which is what an operator needs to fix either side.
 */
import { printable } from '../shared/errors.ts';

export interface RefusalShow {
  /** Whose allow refused: this node's (or the relay's on its behalf), or the peer's. */
  readonly by: 'this node' | 'the peer';
  /** Who told: the end-to-end verdicts, or the relay before any splice. */
  readonly told_by: 'verdict' | 'relay';
  /** The peer's node id, when known. */
  readonly peer: string | null;
  /** The attributes the refusing side saw on the other. */
  readonly saw: readonly string[];
  /** The refusing side's allow. */
  readonly allow: string;
  /** Refusals of this peer, with these attributes, since the node started. */
  readonly count: number;
  /** When the last one happened (ISO 8601). */
  readonly last_at: string;
}

/** Refusals remembered at once: a parade of refused members forgets the oldest. */
const remembered = 16;

export class RecentRefusals {
  private readonly byKey = new Map<
    string,
    { show: Omit<RefusalShow, 'count' | 'last_at'>; count: number; lastAt: number }
  >();

  note(refusal: Omit<RefusalShow, 'count' | 'last_at'>, count = 1, now = Date.now()): void {
    const show = {
      ...refusal,
      peer: refusal.peer === null ? null : printable(refusal.peer.slice(0, 64)),
      saw: refusal.saw.slice(0, 8).map((a) => printable(a.slice(0, 128))),
      allow: printable(refusal.allow.slice(0, 128)),
    };
    const key = JSON.stringify([show.by, show.told_by, show.peer, show.saw, show.allow]);
    const known = this.byKey.get(key);
    this.byKey.delete(key);
    this.byKey.set(key, { show, count: (known?.count ?? 0) + count, lastAt: now });
    if (this.byKey.size > remembered) this.byKey.delete(this.byKey.keys().next().value as string);
  }

  /** The latest first. */
  describe(): RefusalShow[] {
    return [...this.byKey.values()]
      .reverse()
      .map(({ show, count, lastAt }) => ({ ...show, count, last_at: new Date(lastAt).toISOString() }));
  }
}
