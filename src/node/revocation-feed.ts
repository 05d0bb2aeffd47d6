/**
 * Keeps a revocation list current from the controller's connection: the whole list each time the
 * connection opens (a node or relay that was away learns what it missed before the list counts as
 * current again, and before it judges a new peer: see RevocationList.ready), each revocation the
 * moment the controller pushes it, and the time the connection dropped, from which the list ages. Also
 * what a member reports at each heartbeat on that connection, for `portal project members`.
 */
import { PortalError } from '../shared/errors.ts';
import { revocationsReturnedPerRequest } from '../wire/limits.ts';
import { serviceErrorCodes } from '../wire/service-error-codes.ts';
import type { ControllerEvent, RevokedEntry } from '../wire/protocol.ts';
import type { Logger } from './logger.ts';
import type { RevocationList } from './revocation-list.ts';
import type { NodeControl } from './standing-channel.ts';

export function followRevocations(control: NodeControl, list: RevocationList, logger: Logger): void {
  // From the start: the first connection brings the list, unless the controller does not answer soon.
  list.fetchStarted();
  control.on('up', () => {
    list.fetchStarted();
    control.request('revocations', {}).then(
      ({ revoked }) => {
        list.replace(revoked);
        returnForgotten(control, list, revoked, logger);
      },
      (error: Error) => {
        list.fetchFailed();
        // A connection that closed before the answer brings the list when it opens again (and one the
        // controller closed on a revoked node must not be heard of after the node said so).
        const lost = error instanceof PortalError && error.code === serviceErrorCodes.control.lost;
        const line = `no list of revoked members from the controller: ${error.message}`;
        if (lost) logger.debug(line);
        else logger.warn(line);
      },
    );
  });
  control.on('down', () => list.lost());
  control.on('event', (event: ControllerEvent) => {
    if (event.event === 'revoked') list.add(event.revoked);
  });
}

/**
 * Gives back to the controller the revocations this list holds, with its proofs, that the controller's
 * own list lacks: it was restored from a backup taken before them, and takes back those it proves its
 * own. A controller of an earlier version has no such operation; nothing is lost then.
 */
function returnForgotten(
  control: NodeControl,
  list: RevocationList,
  controllerList: readonly RevokedEntry[],
  logger: Logger,
): void {
  const known = new Set(controllerList.map((entry) => entry.nodeId));
  const forgotten = list
    .held()
    .filter((entry) => entry.proof !== undefined && !known.has(entry.nodeId))
    .slice(0, revocationsReturnedPerRequest);
  if (forgotten.length === 0) return;
  control.request('revocations-return', { revoked: forgotten }).then(
    ({ taken }) => {
      if (taken > 0)
        logger.info(`returned ${taken} revocation${taken === 1 ? '' : 's'} the controller had forgotten (a restore)`);
    },
    (error: Error) => logger.debug(`the controller did not take back revocations: ${error.message}`),
  );
}

/**
 * Tells the controller, at each heartbeat while connected, how many end-to-end connections (a node) or
 * splices (a relay) this process carries.
 */
export function reportSessions(control: NodeControl, count: () => number, intervalMs: number): void {
  let timer: NodeJS.Timeout | undefined;
  const report = () => void control.request('member-report', { liveSessions: count() }).catch(() => undefined);
  control.on('up', () => {
    clearInterval(timer);
    report();
    timer = setInterval(report, intervalMs);
    timer.unref();
  });
  control.on('down', () => clearInterval(timer));
}
