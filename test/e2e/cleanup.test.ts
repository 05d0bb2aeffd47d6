/**
 * Cleaning up one use case on an administrator's machine that serves two, as the compiled tickets.sh
 * does it, with the bundled CLI and real nodes: only that use case's nodes are revoked and only its
 * tickets cancelled, and `portal reset` keeps an embedded controller that still serves others unless
 * a terminal or --delete-controller confirms it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { embeddedControllerRuntime, embeddedControllerSealingKey } from '../../src/cli/home.ts';
import { processGone } from '../../src/shared/process-state.ts';
import type { MemberInfo, TicketInfo } from '../../src/wire/protocol.ts';
import { portal, portalBundle, portalOnPath, startPortal, type Running } from '../support/processes.ts';
import { onFreePorts } from '../support/usecase-run.ts';
import { projectRoot } from '../support/usecases.ts';
import { removeAdminHome } from '../support/admin-home.ts';

const refusal = (home: string, hosted: string) =>
  `portal: portal reset would delete the embedded controller under ${home}, and ${hosted}; nothing was removed; ` +
  'to delete it with all it holds, run portal reset --yes --delete-controller; to keep it, take out what it ' +
  'still serves first (portal project members and tickets; portal project retire) or keep this PORTAL_HOME\n';

const jsonLines = <T>(text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as T);

/** Every file under `dir`, with its bytes: what "nothing was removed" compares. */
async function snapshot(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    // The store and its log change as the running controller writes (heartbeats); they are compared by presence.
    files.set(path, /controller\.(db|db-wal|db-shm|log)$/.test(path) ? '' : await readFile(path, 'base64'));
  }
  return files;
}

