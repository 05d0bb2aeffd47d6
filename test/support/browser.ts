/**
 * Debian's Chromium, headless, driven by Playwright (playwright-core: no browser of its own is
 * downloaded). Each page notes what its console logged as an error, any script error and any request
 * to another origin, so that a test can require none. axe-core checks a page as it is served, its
 * Content-Security-Policy included (the check runs through the debugging protocol, which the policy
 * does not govern).
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Where the test prerequisites install it (scripts/test-prerequisites.sh). */
const chromiumPath = '/usr/bin/chromium';

/**
 * Without the background flags, Chromium reaches for Google's services at every start, which a closed
 * network refuses many times over; as root it runs only without its sandbox.
 */
const chromiumArguments = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath, headless: true, args: chromiumArguments });
}

/**
 * A page whose console errors, script errors and requests anywhere but `origin` (a third party, a
 * CDN) are kept in `problems`.
 */
export async function watchedPage(
  context: BrowserContext,
  origin: string,
): Promise<{ page: Page; problems: string[] }> {
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).origin !== origin) problems.push(`request elsewhere: ${request.url()}`);
  });
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`script: ${error.message}`));
  return { page, problems };
}

let axeSource: string | undefined;

/** axe-core's WCAG 2.1 A and AA rules on the page as it is now: the violations, as one line each. */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  axeSource ??= await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(options: object): Promise<AxeResults> } }).axe;
    const results = await axe.run({ runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return results.violations.map(
      (violation) =>
        `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`,
    );
  });
}

interface AxeResults {
  readonly violations: readonly {
    readonly id: string;
    readonly help: string;
    readonly nodes: readonly { readonly target: readonly string[] }[];
  }[];
}
