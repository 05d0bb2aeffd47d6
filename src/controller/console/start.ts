/** The web console of a running controller: its listener, and the controller's answers for its pages. */
import { requireAdmin } from '../projects.ts';
import type { ControllerServer } from '../server.ts';
import type { ControllerService } from '../service.ts';
import type { ConsoleAccess } from './access.ts';
import { consoleApp } from './app.ts';
import { serveConsole, type RunningConsole } from './serve.ts';

export interface ControllerParts {
  readonly access: ConsoleAccess;
  readonly service: ControllerService;
  readonly server: ControllerServer;
  readonly tls: { readonly key: string; readonly certificate: string };
}

export function serveControllerConsole(
  address: { readonly host: string; readonly port: number },
  { access, service, server, tls }: ControllerParts,
): Promise<RunningConsole> {
  return serveConsole({
    ...address,
    tls,
    app: (overTls) =>
      consoleApp({
        access,
        tls: overTls,
        data: {
          project: (admin) => service.project(admin),
          members: (admin) => server.membersOf(admin),
          relays: (admin) => server.relays.relaysOf(admin.projectId),
          revoke: (admin, member, reason) => server.revoke(admin, member, reason),
          tickets: (admin) => service.tickets(admin),
          issueTicket: (admin, body) => service.issueTicket(admin, body),
          cancelTicket: (admin, ticket) => service.cancelTicket(admin, ticket),
          note: (admin, event, details) => service.audit.record(admin.projectId, event, [admin.nodeId], details),
          audit: (admin, query) => {
            requireAdmin(admin);
            return service.audit.query(admin.projectId, query);
          },
          portals: (admin) => {
            requireAdmin(admin);
            return server.announcements.portals.of(admin.projectId);
          },
          controllers: () => server.announcements.subscribers.controllers() ?? [service.settings.publicAddress],
        },
      }),
  });
}
