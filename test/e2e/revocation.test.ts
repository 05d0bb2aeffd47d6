import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { adminRequest } from '../../src/cli/administrator.ts';
import { ready, startEchoPortal, timeUntilWorking, type EchoPortal } from '../support/echo-portal.ts';
import { inletPort, nodeStatus, portal, statusWhen, type Running } from '../support/processes.ts';
import { startProject, type ProjectProcesses } from '../support/project-processes.ts';
import { restartRelay, startRelay, type RelayProcess } from '../support/relay-processes.ts';
import { roundTrip } from '../support/tcp.ts';

const heartbeat = { PORTAL_HEARTBEAT: '500ms' };
/** Inlets revoked per path; each is one sample. */
const runs = Number(process.env.REVOCATION_RUNS ?? 20);
/** Inlets started at once, to keep the test short on a small machine. */
const batch = 4;

type Path = 'direct' | 'relayed';

/** A client of the inlet on `port` that keeps sending and reading; resolves once `bytes` came back. */
async function transferring(port: number, bytes = 1024 * 1024): Promise<{ socket: Socket; closed: Promise<number> }> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now())));
  const chunk = Buffer.alloc(64 * 1024, 7);
  const pump = () => {
    while (!socket.destroyed && socket.write(chunk));
  };
  socket.on('drain', pump);
  socket.once('connect', pump);
  let received = 0;
  await new Promise<void>((resolve, reject) => {
    socket.on('data', (data: Buffer) => {
      received += data.length;
      if (received >= bytes) resolve();
    });
    void closed.then(() => reject(new Error(`the client closed after ${received} bytes, before the revocation`)));
  });
  return { socket, closed };
}

