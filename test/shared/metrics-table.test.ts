/**
 * docs/operating.md's table of every metric is the registries' own: a family added without its row (or a row
 * left for a family removed, or a HELP text changed) fails here. UPDATE_GOLDEN=1 writes the table.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { embeddedRelay } from '../../src/cli/controller.ts';
import { createLogger } from '../../src/node/logger.ts';
import { createMetrics } from '../../src/node/metrics.ts';
import { startRelayNode, type RunningRelayNode } from '../../src/relay/relay-node.ts';
import { callController } from '../../src/wire/control-channel.ts';
import { metricsTable, processDefaults, tableEnd, tableStart } from '../support/metrics-table.ts';
import { createWorld, type World } from '../support/portal-world.ts';
import { projectRoot } from '../support/usecases.ts';

describe('docs/operating.md lists every metric of the node, the controller and the relays', function () {
  this.timeout(30_000);
  const embedded = new Registry();
  let world: World;
  let relay: RunningRelayNode;

  before(async () => {
    world = await createWorld({ relay: embeddedRelay(undefined, embedded) });
    const admin = world.admin;
    const answer = await callController(
      admin.record,
      'ticket',
      { expiresInMs: 60_000, usageCount: 1, attribute: '', tls: false, relayNode: true },
      { key: admin.privateKey, certificate: admin.certificate },
    );
    relay = await startRelayNode({
      home: join(world.dir, 'relay-home'),
      ticket: String(answer.ticket),
      listen: { host: '127.0.0.1', port: 0 },
      logger: createLogger({ write: () => undefined }),
    });
  });

  after(async () => {
    await relay?.stop();
    await world?.close();
  });

  it('has the table the registries make (UPDATE_GOLDEN=1 writes it)', async () => {
    const table = metricsTable({
      node: [createMetrics().registry],
      controller: [world.controller.registry, embedded],
      relay: [relay.registry],
    });
    const path = join(projectRoot, 'docs/operating.md');
    const guide = await readFile(path, 'utf8');
    const start = guide.indexOf(tableStart);
    const end = guide.indexOf(tableEnd);
    assert.ok(
      start >= 0 && end > start,
      `docs/operating.md has no metrics table between "${tableStart}" and "${tableEnd}"`,
    );
    const written = guide.slice(start, end + tableEnd.length);
    if (process.env.UPDATE_GOLDEN === '1' && written !== table) {
      await writeFile(path, guide.replace(written, table));
      return;
    }
    assert.equal(written, table, 'the docs/operating.md metrics table differs: run UPDATE_GOLDEN=1 npm run test:unit');
  });

  it("names every family of Portal's own by the conventions: portal_ prefix, _total counters, base units", () => {
    for (const registry of [createMetrics().registry, world.controller.registry, embedded, relay.registry]) {
      // prom-client's defaults keep prom-client's names (nodejs_active_resources_total is a gauge).
      for (const metric of registry.getMetricsAsArray().filter((family) => !processDefaults.test(family.name))) {
        const type = String(metric.type);
        assert.match(metric.name, /^portal_[a-z0-9_]+$/, metric.name);
        assert.ok(metric.help.length > 10, `${metric.name} has a HELP text`);
        if (type === 'counter') assert.match(metric.name, /_total$/, `${metric.name} is a counter`);
        else assert.doesNotMatch(metric.name, /_total$/, `${metric.name} is a ${type}`);
        assert.doesNotMatch(metric.name, /_(milliseconds|ms|kilobytes|kb|mb)(_|$)/, `${metric.name}: base units`);
      }
    }
  });
});
