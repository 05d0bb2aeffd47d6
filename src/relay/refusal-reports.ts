/**
 * Members the relay refused on its outlets' behalf (no outlet's allow admits them), told to the outlets
 * of the relay name once a second in one event per member, so that they can log who knocked.
 */
import type { PeerIdentity } from '../pki/identity.ts';
import type { RelayEvent } from '../wire/protocol.ts';
import { refusalReportMs, refusedMembersPerReport } from './limits.ts';

export class RefusalReports {
  /** Refusals not yet reported, by relay key and member. */
  private readonly pending = new Map<string, Map<string, { attributes: readonly string[]; count: number }>>();
  private readonly reporter: NodeJS.Timeout;

  /** `outletsOf` gives the outlets registered under a relay key now. */
  constructor(outletsOf: (key: string) => readonly { readonly push: (event: RelayEvent) => void }[]) {
    this.reporter = setInterval(() => {
      for (const [key, byMember] of this.pending)
        for (const outlet of outletsOf(key))
          for (const [from, { attributes, count }] of byMember)
            outlet.push({ event: 'refused', from, attributes, count });
      this.pending.clear();
    }, refusalReportMs);
    this.reporter.unref();
  }

  note(key: string, peer: PeerIdentity): void {
    const byMember = this.pending.get(key) ?? new Map<string, { attributes: readonly string[]; count: number }>();
    this.pending.set(key, byMember);
    const noted = byMember.get(peer.nodeId) ?? { attributes: peer.attributes, count: 0 };
    noted.count += 1;
    // Bounded: the rest wait for the next report.
    if (byMember.size < refusedMembersPerReport || byMember.has(peer.nodeId)) byMember.set(peer.nodeId, noted);
  }

  stop(): void {
    clearInterval(this.reporter);
  }
}
