/**
 * The tickets section's routes: the form that issues one (the choices of `portal project ticket`, the
 * same checks by the controller), the ticket shown once, the list, and cancelling.
 */
import type { Context, Hono } from 'hono';
import { isLoopbackHost, parseHostPort } from '../../shared/address.ts';
import { readDuration, durationRanges } from '../../shared/duration.ts';
import { PortalError } from '../../shared/errors.ts';
import type { TicketBody } from '../../wire/protocol.ts';
import { decodeTicket } from '../../wire/ticket.ts';
import type { ConsoleData, ConsoleEnv } from './context.ts';
import { message, page, type Html } from './pages/layout.ts';
import { cancelForm, emptyTicketForm, issuedTicket, ticketsPage, type TicketForm } from './pages/tickets.ts';

type Page = Context<ConsoleEnv>;

const shown = (c: Page, title: string, body: Html, status: 200 | 400 | 404 = 200) =>
  c.html(page(title, body, { admin: c.get('session').admin.nodeId, current: '/tickets' }), status);
const back = { href: '/tickets', label: 'Back to the tickets' };

export function ticketRoutes(app: Hono<ConsoleEnv>, data: ConsoleData): void {
  app.get('/tickets', async (c) =>
    shown(c, 'Tickets', ticketsPage(await data.tickets(c.get('session').admin), emptyTicketForm)),
  );
  app.post('/tickets', async (c) => {
    const admin = c.get('session').admin;
    const form = formOf(await c.req.parseBody());
    const read = ticketBody(form);
    const refused = async (problem: string) =>
      shown(c, 'Tickets', ticketsPage(await data.tickets(admin), form, problem), 400);
    if (typeof read === 'string') return refused(read);
    try {
      const ticket = await data.issueTicket(admin, read);
      return shown(c, 'Your ticket', issuedTicket(ticket, loopbackWarning(ticket)));
    } catch (error) {
      if (!(error instanceof PortalError)) throw error;
      return refused(inFormWords(`${error.message}${error.hint ? `: ${error.hint}` : ''}`));
    }
  });
  app.get('/tickets/:id/cancel', async (c) => {
    const ticket = (await data.tickets(c.get('session').admin)).find((each) => each.id === c.req.param('id'));
    if (!ticket) return shown(c, 'No such ticket', message('No unused ticket has that id.', back), 404);
    return shown(c, `Cancel ${ticket.id}`, cancelForm(ticket));
  });
  app.post('/tickets/:id/cancel', async (c) => {
    try {
      await data.cancelTicket(c.get('session').admin, c.req.param('id'));
      return shown(c, 'Cancelled', message(`Cancelled ${c.req.param('id')}: it enrolls nobody from now on.`, back));
    } catch (error) {
      if (!(error instanceof PortalError)) throw error;
      return shown(c, 'Not cancelled', message(error.message, back), 400);
    }
  });
}

type Body = Record<string, string | File | (string | File)[]>;

function formOf(body: Body): TicketForm {
  const text = (name: string) => (typeof body[name] === 'string' ? body[name] : '');
  const kind = text('kind');
  return {
    kind: kind === 'relay-node' || kind === 'admin' ? kind : 'node',
    attributes: text('attributes'),
    relays: text('relays'),
    tls: text('tls') === '1',
    expiresIn: text('expiresIn').trim(),
    usageCount: text('usageCount').trim(),
  };
}

/** The request the form asks for, or what is wrong with it, in the words of the form's fields. */
export function ticketBody(form: TicketForm): TicketBody | string {
  const expires = readDuration(form.expiresIn, durationRanges.ticket);
  if (!expires.ok) return `Expires in: ${form.expiresIn || 'nothing'} ${expires.reason}; give such as 10h or 1h30m.`;
  if (!/^[1-9][0-9]{0,5}$/.test(form.usageCount))
    return `Enrollments it allows: ${form.usageCount || 'nothing'} is not a whole number of 1 or more.`;
  const attributes = lines(form.attributes);
  const relays = lines(form.relays);
  const comma = [...attributes, ...relays].find((line) => line.includes(','));
  if (comma !== undefined) return `"${comma}" holds a comma: give one attribute or relay name per line.`;
  if (form.kind === 'node' && attributes.length === 0)
    return 'Attributes: a node needs one at least (peers match it with allow), such as db-inlet or team=ops.';
  return {
    expiresInMs: expires.ms,
    usageCount: Number(form.usageCount),
    attribute: attributes.join(','),
    ...(relays.length > 0 ? { relay: relays.join(',') } : {}),
    tls: form.tls,
    relayNode: form.kind === 'relay-node',
    ...(form.kind === 'admin' ? { admin: true } : {}),
  };
}

const lines = (text: string) =>
  text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');

/** A ticket that names the controller by a loopback address enrolls nodes on this machine only: said. */
function loopbackWarning(ticket: string): string | undefined {
  const { controller } = decodeTicket(ticket);
  const parsed = parseHostPort(controller);
  if (!parsed.ok || !isLoopbackHost(parsed.address.host)) return undefined;
  return (
    `This ticket names the controller at ${controller}, a loopback address: only nodes on this machine can use it. ` +
    'For nodes on other machines, run the controller where they reach it ' +
    '(--listen 0.0.0.0:PORT --public-address HOST:PORT).'
  );
}

/** The controller names the CLI's flags in its refusals; the form's fields are what the page shows. */
const fieldOfFlag: Readonly<Record<string, string>> = {
  '--attribute': '"Attributes"',
  '--relay-node': '"a relay node"',
  '--relay': '"Relay names"',
  '--usage-count': '"Enrollments it allows"',
  '--expires-in': '"Expires in"',
  '--admin': '"another administrator"',
  '--tls': '"The inlet may obtain a TLS server certificate"',
};

export function inFormWords(refusal: string): string {
  return refusal.replace(/--[a-z][a-z-]*/g, (flag) => fieldOfFlag[flag] ?? flag);
}
