import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { portal, portalOnPath, start, type Running } from '../support/processes.ts';
import { runProgram } from '../support/run-program.ts';
import { runUseCase, type UseCaseRun } from '../support/usecase-run.ts';
import { projectRoot } from '../support/usecases.ts';

describe('end to end: the internal HTTP API use case (a TLS inlet, the project CA, a real HTTP server)', function () {
  this.timeout(60_000);
  let run: UseCaseRun;
  let api: Running;
  /** The administrator's working directory: tickets.sh verify writes project-ca.pem there. */
  let workdir: string;
  /** The API server's document root: a file `health` answers GET /health with 200. */
  let documents: string;
  let bin: string;
  let port: number;
  let inletName: string;

  before(async () => {
    workdir = await mkdtemp(join(tmpdir(), 'portal-api-admin-'));
    documents = join(workdir, 'documents');
    bin = await portalOnPath(workdir);
    await mkdir(documents);
    await writeFile(join(documents, 'health'), 'ok\n');
    // -u: the "Serving HTTP on … port N" line reaches the pipe at once, not when a buffer fills.
    api = start('python3', ['-u', '-m', 'http.server', '--bind', '127.0.0.1', '0', '--directory', documents]);
    const serving = await api.waitFor(/^Serving HTTP on 127\.0\.0\.1 port \d+ /);
    const apiPort = Number(/port (\d+)/.exec(serving)?.[1]);
    run = await runUseCase('api');
    // As the stack does: the placeholder becomes the API's host; the test server has its own port.
    const started = await run.startPortal((to) =>
      to.replace('$API_ENDPOINT', '127.0.0.1').replace(/:8080$/, `:${apiPort}`),
    );
    assert.equal(started.compiledTarget, '$API_ENDPOINT:8080');
    port = started.inletPort;
    const show = async (path: string) => (await portal(run.adminHome, ['project', 'show', '--jq', path])).stdout.trim();
    inletName = `api.${await show('.id')}.${await show('.network_domain')}`;
  });

  after(async () => {
    await api?.stop();
    await run?.close();
    if (workdir) await rm(workdir, { recursive: true, force: true });
  });

  /** The compiled verification as the administrator runs it: enrolled PORTAL_HOME, portal on PATH, the inlet's port. */
  const compiledVerify = () =>
    runProgram('bash', [join(projectRoot, 'out/api/tickets.sh'), 'verify'], {
      cwd: workdir,
      env: { PORTAL_HOME: run.adminHome, PATH: `${bin}:${process.env.PATH}`, INLET_PORT: String(port) },
    });

  /** curl to the inlet by its TLS name (--connect-to, no DNS record), with `extra` options first. */
  const curl = (extra: readonly string[], url = `https://${inletName}:${port}/health`) =>
    runProgram('curl', [
      '-sS',
      '-o',
      '/dev/null',
      '-w',
      '%{http_code}',
      ...extra,
      '--connect-to',
      `${inletName}:${port}:localhost:${port}`,
      url,
    ]);

  it('passes the compiled verification: GET /health through the TLS inlet answers 200', async () => {
    const verify = await compiledVerify();
    assert.equal(verify.code, 0, verify.stderr);
    assert.equal(verify.stdout, 'portal api: HTTP 200\n');
    // The request reached the real server behind the outlet.
    await api.waitFor(/"GET \/health HTTP\/1\.1" 200 -$/);
  });

  it('fails the compiled verification, saying what answered, when the server lacks the path', async () => {
    await rename(join(documents, 'health'), join(documents, 'health.away'));
    try {
      const verify = await compiledVerify();
      assert.equal(verify.code, 1, verify.stdout);
      assert.equal(verify.stdout, '');
      assert.equal(verify.stderr, `portal api: the request through localhost:${port} answered 404, not 200\n`);
      await api.waitFor(/"GET \/health HTTP\/1\.1" 404 -$/);
    } finally {
      await rename(join(documents, 'health.away'), join(documents, 'health'));
    }
  });

  it("serves TLS that curl refuses without the project CA, or for a name not on the inlet's certificate", async () => {
    const withoutCa = await curl([]);
    assert.equal(withoutCa.code, 60, withoutCa.stderr);
    assert.equal(withoutCa.stdout, '000');
    assert.match(withoutCa.stderr, /^curl: \(60\) SSL certificate problem: unable to get local issuer certificate$/m);

    const projectCa = join(workdir, 'project-ca.pem');
    await writeFile(projectCa, (await portal(run.adminHome, ['project', 'ca'])).stdout);
    const withCa = await curl(['--cacert', projectCa]);
    assert.equal(withCa.code, 0, withCa.stderr);
    assert.equal(withCa.stdout, '200');

    const otherName = await curl(['--cacert', projectCa], `https://localhost:${port}/health`);
    assert.equal(otherName.code, 60, otherName.stderr);
    assert.match(otherName.stderr, /no alternative certificate subject name matches target host name 'localhost'/);
  });

  it('answers no plain HTTP on the inlet port: the handshake fails, the inlet closes with nothing said', async () => {
    const plain = await curl([], `http://127.0.0.1:${port}/health`);
    assert.equal(plain.code, 52, plain.stderr);
    assert.equal(plain.stdout, '000');
    assert.equal(plain.stderr, 'curl: (52) Empty reply from server\n');
  });
});
