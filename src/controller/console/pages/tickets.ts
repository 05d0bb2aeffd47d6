/** Tickets: issuing one (shown once), the ones that can still enroll someone, and cancelling one. */
import { html } from 'hono/html';
import type { TicketInfo } from '../../../wire/protocol.ts';
import { timeOrDash, type Html } from './layout.ts';

/** What the issue form holds, as typed: shown again with the problem when it is refused. */
export interface TicketForm {
  readonly kind: 'node' | 'relay-node' | 'admin';
  readonly attributes: string;
  readonly relays: string;
  readonly tls: boolean;
  readonly expiresIn: string;
  readonly usageCount: string;
}

export const emptyTicketForm: TicketForm = {
  kind: 'node',
  attributes: '',
  relays: '',
  tls: false,
  expiresIn: '10h',
  usageCount: '1',
};

export function ticketsPage(tickets: readonly TicketInfo[], form: TicketForm, problem?: string): Html {
  return html`<section aria-labelledby="issue">
      <h2 id="issue">Issue a ticket</h2>
      ${problem ? html`<p id="ticket-problem" class="problem" role="alert">${problem}</p>` : ''} ${issueForm(form)}
    </section>
    <section aria-labelledby="unused">
      <h2 id="unused">Tickets that can still enroll someone</h2>
      ${tickets.length === 0 ? html`<p>None.</p>` : ticketsTable(tickets)}
    </section>`;
}

function issueForm(form: TicketForm): Html {
  const kind = (value: TicketForm['kind'], label: string) =>
    html`<label
      ><input type="radio" name="kind" value="${value}" ${form.kind === value ? 'checked' : ''} /> ${label}</label
    >`;
  return html`<form method="post" action="/tickets" class="ticket-form">
    <fieldset>
      <legend>It enrolls</legend>
      ${kind('node', 'a node (an inlet or an outlet)')} ${kind('relay-node', 'a relay node')}
      ${kind('admin', 'another administrator')}
    </fieldset>
    <p>
      <label for="attributes">Attributes, one per line: NAME or KEY=VALUE (a node needs one at least)</label><br />
      <textarea
        id="attributes"
        name="attributes"
        rows="3"
        cols="40"
        data-check="attribute"
        data-check-output="attributes-check"
      >
${form.attributes}</textarea>
    </p>
    <p id="attributes-check" class="problem" role="status" aria-live="polite"></p>
    <p>
      <label for="relays">Relay names the node may register, one per line (an outlet's)</label><br />
      <textarea id="relays" name="relays" rows="2" cols="40">${form.relays}</textarea>
    </p>
    <p>
      <label
        ><input type="checkbox" name="tls" value="1" ${form.tls ? 'checked' : ''} /> The inlet may obtain a TLS server
        certificate</label
      >
    </p>
    <p>
      <label for="expires-in">Expires in (such as 10h or 1h30m, at most 30d)</label><br />
      <input id="expires-in" name="expiresIn" type="text" size="10" value="${form.expiresIn}" />
    </p>
    <p>
      <label for="usage-count">Enrollments it allows</label><br />
      <input id="usage-count" name="usageCount" type="text" inputmode="numeric" size="5" value="${form.usageCount}" />
    </p>
    <p><button type="submit">Issue the ticket</button></p>
  </form>`;
}

function ticketsTable(tickets: readonly TicketInfo[]): Html {
  return html`<div class="scroll" role="region" aria-label="Unused tickets" tabindex="0">
    <table>
      <thead>
        <tr>
          <th scope="col">Ticket</th>
          <th scope="col">Grants</th>
          <th scope="col">Uses left</th>
          <th scope="col">Expires</th>
          <th scope="col">Issued</th>
          <th scope="col">Issued by</th>
          <th scope="col"><span class="visually-hidden">Actions</span></th>
        </tr>
      </thead>
      <tbody>
        ${tickets.map(
          (ticket) =>
            html`<tr>
              <td><code>${ticket.id}</code></td>
              <td>${grantsOf(ticket)}</td>
              <td>${ticket.usesLeft}</td>
              <td>${timeOrDash(ticket.expiresAt)}</td>
              <td>${timeOrDash(ticket.issuedAt)}</td>
              <td>${ticket.issuedBy ? html`<code>${ticket.issuedBy}</code>` : '—'}</td>
              <td>
                <a href="/tickets/${ticket.id}/cancel">Cancel<span class="visually-hidden"> ${ticket.id}</span></a>
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

/** What a ticket grants, in words. */
export function grantsOf({ grants }: TicketInfo): string {
  if (grants.admin) return 'an administrator';
  if (grants.relayNode) return 'a relay node';
  const parts = [`attributes ${grants.attributes.join(', ')}`];
  if (grants.relays.length > 0) parts.push(`relay names ${grants.relays.join(', ')}`);
  if (grants.tls) parts.push('a TLS certificate');
  return parts.join('; ');
}

/** The ticket, shown this once: its secret is stored only hashed. */
export function issuedTicket(ticket: string, warning: string | undefined): Html {
  return html`<p role="status">
      Here is the ticket. It is shown this once: the controller keeps only its hash. Hand it to the node over a channel
      you trust.
    </p>
    <p>
      <label for="ticket">Ticket</label><br />
      <textarea id="ticket" rows="4" cols="60" readonly>${ticket}</textarea>
    </p>
    <p>
      <button type="button" data-copy="ticket" hidden>Copy the ticket</button> <span data-copied role="status"></span>
    </p>
    ${warning ? html`<p class="problem">${warning}</p>` : ''}
    <p>
      On the node: <code>portal node create --foreground --configuration node.json --enrollment-ticket-file -</code>,
      with the ticket on its standard input.
    </p>
    <p><a href="/tickets">Back to the tickets</a></p>`;
}

export function cancelForm(ticket: TicketInfo): Html {
  return html`<p>
      <code>${ticket.id}</code> grants ${grantsOf(ticket)} and can enroll ${ticket.usesLeft} more. Cancelled, it enrolls
      nobody from now on; members it enrolled stay.
    </p>
    <form method="post" action="/tickets/${ticket.id}/cancel">
      <button type="submit" class="danger">Cancel ${ticket.id}</button>
      <a href="/tickets">Keep it</a>
    </form>`;
}
