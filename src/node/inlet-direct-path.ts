/**
 * The inlet's side of the direct path: it tells the outlets of its relay name, through the controller,
 * where to dial it, and takes what they dial: the session when there is no direct one yet, else warm
 * streams.
 */
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { PeerIdentity } from '../pki/identity.ts';
import { policyAdmits } from '../shared/policy.ts';
import { openInletChannel, type Channel, type ChannelMode, type SessionCredentials } from '../wire/e2e-session.ts';
import { sessionOver } from '../wire/session-credentials.ts';
import type { DirectListener } from './direct-listener.ts';
import type { InletPool } from './inlet-pool.ts';
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
  /** The outlets: a dialled session or warm stream goes to the keeper of the outlet that dialled. */
  readonly pool: InletPool;
  readonly credentials: () => SessionCredentials;
  readonly via: string;
  readonly allow: string;
  readonly logger: Logger;
  /** Where its listener on the controller channel is kept, to be dropped with the inlet's. */
  readonly subscriptions: Subscriptions;
}

export class InletDirectPath {
  /** Keepers whose direct session is being opened: another dial of their outlet is a warm stream. */
  private readonly directOpening = new WeakSet<SessionKeeper>();

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
    const { direct, control, pool } = this.options;
    // Expected soon after the advert reaches the outlets: a session opening meanwhile waits for it.
    pool.directDeadline = Date.now() + advertReachMs + directBudgetMs;
    try {
      await control.request('advertise', {
        via: this.options.via,
        allow: this.options.allow,
        addresses: direct.addresses(),
        secret: direct.secret,
        warm: pool.warmWanted,
      });
      pool.directDeadline = Math.min(pool.directDeadline, Date.now() + directBudgetMs);
    } catch (error) {
      pool.directDeadline = 0;
      this.options.logger.debug(`inlet: the direct path was not advertised: ${(error as Error).message}`);
    }
  }

  /**
   * A connection an outlet dialled on the direct path: once its certificate says which outlet, that
   * outlet's session if it has no direct one yet, else a warm stream of it.
   */
  private async acceptDirect(raw: Socket): Promise<void> {
    const { credentials, allow, logger, pool } = this.options;
    if (pool.stopped) {
      raw.destroy();
      return;
    }
    raw.on('error', () => raw.destroy());
    let keeper: SessionKeeper | undefined;
    // A warm stream is counted by its keeper from the moment it is chosen, so that dials beyond what
    // the keeper wants are turned away.
    let streamMade: ((socket: TLSSocket | undefined) => void) | undefined;
    // The inlet says which, in its verdict, once the outlet's certificate is in.
    const chooseMode = (peer: PeerIdentity | undefined): ChannelMode | undefined => {
      // Only an outlet this inlet admits joins the pool; another's channel goes on to be refused by the
      // verdicts, on the first keeper, so that it costs the pool no place.
      keeper = peer && policyAdmits(allow, peer.attributes) ? pool.keeperFor(peer.nodeId) : pool.first;
      if (!keeper) return undefined;
      const directCurrent = keeper.path === 'direct' && keeper.hasCurrentSession();
      if (!directCurrent && !this.directOpening.has(keeper)) {
        this.directOpening.add(keeper);
        return 'session';
      }
      if (!keeper.warm.hasRoom()) return undefined;
      void keeper.warm.making(new Promise((resolve) => (streamMade = resolve)), 'direct');
      return 'stream';
    };
    // A session's connection is not half-open (the listener's are, for streams): an outlet that goes
    // away ends it at once. The channel's TLS socket is made half-open for streams after the handshake.
    raw.allowHalfOpen = false;
    let channel: Channel;
    try {
      channel = await openInletChannel(raw, credentials(), allow, chooseMode);
    } catch (error) {
      streamMade?.(undefined);
      if (keeper && !streamMade) this.directOpening.delete(keeper);
      (keeper ?? pool.first).auditRefusal(error);
      logger.debug(`inlet: direct ${streamMade ? 'warm stream' : 'session'} failed: ${(error as Error).message}`);
      return;
    }
    const owner = keeper!;
    if (channel.mode === 'stream') {
      owner.origins.set(channel.socket, { outlet: channel.peer?.nodeId, relay: undefined });
      streamMade?.(channel.socket);
      return;
    }
    this.directOpening.delete(owner);
    if (owner.stopped) channel.socket.destroy();
    else
      owner.adopt(
        { session: sessionOver(channel.socket, 'inlet'), peer: channel.peer, socket: channel.socket },
        'direct',
      );
  }
}
