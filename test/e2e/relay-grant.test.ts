import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ready } from '../support/echo-portal.ts';
import { echoClient } from '../support/echo-transfer.ts';
import { until } from '../support/in-process.ts';
import { nodeStatus, portal, statusWhen, type Running } from '../support/processes.ts';
import { startProject, type ProjectProcesses } from '../support/project-processes.ts';
import { roundTrip } from '../support/tcp.ts';
import { namedTarget, type NamedTarget } from '../node/named-target.ts';

describe('end to end: an enrolled outlet node gains a relay name without enrolling again', function () {
  this.timeout(180_000);
  let project: ProjectProcesses;
  const targets: Record<string, NamedTarget> = {};
  let outlet: Running;
  let inlet: Running;
  let nodeId: string;
  const outletHome = () => join(project.dir, 'outlet');
  const inletHome = () => join(project.dir, 'inlet');
  const adminHome = () => join(project.dir, 'admin');
  const outletConfig = (names: readonly string[]) => ({
    'http-server-port': 0,
    'tcp-outlets': Object.fromEntries(
      names.map((name) => [name, { to: `127.0.0.1:${targets[name]?.port ?? 1}`, allow: 'grant-inlet' }]),
    ),
  });
  const inletConfig = (names: readonly string[]) => ({
    'http-server-port': 0,
    'tcp-inlets': Object.fromEntries(names.map((name) => [name, { from: '127.0.0.1:0', allow: 'grant-outlet' }])),
  });
  const portOf = async (name: string) =>
    Number(
      (await nodeStatus(inletHome())).inlets
        .find((entry) => entry.name === name)
        ?.listening?.split(':')
        .at(-1),
    );
  const grantLine = (relay: string) => `portal project grant ${nodeId} --relay ${relay}`;

  before(async () => {
    project = await startProject();
    for (const name of ['first', 'second', 'third']) targets[name] = await namedTarget(name);
    outlet = await project.startNode(
      'outlet',
      outletConfig(['first']),
      await project.ticket(['--attribute', 'grant-outlet', '--relay', 'first']),
    );
    inlet = await project.startNode(
      'inlet',
      inletConfig(['first']),
      await project.ticket(['--attribute', 'grant-inlet']),
    );
    await Promise.all([outlet.waitFor(ready), inlet.waitFor(ready)]);
    nodeId = (await nodeStatus(outletHome())).identity.node_id;
  });

  after(async () => {
    await project?.close();
    for (const target of Object.values(targets)) await target.close();
  });

  it(
    'refuses a reload with an outlet for an ungranted relay name, naming the command; after it the reload ' +
      'adds the portal, which carries bytes, while a client of the old one is carried throughout',
    async () => {
      // A client of the old portal, open across the refusal, the grant and the reloads.
      const held = echoClient(await portOf('first'));
      held.socket.write('a');
      await until(() => (Buffer.concat(held.received).toString() === 'first:a' ? true : undefined), 'first echo');

      await writeFile(join(project.dir, 'outlet.json'), JSON.stringify(outletConfig(['first', 'second'])));
      const refused = await portal(outletHome(), ['node', 'reload']);
      assert.equal(refused.code, 2, refused.stderr);
      assert.equal(
        refused.stderr,
        `portal: this home is enrolled already as node ${nodeId} of project ` +
          `${(await nodeStatus(outletHome())).project.id}, whose identity grants the relay "first", ` +
          'but this configuration has the outlet "second" (relay "second"); ' +
          `an administrator of the project runs ${grantLine('second')}, then reload again ` +
          '(the node fetches the grant from the controller); or ' +
          'give each outlet a relay its identity grants ("first"), or remove it\n',
      );
      assert.deepEqual(
        (await nodeStatus(outletHome())).outlets.map((entry) => entry.name),
        ['first'],
        'the running configuration stays',
      );

      // The administrator runs the command the refusal printed, word for word.
      const command = /runs (portal project grant \S+ --relay \S+),/.exec(refused.stderr)?.[1] ?? '';
      assert.equal(command, grantLine('second'));
      const granted = await portal(adminHome(), command.split(' ').slice(1));
      assert.equal(granted.code, 0, granted.stderr);
      assert.equal(
        granted.stdout,
        `Granted ${nodeId} the relay name second; it holds first, second. ` +
          'Its next certificate carries them: reload or start the node to use them now.\n',
      );

      const reloaded = await portal(outletHome(), ['node', 'reload']);
      assert.equal(reloaded.code, 0, reloaded.stderr);
      assert.match(
        reloaded.stdout,
        /^Reloaded the configuration of the node \(process \d+\): added outlet second; 1 unchanged\.$/m,
      );
      await outlet.waitFor(/INFO this node's certificate grants the relay names first, second now/);
      // The relay accepted the new name: it was registered with the new certificate.
      await outlet.waitFor(/INFO outlet second: relay name "second" registered on relay /);
      const shown = await statusWhen(outletHome(), (status) => status.outlets.every((entry) => entry.status === 'up'));
      assert.deepEqual(shown.identity.relays, ['first', 'second']);

      await writeFile(join(project.dir, 'inlet.json'), JSON.stringify(inletConfig(['first', 'second'])));
      const inletReloaded = await portal(inletHome(), ['node', 'reload']);
      assert.equal(inletReloaded.code, 0, inletReloaded.stderr);
      await statusWhen(
        inletHome(),
        (status) => status.inlets.find((entry) => entry.name === 'second')?.session === 'open',
      );
      assert.equal((await roundTrip(await portOf('second'), Buffer.from('hello'))).toString(), 'second:hello');
      assert.equal((await roundTrip(await portOf('first'), Buffer.from('still'))).toString(), 'first:still');

      held.socket.write('b');
      await until(() => (Buffer.concat(held.received).toString() === 'first:ab' ? true : undefined), 'held echo');
      held.socket.end();
      assert.equal(await held.ended, 'end', "the old portal's client ended cleanly, never reset");
    },
  );

  it('records the grant in the audit trail and lists the names with the member', async () => {
    const audit = await portal(adminHome(), ['project', 'audit', '--event', 'relay-granted', '--json']);
    assert.equal(audit.code, 0, audit.stderr);
    const records = audit.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event: string; members: string[]; details: Record<string, unknown> });
    assert.equal(records.length, 1);
    const adminId = records[0]?.members[1];
    assert.match(adminId ?? '', /^a[0-9a-f]{16}$/);
    assert.deepEqual(records[0]?.members, [nodeId, adminId]);
    assert.deepEqual(records[0]?.details, { relays: 'second', by: adminId });

    const members = await portal(adminHome(), ['project', 'members', '--json']);
    const entry = members.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; relays: string[]; attributes: string[] })
      .find((member) => member.id === nodeId);
    assert.deepEqual(entry?.relays, ['first', 'second'], 'the old grant kept');
    assert.deepEqual(entry?.attributes, ['grant-outlet']);
  });

  it('refuses a start with an ungranted relay name, naming the command; after it the node starts', async () => {
    await outlet.stop();
    const config = join(project.dir, 'outlet.json');
    await writeFile(config, JSON.stringify(outletConfig(['first', 'second', 'third'])));
    const refused = await portal(outletHome(), ['node', 'create', '--foreground', '--configuration', config]);
    assert.equal(refused.code, 2, refused.stderr);
    assert.equal(refused.stderr.split('\n').length, 2, 'one line');
    assert.match(
      refused.stderr,
      new RegExp(
        `^portal: this home is enrolled already as node ${nodeId} .*` +
          'whose identity grants the relay "first", "second", ' +
          `but this configuration has the outlet "third" \\(relay "third"\\); an administrator of the project runs ` +
          `${grantLine('third')}, then start the node again \\(the node fetches the grant from the controller\\); or `,
        'm',
      ),
    );

    const granted = await portal(adminHome(), ['project', 'grant', nodeId, '--relay', 'third']);
    assert.equal(granted.code, 0, granted.stderr);
    outlet = await project.startNode('outlet', outletConfig(['first', 'second', 'third']));
    await outlet.waitFor(ready);
    await outlet.waitFor(
      /INFO relay names granted since this node's last certificate: "third"; it holds "first", "second", "third"$/,
    );
    await outlet.waitFor(/INFO outlet third: relay name "third" registered on relay /);
    await statusWhen(
      inletHome(),
      (status) => status.inlets.find((entry) => entry.name === 'first')?.session === 'open',
    );
    assert.equal((await roundTrip(await portOf('first'), Buffer.from('again'))).toString(), 'first:again');
  });

  it('refuses a grant to a member that is not there, and one without a relay name', async () => {
    const unknown = await portal(adminHome(), ['project', 'grant', 'n0000000000000000', '--relay', 'x']);
    assert.equal(unknown.code, 2);
    assert.equal(
      unknown.stderr,
      'portal: the project has no member n0000000000000000; see the ids with portal project members\n',
    );
    const none = await portal(adminHome(), ['project', 'grant', nodeId]);
    assert.equal(none.code, 2);
    assert.equal(none.stderr, `portal: no --relay was given; give the relay names to grant: ${grantLine('NAME')}\n`);
  });
});
