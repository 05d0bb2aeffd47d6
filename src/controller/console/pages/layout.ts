/**
 * The console's pages, rendered on the server: every value goes through `html`'s escaping, and pages
 * carry no inline script or style (the Content-Security-Policy forbids both), so a page is whole
 * without JavaScript.
 */
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';

export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** The pages the navigation leads to, in its order. */
const sections = [
  { path: '/', title: 'Overview' },
  { path: '/members', title: 'Members' },
  { path: '/tickets', title: 'Tickets' },
  { path: '/policies', title: 'Policies' },
  { path: '/audit', title: 'Audit' },
  { path: '/usecases', title: 'Use cases' },
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
        <script src="/assets/console.js" defer></script>
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

/** A short page's message, with a way on. */
export function message(text: string, next?: { readonly href: string; readonly label: string }): Html {
  return html`<p>${text}</p>
    ${next ? html`<p><a href="${next.href}">${next.label}</a></p>` : ''}`;
}

/** A time as the pages show it (to the second, in UTC), or a dash for none. */
export const timeOrDash = (time: string | null): Html | string =>
  time ? html`<time datetime="${time}">${time.slice(0, 10)} ${time.slice(11, 19)} UTC</time>` : '—';
