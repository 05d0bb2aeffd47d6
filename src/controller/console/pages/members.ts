/** Every member of the project, and taking one out. */
import { html } from 'hono/html';
import type { MemberInfo } from '../../../wire/protocol.ts';
import { timeOrDash, type Html } from './layout.ts';

/**
 * The members as a table; `self` (the signed-in administrator) is given where the table offers to
 * revoke: every other member still in the project gets a link to the confirmation.
 */
export function membersTable(
  members: readonly MemberInfo[],
  self?: string,
  caption = 'Every member of the project, in the order they enrolled',
): Html {
  return html`<div class="scroll" role="region" aria-label="${caption}" tabindex="0">
    <table>
      <caption>
        ${caption}
      </caption>
      <thead>
        <tr>
          <th scope="col">Member</th>
          <th scope="col">Kind</th>
          <th scope="col">Attributes</th>
          <th scope="col">Enrolled</th>
          <th scope="col">Certificate expires</th>
          <th scope="col">Last seen</th>
          <th scope="col">State</th>
          ${self ? html`<th scope="col"><span class="visually-hidden">Actions</span></th>` : ''}
        </tr>
      </thead>
      <tbody>
        ${members.map(
          (member) =>
            html`<tr>
              <td><code>${member.id}</code></td>
              <td>${member.kind}</td>
              <td>${member.attributes.join(', ') || '—'}</td>
              <td>${timeOrDash(member.enrolledAt)}</td>
              <td>${timeOrDash(member.certificateExpiresAt)}</td>
              <td>${timeOrDash(member.lastSeen)}</td>
              <td>${stateOf(member)}</td>
              ${self ? html`<td>${revokeLink(member, self)}</td>` : ''}
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

function stateOf(member: MemberInfo): Html | string {
  if (member.revoked) return html`revoked by <code>${member.revoked.by}</code>: ${member.revoked.reason}`;
  if (!member.connected) return 'not connected';
  return member.liveSessions === null ? 'connected' : `connected, ${member.liveSessions} live sessions`;
}

function revokeLink(member: MemberInfo, self: string): Html | string {
  if (member.revoked || member.id === self) return '';
  return html`<a href="/members/${member.id}/revoke">Revoke<span class="visually-hidden"> ${member.id}</span></a>`;
}

/** Asks before a revocation, with the reason kept beside it. */
export function revokeForm(member: MemberInfo): Html {
  return html`<p>
      <code>${member.id}</code>
      (${member.kind}${member.attributes.length > 0 ? `, ${member.attributes.join(', ')}` : ''}) will be refused
      everywhere from now on: its connections close within a second, and it is never certified again. A new ticket is
      the only way back.
    </p>
    <form method="post" action="/members/${member.id}/revoke">
      <p>
        <label for="reason">Reason (kept with the revocation and in the audit trail)</label><br />
        <input id="reason" name="reason" type="text" maxlength="200" size="40" />
      </p>
      <p>
        <button type="submit" class="danger">Revoke ${member.id}</button>
        <a href="/members">Keep it</a>
      </p>
    </form>`;
}
