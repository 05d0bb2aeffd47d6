/**
 * The console's pages, rendered on the server: every value goes through `html`'s escaping, and pages
 * carry no inline script or style (the Content-Security-Policy forbids both), so a page is whole
 * without JavaScript.
 */
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { MemberInfo, ProjectInfo, RelayEntry } from '../../wire/protocol.ts';

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** The pages the navigation leads to, in its order. */
const sections = [
  { path: '/', title: 'Overview' },
  { path: '/members', title: 'Members' },
] as const;

/** A whole page: `signedIn` adds the navigation and the sign-out button. */
export function page(title: string, body: Html, signedIn?: { readonly admin: string; readonly current: string }): Html {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · Portal console</title>
        <link rel="stylesheet" href="/assets/console.css" />
        <link rel="icon" href="/assets/icon.svg" type="image/svg+xml" />
      </head>
      <body>
        <header>
          <a class="brand" href="/">Portal console</a>
          ${signedIn ? navigation(signedIn) : ''}
        </header>
        <main id="main">
          <h1>${title}</h1>
          ${body}
        </main>
      </body>
    </html>`;
}

function navigation(signedIn: { readonly admin: string; readonly current: string }): Html {
  return html`<nav aria-label="Sections">
      <ul>
        ${sections.map(
          ({ path, title }) =>
            html`<li><a href="${path}" ${signedIn.current === path ? html`aria-current="page"` : ''}>${title}</a></li>`,
        )}
      </ul>
    </nav>
    <form method="post" action="/sign-out" class="sign-out">
      <span>Signed in as <code>${signedIn.admin}</code></span>
      <button type="submit">Sign out</button>
    </form>`;
}

/** What a sign-in link opens: one button, so that a link previewer fetching the page uses nothing. */
export function signInForm(secret: string): Html {
  return html`<p>
      This link signs you in to the project's console once. It was printed by <code>portal console</code>.
    </p>
    <form method="post" action="/sign-in">
      <input type="hidden" name="secret" value="${secret}" />
      <button type="submit">Sign in</button>
    </form>`;
}

/** Why there is nothing to see without a session, and how to get one. */
export function signedOut(reason: string): Html {
  return html`<p>${reason}</p>
    <p>
      Run <code>portal console</code> where an administrator of the project is enrolled: it prints a new link, valid for
      minutes and for one sign-in.
    </p>`;
}

export function overview(project: ProjectInfo, members: readonly MemberInfo[], relays: readonly RelayEntry[]): Html {
  const current = members.filter((member) => member.revoked === null);
  const count = (kind: MemberInfo['kind']) => current.filter((member) => member.kind === kind).length;
  return html`<section aria-labelledby="project">
      <h2 id="project">Project</h2>
      <dl>
        <dt>Name</dt>
        <dd>${project.name}</dd>
        <dt>Id</dt>
        <dd><code>${project.id}</code></dd>
        <dt>Controller</dt>
        <dd><code>${project.controller}</code></dd>
        <dt>Created</dt>
        <dd><time datetime="${project.created_at}">${project.created_at}</time></dd>
      </dl>
    </section>
    <section aria-labelledby="members-count">
      <h2 id="members-count">Members</h2>
      <p>
        ${count('node')} nodes, ${count('relay')} relay nodes and ${count('administrator')} administrators;
        ${current.filter((member) => member.connected).length} connected now, ${members.length - current.length}
        revoked. <a href="/members">See every member</a>.
      </p>
    </section>
    <section aria-labelledby="relays">
      <h2 id="relays">Relays</h2>
      ${
        relays.length === 0
          ? html`<p>No relay serves the project now: portals that cannot connect directly wait for one.</p>`
          : html`<table>
              <thead>
                <tr>
                  <th scope="col">Relay</th>
                  <th scope="col">Address</th>
                </tr>
              </thead>
              <tbody>
                ${relays.map(
                  (relay) =>
                    html`<tr>
                      <td><code>${relay.id}</code></td>
                      <td><code>${relay.address}</code></td>
                    </tr>`,
                )}
              </tbody>
            </table>`
      }
    </section>`;
}

export function membersTable(members: readonly MemberInfo[]): Html {
  return html`<div class="scroll" role="region" aria-label="Members" tabindex="0">
    <table>
      <caption>
        Every member of the project, in the order they enrolled
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

const timeOrDash = (time: string | null) => (time ? html`<time datetime="${time}">${time}</time>` : '—');
