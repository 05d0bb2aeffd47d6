import assert from 'node:assert/strict';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { statusAnswerMs } from '../../src/cli/limits.ts';
import { statusLimits } from '../../src/shared/limits.ts';
import { ready } from '../support/echo-portal.ts';
import { metricsOf, sample, statusFromStart } from '../support/node-checks.ts';
import { inletPort, portal, type Running } from '../support/processes.ts';
import { startProject, type ProjectProcesses } from '../support/project-processes.ts';
import { expectRefusal, roundTrip, startEchoServer } from '../support/tcp.ts';
import { joinedRegExp } from '../support/joined-regexp.ts';

/** The sum of a metric's samples over both paths. */
const overPaths = (metrics: string, name: string, part: string) =>
  sample(metrics, name, `part="${part}",path="direct"`) + sample(metrics, name, `part="${part}",path="relay"`);

/** Polls `read` until `check` holds; the last value in the failure. */
async function eventually<T>(
  read: () => Promise<T>,
  check: (value: T) => boolean,
  what: string,
  limitMs = 10_000,
): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() - started > limitMs) throw new Error(`${what}: not within ${limitMs} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A client connection that has had one byte echoed: carried end to end, and still open. */
async function openClient(port: number): Promise<Socket> {
  const socket = connect({ host: '127.0.0.1', port });
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write('x');
  await new Promise<void>((resolve) => socket.once('data', () => resolve()));
  return socket;
}

describe('end to end: node status tells the truth', function () {
  this.timeout(120_000);
  let project: ProjectProcesses;
  let echo: Awaited<ReturnType<typeof startEchoServer>>;
  let target: Server | undefined;
  let outlet: Running;
  const home = (name: string) => join(project.dir, name);
  const inletConfig = (allow: string) => ({
    'http-server-port': 0,
    'tcp-inlet': { from: '127.0.0.1:0', via: 'echo', allow },
  });

  before(async () => {
    project = await startProject();
    echo = await startEchoServer();
    const config = {
      'http-server-port': 0,
      relay: 'echo',
      'tcp-outlet': { to: `127.0.0.1:${echo.port}`, allow: 'echo-inlet' },
    };
    outlet = await project.startNode(
      'outlet',
      config,
      await project.ticket(['--attribute', 'echo-outlet', '--relay', 'echo']),
    );
    await outlet.waitFor(ready);
  });

  after(async () => {
    await project?.close();
    await echo?.close();
    await new Promise((resolve) => (target ? target.close(resolve) : resolve(undefined)));
  });

  it(
    'answers HEAD /, /show and portal node show while a local process holds every status connection, ' +
      'silent or sending its headers byte by byte',
    async () => {
      const { statusPort } = JSON.parse(await readFile(join(home('outlet'), 'node', 'runtime.json'), 'utf8')) as {
        statusPort: number;
      };
      // Before the hold: what one run of the command costs on this machine (mostly starting Node.js).
      const baselineStarted = performance.now();
      assert.equal((await portal(home('outlet'), ['node', 'show'])).code, 0);
      const baselineMs = performance.now() - baselineStarted;
      // The attacker: as many connections as the server holds, half silent, half dribbling one byte at a time.
      const held = Array.from({ length: statusLimits.connections }, (_, index) => {
        const socket = connect({ host: '127.0.0.1', port: statusPort });
        socket.on('error', () => undefined);
        if (index % 2 === 1) socket.write('GET /show HTTP/1.1\r\n');
        return socket;
      });
      const dribble = setInterval(() => held.forEach((socket, index) => index % 2 === 1 && socket.write('X')), 100);
      // Newcomers push the oldest out: the attacker reopens what it lost, as a determined one would.
      const reopen = setInterval(() => {
        for (const [index, socket] of held.entries()) {
          if (!socket.destroyed) continue;
          const again = connect({ host: '127.0.0.1', port: statusPort });
          again.on('error', () => undefined);
          held[index] = again;
        }
      }, 20);
      try {
        await Promise.all(held.map((socket) => new Promise((resolve) => socket.once('connect', resolve))));
        const timings: string[] = [];
        for (let round = 0; round < 3; round += 1) {
          let started = performance.now();
          const head = await fetch(`http://127.0.0.1:${statusPort}/`, {
            method: 'HEAD',
            signal: AbortSignal.timeout(3000),
          });
          assert.equal(head.status, 200);
          const show = await fetch(`http://127.0.0.1:${statusPort}/show`, { signal: AbortSignal.timeout(3000) });
          assert.equal(((await show.json()) as { status: string }).status, 'up');
          const probesMs = performance.now() - started;
          started = performance.now();
          const shown = await portal(home('outlet'), ['node', 'show']);
          const cliMs = performance.now() - started;
          assert.equal(shown.code, 0, shown.stderr);
          assert.match(shown.stdout, /^The node is UP/);
          timings.push(`probes ${Math.round(probesMs)} ms, node show ${Math.round(cliMs)} ms`);
          assert.ok(probesMs < 2000, `HEAD / and /show took ${Math.round(probesMs)} ms during the hold`);
          // The image's HEALTHCHECK gives node show 10 s (Dockerfile); its own wait for the node is statusAnswerMs.
          assert.ok(cliMs < 10_000, `portal node show took ${Math.round(cliMs)} ms during the hold`);
        }
        console.log(
          `      node show alone ${Math.round(baselineMs)} ms; during the hold of ${statusLimits.connections} ` +
            `connections: ${timings.join('; ')}`,
        );
      } finally {
        clearInterval(dribble);
        clearInterval(reopen);
        held.forEach((socket) => socket.destroy());
      }
    },
  );

  it('portal node show ends with one line and exit 1 when the status server accepts and never answers', async () => {
    // A status port that takes connections and says nothing: the runtime file names this test's process.
    const held = new Set<Socket>();
    const mute = createServer((socket) => {
      socket.on('error', () => undefined);
      held.add(socket);
    });
    await new Promise<void>((resolve) => mute.listen(0, '127.0.0.1', resolve));
    const muteHome = join(project.dir, 'mute-node');
    try {
      await mkdir(join(muteHome, 'node'), { recursive: true });
      const statusPort = (mute.address() as AddressInfo).port;
      await writeFile(
        join(muteHome, 'node', 'runtime.json'),
        `${JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString(), statusPort })}\n`,
      );
      const started = performance.now();
      const shown = await portal(muteHome, ['node', 'show']);
      const tookMs = performance.now() - started;
      assert.equal(shown.code, 1, `exit ${shown.code}: ${shown.stderr}`);
      assert.equal(shown.stdout, '');
      assert.match(
        shown.stderr,
        new RegExp(
          `^portal: The node is DOWN: its status server on 127\\.0\\.0\\.1:${statusPort} did not answer ` +
            `\\(no answer within ${statusAnswerMs} ms; pid ${process.pid}\\); check its log[^\n]*\n$`,
        ),
      );
      // Its own wait, plus starting Node.js on a busy machine: it ends, with its line, rather than hang or exit 13.
      assert.ok(tookMs < statusAnswerMs + 10_000, `it took ${Math.round(tookMs)} ms`);
    } finally {
      held.forEach((socket) => socket.destroy());
      await new Promise((resolve) => mute.close(resolve));
    }
  });

  it('logs every address it listens on once, at start', async () => {
    const line = await outlet.waitFor(/ listens on /);
    assert.match(
      line,
      /INFO node n[0-9a-f]+ listens on 127\.0\.0\.1:\d+ \(status: \/show, \/healthz, \/readyz, \/metrics\)$/,
    );
    assert.equal(outlet.lines.filter((logged) => logged.includes(' listens on ')).length, 1);
  });

  it(
    'an inlet whose allow does not match never says setup completed, ' + 'and node show names both attributes',
    async () => {
      const inlet = await project.startNode(
        'wrong-allow',
        inletConfig('echo-outlett'),
        await project.ticket(['--attribute', 'echo-inlet']),
      );
      try {
        const listening = await inlet.waitFor(/ listens on /);
        assert.match(
          listening,
          joinedRegExp(
            /listens on 127\.0\.0\.1:\d+ \(inlet clients\), 127\.0\.0\.1:\d+ \(direct path, /,
            /for outlets\), 127\.0\.0\.1:\d+ \(status: \/show, \/healthz, \/readyz, \/metrics\)$/,
          ),
        );
        const shown = await statusFromStart(
          home('wrong-allow'),
          (status) => status.problems.some((problem) => problem.includes('"echo-outlett"')),
          15_000,
        );
        assert.equal(shown.status, 'starting', 'never up');
        const show = await portal(home('wrong-allow'), ['node', 'show']);
        assert.equal(show.code, 1);
        assert.equal(show.stdout, '');
        assert.match(
          show.stderr,
          joinedRegExp(
            /^portal: The node is DOWN: its inlet on 127\.0\.0\.1:\d+ has no session to relay "echo" \(retrying\): /,
            /the relay refused it: no outlet of the relay "echo" that allows this node carries /,
            /the attribute "echo-outlett" this inlet allows \(they carry "echo-outlet"\) \(not up yet, /,
            /\d+ s after its start\); the node runs \(pid \d+\); its log says more about each problem\n$/,
          ),
        );
        assert.ok(
          sample(await metricsOf(home('wrong-allow')), 'portal_failures_total', 'reason="peer_refused"') >= 1,
          'the refusal is counted',
        );
        assert.ok(!inlet.lines.some((line) => line.includes('setup completed')), inlet.lines.join('\n'));
      } finally {
        assert.equal(await inlet.stop(), 0);
      }
    },
  );

  it('an outlet names the inlet it refused, with both attributes, while it serves nobody', async () => {
    const stranger = await project.startNode(
      'stranger',
      inletConfig('echo-outlet'),
      await project.ticket(['--attribute', 'stranger']),
    );
    try {
      const saw = joinedRegExp(
        /its outlet refused inlet node n[0-9a-f]+: /,
        /saw "stranger", allow is "echo-inlet" \(\d+ times?, last [^)]+, at the relay\)/,
      );
      await statusFromStart(home('outlet'), (status) => status.problems.some((problem) => saw.test(problem)), 15_000);
      const show = await portal(home('outlet'), ['node', 'show']);
      assert.equal(show.code, 1);
      assert.match(show.stderr, saw);
      assert.match(show.stderr, /the node runs \(pid \d+\)/);
      assert.doesNotMatch(show.stderr, /start it with/);
      const strangerShow = await portal(home('stranger'), ['node', 'show']);
      assert.match(
        strangerShow.stderr,
        /the relay refused it: no outlet of the relay "echo" allows this node's attribute \(stranger\)/,
      );
    } finally {
      assert.equal(await stranger.stop(), 0);
    }
  });

  it(
    'an inlet that has a session says setup completed; ' + 'open connections count in gauges that fall back to 0',
    async () => {
      const inlet = await project.startNode(
        'inlet',
        inletConfig('echo-outlet'),
        await project.ticket(['--attribute', 'echo-inlet']),
      );
      await inlet.waitFor(ready);
      const port = await inletPort(home('inlet'));
      const clients = await Promise.all([openClient(port), openClient(port), openClient(port)]);
      for (const [name, part] of [
        ['inlet', 'inlet'],
        ['outlet', 'outlet'],
      ] as const) {
        const metrics = await eventually(
          () => metricsOf(home(name)),
          (text) => overPaths(text, 'portal_connections_open', part) === 3,
          `${part} gauge at 3`,
        );
        assert.equal(overPaths(metrics, 'portal_connections_total', part), 3);
        assert.ok(overPaths(metrics, 'portal_sessions_open', part) >= 1, `${part} has a session open`);
      }
      for (const client of clients) client.destroy();
      for (const [name, part] of [
        ['inlet', 'inlet'],
        ['outlet', 'outlet'],
      ] as const) {
        const metrics = await eventually(
          () => metricsOf(home(name)),
          (text) => overPaths(text, 'portal_connections_open', part) === 0,
          `${part} gauge back at 0`,
        );
        assert.equal(overPaths(metrics, 'portal_connections_total', part), 3, 'the total stays');
      }
      const inletShow = await portal(home('inlet'), ['node', 'show']);
      assert.equal(inletShow.code, 0, inletShow.stderr);
      assert.match(
        inletShow.stdout,
        joinedRegExp(
          /^ {2}inlet: 127\.0\.0\.1:\d+ via echo, session open \((direct|relay controller)\), /m,
          /3 connections so far \(\d+ direct, \d+ relayed\), 0 open now, 0 refused$/m,
        ),
      );
      // The stranger refused a moment ago is still said, but beside a served inlet it keeps nothing down.
      const outletShow = await portal(home('outlet'), ['node', 'show']);
      assert.equal(outletShow.code, 0, outletShow.stderr);
      assert.match(
        outletShow.stdout,
        joinedRegExp(
          /^ {2}outlet: relay echo -> 127\.0\.0\.1:\d+, up, registered on 1 relay, /m,
          /1 session open \(\d direct\), 3 connections so far, 0 open now$/m,
        ),
      );
      assert.match(
        outletShow.stdout,
        /^ {2}warning: its outlet refused inlet node n[0-9a-f]+: saw "stranger", allow is "echo-inlet"/m,
      );
    },
  );

  it(
    'with the target stopped, both nodes say why and the failures are counted; ' +
      'a connection that succeeds clears it',
    async () => {
      const port = await inletPort(home('inlet'));
      await echo.close();
      for (let client = 0; client < 3; client += 1) assert.equal((await expectRefusal(port)).bytes, 0);
      const show = await portal(home('outlet'), ['node', 'show']);
      assert.equal(show.code, 1);
      assert.match(
        show.stderr,
        new RegExp(
          `^portal: The node is DOWN: the target 127\\.0\\.0\\.1:${echo.port} refused its last 3 connections ` +
            `\\(ECONNREFUSED\\), last [^;]+; the node runs`,
        ),
      );
      assert.equal(sample(await metricsOf(home('outlet')), 'portal_failures_total', 'reason="target_unreachable"'), 3);
      const inletShow = await portal(home('inlet'), ['node', 'show']);
      assert.equal(inletShow.code, 1);
      assert.match(
        inletShow.stderr,
        /the outlet refused its inlet's last 3 clients \(the outlet cannot reach its target\)/,
      );

      // The target comes back on its address: the first connection carried ends the streak on both sides.
      const back = createServer((socket) => {
        socket.on('error', () => socket.destroy());
        socket.pipe(socket);
      });
      target = back;
      await new Promise<void>((resolve) => back.listen(echo.port, '127.0.0.1', resolve));
      assert.equal((await roundTrip(port, Buffer.from('back'))).toString(), 'back');
      for (const name of ['outlet', 'inlet']) {
        const recovered = await portal(home(name), ['node', 'show']);
        assert.equal(recovered.code, 0, `${name}: ${recovered.stderr}`);
      }
    },
  );
});