/** Polls `check` every 50 ms until it holds; fails after `limitMs`. */
async function until(check: () => Promise<boolean>, limitMs = 10_000): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > limitMs) throw new Error(`not within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;

describe('end to end: revoking a member closes its connections within a second', function () {
  this.timeout(900_000);
  let project: ProjectProcesses;
  let echo: EchoPortal;
  let relay: RelayProcess;
  let seq = 0;
  const adminHome = () => join(project.dir, 'admin');

  before(async () => {
    project = await startProject();
    echo = await startEchoPortal(project, heartbeat);
    relay = await startRelay(project, 'relay-1');
  });

  after(async () => {
    await relay?.process.stop();
    await project?.close();
    await echo?.echo.close();
  });

  /** An inlet of the echo portal on `path`, its session open on that path; resolves with its home and id. */
  async function inletOn(path: Path, env: NodeJS.ProcessEnv = {}, keys: object = {}) {
    const name = `${path}-inlet-${++seq}`;
    const ticket = await project.ticket(['--attribute', 'echo-inlet']);
    const config = {
      'http-server-port': 0,
      'tcp-inlet': {
        from: '127.0.0.1:0',
        via: 'echo',
        allow: 'echo-outlet',
        ...(path === 'relayed' ? { direct: false } : {}),
      },
      ...keys,
    };
    const node = await project.startNode(name, config, ticket, { ...heartbeat, ...env });
    await node.waitFor(ready);
    const home = join(project.dir, name);
    const shown = await statusWhen(
      home,
      (status) =>
        status.inlets[0]?.session === 'open' &&
        (path === 'direct' ? status.inlets[0].path === 'direct' : status.inlets[0].path !== 'direct'),
      20_000,
    );
    return { name, config, node, home, nodeId: shown.identity.node_id, port: await inletPort(home) };
  }

  /** Revokes inlets carrying a transfer one at a time: milliseconds from `revoke` returning to the client's close. */
  async function measure(path: Path): Promise<{ afterReturn: number[]; afterCall: number[] }> {
    const afterReturn: number[] = [];
    const afterCall: number[] = [];
    while (afterReturn.length < runs) {
      const inlets = await Promise.all(
        Array.from({ length: Math.min(batch, runs - afterReturn.length) }, () => inletOn(path)),
      );
      for (const inlet of inlets) {
        const client = await transferring(inlet.port);
        const called = performance.now();
        await adminRequest(adminHome(), 'revoke', { member: inlet.nodeId, reason: `test ${path}` });
        const returned = performance.now();
        const closedAt = await Promise.race([
          client.closed,
          new Promise<number>((_, reject) =>
            setTimeout(() => reject(new Error(`${path}: the client was still connected 5 s after revoke`)), 5000),
          ),
        ]);
        // The controller pushes before it answers: the close may come before the answer does.
        afterReturn.push(Math.max(0, closedAt - returned));
        afterCall.push(closedAt - called);
        client.socket.destroy();
        await inlet.node.stop();
      }
    }
    return { afterReturn, afterCall };
  }

  for (const path of ['direct', 'relayed'] as const) {
    it(`closes a transferring client's connection within 1 s (p99) on the ${path} path`, async () => {
      const { afterReturn, afterCall } = await measure(path);
      const sorted = [...afterReturn].sort((a, b) => a - b);
      const fromCall = [...afterCall].sort((a, b) => a - b);
      const [p50, p99] = [percentile(sorted, 50), percentile(sorted, 99)];
      console.log(
        `      ${path}: ${sorted.length} revocations; client closed after revoke returned: ` +
          `p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${sorted.at(-1)?.toFixed(1)} ms; ` +
          `after revoke was called: p50 ${percentile(fromCall, 50).toFixed(1)} ms, ` +
          `p99 ${percentile(fromCall, 99).toFixed(1)} ms`,
      );
      assert.ok(p99 < 1000, `p99 ${p99} ms`);
    });
  }

  it('lists the revoked members with their reason, and refuses a malformed id (exit 2)', async () => {
    const listed = await portal(adminHome(), ['project', 'members', '--json']);
    assert.equal(listed.code, 0, listed.stderr);
    const members = listed.stdout
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as {
            kind: string;
            revoked: { reason: string } | null;
            connected: boolean;
            liveSessions: number | null;
          },
      );
    assert.equal(members.filter((member) => member.revoked?.reason === 'test direct').length, runs);
    assert.equal(members.filter((member) => member.revoked?.reason === 'test relayed').length, runs);
    assert.ok(members.some((member) => member.kind === 'relay' && member.connected));
    // The echo outlet carries the echo inlet's session and warm streams, and says so at its heartbeat.
    assert.ok(
      members.some((member) => member.kind === 'node' && member.connected && (member.liveSessions ?? 0) > 0),
      listed.stdout,
    );
    const table = await portal(adminHome(), ['project', 'members']);
    assert.match(table.stdout, /^ID +KIND +ATTRIBUTES/);
    const bad = await portal(adminHome(), ['project', 'revoke', 'nobody']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /not a member id/);
  });

  describe('with the controller stopped', () => {
    let revoked: Awaited<ReturnType<typeof inletOn>>;
    let strict: Awaited<ReturnType<typeof inletOn>>;
    let outlet: Running;

    before(async () => {
      // Both inlets run through the relay node, which carries sessions while the controller is away.
      revoked = await inletOn('relayed');
      strict = await inletOn('relayed', {}, { 'revocation-max-age': '1s' });
      assert.equal((await roundTrip(strict.port, Buffer.from('strict'))).toString(), 'strict');
      const result = await portal(adminHome(), ['project', 'revoke', revoked.nodeId, '--reason', 'stolen']);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /^Revoked /);
      // The relay node heard of it and keeps it: it would refuse the inlet.
      await until(async () =>
        (await readFile(join(relay.home, 'relay', 'revoked.json'), 'utf8').catch(() => '')).includes(revoked.nodeId),
      );
      await project.killController();
      const killedAt = Date.now();
      // The relay node starts again having lost its list (as one restored from an old disk would): only the
      // outlet's own list stands between the revoked inlet and the target now.
      await relay.process.stop();
      await rm(join(relay.home, 'relay', 'revoked.json'));
      relay = await restartRelay(relay);
      // The outlet starts again with the controller away: it has only the list it kept.
      await echo.outlet.stop();
      outlet = await project.startNode('outlet', echo.outletConfig, undefined, heartbeat);
      // The revoked inlet may have learnt it and stopped before the controller went; started again with
      // the controller away, it cannot learn it and tries the outlet through the relay, as a thief of its
      // key would.
      await revoked.node.stop();
      const again = await project.startNode(revoked.name, revoked.config, undefined, heartbeat);
      const revokedListening = await again.waitFor(/listens on 127\.0\.0\.1:\d+ \(inlet clients\)/);
      revoked = {
        ...revoked,
        node: again,
        port: Number(/127\.0\.0\.1:(\d+) \(inlet clients\)/.exec(revokedListening)?.[1]),
      };
      await strict.node.stop();
      // The condition under test is time passing: the strict inlet's list is more than 1 s old when it starts.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 1500 - (Date.now() - killedAt))));
      const node = await project.startNode(strict.name, strict.config, undefined, heartbeat);
      const listening = await node.waitFor(/listens on 127\.0\.0\.1:\d+ \(inlet clients\)/);
      strict = { ...strict, node, port: Number(/127\.0\.0\.1:(\d+) \(inlet clients\)/.exec(listening)?.[1]) };
    });

    it('a restarted outlet still refuses the revoked inlet, which the relay let through', async () => {
      await outlet.waitFor(/registered on relay/, 20_000);
      await outlet.waitFor(/refused an inlet: refused a peer that was revoked/, 20_000);
      const answer = await roundTrip(revoked.port, Buffer.from('let me in')).catch(() => Buffer.alloc(0));
      assert.equal(answer.length, 0, 'nothing reaches the target');
      const shown = await nodeStatus(join(project.dir, 'outlet'));
      assert.equal(shown.status, 'up');
    });

    it('revocation-max-age: an inlet with an older list opens no sessions until the controller is back', async () => {
      await strict.node.waitFor(/revoked members is older than revocation-max-age/, 20_000);
      const answer = await roundTrip(strict.port, Buffer.from('stale')).catch(() => Buffer.alloc(0));
      assert.equal(answer.length, 0);
      await project.startController();
      const took = await timeUntilWorking(strict.port, 20_000);
      console.log(`      the strict inlet carried again ${took} ms after the controller came back`);
    });

    it("the trail holds the outlet's refusals of the revoked inlet, as revoked", async () => {
      const outletId = (await nodeStatus(join(project.dir, 'outlet'))).identity.node_id;
      await until(async () => {
        const result = await portal(adminHome(), ['project', 'audit', '--json', '--event', 'refused']);
        assert.equal(result.code, 0, result.stderr);
        return result.stdout
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as { seen_by: string; members: string[]; details: Record<string, unknown> })
          .some(
            (record) =>
              record.seen_by === outletId &&
              record.members.includes(revoked.nodeId) &&
              record.details.reason === 'revoked' &&
              String(record.details.detail).includes(revoked.nodeId),
          );
      }, 20_000);
    });
  });
});
