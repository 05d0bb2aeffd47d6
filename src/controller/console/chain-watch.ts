/**
 * The overview's word on each project's audit chain, checked in the background: a pass reads the trail
 * page by page from its start, hashes, links and signatures as `portal project audit --verify` checks
 * them, then follows the records written since each time the overview is shown. A new pass begins at
 * most every passMs. Viewing the overview never waits for it, and one project has one pass at a time.
 * Whether the trail was cut short at its end is left to the full verification (a record being written
 * as the pass reaches the end would look the same).
 */
import type { PeerIdentity } from '../../pki/identity.ts';
import { auditPublicKey } from '../../shared/audit-signature.ts';
import { describeBreak, TrailCheck } from '../../shared/audit-verify.ts';
import { auditExchangeVersion, auditLimits, type AuditPage, type AuditRequest } from '../../wire/protocol/audit.ts';

export type ChainState =
  | { readonly kind: 'checking'; readonly through: number }
  | { readonly kind: 'whole'; readonly through: number; readonly at: number }
  | { readonly kind: 'broken'; readonly what: string; readonly at: number };

/** How often a pass starts again from the trail's first record. */
export const chainPassMs = 10 * 60_000;

interface Watch {
  check: TrailCheck | undefined;
  afterSeq: number;
  passStartedAt: number;
  running: Promise<void> | undefined;
  state: ChainState;
}

export class ChainWatch {
  private readonly byProject = new Map<string, Watch>();

  constructor(
    private readonly read: (admin: PeerIdentity, query: AuditRequest) => Promise<AuditPage>,
    private readonly passMs = chainPassMs,
  ) {}

  /** What is known of `admin`'s project's chain now; a check goes on in the background. */
  state(admin: PeerIdentity, now = Date.now()): ChainState {
    const watch = this.byProject.get(admin.projectId) ?? {
      check: undefined,
      afterSeq: 0,
      passStartedAt: 0,
      running: undefined,
      state: { kind: 'checking', through: 0 },
    };
    this.byProject.set(admin.projectId, watch);
    if (!watch.running) {
      if (now - watch.passStartedAt >= this.passMs) {
        watch.check = undefined;
        watch.afterSeq = 0;
        watch.passStartedAt = now;
      }
      if (watch.state.kind !== 'broken' || watch.check === undefined)
        watch.running = this.follow(admin, watch).finally(() => (watch.running = undefined));
    }
    return watch.state;
  }

  /** Settles once the checks under way are done (for tests). */
  async settled(): Promise<void> {
    await Promise.all([...this.byProject.values()].map((watch) => watch.running ?? Promise.resolve()));
  }

  /** Reads and checks every record after the watch's place, to the end of the trail as it is now. */
  private async follow(admin: PeerIdentity, watch: Watch): Promise<void> {
    try {
      for (;;) {
        const answer = await this.read(admin, {
          afterSeq: watch.afterSeq,
          limit: auditLimits.pageRecords,
          since: 0,
          exchange: auditExchangeVersion,
        });
        const key = answer.key === null ? undefined : auditPublicKey(answer.key);
        watch.check ??= new TrailCheck(key ? { key } : {});
        const broken = watch.check.page(answer.records);
        if (broken) {
          watch.state = { kind: 'broken', what: describeBreak(broken), at: Date.now() };
          return;
        }
        const before = watch.afterSeq;
        watch.afterSeq = Math.max(before, answer.next);
        if (!answer.more || watch.afterSeq <= before) break;
        watch.state = { kind: 'checking', through: watch.check.cursor.seq };
      }
      watch.state = { kind: 'whole', through: watch.check?.cursor.seq ?? 0, at: Date.now() };
    } catch {
      // The store away for a moment: the next view of the overview goes on from here.
    }
  }
}
