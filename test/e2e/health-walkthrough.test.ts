/**
 * docs/operating.md's health block ("Metrics and health"), run as written: a controller and a relay
 * with their status servers where the block puts them, `curl` as the block calls it, and each answer
 * what the block's comment says; the relay's while its controller is away. Only what cannot be the
 * same on loopback changes: 0.0.0.0 and controller.example.net become 127.0.0.1, each port a free
 * one, and the relay listens on a port the system picks (its default, 0.0.0.0:4100, is a fixed one).
 */
import assert from 'node:assert/strict';
import { copyFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from '../support/in-process.ts';
import { freePort, portalOnPath, start, type Running } from '../support/processes.ts';
import { bash } from '../support/readme-walkthrough.ts';
import { healthWhen } from '../support/scrape.ts';
import { projectRoot } from '../support/usecases.ts';

interface ShownCommand {
  readonly command: string;
  /** What the block's trailing comment says it prints, if anything. */
  readonly comment: string;
}

/** The shell block of the section `heading`, each line split into its command and its trailing comment. */
function shownCommands(document: string, heading: string): ShownCommand[] {
  const at = document.indexOf(heading);
  assert.ok(at >= 0, `docs/operating.md has a section "${heading}"`);
  const block = /```sh\n([\s\S]*?)```/.exec(document.slice(at))?.[1] ?? '';
  return block
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'))
    .map((line) => {
      const [command = '', comment = ''] = line.split(/\s+# /, 2);
      return { command: command.trim(), comment: comment.trim() };
    });
}

/** The JSON a comment shows, its `…` standing for any text. */
function assertAnswerAsShown(answer: string, comment: string): void {
  const shown = JSON.parse(comment.slice(comment.indexOf('{'), comment.lastIndexOf('}') + 1)) as Record<string, string>;
  const got = JSON.parse(answer) as Record<string, string>;
  assert.deepEqual(Object.keys(got).sort(), Object.keys(shown).sort(), answer);
  for (const [key, value] of Object.entries(shown)) {
    const pattern = value
      .split('…')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*');
    assert.match(got[key] ?? '', new RegExp(`^${pattern}$`), `${key} as the comment shows: ${answer}`);
  }
}

describe("docs/operating.md's health block, as written: a controller and a relay answer /healthz", function () {
  this.timeout(120_000);
  let dir: string;
  const running: Running[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portal-health-walkthrough-'));
  });

  after(async () => {
    for (const process of running) await process.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves on the controller; the relay is unavailable, with its reason, while the controller is away', async () => {
    const shown = shownCommands(
      await readFile(join(projectRoot, 'docs/operating.md'), 'utf8'),
      '## Metrics and health',
    );
    assert.equal(shown.length, 4, shown.map((line) => line.command).join('\n'));
    const [controllerStart, controllerHealth, relayStart, relayHealth] = shown as [
      ShownCommand,
      ShownCommand,
      ShownCommand,
      ShownCommand,
    ];
    const ports = new Map<string, number>();
    for (const port of ['4000', '9464', '9465']) ports.set(port, await freePort());
    const onLoopback = (command: string) =>
      command
        .replaceAll('0.0.0.0', '127.0.0.1')
        .replaceAll('controller.example.net', '127.0.0.1')
        .replace(/\b(4000|9464|9465)\b/g, (port) => String(ports.get(port)));
    const inBackground = (command: string) => {
      assert.match(command, / &$/, `${command} runs in the background`);
      return onLoopback(command.replace(/ &$/, ''));
    };
    const path = `${await portalOnPath(dir)}:${process.env.PATH}`;
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_DEVELOPER: undefined, PORTAL_HOME: undefined, PATH: path };
    const [controllerHome, adminHome, relayHome] = ['controller', 'admin', 'relay'].map((name) => join(dir, name)) as [
      string,
      string,
      string,
    ];
    for (const home of [controllerHome, adminHome, relayHome]) await mkdir(home);
    const background = (home: string, command: string) => {
      const process = start('bash', ['-c', `exec ${command}`], { env: { ...env, HOME: home }, cwd: home });
      running.push(process);
      return process;
    };

    const controller = background(controllerHome, inBackground(controllerStart.command));
    const code = /one-time admin code \(valid 24h\): (\S+)/.exec(
      await controller.waitFor(/one-time admin code/, 30_000),
    )?.[1];
    assert.ok(code);
    const served = await bash(onLoopback(controllerHealth.command), controllerHome, env);
    assertAnswerAsShown(served.stdout, controllerHealth.comment);

    // The relay's ticket, as "Add relays, and the direct path" issues it.
    await bash(`portal enroll --controller 127.0.0.1:${ports.get('4000')} --code ${code}`, adminHome, env);
    await bash('umask 077; portal project ticket --relay-node > relay.ticket', adminHome, env);
    await copyFile(join(adminHome, 'relay.ticket'), join(relayHome, 'relay.ticket'));
    const relay = background(relayHome, `${inBackground(relayStart.command)} --listen 127.0.0.1:0`);
    await relay.waitFor(/relay status server on http:\/\//, 30_000);
    await healthWhen(`127.0.0.1:${ports.get('9465')}`, 200, 30_000);

    // While the controller is away.
    await controller.stop();
    const unavailable = await until(
      async () => {
        const { stdout } = await bash(onLoopback(relayHealth.command), relayHome, env);
        return (JSON.parse(stdout) as { status: string }).status === 'unavailable' ? stdout : undefined;
      },
      'the relay answering unavailable',
      30_000,
    );
    assertAnswerAsShown(unavailable, relayHealth.comment);
  });
});