/** Runs `args` under a pseudo-terminal, answering `answer` once `prompt` is shown. */
async function onTerminal(home: string, args: readonly string[], prompt: string, answer: string) {
  const child = spawn(
    'python3',
    [join(projectRoot, 'test/support/pty-answer.py'), prompt, answer, process.execPath, portalBundle, ...args],
    { env: { ...process.env, NODE_DEVELOPER: undefined, PORTAL_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  // Readline moves the cursor on a terminal: the text is what a person reads.
  // eslint-disable-next-line no-control-regex
  const text = output.replace(/\u001b\[[0-9;]*[A-Za-z]/g, '').replace(/\r+\n/g, '\n');
  return { code, output: text };
}

describe('end to end: cleaning up one of two use cases on one embedded controller', function () {
  this.timeout(180_000);
  let dir: string;
  let admin: string;
  let bin: string;
  const nodes: Running[] = [];
  let controllerPid: number;

  /** Runs the compiled tickets.sh of `usecase` in its own folder, as the administrator, with no terminal. */
  const tickets = async (usecase: string, args: readonly string[]) => {
    const cwd = join(dir, usecase);
    await mkdir(cwd, { recursive: true });
    const child = spawn('bash', [join(projectRoot, 'out', usecase, 'tickets.sh'), ...args], {
      cwd,
      // No aws here: the stack lines are tested against a stand-in in test/compile/tickets-script.test.ts.
      env: { ...process.env, NODE_DEVELOPER: undefined, PATH: `${bin}:/usr/bin:/bin`, PORTAL_HOME: admin },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, 'close')) as [number | null];
    return { code, stdout, stderr };
  };

  /** Enrolls the outlet of `usecase` with its ticket (a real node, stopped once it has set up). */
  const enrollOutlet = async (usecase: string) => {
    const config = JSON.parse(await readFile(join(projectRoot, 'out', usecase, 'outlet.json'), 'utf8')) as Record<
      string,
      Record<string, unknown>
    >;
    // Where the target is does not matter here: nothing connects through the portal.
    const outlet = { ...onFreePorts(config), 'tcp-outlet': { ...config['tcp-outlet'], to: '127.0.0.1:9' } };
    const path = join(dir, usecase, 'outlet-run.json');
    await writeFile(path, JSON.stringify(outlet));
    const node = startPortal(
      join(dir, usecase, 'outlet-home'),
      ['node', 'create', '--foreground', '--configuration', path],
      {
        ENROLLMENT_TICKET: (await readFile(join(dir, usecase, 'outlet.ticket'), 'utf8')).trim(),
      },
    );
    nodes.push(node);
    await node.waitFor(/Portal node setup completed successfully/, 60_000);
    assert.equal(await node.stop(), 0);
  };

  const members = async () => jsonLines<MemberInfo>((await portal(admin, ['project', 'members', '--json'])).stdout);
  const openTickets = async () => jsonLines<TicketInfo>((await portal(admin, ['project', 'tickets', '--json'])).stdout);

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portal-cleanup-'));
    admin = join(dir, 'admin');
    bin = await portalOnPath(dir);
    const webhook = await tickets('webhook', ['--local']);
    assert.equal(webhook.code, 0, webhook.stderr);
    const api = await tickets('api', ['--local']);
    assert.equal(api.code, 0, api.stderr);
    assert.match(api.stdout, /^Enrolled already: the tickets come from the controller at 127\.0\.0\.1:\d+\.$/m);
    // Each use case: its outlet enrolled, its inlet ticket still unused.
    await Promise.all([enrollOutlet('webhook'), enrollOutlet('api')]);
    controllerPid = (JSON.parse(await readFile(embeddedControllerRuntime(admin), 'utf8')) as { pid: number }).pid;
  });

  after(async () => {
    for (const node of nodes) await node.stop();
    await removeAdminHome(admin);
    await rm(dir, { recursive: true, force: true });
  });

  it(
    "./tickets.sh cleanup revokes only its use case's nodes and " +
      'cancels only its tickets, then keeps the controller',
    async () => {
      const before = await members();
      const outletOf = (attribute: string) => before.find((member) => member.attributes.includes(attribute));
      const webhookOutlet = outletOf('webhook-outlet');
      const apiOutlet = outletOf('api-outlet');
      assert.ok(webhookOutlet && apiOutlet, JSON.stringify(before));
      const ticketsBefore = await openTickets();
      assert.deepEqual(ticketsBefore.map((ticket) => ticket.grants.attributes).sort(), [
        ['api-inlet'],
        ['webhook-inlet'],
      ]);
      const webhookTicket = ticketsBefore.find((ticket) => ticket.grants.attributes[0] === 'webhook-inlet');
      const sealingKey = await readFile(embeddedControllerSealingKey(admin));
      const trailBefore = jsonLines<{ seq: number }>((await portal(admin, ['project', 'audit', '--json'])).stdout);

      const cleanup = await tickets('webhook', ['cleanup']);

      assert.equal(cleanup.code, 2, 'the reset is refused: the controller serves the api use case');
      assert.equal(
        cleanup.stdout,
        `Revoked ${webhookOutlet.id}: its connections are closed and the project was told.\n` +
          'Retired attribute webhook-outlet; relay webhook: 1 node revoked, 0 unused tickets cancelled.\n' +
          `Cancelled ticket ${webhookTicket?.id}: it enrolls nobody from now on.\n` +
          'Retired attribute webhook-inlet: 0 nodes revoked, 1 unused ticket cancelled.\n',
      );
      assert.equal(
        cleanup.stderr,
        refusal(admin, "it hosts 1 active member besides this machine's own and 1 unused ticket"),
      );

      const after = await members();
      const byId = new Map(after.map((member) => [member.id, member]));
      assert.equal(byId.get(webhookOutlet.id)?.revoked?.reason, 'use case webhook: ./tickets.sh cleanup');
      assert.equal(byId.get(apiOutlet.id)?.revoked, null, "the other use case's node stays");
      assert.deepEqual(
        after.filter((member) => member.revoked !== null).map((member) => member.id),
        [webhookOutlet.id],
        'exactly one member revoked',
      );
      assert.deepEqual(
        (await openTickets()).map((ticket) => ticket.grants.attributes),
        [['api-inlet']],
        "the other use case's ticket stays",
      );
      const verified = await portal(admin, ['project', 'audit', '--verify']);
      assert.equal(verified.code, 0, verified.stderr);
      const trailAfter = jsonLines<{ seq: number; event: string }>(
        (await portal(admin, ['project', 'audit', '--json'])).stdout,
      );
      assert.deepEqual(
        trailAfter.slice(0, trailBefore.length),
        trailBefore,
        'the trail before the cleanup is all there',
      );
      assert.deepEqual(
        trailAfter
          .slice(trailBefore.length)
          .map((record) => record.event)
          .sort(),
        ['revoked', 'ticket-cancelled'],
      );
      assert.deepEqual(await readFile(embeddedControllerSealingKey(admin)), sealingKey, 'the sealing key stays');
      assert.equal(processGone(controllerPid), false, 'the controller still runs');
    },
  );

  it(
    'portal reset --yes without a terminal refuses with exit 2 and the ' +
      'line that says how to confirm, removing nothing',
    async () => {
      const before = await snapshot(admin);
      const reset = await portal(admin, ['reset', '--yes']);
      assert.equal(reset.code, 2);
      assert.equal(reset.stdout, '');
      assert.equal(
        reset.stderr,
        refusal(admin, "it hosts 1 active member besides this machine's own and 1 unused ticket"),
      );
      assert.deepEqual(await snapshot(admin), before);
      assert.equal(processGone(controllerPid), false);
    },
  );

  it(
    "the last use case's ./tickets.sh cleanup removes the controller " +
      'with the configuration, as step 7 says, without asking',
    async () => {
      const cleanup = await tickets('api', ['cleanup']);
      assert.equal(cleanup.code, 0, cleanup.stderr);
      assert.match(
        cleanup.stdout,
        /^Retired attribute api-outlet; relay api: 1 node revoked, 0 unused tickets cancelled\.$/m,
      );
      assert.match(cleanup.stdout, /^Retired attribute api-inlet; tls: 0 nodes revoked, 1 unused ticket cancelled\.$/m);
      assert.match(
        cleanup.stdout,
        new RegExp(
          String.raw`^Deleted the embedded controller, with 1 project, 3 members \(2 revoked\), \d+ audit records ` +
            String.raw`and the sealing key without which its backups cannot be restored\.$`,
          'm',
        ),
      );
      assert.equal(existsSync(admin), false, 'nothing of the administrator is left');
      assert.equal(processGone(controllerPid), true, 'the controller stopped');
    },
  );
});

describe('end to end: portal reset of an embedded controller that serves others, confirmed', function () {
  this.timeout(120_000);
  let dir: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portal-reset-confirm-'));
  });

  after(async () => {
    for (const home of ['declined', 'confirmed']) await removeAdminHome(join(dir, home));
    await rm(dir, { recursive: true, force: true });
  });

  /** An administrator with the embedded controller and one unused ticket: someone else's node to come. */
  const serving = async (name: string) => {
    const home = join(dir, name);
    assert.equal((await portal(home, ['enroll'])).code, 0);
    const ticket = await portal(home, ['project', 'ticket', '--attribute', 'db-inlet']);
    assert.equal(ticket.code, 0, ticket.stderr);
    const pid = (JSON.parse(await readFile(embeddedControllerRuntime(home), 'utf8')) as { pid: number }).pid;
    return { home, pid };
  };

  const prompt = (home: string) =>
    `The embedded controller under ${home} serves more than this machine: it hosts 1 unused ticket.\n` +
    'portal reset would delete it, and with it 1 project, 1 member, ';

  it(
    'asks on a terminal, naming what would be lost; answered no, it removes nothing; ' +
      '--delete-controller then deletes without asking',
    async () => {
      const { home, pid } = await serving('declined');
      const before = await snapshot(home);
      const declined = await onTerminal(home, ['reset', '--yes'], 'Type yes to delete it: ', 'no');
      assert.equal(declined.code, 0, declined.output);
      assert.ok(declined.output.startsWith(prompt(home)), declined.output);
      assert.match(
        declined.output,
        new RegExp(
          String.raw`\d+ audit records and the sealing key without which its backups cannot be restored\.\n` +
            String.raw`Type yes to delete it: no\nNothing was removed\.\n$`,
        ),
      );
      assert.deepEqual(await snapshot(home), before);

      const flagged = await portal(home, ['reset', '--yes', '--delete-controller']);
      assert.equal(flagged.code, 0, flagged.stderr);
      assert.match(flagged.stdout, /^Deleted the embedded controller, with 1 project, 1 member, /m);
      assert.equal(existsSync(home), false);
      assert.equal(processGone(pid), true);
    },
  );

  it('deletes it when the terminal answers yes', async () => {
    const { home, pid } = await serving('confirmed');
    const confirmed = await onTerminal(home, ['reset', '--yes'], 'Type yes to delete it: ', 'yes');
    assert.equal(confirmed.code, 0, confirmed.output);
    assert.ok(confirmed.output.startsWith(prompt(home)), confirmed.output);
    assert.match(confirmed.output, /Type yes to delete it: yes\nReset: removed the Portal state under /);
    assert.equal(existsSync(home), false);
    assert.equal(processGone(pid), true);
  });
});
