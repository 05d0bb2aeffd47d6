/**
 * The web console in a real browser: Debian's Chromium, headless, driven by Playwright, against a
 * controller started as a program (`portal controller start`), with the link `portal console` prints.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { adminDirectory } from '../../src/cli/home.ts';
import { ConsoleAccess } from '../../src/controller/console/access.ts';
import { openStore } from '../../src/controller/store/open.ts';
import { enrollWithTicket } from '../../src/node/enrollment.ts';
import { loadIdentity } from '../../src/node/identity-store.ts';
import { accessibilityViolations, launchBrowser, watchedPage } from '../support/browser.ts';
import { startProject, type ProjectProcesses } from '../support/project-processes.ts';
import { startEchoPortal, type EchoPortal } from '../support/echo-portal.ts';
import { nodeStatus, portal } from '../support/processes.ts';
import { roundTrip } from '../support/tcp.ts';
import { projectRoot } from '../support/usecases.ts';

describe('console in a browser: signing in', function () {
  this.timeout(60_000);
  let project: ProjectProcesses;
  let browser: Browser;
  let url: string;
  const adminHome = () => join(project.dir, 'admin');
  /** What `portal console` prints: its last line is the link. */
  const printedLink = async () => {
    const printed = await portal(adminHome(), ['console']);
    assert.equal(printed.code, 0, printed.stderr);
    return printed.stdout.trim().split('\n').at(-1)!;
  };

  /** An echo service behind an outlet and an inlet, started once: photographed, then its inlet revoked (last). */
  let echo: EchoPortal | undefined;
  const echoPortal = async () => (echo ??= await startEchoPortal(project));

  before(async () => {
    [project, browser] = await Promise.all([startProject(), launchBrowser()]);
    url = project.controller.console!;
  });
  after(async () => {
    await browser?.close();
    await project?.close();
    await echo?.echo.close();
  });

  it('signs in with the printed link, shows the project, and refuses the link a second time', async () => {
    const link = await printedLink();
    assert.ok(link.startsWith(`${url}/sign-in/`), link);
    const context = await browser.newContext();
    const { page, problems } = await watchedPage(context, url);
    await page.goto(link);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    const cookie = (await context.cookies()).find((each) => each.name === 'portal_console');
    assert.ok(cookie, 'a session cookie');
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, 'Strict');
    await page.getByRole('link', { name: 'Members' }).click();
    await page.getByRole('heading', { level: 1, name: 'Members' }).waitFor();
    assert.ok(await page.getByRole('cell', { name: 'administrator' }).first().isVisible());
    assert.deepEqual(problems, []);

    // Another browser with the same link: the button leads nowhere.
    const other = await browser.newContext();
    const second = await watchedPage(other, url);
    await second.page.goto(link);
    const answer = second.page.waitForResponse((response) => response.url() === `${url}/sign-in`);
    await second.page.getByRole('button', { name: 'Sign in' }).click();
    assert.equal((await answer).status(), 403);
    await second.page.getByRole('heading', { level: 1, name: 'Not signed in' }).waitFor();
    assert.deepEqual(
      (await other.cookies()).filter((each) => each.name === 'portal_console'),
      [],
    );
    await Promise.all([context.close(), other.close()]);
  });

  it('refuses an expired link and a forged cookie, and signs out', async () => {
    // A link issued 11 minutes ago, written to the controller's store as `portal console` would have.
    const admin = (await loadIdentity(adminDirectory(adminHome())))!.record;
    const store = await openStore(`sqlite:${join(project.controller.dataDir, 'controller.db')}`);
    let expired: string;
    try {
      const identity = { ...admin, attributes: [], relays: [], admin: true, tls: false, relayNode: false };
      expired = (await new ConsoleAccess({ store }).issueLink(identity, Date.now() - 11 * 60_000)).secret;
    } finally {
      await store.destroy();
    }
    const late = await browser.newContext();
    const tooLate = await watchedPage(late, url);
    await tooLate.page.goto(`${url}/sign-in/${expired}`);
    await tooLate.page.getByRole('button', { name: 'Sign in' }).click();
    await tooLate.page.getByText('This sign-in link was used already, has expired, or is not one.').waitFor();
    assert.deepEqual(
      (await late.cookies()).filter((each) => each.name === 'portal_console'),
      [],
    );
    await late.close();

    const forged = await browser.newContext();
    await forged.addCookies([{ name: 'portal_console', value: 'A'.repeat(43), url }]);
    const { page } = await watchedPage(forged, url);
    const response = await page.goto(`${url}/members`);
    assert.equal(response?.status(), 401);
    await page.getByRole('heading', { level: 1, name: 'Not signed in' }).waitFor();
    await forged.close();

    const context = await browser.newContext();
    const signedIn = await watchedPage(context, url);
    await signedIn.page.goto(await printedLink());
    await signedIn.page.getByRole('button', { name: 'Sign in' }).click();
    await signedIn.page.getByRole('button', { name: 'Sign out' }).click();
    await signedIn.page.getByRole('heading', { level: 1, name: 'Signed out' }).waitFor();
    assert.deepEqual(signedIn.problems, []);
    assert.equal((await signedIn.page.goto(url))?.status(), 401);
    await context.close();
  });

  it('serves pages that pass axe-core with no violation, at a desktop and at a phone width', async () => {
    const context = await browser.newContext();
    const { page, problems } = await watchedPage(context, url);
    await page.goto(await printedLink());
    assert.deepEqual(await accessibilityViolations(page), [], 'the sign-in page');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const pages = [
      '/',
      '/members',
      '/tickets',
      '/policies?allow=admin',
      `/policies?allow=${encodeURIComponent('team = ')}`,
      '/audit?since=',
      '/audit/verify',
      '/usecases',
    ];
    for (const path of pages)
      for (const width of [1280, 375]) {
        await page.setViewportSize({ width, height: 800 });
        await page.goto(`${url}${path}`);
        assert.deepEqual(await accessibilityViolations(page), [], `${path} at ${width} px`);
        // Nothing wider than the screen but the tables, which scroll on their own.
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `${path} at ${width} px is ${overflow} px wider than the screen`);
      }
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('verifies the whole chain from the audit page', async () => {
    const context = await browser.newContext();
    const { page, problems } = await watchedPage(context, url);
    await page.goto(await printedLink());
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Audit' }).click();
    await page.getByRole('link', { name: 'Verify the whole chain' }).click();
    await page.getByRole('heading', { level: 1, name: 'Audit trail: verified' }).waitFor();
    assert.match(await page.getByRole('status').innerText(), /^The audit trail is whole: \d+ records, signed from/);
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('issues a ticket: attributes checked as typed, copied with one press, a node enrolled with it', async () => {
    const context = await browser.newContext();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url });
    const { page, problems } = await watchedPage(context, url);
    await page.goto(await printedLink());
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Tickets' }).click();
    const attributes = page.getByLabel(/^Attributes, one per line/);
    await attributes.fill('db-inlet\nNot Valid');
    await page.getByText('Does not read: line 2: "Not Valid" is not an attribute').waitFor();
    assert.equal(await attributes.getAttribute('aria-invalid'), 'true');
    await attributes.fill('db-inlet\nteam=ops');
    assert.equal(await attributes.getAttribute('aria-invalid'), null);
    await page.getByLabel(/^Expires in/).fill('1h');
    await page.getByRole('button', { name: 'Issue the ticket' }).click();
    await page.getByRole('heading', { level: 1, name: 'Your ticket' }).waitFor();
    const ticket = await page.getByLabel('Ticket', { exact: true }).inputValue();
    await page.getByRole('button', { name: 'Copy the ticket' }).click();
    await page.getByText('Copied.').waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), ticket);
    const node = await enrollWithTicket(join(project.dir, 'from-the-console'), ticket);
    assert.deepEqual(node.record.attributes, ['db-inlet', 'team=ops']);

    await page.getByRole('link', { name: 'Policies' }).click();
    await page.getByLabel('Allow expression').fill('team = ');
    await page.getByText(/^Does not read: column 8: expected/).waitFor();
    await page.getByLabel('Allow expression').fill('team = "ops"');
    await page.getByRole('button', { name: 'Try it' }).click();
    await page.getByText('It admits 1 member now.').waitFor();
    assert.ok(await page.getByRole('cell', { name: node.record.nodeId }).isVisible());
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('compiles a manifest with a mistake and shows it located, then the files of the corrected one', async () => {
    const context = await browser.newContext();
    const { page, problems } = await watchedPage(context, url);
    await page.goto(await printedLink());
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Use cases' }).click();
    const manifest = await readFile(join(projectRoot, 'usecases', 'webhook.yaml'), 'utf8');
    await page.getByLabel('Manifest (YAML)').fill(manifest.replace('port: 17777', 'port: seventeen'));
    await page.getByRole('button', { name: 'Compile' }).click();
    const located = page.getByRole('link', { name: /^line \d+, column \d+$/ });
    await located.first().waitFor();
    assert.match(await page.getByRole('alert').innerText(), /\/inlet\/port/);
    assert.deepEqual(await accessibilityViolations(page), [], 'the problems page');
    await page.getByLabel('Manifest (YAML)').fill(manifest);
    await page.getByRole('button', { name: 'Compile' }).click();
    await page.getByText(/^Compiled webhook: \d+ files\.$/).waitFor();
    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download tickets.sh' }).click();
    const download = await downloading;
    assert.equal(download.suggestedFilename(), 'tickets.sh');
    assert.match(await readFile(await download.path(), 'utf8'), /^#!/);
    assert.deepEqual(
      problems.filter((problem) => !problem.includes('status of 400')),
      [],
    );
    await context.close();
  });

  it('photographs the main pages (PORTAL_SCREENSHOTS=docs/images keeps them for the docs)', async () => {
    const directory = process.env.PORTAL_SCREENSHOTS ?? (await mkdtemp(join(tmpdir(), 'portal-screens-')));
    // A portal that has carried something, for the overview to show.
    const echo = await echoPortal();
    assert.equal((await roundTrip(echo.port, Buffer.alloc(300_000, 1))).length, 300_000);
    const context = await browser.newContext({ viewport: { width: 1100, height: 700 } });
    const { page, problems } = await watchedPage(context, url);
    await page.goto(await printedLink());
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('td[data-bytes-up]').filter({ hasText: 'KiB' }).waitFor();
    for (const [name, path] of [
      ['overview', '/'],
      ['members', '/members'],
      ['tickets', '/tickets'],
      ['audit', '/audit?since='],
    ] as const) {
      await page.goto(`${url}${path}`);
      const file = join(directory, `console-${name}.png`);
      await page.screenshot({ path: file, fullPage: true });
      const bytes = await readFile(file);
      assert.deepEqual([...bytes.subarray(1, 4)], [...Buffer.from('PNG')], file);
      assert.ok(bytes.length > 10_000, `${file}: ${bytes.length} bytes`);
    }
    assert.deepEqual(problems, []);
    await context.close();
    if (!process.env.PORTAL_SCREENSHOTS) await rm(directory, { recursive: true, force: true });
  });

  it("shows a portal's bytes moving live; revoking its inlet closes the client, and the record appears", async () => {
    const echo = await echoPortal();
    const inletId = (await nodeStatus(join(project.dir, 'inlet'))).identity?.node_id;
    assert.ok(inletId, 'the inlet says its member id');
    const context = await browser.newContext();
    const { page, problems } = await watchedPage(context, url);
    await page.goto(await printedLink());
    await page.getByRole('button', { name: 'Sign in' }).click();
    const row = page.locator(`tr[data-portal^="${inletId} "]`);
    await row.waitFor();
    // A client that keeps sending while the page stays as it was loaded.
    await page.evaluate(() => ((window as unknown as { loaded: number }).loaded = 1));
    const client = connect(echo.port, '127.0.0.1');
    client.resume();
    // Cut by a reset or an end, either way closed (`once` would reject on the reset's error).
    const closed = new Promise((resolve) => client.once('close', resolve));
    client.on('error', () => undefined);
    const sending = setInterval(() => client.write(Buffer.alloc(64 * 1024, 7)), 50);
    try {
      const seen = new Set<string>();
      const deadline = Date.now() + 20_000;
      while (seen.size < 3 && Date.now() < deadline) {
        seen.add(await row.locator('td[data-bytes-up]').innerText());
        await page.waitForTimeout(500);
      }
      assert.ok(seen.size >= 3, `the byte count moved through ${[...seen].join(', ')}`);
      assert.equal(await page.evaluate(() => (window as unknown as { loaded?: number }).loaded), 1, 'not reloaded');

      // The audit trail's tail, open in a second page while the first revokes the inlet.
      const trail = await context.newPage();
      await trail.goto(`${url}/audit?event=revoked`);
      await page.goto(`${url}/members/${inletId}/revoke`);
      await page.getByLabel(/^Reason/).fill('left the team');
      await page.getByRole('button', { name: `Revoke ${inletId}` }).click();
      await page.getByRole('heading', { level: 1, name: 'Revoked' }).waitFor();
      const cut = await Promise.race([closed.then(() => true), delay(10_000).then(() => false)]);
      assert.ok(cut, "the client's connection was closed");
      await trail.getByRole('cell', { name: 'revoked', exact: true }).waitFor({ timeout: 5000 });
      assert.match(await trail.locator('tbody tr').last().innerText(), /left the team/);
      await trail.close();
    } finally {
      clearInterval(sending);
      client.destroy();
    }
    assert.deepEqual(problems, []);
    await context.close();
  });
});
