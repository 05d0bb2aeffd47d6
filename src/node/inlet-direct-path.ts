/**
 * The inlet's side of the direct path: it tells the outlets of its relay name, through the controller,
 * where to dial it, and takes what they dial: the session when there is no direct one yet, else warm
 * streams.
 */
import type { Socket } from 'node:net';
import { openInletChannel, openInletSession, type SessionCredentials } from '../wire/e2e-session.ts';
import type { DirectListener } from './direct-listener.ts';
import type { SessionKeeper } from './inlet-session-keeper.ts';
import { advertReachMs, directBudgetMs } from './limits.ts';
import type { Logger } from './logger.ts';
import type { NodeControl } from './standing-channel.ts';
import type { Subscriptions } from './subscriptions.ts';

export interface InletDirectPathOptions {
  /** The direct path's listener, bound already. */
  readonly direct: DirectListener;
  /** The controller, through which the direct path is advertised. */
  readonly control: NodeControl;
  /** Where a dialled session goes, and a dialled warm stream. */
  readonly keeper: SessionKeeper;
  readonly credentials: () => SessionCredentials;
  readonly via: string;
  readonly allow: string;
  readonly logger: Logger;
  /** Where its listener on the controller channel is kept, to be dropped with the inlet's. */
  readonly subscriptions: Subscriptions;
}

export class InletDirectPath {
  private directOpening = false;

  constructor(private readonly options: InletDirectPathOptions) {}

  /** Takes the outlets' dials, and advertises the path now and whenever the controller is back. */
  start(): void {
    const { direct, control } = this.options;
    direct.serve((raw) => void this.acceptDirect(raw));
    this.options.subscriptions.on(control, 'up', () => void this.advertise());
    if (control.connected) void this.advertise();
  }

  /** Tells the outlets of `via`, through the controller, where to dial this inlet directly. */
  private async advertise(): Promise<void> {
    const { direct, control, keeper } = this.options;
    // Expected soon after the advert reaches the outlets: a session opening meanwhile waits for it.
    keeper.directDeadline = Date.now() + advertReachMs + directBudgetMs;
    try {
      await control.request('advertise', {
        via: this.options.via,
        allow: this.options.allow,
        addresses: direct.addresses(),
        secret: direct.secret,
        warm: keeper.warm.wanted,
      });
      keeper.directDeadline = Math.min(keeper.directDeadline, Date.now() + directBudgetMs);
    } catch (error) {
      keeper.directDeadline = 0;
      this.options.logger.debug(`inlet: the direct path was not advertised: ${(error as Error).message}`);
    }
  }

  /**
   * A connection an outlet dialled on the direct path: the session if there is no direct one yet, else
   * a warm stream.
   */
  private async acceptDirect(raw: Socket): Promise<void> {
    const { credentials, allow, logger, keeper } = this.options;
    if (keeper.stopped) {
      raw.destroy();
      return;
    }
    raw.on('error', () => raw.destroy());
    const directCurrent = keeper.path === 'direct' && keeper.hasCurrentSession();
    if (!directCurrent && !this.directOpening) {
      this.directOpening = true;
      // A session's connection is not half-open (the listener's are, for streams): an outlet that goes
      // away ends it at once.
      raw.allowHalfOpen = false;
      try {
        const opened = await openInletSession(raw, credentials(), allow);
        if (keeper.stopped) opened.session.destroy();
        else keeper.adopt(opened, 'direct');
      } catch (error) {
        keeper.auditRefusal(error);
        logger.debug(`inlet: direct session failed: ${(error as Error).message}`);
      } finally {
        this.directOpening = false;
      }
      return;
    }
    if (!keeper.warm.hasRoom()) {
      raw.destroy();
      return;
    }
    const made = openInletChannel(raw, credentials(), allow, 'stream').then(
      ({ socket, peer }) => {
        keeper.origins.set(socket, { outlet: peer?.nodeId, relay: undefined });
        return socket;
      },
      (error: Error) => {
        keeper.auditRefusal(error);
        logger.debug(`inlet: no direct warm stream: ${error.message}`);
        return undefined;
      },
    );
    await keeper.warm.making(made, 'direct');
  }
}
