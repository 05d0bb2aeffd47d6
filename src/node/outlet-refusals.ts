/**
 * Whom the outlet refused, and who refused it: members the relay or this outlet turned away (logged
 * once a minute per member and reason), inlets whose verdict failed (logged when it changes, then once
 * a minute), and the allow refusals /show lists, with what each side saw.
 */
import { PeerRefused, PeerRevoked } from '../wire/e2e-session.ts';
import type { PortalAudit } from './audit-sink.ts';
import type { Logger } from './logger.ts';
import type { PortalMetrics } from './metrics.ts';
import { RecentRefusals, type RefusalShow } from './refusals.ts';
import { repeatedWarningMs } from '../shared/limits.ts';
import { warningKeysKept } from './limits.ts';
import { describeAttributes, quotedPolicy } from '../shared/policy.ts';

export interface OutletRefusalsOptions {
  /** The outlet's allow, which the refusals name. */
  readonly allow: string;
  readonly logger: Logger;
  readonly metrics: PortalMetrics;
  /** Where refusals are recorded; none: not recorded. */
  readonly audit?: PortalAudit | undefined;
}

/** What a TLS handshake failure says when the peer's certificate is not one of the project's. */
const untrustedHandshake = /certificate|unknown ca|self.signed|verify/i;

export class OutletRefusals {
  private lastRefusal = { message: '', at: 0 };
  /** Members refused (by the relay or by this outlet) since they were last logged, and when that was. */
  private readonly refusedMembers = new Map<
    string,
    { count: number; attributes: readonly string[]; loggedAt: number }
  >();
  /** Allow refusals lately, this outlet's (or the relay's on its behalf) and its peers'. */
  private readonly refusals = new RecentRefusals();

  constructor(private readonly options: OutletRefusalsOptions) {}

  /** The relay refused `count` attempts of `from` on this outlet's behalf, seeing `attributes`. */
  byRelay(from: string, attributes: readonly string[], count: number): void {
    // The relay records its own refusals in the trail: only logged here.
    this.logRefused(from, attributes, count, 'the relay refused');
    // The relay's word, bounded: a count a relay made up costs nothing but a wrong figure.
    const bounded = Number.isFinite(count) ? Math.max(0, Math.min(Math.floor(count), 1_000_000)) : 0;
    if (bounded > 0) {
      this.refusals.note(
        { by: 'this node', told_by: 'relay', peer: from, saw: attributes, allow: this.options.allow },
        bounded,
      );
      this.options.metrics.failures.inc({ reason: 'peer_refused' }, bounded);
    }
  }

  /** This outlet turned `from` away at one of its limits: recorded, and logged as logRefused says. */
  noteRefused(from: string, attributes: readonly string[], count: number, what: string): void {
    for (let n = 0; n < count; n += 1) this.options.audit?.refused('limits', from || undefined, `${what} ${from}`);
    this.logRefused(from, attributes, count, what);
  }

  /** One warning per member and reason a minute, with how many times it happened meanwhile. */
  private logRefused(from: string, attributes: readonly string[], count: number, what: string): void {
    const key = `${what} ${from}`;
    const now = Date.now();
    const noted = this.refusedMembers.get(key) ?? { count: 0, attributes, loggedAt: 0 };
    noted.count += count;
    if (now - noted.loggedAt >= repeatedWarningMs) {
      const seen =
        noted.attributes.length > 0
          ? ` (attribute ${describeAttributes(noted.attributes)}; allow is ${quotedPolicy(this.options.allow)})`
          : '';
      this.options.logger.warn(
        `outlet: ${what} node ${from}${seen}: ${noted.count} time${noted.count === 1 ? '' : 's'} since the last report`,
      );
      noted.count = 0;
      noted.loggedAt = now;
    }
    this.refusedMembers.set(key, noted);
    // Forget members that went quiet, so a parade of node ids cannot grow this map without bound.
    if (this.refusedMembers.size > warningKeysKept) {
      for (const [stale, entry] of this.refusedMembers)
        if (now - entry.loggedAt >= repeatedWarningMs && entry.count === 0) this.refusedMembers.delete(stale);
    }
  }

  /**
   * A session or warm stream with `peer` that failed: an allow refusal is remembered with what each
   * side saw.
   */
  noteSessionFailure(error: unknown, peer: string): void {
    if (error instanceof PeerRevoked && error.refusedByThisNode) {
      this.options.audit?.refused('revoked', error.peer ?? (peer || undefined), error.message);
      this.options.metrics.failures.inc({ reason: 'peer_refused' });
      return;
    }
    if (!(error instanceof PeerRefused)) {
      this.options.metrics.failures.inc({ reason: 'session_failed' });
      // A peer whose certificate the project CA did not sign (or that is no longer valid).
      const message = error instanceof Error ? error.message : '';
      if (untrustedHandshake.test(message)) this.options.audit?.refused('untrusted', peer || undefined, message);
      return;
    }
    if (error.verdicts.ours?.accept === false) this.options.audit?.refused('allow', peer || undefined, error.message);
    this.options.metrics.failures.inc({ reason: 'peer_refused' });
    const { ours, theirs } = error.verdicts;
    const mine = ours?.accept === false;
    const verdict = mine ? ours : theirs;
    this.refusals.note({
      by: mine ? 'this node' : 'the peer',
      told_by: 'verdict',
      peer: peer || null,
      saw: verdict?.saw ?? [],
      allow: verdict?.want ?? '?',
    });
  }

  /** A refused inlet retries; say so when it starts and then once a minute, not at every attempt. */
  logRefusal(message: string): void {
    const now = Date.now();
    if (message === this.lastRefusal.message && now - this.lastRefusal.at < repeatedWarningMs) return;
    this.lastRefusal = { message, at: now };
    this.options.logger.warn(`outlet: refused an inlet: ${message}`);
  }

  /** The latest first. */
  describe(): RefusalShow[] {
    return this.refusals.describe();
  }
}
