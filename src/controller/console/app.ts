/**
 * The web console's routes (Hono): sign-in with a one-time link, then the project's pages for the
 * administrator the session belongs to. Every response carries a strict Content-Security-Policy (no
 * inline script or style, nothing from elsewhere); every form is checked for a cross-site origin; the
 * session cookie is HttpOnly, SameSite=Strict, and Secure when served over TLS.
 */
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { csrf } from 'hono/csrf';
import { secureHeaders } from 'hono/secure-headers';
import type { ConsoleAccess } from './access.ts';
import type { ConsoleData, ConsoleEnv } from './context.ts';
import { consoleCss, consoleIcon, consoleScript } from './assets.ts';
import { consoleLimits } from './limits.ts';
import { LiveStreams, type LiveLimits } from './live.ts';
import { liveRoutes } from './live-routes.ts';
import { message, page, signInForm, signedOut } from './pages/layout.ts';
import { sectionRoutes } from './sections.ts';

export interface ConsoleAppOptions {
  readonly access: ConsoleAccess;
  readonly data: ConsoleData;
  /** Served over TLS: the cookie is then Secure. */
  readonly tls: boolean;
  /** @default liveLimits */
  readonly live?: LiveLimits;
}

/** The link `portal console` prints: a page with one button that signs in with `secret`. */
export const signInLink = (url: string, secret: string) => `${url}/sign-in/${secret}`;

/** The session cookie's name. */
export const sessionCookie = 'portal_console';

export function consoleApp(options: ConsoleAppOptions): Hono<ConsoleEnv> {
  const { access, data } = options;
  const app = new Hono<ConsoleEnv>();
  app.use(
    secureHeaders({
      contentSecurityPolicy: {
        defaultSrc: ["'none'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'"],
        connectSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
      },
      referrerPolicy: 'no-referrer',
    }),
  );
  app.use(csrf());
  app.use(
    bodyLimit({
      maxSize: consoleLimits.bodyBytes,
      onError: (c) => c.text('the request body is larger than the console reads', 413),
    }),
  );
  // What a browser keeps of a page: nothing, as every page shows the project's current state.
  app.use(async (c, next) => {
    await next();
    if (!c.res.headers.has('cache-control')) c.header('cache-control', 'no-store');
  });

  app.get('/assets/console.css', (c) => {
    c.header('cache-control', 'max-age=3600');
    return c.body(consoleCss, 200, { 'content-type': 'text/css; charset=utf-8' });
  });

  const script = consoleScript();
  app.get('/assets/console.js', (c) => {
    if (script === undefined) return c.text('the console script was not built (npm run build)', 404);
    c.header('cache-control', 'max-age=3600');
    return c.body(script, 200, { 'content-type': 'text/javascript; charset=utf-8' });
  });
  app.get('/assets/icon.svg', (c) => {
    c.header('cache-control', 'max-age=3600');
    return c.body(consoleIcon, 200, { 'content-type': 'image/svg+xml' });
  });
  // Browsers ask for this whatever the page names.
  app.get('/favicon.ico', (c) => c.redirect('/assets/icon.svg', 301));
  app.get('/sign-in/:secret', (c) => c.html(page('Sign in', signInForm(c.req.param('secret')))));
  app.post('/sign-in', async (c) => {
    const form = await c.req.parseBody();
    const secret = typeof form.secret === 'string' ? form.secret : '';
    const signed = await access.signIn(secret);
    if (!signed) {
      const why = 'This sign-in link was used already, has expired, or is not one.';
      return c.html(page('Not signed in', signedOut(why)), 403);
    }
    const { admin, expiresAt } = signed.session;
    await data.note(admin, 'console-signed-in', { expires_at: new Date(expiresAt).toISOString() });
    setCookie(c, sessionCookie, signed.secret, {
      httpOnly: true,
      sameSite: 'Strict',
      secure: options.tls,
      path: '/',
      maxAge: Math.floor((signed.session.expiresAt - Date.now()) / 1000),
    });
    return c.redirect('/', 303);
  });
  app.post('/sign-out', async (c) => {
    const secret = getCookie(c, sessionCookie);
    const session = await access.session(secret);
    if (secret) await access.signOut(secret);
    if (session) await data.note(session.admin, 'console-signed-out', {});
    deleteCookie(c, sessionCookie, { path: '/', secure: options.tls });
    return c.html(page('Signed out', signedOut('You are signed out.')));
  });

  // Everything else is for a signed-in administrator.
  app.use(async (c, next) => {
    const session = await access.session(getCookie(c, sessionCookie));
    if (!session) {
      const why = 'You are not signed in, or your session has ended.';
      return c.html(page('Not signed in', signedOut(why)), 401);
    }
    c.set('session', session);
    return next();
  });
  liveRoutes(app, data, access, new LiveStreams(options.live), sessionCookie);
  sectionRoutes(app, data);

  app.notFound((c) =>
    c.html(page('Not found', message('There is no such page.', { href: '/', label: 'Overview' })), 404),
  );
  return app;
}
