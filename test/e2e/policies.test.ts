import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ready } from '../support/echo-portal.ts';
import { inletPort, statusWhen, type Running } from '../support/processes.ts';
import { startProject, type ProjectProcesses } from '../support/project-processes.ts';
import { roundTrip, startEchoServer } from '../support/tcp.ts';

const heartbeat = { PORTAL_HEARTBEAT: '500ms' };
const policy = 'team = "ops" and env = "prod"';
const quoted = String.raw`\(team = "ops" and env = "prod"\)`;

describe('end to end: an allow expression admits team=ops env=prod and refuses env=dev, on both paths', function () {
  this.timeout(180_000);
  let project: ProjectProcesses;
  let echo: Awaited<ReturnType<typeof startEchoServer>>;
  let outlet: Running;

  before(async () => {
    project = await startProject();
    echo = await startEchoServer();
    const ticket = await project.ticket(['--attribute', 'db-outlet', '--relay', 'db']);
    outlet = await project.startNode(
      'outlet',
      { 'http-server-port': 0, relay: 'db', 'tcp-outlet': { to: `127.0.0.1:${echo.port}`, allow: policy } },
      ticket,
      heartbeat,
    );
    await outlet.waitFor(ready);
  });

  after(async () => {
    await project?.close();
    await echo?.close();
  });

  async function startInlet(name: string, attributes: string[], direct: boolean): Promise<Running> {
    const ticket = await project.ticket(attributes.flatMap((attribute) => ['--attribute', attribute]));
    return project.startNode(
      name,
      { 'http-server-port': 0, 'tcp-inlet': { from: '127.0.0.1:0', via: 'db', allow: 'db-outlet', direct } },
      ticket,
      heartbeat,
    );
  }

  for (const direct of [true, false]) {
    const path = direct ? 'direct' : 'relay controller';
    const way = direct ? 'direct' : 'relayed';

    it(`admits the inlet with team=ops and env=prod on the ${way} path`, async () => {
      const name = `ops-prod-${way}`;
      const inlet = await startInlet(name, ['team=ops', 'env=prod'], direct);
      try {
        await inlet.waitFor(ready);
        const shown = await statusWhen(join(project.dir, name), (status) => status.inlets[0]?.path === path);
        assert.equal(shown.inlets[0]?.session, 'open');
        const port = await inletPort(join(project.dir, name));
        for (let i = 0; i < 20; i += 1)
          assert.equal((await roundTrip(port, Buffer.from(`${name} ${i}`))).toString(), `${name} ${i}`);
        assert.match(inlet.lines.join('\n'), /with attributes team=ops, env=prod/);
      } finally {
        assert.equal(await inlet.stop(), 0);
      }
    });

    it(`refuses the inlet with env=dev on the ${way} path, naming both in both logs`, async () => {
      const name = `ops-dev-${way}`;
      const inlet = await startInlet(name, ['team=ops', 'env=dev'], direct);
      try {
        const inletLine = await inlet.waitFor(/no outlet of the relay/, 20_000);
        assert.match(
          inletLine,
          /no outlet of the relay "db" allows this node's attribute \(team=ops, env=dev\)/,
          inlet.lines.join('\n'),
        );
        const nodeId = /enrolled as (n[0-9a-f]+)/.exec(inlet.lines.join('\n'))?.[1];
        assert.ok(nodeId, inlet.lines.join('\n'));
        const refused = new RegExp(
          String.raw`relay refused node ${nodeId} \(attribute "team=ops", "env=dev"; allow is ${quoted}\)`,
        );
        await outlet.waitFor(refused, 20_000);
        if (direct) {
          await outlet.waitFor(
            new RegExp(
              String.raw`outlet: allow ${quoted} refuses inlet node ${nodeId} ` +
                String.raw`\(attributes "team=ops", "env=dev"\): its direct path is not dialled`,
            ),
            20_000,
          );
        }
        assert.ok(!inlet.lines.some((line) => line.includes('setup completed')), 'never up');
      } finally {
        assert.equal(await inlet.stop(), 0);
      }
    });
  }
});
