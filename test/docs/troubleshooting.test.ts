/**
 * docs/troubleshooting.md quotes what Portal prints: each row's message is checked against the line the
 * real code makes (its own function, a real socket, a real controller in this process), formatted as the
 * CLI prints it. A row no code produces, or a message no row quotes, fails here; `…` in a quote stands
 * for any text.
 */
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { join } from 'node:path';
import { notRunningFailure, verdict } from '../../src/cli/node-show.ts';
import { loopbackWarning } from '../../src/cli/project.ts';
import { reportFailure } from '../../src/cli/report.ts';
import { parseNodeConfig } from '../../src/node/config.ts';
import { enrollWithTicket } from '../../src/node/enrollment.ts';
import { claimHome } from '../../src/node/home-claim.ts';
import { loadIdentity } from '../../src/node/identity-store.ts';
import { bindInletListener } from '../../src/node/inlet-listener.ts';
import { createLogger } from '../../src/node/logger.ts';
import { describeTargetFailure } from '../../src/node/outlet-targets.ts';
import { refusedHint } from '../../src/node/reload.ts';
import { revokedLine } from '../../src/node/self-revocation.ts';
import {
  assessNode,
  type InletShow,
  type NodeFacts,
  type NodeShowRunning,
  type OutletShow,
} from '../../src/node/show.ts';
import { identityMisfit } from '../../src/node/ticket-fit.ts';
import { openControllerStore } from '../../src/controller/store/controller-store.ts';
import { writeMovedMarker } from '../../src/controller/store/moved-marker.ts';
import { holderFile } from '../../src/controller/store/store-holder.ts';
import { noOutletMessage } from '../../src/relay/registration-refusals.ts';
import { processStart } from '../../src/shared/process-state.ts';
import { startStatusServer } from '../../src/shared/status-server.ts';
import { versionHint, versionMismatch } from '../../src/wire/protocol.ts';
import { decodeTicket, encodeTicket } from '../../src/wire/ticket.ts';
import { createWorld, type World } from '../support/portal-world.ts';
import { inletUp, msBeforeNow as at, outletUp, showNow as now } from '../support/node-show-fixtures.ts';
import { projectRoot } from '../support/usecases.ts';

const document = join(projectRoot, 'docs/troubleshooting.md');

/** The line the CLI prints for `error`, as main() does. */
async function printed(failing: () => unknown): Promise<string> {
  try {
    await failing();
  } catch (error) {
    return reportFailure(error, false).lines.join('\n');
  }
  throw new Error('it did not fail');
}

const outlet: OutletShow = { ...outletUp, to: '127.0.0.1:5432' };
const inlet: InletShow = { ...inletUp, from: '127.0.0.1:15432', session: 'none', path: null, warm_streams: 0 };

/** What `node show` prints for a running node of these parts and facts. */
function shown(parts: { outlets?: OutletShow[]; inlets?: InletShow[] }, more: Partial<NodeFacts> = {}): string {
  const assessment = assessNode({
    now,
    validUntil: now + 3_600_000,
    renewalError: undefined,
    controller: '127.0.0.1:4000',
    controllerConnected: true,
    relays: [{ id: 'controller', address: '127.0.0.1:4000', status: 'connected' }],
    outlets: parts.outlets ?? [],
    inlets: parts.inlets ?? [],
    ...more,
  });
  const portals = assessment.portals;
  const status = portals.every((portal) => portal.state === 'down')
    ? 'down'
    : portals.some((portal) => portal.state === 'down')
      ? 'degraded'
      : 'up';
  const node = { name: 'n1', status, problems: assessment.problems, portals, uptime_seconds: 60 };
  const failure = verdict(node as unknown as NodeShowRunning, 4242, false);
  assert.ok(failure, 'node show fails');
  return reportFailure(failure, false).lines.join('\n');
}

const inletRefusal = (by: 'this node' | 'the peer', saw: string, allow: string) =>
  ({
    ...inlet,
    session_failure: {
      reason: 'peer_refused',
      message: 'refused',
      refusal: { by, told_by: 'verdict', peer: null, saw: [saw], allow },
      at: at(1000),
    },
  }) as unknown as InletShow;

