/**
 * tickets.sh verify for the kinds any TCP service uses (tcp, http, command), run for real against
 * servers on loopback: each check passes when the service answers as the manifest says, and fails with
 * exit 1 and a line that says what came back when it does not. Ports come from the system (port 0) and
 * are written into the manifest, as an administrator would write theirs.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer as createTlsServer } from 'node:tls';
import { join } from 'node:path';
import { compileUseCase } from '../../src/compile/compile.ts';
import { parseManifest } from '../../src/compile/manifest.ts';
import { createSandbox, type Sandbox } from '../support/sandbox.ts';

const fakePortal = `case "$1 $2" in
  "project show") [ "$4" = ".network_domain" ] && echo tunnels.test || echo p0123456789 ;;
  "project ca") cat "$(dirname "$0")/../ca.pem" ;;
esac`;

function ticketsScript(manifest: string): string {
  const artifact = compileUseCase(parseManifest('check.yaml', manifest)).find((a) => a.path === 'tickets.sh');
  return artifact?.content ?? '';
}

const portOf = (server: Server | HttpServer) => (server.address() as AddressInfo).port;

async function listening<T extends Server | HttpServer>(server: T): Promise<T> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

const closed = (server: Server | HttpServer) => new Promise<void>((resolve) => server.close(() => resolve()));

const manifest = (port: number, verification: string, inlet = '') =>
  `usecase: check\ntitle: Check\noutlet:\n  to: db.internal.example:1\ninlet:\n  port: ${port}\n${inlet}` +
  `verification:\n${verification}`;

describe('tickets.sh verify, by kind, against real servers on loopback', function () {
  this.timeout(60_000);
  let sandbox: Sandbox;
  const servers: (Server | HttpServer)[] = [];

  beforeEach(async () => {
    sandbox = await createSandbox();
    await sandbox.stub('portal', fakePortal);
  });

  afterEach(async () => {
    await Promise.all(servers.splice(0).map(closed));
    await sandbox.remove();
  });

  /** Runs tickets.sh verify without blocking this process, whose servers must answer meanwhile. */
  async function verify(script: string, env: Record<string, string> = {}) {
    await writeFile(join(sandbox.dir, 'tickets.sh'), script, { mode: 0o755 });
    const child = spawn('bash', [join(sandbox.dir, 'tickets.sh'), 'verify'], {
      cwd: sandbox.dir,
      env: { PATH: `${sandbox.bin}:${sandbox.system}`, HOME: sandbox.root, INLET_HOST: '127.0.0.1', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [status] = (await once(child, 'close')) as [number | null];
    return { status, stdout, stderr };
  }

  /** A TCP server that answers each connection's first bytes with `reply`. */
  async function tcpServer(reply: string | undefined): Promise<Server> {
    const server = await listening(
      createServer((socket) => {
        socket.on('error', () => undefined);
        if (reply === undefined) socket.end();
        else socket.once('data', () => socket.write(reply));
      }),
    );
    servers.push(server);
    return server;
  }

  it('tcp: sends the bytes and passes on the expected reply prefix, fails on another', async () => {
    const good = await tcpServer('+PONG\r\n');
    const passed = await verify(
      ticketsScript(manifest(portOf(good), '  kind: tcp\n  send: "PING\\r\\n"\n  expect: +PONG\n')),
    );
    assert.equal(passed.status, 0, passed.stderr);
    assert.match(passed.stdout, new RegExp(`^127\\.0\\.0\\.1:${portOf(good)} answers b'\\+PONG'$`, 'm'));
    const bad = await tcpServer('-ERR unknown\r\n');
    const failed = await verify(
      ticketsScript(manifest(portOf(bad), '  kind: tcp\n  send: "PING\\r\\n"\n  expect: +PONG\n')),
    );
    assert.equal(failed.status, 1);
    assert.equal(failed.stderr, `127.0.0.1:${portOf(bad)} answered b'-ERR ', not b'+PONG'\n`);
  });

  it('tcp with nothing to send: passes while the connection stays open, fails when it is closed at once', async () => {
    const open = await listening(createServer(() => undefined));
    servers.push(open);
    const passed = await verify(ticketsScript(manifest(portOf(open), '  kind: tcp\n')));
    assert.equal(passed.status, 0, passed.stderr);
    const closing = await tcpServer(undefined);
    const failed = await verify(ticketsScript(manifest(portOf(closing), '  kind: tcp\n')));
    assert.equal(failed.status, 1);
    assert.match(failed.stderr, /^the inlet closed the connection at once: see portal node show on the inlet\n$/);
  });

  it('tcp is the default verification: a manifest without one is checked by a connection', async () => {
    const open = await listening(createServer(() => undefined));
    servers.push(open);
    const text =
      'usecase: check\ntitle: Check\noutlet:\n  to: db.internal.example:1\n' + `inlet:\n  port: ${portOf(open)}\n`;
    const passed = await verify(ticketsScript(text));
    assert.equal(passed.status, 0, passed.stderr);
    assert.match(passed.stdout, /^portal check: connecting to 127\.0\.0\.1:\d+$/m);
  });

  it('tcp over TLS: checks the inlet certificate against the project CA and the inlet name', async () => {
    const name = 'cache.p0123456789.tunnels.test';
    const made = spawnSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-days',
        '1',
        '-subj',
        `/CN=${name}`,
        '-addext',
        `subjectAltName=DNS:${name}`,
        '-addext',
        'basicConstraints=critical,CA:TRUE',
        '-keyout',
        join(sandbox.dir, 'key.pem'),
        '-out',
        join(sandbox.dir, 'ca.pem'),
      ],
      { encoding: 'utf8' },
    );
    assert.equal(made.status, 0, made.stderr);
    const [key, cert] = await Promise.all([
      readFile(join(sandbox.dir, 'key.pem')),
      readFile(join(sandbox.dir, 'ca.pem')),
    ]);
    const server = createTlsServer({ key, cert }, (socket) => socket.once('data', () => socket.write('+PONG\r\n')));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    const tls = (label: string) =>
      ticketsScript(
        manifest(
          portOf(server),
          `  kind: tcp\n  send: "PING\\r\\n"\n  expect: +PONG\n  label: ${label}\n`,
          '  tls: true\n',
        ),
      );
    const passed = await verify(tls('cache'));
    assert.equal(passed.status, 0, passed.stderr);
    assert.equal(await readFile(join(sandbox.dir, 'project-ca.pem'), 'utf8'), cert.toString());
    const wrongName = await verify(tls('other'));
    assert.equal(wrongName.status, 1, 'a certificate for another name is refused');
    assert.match(wrongName.stderr, /CERTIFICATE_VERIFY_FAILED|hostname mismatch/);
  });

  it('http: passes on the expected status of the path, fails on another and says which', async () => {
    const server = await listening(
      createHttpServer((request, response) => {
        response.statusCode = request.url === '/health.json' && request.method === 'GET' ? 200 : 503;
        response.end();
      }),
    );
    servers.push(server);
    const passed = await verify(ticketsScript(manifest(portOf(server), '  kind: http\n  path: /health.json\n')));
    assert.equal(passed.status, 0, passed.stderr);
    assert.match(passed.stdout, /^portal check: HTTP 200$/m);
    const failed = await verify(ticketsScript(manifest(portOf(server), '  kind: http\n  path: /ready\n')));
    assert.equal(failed.status, 1);
    assert.equal(
      failed.stderr,
      `portal check: the request through 127.0.0.1:${portOf(server)} answered 503, not 200\n`,
    );
  });

  it('http over TLS: asks curl for the inlet name with the project CA, connecting to the inlet', async () => {
    await sandbox.stub('curl', 'printf 200');
    await writeFile(join(sandbox.dir, 'ca.pem'), 'CA\n');
    const run = await verify(
      ticketsScript(
        manifest(8443, '  kind: http\n  method: HEAD\n  path: /v1/status\n  label: api\n', '  tls: true\n'),
      ),
    );
    assert.equal(run.status, 0, run.stderr);
    const name = 'api.p0123456789.tunnels.test';
    assert.ok(
      (await sandbox.calls()).includes(
        `curl -sS -o /dev/null -w %{http_code} --head --cacert ${join(sandbox.dir, 'project-ca.pem')} ` +
          `--connect-to ${name}:8443:127.0.0.1:8443 https://${name}:8443/v1/status`,
      ),
    );
  });

  it('command: runs its words, host and port each an argument of its own, and wants the expected output', async () => {
    await sandbox.stub('redis-cli', 'printf "%s\\n" "$@" > "$(dirname "$0")/../arguments"; echo PONG');
    const text = manifest(
      16379,
      '  kind: command\n  run: [redis-cli, -h, "{host}", -p, "{port}", PING]\n  expect: PONG\n',
    );
    const hostile = '127.0.0.1; touch INJECTED';
    const passed = await verify(ticketsScript(text), { INLET_HOST: hostile });
    assert.equal(passed.status, 0, passed.stderr);
    assert.equal(await readFile(join(sandbox.dir, 'arguments'), 'utf8'), `-h\n${hostile}\n-p\n16379\nPING\n`);
    assert.match(passed.stdout, /^portal check: PONG$/m);
    await sandbox.stub('redis-cli', 'echo "(error) NOAUTH"');
    const failed = await verify(ticketsScript(text));
    assert.equal(failed.status, 1);
    assert.equal(failed.stderr, 'portal check: the output does not hold the text the manifest expects\n');
  });

  it(
    'command with {env:NAME}: the password reaches the client from the environment when the check runs, ' +
      'and is written into no generated file',
    async () => {
      await sandbox.stub('mariadb', 'printf "%s\\n" "$@" > "$(dirname "$0")/../arguments"; echo 1');
      const password = 'hunter2-not-in-any-file';
      const text = manifest(
        13306,
        '  kind: command\n' +
          '  run: [mariadb, -h, "{host}", -P, "{port}", -u, portal, "--password={env:MARIADB_PWD}", -e, "SELECT 1"]\n' +
          '  expect: "1"\n',
      );
      const artifacts = compileUseCase(parseManifest('check.yaml', text));
      for (const artifact of artifacts) assert.ok(!artifact.content.includes(password), artifact.path);
      const guide = artifacts.find((artifact) => artifact.path === 'README.md')?.content ?? '';
      assert.ok(guide.includes(`read -rsp 'MARIADB_PWD: ' MARIADB_PWD && export MARIADB_PWD && echo\n`), guide);
      assert.ok(guide.includes(' --password="$MARIADB_PWD" '), guide);
      const missing = await verify(ticketsScript(text));
      assert.equal(missing.status, 1);
      assert.match(missing.stderr, /MARIADB_PWD: set MARIADB_PWD before \.\/tickets\.sh verify: the check reads it/);
      const passed = await verify(ticketsScript(text), { MARIADB_PWD: password });
      assert.equal(passed.status, 0, passed.stderr);
      assert.equal(
        await readFile(join(sandbox.dir, 'arguments'), 'utf8'),
        `-h\n127.0.0.1\n-P\n13306\n-u\nportal\n--password=${password}\n-e\nSELECT 1\n`,
      );
    },
  );
});
