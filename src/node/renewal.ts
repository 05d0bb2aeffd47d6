/**
 * Keeping a member's certificate fresh: renewed at half of its remaining life, so a renewed certificate
 * reaches new sessions while open ones carry on; one that expired (the controller was away) is
 * re-issued on proof of the enrolled key as soon as the controller is back. Nodes and relay nodes alike.
 */
import { X509Certificate } from 'node:crypto';
import { PortalError, RuntimeFailure } from '../shared/errors.ts';
import { Backoff } from './backoff.ts';
import { dueForRefresh, refreshCertificate, type Refreshed } from './enrollment.ts';
import type { StoredIdentity } from './identity-store.ts';
import { renewalRetryFloorMs, renewalRetryInitialMs, renewalRetryMaxMs, revocationCheckMs } from './limits.ts';
import type { Logger } from './logger.ts';
import type { NodeControl } from './standing-channel.ts';

export interface RenewalOptions {
  /** Where the identity is stored. */
  readonly directory: string;
  readonly current: () => StoredIdentity;
  /** Takes the refreshed identity in (after it is stored). */
  readonly update: (refreshed: Refreshed) => void;
  readonly control: NodeControl;
  readonly logger: Logger;
  /** How the log names the holder: "this node", "this relay". */
  readonly holder: string;
  /**
   * The controller said the member was revoked (MEMBER_REVOKED): renewal stops for good, and this is
   * told instead of a warning. @default logged as a refusal, and tried again
   */
  readonly onRevoked?: (error: PortalError) => void;
}

export class Renewal {
  private timer: NodeJS.Timeout | undefined;
  /** The renewal under way: its outcome, undefined on success, the error otherwise. */
  private renewing: Promise<unknown> | undefined;
  private stopped = false;
  private readonly backoff = new Backoff({ initialMs: renewalRetryInitialMs, maxMs: renewalRetryMaxMs });
  /** When checkNow last asked the controller. */
  private checkedAt = -Infinity;
  /** Why the last attempt failed, until one succeeds. */
  error: string | undefined;

  constructor(private readonly options: RenewalOptions) {}

  start(): void {
    this.schedule();
    // A controller that comes back finds a certificate that may have come due (or expired) meanwhile.
    this.options.control.on('up', () => {
      if (dueForRefresh(this.options.current().certificate)) void this.renew();
    });
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /**
   * A controller or relay refused the current certificate (NOT_AUTHENTICATED): asks the controller for
   * a fresh one now, which tells a revoked member so (MEMBER_REVOKED) and heals one that expired or
   * that the controller's clock finds too young. At most once per revocationCheckMs, however many
   * refusals come.
   */
  checkNow(now = Date.now()): void {
    if (this.stopped || this.renewing !== undefined || now - this.checkedAt < revocationCheckMs) return;
    this.checkedAt = now;
    void this.renew();
  }

  private schedule(delay?: number): void {
    clearTimeout(this.timer);
    const remaining = Date.parse(new X509Certificate(this.options.current().certificate).validTo) - Date.now();
    // At half of what is left, however little: peers close every connection at a certificate's end, so
    // no floor may let it lapse (the controller's shortest lifetime, 2 s, bounds how often this renews).
    const due = remaining / 2;
    // A timer longer than 2^31 - 1 ms fires at once: a lifetime of months renews every 24 days instead.
    this.timer = setTimeout(() => void this.renew(), Math.min(delay ?? Math.max(0, due), 2 ** 31 - 1));
  }

  /**
   * A fresh certificate now (or the one under way), for a grant the node needs that its certificate may
   * lack, such as a relay name granted since: rejects with the controller's refusal, or why it could not
   * be asked, so that the caller can say so.
   */
  async renewNow(): Promise<void> {
    if (this.stopped) throw new RuntimeFailure('NODE_DOWN', 'the node is stopping', { hint: 'start it again' });
    const outcome = await (this.renewing ?? this.renew());
    if (outcome === undefined) return;
    throw outcome instanceof Error
      ? outcome
      : new RuntimeFailure('CONTROLLER_ERROR', 'the certificate was not renewed', { hint: 'try again' });
  }

  private renew(): Promise<unknown> {
    if (this.renewing) return this.renewing;
    if (this.stopped) return Promise.resolve(undefined);
    this.renewing = this.attempt().finally(() => {
      this.renewing = undefined;
    });
    return this.renewing;
  }

  /** One attempt: undefined when it succeeded, the error otherwise (retried on the backoff). */
  private async attempt(): Promise<unknown> {
    clearTimeout(this.timer);
    const { logger, holder } = this.options;
    try {
      const refreshed = await refreshCertificate(this.options.directory, this.options.current());
      if (this.stopped) return undefined;
      this.error = undefined;
      this.backoff.reset();
      const until = new X509Certificate(refreshed.identity.certificate).validTo;
      if (refreshed.how === 'reissued')
        logger.info(
          `${holder}'s certificate had expired; the controller re-issued it on proof of the enrolled key; ` +
            `valid until ${until}`,
        );
      else logger.info(`renewed ${holder}'s certificate; valid until ${until}`);
      this.options.update(refreshed);
      // The controller authenticates a channel once, when it opens: a re-issued certificate needs a new one.
      if (refreshed.how === 'reissued') this.options.control.reconnect();
      this.schedule();
      return undefined;
    } catch (error) {
      this.error = (error as Error).message;
      if (error instanceof PortalError && error.code === 'MEMBER_REVOKED' && this.options.onRevoked) {
        this.stop();
        this.options.onRevoked(error);
        return error;
      }
      // The first failure and then every tenth, not every attempt.
      if (this.backoff.failures % 10 === 0) {
        const refused =
          error instanceof PortalError && (error.code === 'NOT_A_MEMBER' || error.code === 'REISSUE_REFUSED');
        if (refused)
          logger.error(
            `the controller refuses ${holder} a certificate: ${this.error}; ${error.hint ?? 'enroll it again'}`,
          );
        else logger.warn(`cannot renew the certificate yet: ${this.error}`);
      }
      const remaining = Date.parse(new X509Certificate(this.options.current().certificate).validTo) - Date.now();
      this.schedule(renewalRetryMs(this.backoff.next(), remaining));
      return error;
    }
  }
}

/**
 * How long to wait before the next try after a failed renewal: the backoff's wait, but never more than
 * a quarter of the certificate's remaining life (nor less than renewalRetryFloorMs), so that a
 * controller or database back shortly before the end is tried again in time, whatever the backoff grew
 * to meanwhile. One already expired waits the backoff (it is re-issued once the controller answers).
 */
export function renewalRetryMs(backoffMs: number, remainingMs: number): number {
  if (remainingMs <= 0) return backoffMs;
  return Math.min(backoffMs, Math.max(renewalRetryFloorMs, remainingMs / 4));
}
