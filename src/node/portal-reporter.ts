/**
 * Tells the controller what the node's portals carry (`portal-report`), for the console's overview:
 * at most every portalReportMs while connected, and only when it changed, so an idle node sends
 * nothing after its first report. A controller of an earlier version does not know the operation:
 * the node stops asking it until the connection is made again.
 */
import { portalReportBounds } from '../wire/limits.ts';
import type { PortalReport } from '../wire/protocol.ts';
import type { NodeControl } from './standing-channel.ts';

/** How often a node with moving portals reports them: the console's overview moves at this pace. */
export const portalReportMs = 2000;

export function reportPortals(
  control: NodeControl,
  portals: () => PortalReport[],
  intervalMs = portalReportMs,
): () => void {
  let timer: NodeJS.Timeout | undefined;
  let sent = '';
  let sending = false;
  const report = () => {
    if (sending) return;
    const current = portals()
      .slice(0, portalReportBounds.portals)
      .map((portal) => ({ ...portal, peers: portal.peers.slice(0, portalReportBounds.peers) }));
    const text = JSON.stringify(current);
    if (text === sent) return;
    sending = true;
    control.request('portal-report', { portals: current }).then(
      () => {
        sent = text;
        sending = false;
      },
      (error: { code?: string }) => {
        sending = false;
        if (error.code === 'UNKNOWN_OPERATION') clearInterval(timer);
      },
    );
  };
  const up = () => {
    clearInterval(timer);
    sent = '';
    report();
    timer = setInterval(report, intervalMs);
    timer.unref();
  };
  const down = () => clearInterval(timer);
  control.on('up', up);
  control.on('down', down);
  if (control.connected) up();
  return () => {
    down();
    control.off('up', up);
    control.off('down', down);
  };
}
