import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { ready } from '../support/echo-portal.ts';
import { metricsOf, sample } from '../support/node-checks.ts';
import { portal, statusWhen, type NodeShow } from '../support/processes.ts';
import { startProject, type ProjectProcesses } from '../support/project-processes.ts';
import { roundTrip } from '../support/tcp.ts';
import { namedTarget, type NamedTarget } from '../node/named-target.ts';

const digest = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const mebibytes = 16;

/** The inlets' ports by portal name. */
const portsOf = (shown: NodeShow) =>
  Object.fromEntries(shown.inlets.map((inlet) => [inlet.name, Number(inlet.listening?.split(':').at(-1))]));

describe('end to end: one outlet node and one inlet node carrying two portals at once', function () {
  this.timeout(120_000);
  let project: ProjectProcesses;
  const targets: Record<string, NamedTarget> = {};
  const home = (name: string) => join(project.dir, name);

  before(async () => {
    project = await startProject();
    targets.warehouse = await namedTarget('warehouse');
    targets.hooks = await namedTarget('hooks');
    const outlet = await project.startNode(
      'outlet',
      {
        'http-server-port': 0,
        'tcp-outlets': {
          // As compose, Kubernetes and systemd deployments pass an endpoint: in the environment.
          warehouse: { to: '$WAREHOUSE_ENDPOINT', allow: 'pair-inlet' },
          hooks: { relay: 'webhooks', to: `127.0.0.1:${targets.hooks.port}`, allow: 'pair-inlet' },
        },
      },
      await project.ticket(['--attribute', 'pair-outlet', '--relay', 'warehouse', '--relay', 'webhooks']),
      { WAREHOUSE_ENDPOINT: `127.0.0.1:${targets.warehouse.port}` },
    );
    await outlet.waitFor(ready);
  });

  after(async () => {
    await project?.close();
    for (const target of Object.values(targets)) await target.close();
  });

  for (const direct of [true, false]) {
    const path = direct ? 'direct' : 'relayed';
    it(`carries both targets at once, ${mebibytes} MiB each intact by sha256, on the ${path} path`, async () => {
      const inlet = await project.startNode(
        `${path}-inlet`,
        {
          'http-server-port': 0,
          'tcp-inlets': {
            warehouse: { from: '127.0.0.1:0', allow: 'pair-outlet', direct },
            hooks: { from: '127.0.0.1:0', via: 'webhooks', allow: 'pair-outlet', direct },
          },
        },
        await project.ticket(['--attribute', 'pair-inlet']),
      );
      await inlet.waitFor(ready);
      const shown = await statusWhen(home(`${path}-inlet`), (status) =>
        status.inlets.every((entry) => entry.session === 'open' && (entry.path === 'direct') === direct),
      );
      const ports = portsOf(shown);
      const payloads = { warehouse: randomBytes(mebibytes << 20), hooks: randomBytes(mebibytes << 20) };
      const answers = await Promise.all([
        roundTrip(ports.warehouse as number, payloads.warehouse),
        roundTrip(ports.hooks as number, payloads.hooks),
      ]);
      assert.equal(digest(answers[0]), digest(Buffer.concat([Buffer.from('warehouse:'), payloads.warehouse])));
      assert.equal(digest(answers[1]), digest(Buffer.concat([Buffer.from('hooks:'), payloads.hooks])));

      const show = await portal(home(`${path}-inlet`), ['node', 'show']);
      assert.equal(show.code, 0, show.stderr);
      const how = direct ? 'direct' : 'relay controller';
      assert.match(
        show.stdout,
        new RegExp(
          `^ {2}inlet warehouse: 127\\.0\\.0\\.1:\\d+ via warehouse, session open \\(${how}\\), 1 connection so far`,
          'm',
        ),
      );
      assert.match(
        show.stdout,
        new RegExp(
          `^ {2}inlet hooks: 127\\.0\\.0\\.1:\\d+ via webhooks, session open \\(${how}\\), 1 connection so far`,
          'm',
        ),
      );
      const metrics = await metricsOf(home(`${path}-inlet`));
      const label = direct ? 'direct' : 'relay';
      assert.equal(sample(metrics, 'portal_connections_total', `part="inlet",path="${label}",portal="warehouse"`), 1);
      assert.equal(sample(metrics, 'portal_connections_total', `part="inlet",path="${label}",portal="hooks"`), 1);
      assert.equal(sample(metrics, 'portal_sessions_open', `part="inlet",path="${label}",portal="hooks"`), 1);
      await inlet.stop();
    });
  }

  it('shows each outlet by name, with its relay name and the target its placeholder became', async () => {
    const shown = await statusWhen(home('outlet'), (status) =>
      status.outlets.every((entry) => entry.connections_total >= 2),
    );
    assert.equal(shown.status, 'up');
    assert.deepEqual(
      shown.outlets.map((entry) => [entry.name, entry.configured_at, entry.relay, entry.to]),
      [
        ['warehouse', '/tcp-outlets/warehouse', 'warehouse', `127.0.0.1:${targets.warehouse?.port}`],
        ['hooks', '/tcp-outlets/hooks', 'webhooks', `127.0.0.1:${targets.hooks?.port}`],
      ],
    );
    assert.deepEqual(shown.identity.relays, ['warehouse', 'webhooks']);
    const metrics = await metricsOf(home('outlet'));
    assert.equal(sample(metrics, 'portal_connections_total', 'part="outlet",path="direct",portal="hooks"'), 1);
    assert.equal(sample(metrics, 'portal_connections_total', 'part="outlet",path="relay",portal="hooks"'), 1);
  });

  it('refuses an outlet whose relay name the ticket lacks, unspent, and names the ticket to issue', async () => {
    const ticket = await project.ticket(['--attribute', 'pair-outlet', '--relay', 'warehouse']);
    const config = {
      'http-server-port': 0,
      'tcp-outlets': {
        warehouse: { to: `127.0.0.1:${targets.warehouse?.port}`, allow: 'pair-inlet' },
        hooks: { relay: 'webhooks', to: `127.0.0.1:${targets.hooks?.port}`, allow: 'pair-inlet' },
      },
    };
    const refused = await portal(
      home('short-outlet'),
      ['node', 'create', '--foreground', '--configuration', JSON.stringify(config)],
      {
        ENROLLMENT_TICKET: ticket,
      },
    );
    assert.equal(refused.code, 2);
    assert.equal(
      refused.stderr.trim(),
      'portal: this ticket grants the relay "warehouse", but this configuration has the outlet "hooks" ' +
        '(relay "webhooks"); it was not used; issue the outlet node\'s ticket with --relay warehouse --relay webhooks',
    );
    const { hooks: _hooks, ...onlyWarehouse } = config['tcp-outlets'];
    const fits = await project.startNode(
      'short-outlet',
      { 'http-server-port': 0, 'tcp-outlets': onlyWarehouse },
      ticket,
    );
    await fits.waitFor(ready);
    await fits.stop();
  });
});
