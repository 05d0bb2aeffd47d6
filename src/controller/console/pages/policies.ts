/** Trying an allow expression: which members it admits now, or where it does not read. */
import { html } from 'hono/html';
import type { MemberInfo } from '../../../wire/protocol.ts';
import type { Html } from './layout.ts';
import { membersTable } from './members.ts';

export type PolicyTrial =
  | { readonly kind: 'none' }
  | { readonly kind: 'problem'; readonly allow: string; readonly problem: string }
  | { readonly kind: 'admitted'; readonly allow: string; readonly members: readonly MemberInfo[] };

export function policiesPage(trial: PolicyTrial): Html {
  const allow = trial.kind === 'none' ? '' : trial.allow;
  return html`<p>
      Type an <code>allow</code> expression, as a portal's inlet or outlet would carry it: an attribute name such as
      <code>db-inlet</code>, or an expression such as <code>team = "ops" and env in ["prod", "staging"]</code>. The
      console reads it with the parser the nodes use and lists the members it admits now (what
      <code>portal project members --admitted-by</code> prints).
    </p>
    <form method="get" action="/policies">
      <p>
        <label for="allow">Allow expression</label><br />
        <input
          id="allow"
          name="allow"
          type="text"
          size="60"
          maxlength="4096"
          value="${allow}"
          data-check="policy"
          data-check-output="allow-check"
          ${trial.kind === 'problem' ? html`aria-invalid="true" aria-describedby="problem"` : ''}
        />
        <button type="submit">Try it</button>
      </p>
      <p id="allow-check" class="problem" role="status" aria-live="polite"></p>
    </form>
    ${result(trial)}`;
}

function result(trial: PolicyTrial): Html | string {
  if (trial.kind === 'none') return '';
  if (trial.kind === 'problem')
    return html`<p id="problem" class="problem" role="alert">This is not an allow expression: ${trial.problem}.</p>`;
  if (trial.members.length === 0) return html`<p role="status">It admits no member of the project now.</p>`;
  return html`<p role="status">
      It admits ${trial.members.length} ${trial.members.length === 1 ? 'member' : 'members'} now.
    </p>
    ${membersTable(trial.members, undefined, 'The members it admits now')}`;
}
