/**
 * Keeps a revocation list current from the controller's connection: the whole list each time the
 * connection opens (a node or relay that was away learns what it missed before the list counts as
 * current again), each revocation the moment the controller pushes it, and the time the connection
 * dropped, from which the list ages.
 */
import type { ControllerEvent } from '../wire/protocol.ts';
import type { Logger } from './logger.ts';
import type { RevocationList } from './revocation-list.ts';
import type { NodeControl } from './standing-channel.ts';

export function followRevocations(control: NodeControl, list: RevocationList, logger: Logger): void {
  control.on('up', () => {
    control.request('revocations', {}).then(
      ({ revoked }) => list.replace(revoked),
      (error: Error) => logger.warn(`no list of revoked members from the controller: ${error.message}`),
    );
  });
  control.on('down', () => list.lost());
  control.on('event', (event: ControllerEvent) => {
    if (event.event === 'revoked') list.add(event.revoked);
  });
}
