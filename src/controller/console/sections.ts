/**
 * The pages of a signed-in administrator: what each section reads from the controller, and what its
 * forms do. Every action acts as the session's administrator, so the audit trail names them.
 */
import type { Context, Hono } from 'hono';
import { PortalError } from '../../shared/errors.ts';
import { describePolicyProblem, evaluatePolicy, parsePolicy } from '../../shared/policy.ts';
import type { MemberInfo } from '../../wire/protocol.ts';
import type { ConsoleData, ConsoleEnv } from './context.ts';
import { message, page, type Html } from './pages/layout.ts';
import { membersTable, revokeForm } from './pages/members.ts';
import { overview } from './pages/overview.ts';
import { ChainWatch } from './chain-watch.ts';
import { problemsOf } from './problems.ts';
import { policiesPage, type PolicyTrial } from './pages/policies.ts';
import { ticketRoutes } from './tickets-routes.ts';
import { auditRoutes } from './audit-routes.ts';
import { useCaseRoutes } from './usecases-routes.ts';

type Page = Context<ConsoleEnv>;

const shown = (c: Page, title: string, path: string, body: Html, status: 200 | 400 | 404 = 200) =>
  c.html(page(title, body, { admin: c.get('session').admin.nodeId, current: path }), status);

const admin = (c: Page) => c.get('session').admin;

export function sectionRoutes(app: Hono<ConsoleEnv>, data: ConsoleData): void {
  const chains = new ChainWatch((admin, query) => data.audit(admin, query));
  app.get('/', async (c) => {
    const [project, members] = await Promise.all([data.project(admin(c)), data.members(admin(c))]);
    const relays = data.relays(admin(c));
    const portals = data.portals(admin(c));
    const chain = chains.state(admin(c));
    const problems = problemsOf({ members, relays, portals, chain }, Date.now());
    const controllers = data.controllers(admin(c));
    return shown(c, 'Overview', '/', overview({ project, members, relays, controllers, portals, problems, chain }));
  });

  app.get('/members', async (c) =>
    shown(c, 'Members', '/members', membersTable(await data.members(admin(c)), admin(c).nodeId)),
  );
  app.get('/members/:id/revoke', async (c) => {
    const member = (await data.members(admin(c))).find((each) => each.id === c.req.param('id'));
    if (!member) return shown(c, 'No such member', '/members', message('The project has no such member.', back), 404);
    if (member.revoked)
      return shown(c, 'Revoked already', '/members', message(`${member.id} was revoked already.`, back));
    return shown(c, `Revoke ${member.id}`, '/members', revokeForm(member));
  });
  app.post('/members/:id/revoke', async (c) => {
    const form = await c.req.parseBody();
    const reason = typeof form.reason === 'string' ? form.reason.slice(0, 200) : '';
    const id = c.req.param('id');
    try {
      const { entry } = await data.revoke(admin(c), id, reason);
      const until = new Date(entry.until).toISOString();
      const done =
        `Revoked ${entry.nodeId}: its connections are closed and every node and relay of the project was told; ` +
        `its last certificate expires by ${until}.`;
      return shown(c, 'Revoked', '/members', message(done, back));
    } catch (error) {
      if (!(error instanceof PortalError)) throw error;
      return shown(c, 'Not revoked', '/members', message(`${error.message}: ${error.hint ?? ''}`, back), 400);
    }
  });

  ticketRoutes(app, data);
  auditRoutes(app, data);
  useCaseRoutes(app, data);

  app.get('/policies', async (c) => {
    const allow = c.req.query('allow');
    return shown(c, 'Policies', '/policies', policiesPage(await trial(allow, () => data.members(admin(c)))));
  });
}

const back = { href: '/members', label: 'Back to the members' };

async function trial(allow: string | undefined, members: () => Promise<readonly MemberInfo[]>): Promise<PolicyTrial> {
  if (allow === undefined || allow.trim() === '') return { kind: 'none' };
  const read = parsePolicy(allow);
  if (!read.ok) return { kind: 'problem', allow, problem: describePolicyProblem(read.problem) };
  const admitted = (await members()).filter(
    (member) => member.revoked === null && evaluatePolicy(read.policy, member.attributes),
  );
  return { kind: 'admitted', allow, members: admitted };
}
