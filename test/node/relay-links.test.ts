import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Backoff } from '../../src/node/backoff.ts';
import { enrollWithTicket } from '../../src/node/enrollment.ts';
import type { StoredIdentity } from '../../src/node/identity-store.ts';
import { createLogger } from '../../src/node/logger.ts';
import { maxRelayCandidates, maxRelayLinks } from '../../src/node/limits.ts';
import { RelayLinks, type RelayLink } from '../../src/node/relay-links.ts';
import { startRelayNode, type RunningRelayNode } from '../../src/relay/relay-node.ts';
import { callController } from '../../src/wire/control-channel.ts';
import type { RelayEntry } from '../../src/wire/protocol.ts';
import { until } from '../support/in-process.ts';
import { createWorld, type World } from '../support/portal-world.ts';

/** Short for the test; the bound below holds for the default (3 s) as well, scaled. */
const probeMs = 1000;
/** How long the real relay may take to be linked, behind 20 unreachable ones. */
const linkedWithinMs = 15_000;

/** A loopback port where nothing listens: bound, noted, closed. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function deadEntries(count: number): Promise<RelayEntry[]> {
  const entries: RelayEntry[] = [];
  for (let index = 0; index < count; index += 1) {
    entries.push({
      id: `r-dead${index}`,
      address: `127.0.0.1:${await deadPort()}`,
      fingerprint: randomBytes(32).toString('hex'),
    });
  }
  return entries;
}

describe('relay links: chosen by health, not by order', function () {
  this.timeout(60_000);
  let world: World;
  let node: StoredIdentity;
  let relayHome: string;
  let relay: RunningRelayNode | undefined;
  const lines: string[] = [];
  const logger = createLogger({ level: 'debug', write: (line) => lines.push(line) });
  const started: RelayLinks[] = [];

  function links(name: string, options: { probeMs?: number } = {}): RelayLinks {
    const made = new RelayLinks({
      credentials: () => ({ key: node.privateKey, certificate: node.certificate }),
      logger,
      heartbeatMs: 1000,
      backoff: () => new Backoff({ initialMs: 50, maxMs: 300 }),
      stateFile: join(world.dir, `${name}.json`),
      probeMs: options.probeMs ?? probeMs,
      requeueBackoff: () => new Backoff({ initialMs: 200, maxMs: 1000 }),
    });
    started.push(made);
    return made;
  }

  const entryOf = (running: RunningRelayNode): RelayEntry => ({
    id: running.nodeId,
    address: running.address,
    fingerprint: running.fingerprint,
  });
  const connectedTo = (set: RelayLinks, entry: RelayEntry) =>
    set.up().some((link) => link.entry.address === entry.address && link.entry.fingerprint === entry.fingerprint);

  async function startRelay(ticket?: string): Promise<RunningRelayNode> {
    return startRelayNode({
      home: relayHome,
      ...(ticket ? { ticket } : {}),
      listen: { host: '127.0.0.1', port: 0 },
      logger: createLogger({ enabled: false }),
    });
  }

  /** Watches how many channels the links hold, and which addresses ever held one, until stopped. */
  function watch(set: RelayLinks): { most: () => number; held: Set<string>; stop(): void } {
    let most = 0;
    const held = new Set<string>();
    const sample = () => {
      const all = set.all();
      most = Math.max(most, all.length);
      for (const link of all) held.add(link.entry.address);
    };
    const timer = setInterval(sample, 10);
    return { most: () => most, held, stop: () => clearInterval(timer) };
  }

  before(async () => {
    world = await createWorld();
    node = await enrollWithTicket(join(world.dir, 'node'), await world.ticket({ attribute: 'inlet' }));
    relayHome = join(world.dir, 'relay-home');
    const answer = await callController(
      world.admin.record,
      'ticket',
      { expiresInMs: 60_000, usageCount: 1, attribute: '', tls: false, relayNode: true },
      { key: world.admin.privateKey, certificate: world.admin.certificate },
    );
    relay = await startRelay(String(answer.ticket));
  });

  after(async () => {
    for (const set of started) set.stop();
    await relay?.stop();
    await world?.close();
  });

  it(
    'links a real relay announced after 20 unreachable ones, keeps it, ' +
      'and links it again after a restart on a new port',
    async () => {
      const set = links('restart');
      const watcher = watch(set);
      const downs: RelayLink[] = [];
      set.on('down', (link: RelayLink) => downs.push(link));
      try {
        const dead = await deadEntries(20);
        const first = entryOf(relay as RunningRelayNode);
        const startedAt = Date.now();
        set.update([...dead, first]);
        assert.equal(set.all().length, maxRelayLinks);
        assert.equal(set.describe().filter((relayShown) => relayShown.status === 'waiting').length, 21 - maxRelayLinks);
        await until(
          () => (connectedTo(set, first) ? true : undefined),
          'the real relay linked behind 20 unreachable ones',
          linkedWithinMs,
        );
        const linkedAfter = Date.now() - startedAt;
        assert.ok(linkedAfter >= probeMs - 100, `linked after ${linkedAfter} ms: only a rotation gives it a slot`);
        assert.deepEqual(
          set.describe().find((shown) => shown.address === first.address),
          { id: first.id, address: first.address, status: 'connected' },
        );

        // A connected relay keeps its slot while the unreachable ones rotate through the others.
        await new Promise((resolve) => setTimeout(resolve, 3 * probeMs));
        assert.ok(connectedTo(set, first), 'the real relay is still linked');
        assert.deepEqual(downs, [], 'no link that was up went down');
        assert.ok(
          dead.every((entry) => watcher.held.has(entry.address)),
          'every unreachable address had its turn in a slot',
        );

        // Restarted: the old address is dead, the relay is announced again at the end of the list.
        await (relay as RunningRelayNode).stop();
        relay = await startRelay();
        const second = entryOf(relay);
        assert.notEqual(second.address, first.address);
        await until(() => (downs.length > 0 ? true : undefined), 'the stopped relay reported down', linkedWithinMs);
        const restartedAt = Date.now();
        set.update([...dead, first, second]);
        await until(
          () => (connectedTo(set, second) ? true : undefined),
          'the restarted relay linked again',
          linkedWithinMs,
        );
        const relinkedAfter = Date.now() - restartedAt;
        assert.ok(relinkedAfter < linkedWithinMs, `relinked after ${relinkedAfter} ms`);
        assert.equal(set.describe().length, 22);
        assert.ok(watcher.most() <= maxRelayLinks, `at most ${maxRelayLinks} channels at once, saw ${watcher.most()}`);
        assert.deepEqual(JSON.parse(await readFile(join(world.dir, 'restart.json'), 'utf8')), [...dead, first, second]);
      } finally {
        watcher.stop();
      }
    },
  );

  it('links at once when a slot frees: a relay leaving the list gives its slot to one waiting', async () => {
    const set = links('freed', { probeMs: 60_000 }); // no rotation within the test: only a free slot lets it in
    const dead = await deadEntries(maxRelayLinks);
    const real = entryOf(relay as RunningRelayNode);
    set.update([...dead, real]);
    assert.equal(set.describe().at(-1)?.status, 'waiting');
    set.update([...dead.slice(1), real]);
    await until(() => (connectedTo(set, real) ? true : undefined), 'the waiting relay linked in the freed slot', 5000);
    assert.equal(set.all().length, maxRelayLinks);
  });

  it(`considers the first ${maxRelayCandidates} entries of a longer list, and remembers them`, async () => {
    const set = links('long', { probeMs: 60_000 });
    const address = `127.0.0.1:${await deadPort()}`;
    const entries = Array.from({ length: maxRelayCandidates + 44 }, (_, index) => ({
      id: `r-long${index}`,
      address,
      fingerprint: randomBytes(32).toString('hex'),
    }));
    set.update(entries);
    assert.equal(set.describe().length, maxRelayCandidates);
    assert.equal(set.all().length, maxRelayLinks);
    assert.ok(lines.some((line) => line.includes(`announces ${entries.length} relays`)));
    set.stop();
    await until(
      async () => {
        const saved = JSON.parse(await readFile(join(world.dir, 'long.json'), 'utf8')) as RelayEntry[];
        return saved.length === maxRelayCandidates ? saved : undefined;
      },
      'the remembered list',
      5000,
    );
  });
});