const occupied = async (): Promise<Server> => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
};

describe('docs/troubleshooting.md quotes what Portal prints', function () {
  this.timeout(60_000);
  let world: World;
  const opened: { close(): unknown }[] = [];

  before(async () => {
    world = await createWorld();
  });

  after(async () => {
    for (const server of opened) server.close();
    await world?.close();
  });

  /** Each message the table explains, made by the code that prints it. */
  async function messages(): Promise<Record<string, string>> {
    const taken = await occupied();
    opened.push(taken);
    const port = (taken.address() as AddressInfo).port;
    const used = await world.ticket({ attribute: 'db-inlet' });
    await enrollWithTicket(join(world.dir, 'first'), used);
    const expired = await world.ticket({ attribute: 'late', expiresInMs: 1 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const outletTicket = await world.ticket({ attribute: 'db-outlet', relay: 'db' });
    const enrolled = await enrollWithTicket(join(world.dir, 'outlet'), outletTicket);
    const closed = await occupied();
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const loopbackTicket = encodeTicket({ ...decodeTicket(used), controller: `127.0.0.1:${closedPort}` });
    const inletOnly = parseNodeConfig(
      'node.yaml',
      'tcp-inlet:\n  from: 127.0.0.1:15432\n  via: db\n  allow: db-outlet\n',
    );
    const otherRelay = parseNodeConfig(
      'node.yaml',
      'relay: cache\ntcp-outlet:\n  to: 127.0.0.1:6379\n  allow: db-inlet\n',
    );
    const grants = { attributes: ['db-outlet'], relays: ['db'], tls: false, relayNode: false };
    const home = join(world.dir, 'running');
    // The runtime file of a node that runs: this test's parent process stands for it.
    await mkdir(join(home, 'node'), { recursive: true });
    const holder = { pid: process.ppid, token: 'holder', startedAt: '2026-11-21T10:00:00.000Z', statusPort: 23345 };
    await writeFile(join(home, 'node', 'runtime.json'), JSON.stringify(holder));
    const logged: string[] = [];
    createLogger({ write: (line) => logged.push(line.trimEnd()) }).error(
      revokedLine(enrolled.record, 'revoked by n0 at 2026-11-21T10:00:00.000Z'),
    );
    const altNameMismatch = Object.assign(new Error('Hostname/IP does not match'), {
      code: 'ERR_TLS_CERT_ALTNAME_INVALID',
    });
    const refusedTarget = { count: 3, reason: 'ECONNREFUSED', last_at: at(4000) };
    return {
      'node show, no node': reportFailure(notRunningFailure('/var/lib/portal/node'), false).lines.join('\n'),
      "node show, the inlet's allow": shown({ inlets: [inletRefusal('this node', 'db-outlet', 'db-outlett')] }),
      "node show, the outlet's allow": shown({ inlets: [inletRefusal('the peer', 'db-inlet', 'db-inlett')] }),
      'node show, no outlet on the relay': shown({
        inlets: [
          {
            ...inlet,
            via: 'dbb',
            session_failure: { reason: 'no_outlet', message: noOutletMessage('dbb'), refusal: null, at: at(0) },
          } as unknown as InletShow,
        ],
      }),
      'node show, the target refuses': shown({ outlets: [{ ...outlet, target_failures: refusedTarget }] }),
      'node show, one portal of two': shown({
        outlets: [
          { ...outlet, name: 'dead', configured_at: '/tcp-outlets/dead', target_failures: refusedTarget },
          { ...outlet, name: 'good', configured_at: '/tcp-outlets/good', sessions: 1 },
        ],
      }),
      'the revoked node logs': logged.join('\n'),
      'node show, revoked': reportFailure(
        verdict(
          { name: 'n1', status: 'revoked', problems: [revokedLine(enrolled.record, 'why')], portals: [] } as never,
          4242,
          false,
        ),
        false,
      ).lines.join('\n'),
      'the controller is out of reach': await printed(() => enrollWithTicket(join(world.dir, 'far'), loopbackTicket)),
      'a loopback ticket': loopbackWarning(loopbackTicket) ?? '',
      'a used ticket': await printed(() => enrollWithTicket(join(world.dir, 'second'), used)),
      'an expired ticket': await printed(() => enrollWithTicket(join(world.dir, 'late'), expired)),
      "an outlet's ticket for an inlet": reportFailure(
        identityMisfit(inletOnly, grants, { kind: 'ticket' }),
        false,
      ).lines.join('\n'),
      'an enrolled home': reportFailure(
        identityMisfit(otherRelay, grants, { kind: 'enrolled', nodeId: 'n1', projectId: 'p1', ticketGiven: true }),
        false,
      ).lines.join('\n'),
      'a second node on a home': await printed(() =>
        claimHome({ file: join(home, 'node', 'runtime.json'), what: 'a node', home }),
      ),
      'an unset placeholder': await printed(() =>
        parseNodeConfig(
          'node.yaml',
          'tcp-outlets:\n  db:\n    to: $POSTGRES_ENDPOINT:5432\n    relay: db\n    allow: db-inlet\n',
          {
            environment: {},
          },
        ),
      ),
      'a refused reload': await printed(() =>
        parseNodeConfig('node.yaml', 'tcp-inlet:\n  from: 127.0.0.1:99999\n  via: db\n  allow: db-outlet\n', {
          hint: refusedHint,
        }),
      ),
      'the status port is taken': await printed(() =>
        startStatusServer({ host: '127.0.0.1', port, routes: {}, hint: 'set http-server-port' }),
      ),
      'the inlet port is taken': await printed(() => bindInletListener(`127.0.0.1:${port}`)),
      'an expired certificate': shown(
        { inlets: [{ ...inlet, session: 'open', path: 'relay controller' } as unknown as InletShow] },
        { validUntil: now - 60_000, renewalError: 'cannot reach the controller at 127.0.0.1:4000 (ECONNREFUSED)' },
      ),
      'mixed versions': `${versionMismatch('control', 3, 2)}; ${versionHint}`,
      "an outlet's TLS target": `outlet: ${describeTargetFailure('db.internal:5432', altNameMismatch)}`,
      'a sealing key file gone': await printed(() =>
        loadIdentity(join(world.dir, 'outlet'), { sealingKeyFile: join(world.dir, 'gone.key') }),
      ),
      'a store that moved': await printed(async () => {
        const store = join(world.dir, 'moved.db');
        const to = 'postgres://portal@db.example.net:5432/portal';
        await writeMovedMarker(store, { to, movedAt: '2030-01-02T03:04:05.000Z', fingerprint: 'ab' });
        return openControllerStore(`sqlite:${store}`);
      }),
      'a store another controller holds': await printed(async () => {
        const store = join(world.dir, 'held.db');
        const holder = { pid: process.ppid, processStart: processStart(process.ppid), startedAt: 'then', token: 'x' };
        await writeFile(holderFile(store), JSON.stringify(holder));
        return openControllerStore(`sqlite:${store}`);
      }),
    };
  }

  it('has a row for each message, and each row quotes a message Portal prints', async () => {
    const made = await messages();
    const text = await readFile(document, 'utf8');
    const rows = text
      .split('\n')
      .filter((line) => line.startsWith('| `') || line.startsWith('| …'))
      .map((line) => line.slice(2, line.indexOf(' | ')));
    assert.ok(rows.length > 10, `${document} has its table`);
    const unmatched: string[] = [];
    const quoted = new Set<string>();
    for (const row of rows) {
      const quotes = [...row.matchAll(/`([^`]+)`/g)].map((match) => match[1] as string);
      for (const quote of quotes) {
        const pattern = new RegExp(
          quote
            .split('…')
            .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
            .join('.*?'),
          's',
        );
        const found = Object.entries(made).filter(([, message]) => pattern.test(message));
        if (found.length === 0) unmatched.push(quote);
        for (const [name] of found) quoted.add(name);
      }
    }
    if (process.env.PORTAL_TEST_LOG === '1') await writeFile('/dev/stderr', JSON.stringify(made, null, 2));
    assert.deepEqual(unmatched, [], 'every quote is what Portal prints (PORTAL_TEST_LOG=1 shows the messages)');
    assert.deepEqual(
      Object.keys(made).filter((name) => !quoted.has(name)),
      [],
      'every message has its row',
    );
  });
});
