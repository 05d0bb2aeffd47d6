import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { onFreePortsInCommand, resolvedNodeService, type ComposeService } from '../support/compose-run.ts';
import {
  imageConfig,
  layOutImage,
  readDockerfile,
  type Container,
  type ImageConfig,
  type Stage,
} from '../support/dockerfile.ts';
import { invokeModel, startRuntime } from '../support/model-runtime.ts';
import { startPostgres, type Postgres } from '../support/postgres.ts';
import { portal, start, type Running } from '../support/processes.ts';
import { runUseCase, type UseCaseRun } from '../support/usecase-run.ts';
import { projectRoot } from '../support/usecases.ts';

const execFileAsync = promisify(execFile);

interface ContainerInlet {
  readonly service: ComposeService;
  readonly node: Running;
  /** `docker exec <container> …`: a command line of the running container, its user and environment. */
  exec(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  stop(): Promise<number | null>;
}

/**
 * The `node` service of the compiled compose file, as the container would run it: docker-compose
 * resolves the command and environment with the ticket from inlet.ticket, the image's entrypoint
 * runs that command with the image's environment, user and volume. Only the fixed ports become 0.
 */
async function startContainerInlet(
  usecase: string,
  run: UseCaseRun,
  container: Container,
  upLine?: string,
): Promise<ContainerInlet> {
  const service = await resolvedNodeService(usecase, run.dir, upLine);
  for (const mount of service.volumes ?? []) {
    // docker-compose config writes the short form source:target[:mode].
    const target = mount.split(':')[1] ?? '';
    assert.ok(target in container.volumes, `the compose file mounts ${target}, one of the image's volumes`);
  }
  // Paths on the image's volumes, as the host sees them.
  const environment = Object.fromEntries(
    Object.entries({ ...container.env, ...service.environment }).map(([name, value]) => [
      name,
      container.translate(value),
    ]),
  );
  const [program, args] = container.commandLine(onFreePortsInCommand(service.command));
  const node = start(program, args, {
    env: environment,
    isolated: true,
    cwd: container.volume,
    ...(container.user ? { user: container.user } : {}),
  });
  try {
    await node.waitFor(/Portal node setup completed successfully/, 30_000);
  } catch (error) {
    await node.stop();
    throw error;
  }
  return {
    service,
    node,
    async exec(execArgs) {
      const [execProgram, rest] =
        execArgs[0] === 'portal'
          ? container.commandLine(execArgs.slice(1))
          : [execArgs[0] as string, execArgs.slice(1)];
      try {
        const { stdout, stderr } = await execFileAsync(execProgram, rest, {
          env: environment,
          cwd: container.volume,
          ...container.user,
        });
        return { code: 0, stdout, stderr };
      } catch (error) {
        const failed = error as { code: number; stdout: string; stderr: string };
        return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
      }
    },
    stop: () => node.stop(),
  };
}

/** Files under `dir` whose contents hold `secret`. */
async function filesHolding(dir: string, secret: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const found: string[] = [];
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    if ((await readFile(path)).includes(secret)) found.push(path);
  }
  return found;
}

/** The inlet's listening address from `portal node show` ("  inlet: 127.0.0.1:PORT via …"). */
function listeningPort(shown: string): number {
  const port = /^ {2}inlet: [^\s]+:(\d+) via /m.exec(shown)?.[1];
  assert.ok(port, `node show names the inlet's address:\n${shown}`);
  return Number(port);
}

describe('container inlets: the compose files run as written (spec 2.5)', function () {
  this.timeout(120_000);
  let stages: Stage[];
  let image: ImageConfig;

  before(async () => {
    stages = await readDockerfile();
    image = imageConfig(stages);
  });

  it('the Dockerfile builds portal-node from the bundle and koffi, non-root, with its state on volumes', async () => {
    const [build, final] = stages;
    assert.equal(stages.length, 2);
    assert.equal(build?.name, 'build');
    assert.ok(
      build?.instructions.some(
        (instruction) => instruction.keyword === 'RUN' && instruction.text === 'node scripts/build.mjs',
      ),
      'the build stage bundles with esbuild',
    );
    assert.ok(
      build?.instructions.some(
        (instruction) => instruction.keyword === 'RUN' && /^npm ci --ignore-scripts\b/.test(instruction.text),
      ),
      'no install script runs: no native module is built',
    );
    const runs = build?.instructions.filter((instruction) => instruction.keyword === 'RUN').map(({ text }) => text);
    assert.ok(
      (runs ?? []).indexOf('node scripts/patch-postgres-driver.mjs') >
        (runs ?? []).findIndex((run) => run.startsWith('npm ci')) &&
        (runs ?? []).indexOf('node scripts/patch-postgres-driver.mjs') < (runs ?? []).indexOf('node scripts/build.mjs'),
      'the PostgreSQL driver is guarded after the install and before the bundle',
    );
    assert.equal(final?.from, build?.from, 'the runtime stage runs the Node.js the bundle was built with');
    assert.match(final?.from ?? '', /^node:24-/, 'a Node.js that still receives fixes');
    assert.deepEqual(
      image.copies,
      [
        { from: 'build', source: '/src/dist', destination: '/usr/local/lib/portal' },
        { from: 'build', source: '/src/node_modules/koffi', destination: '/usr/local/lib/portal/node_modules/koffi' },
        {
          from: 'build',
          source: '/src/node_modules/@koromix',
          destination: '/usr/local/lib/portal/node_modules/@koromix',
        },
      ],
      'the bundle (portal.mjs and its chunks), and koffi beside it: no other node_modules',
    );
    assert.deepEqual(image.entrypoint, ['portal']);
    assert.ok(Number.isInteger(image.user.uid) && image.user.uid > 0, `a numeric non-root user, not ${image.user.uid}`);
    assert.deepEqual(
      image.volumes,
      [image.env.PORTAL_HOME, dirname(image.env.PORTAL_SEALING_KEY_FILE ?? '')],
      'PORTAL_HOME is a volume, and the sealing key has a volume of its own',
    );
    assert.ok(
      final?.instructions.some(
        (instruction) =>
          instruction.keyword === 'RUN' &&
          /chown 10001:10001 \/var\/lib\/portal \/var\/lib\/portal\/keys \/var\/lib\/portal-keys/.test(
            instruction.text,
          ) &&
          /chmod 700 \/var\/lib\/portal \/var\/lib\/portal\/keys \/var\/lib\/portal-keys/.test(instruction.text),
      ),
      "both volumes, and the relay keys directory within the first, belong to the image's user, 0700",
    );
    assert.deepEqual(image.healthcheck, ['portal', 'node', 'show', '--ready']);
    const ignored = (await readFile(join(projectRoot, '.dockerignore'), 'utf8')).split('\n');
    for (const path of ['node_modules', 'dist', '.git'])
      assert.ok(ignored.includes(path), `.dockerignore keeps ${path} out of the build context`);
    // Every file the build stage copies is in the build context.
    const sources = (build?.instructions ?? [])
      .filter((instruction) => instruction.keyword === 'COPY')
      .flatMap((instruction) => instruction.text.split(/\s+/).slice(0, -1));
    assert.deepEqual(sources, [
      'package.json',
      'package-lock.json',
      'scripts/patch-postgres-driver.mjs',
      'tsconfig.json',
      'scripts/build.mjs',
      'schemas',
      'src',
    ]);
    for (const source of sources) {
      assert.ok(existsSync(join(projectRoot, source)), `${source} exists`);
      assert.ok(
        !ignored.some((pattern) => pattern === source || source.startsWith(`${pattern}/`)),
        `${source} is not ignored`,
      );
    }
  });

  it("the image's bundle finds koffi beside it and reaches glibc's malloc_trim through it", async () => {
    const container = await layOutImage(image);
    try {
      const bundle = join(container.root, 'usr/local/lib/portal/portal.mjs');
      const probe =
        "const koffi = require('node:module').createRequire(process.argv[1])('koffi');" +
        "koffi.load('libc.so.6').func('int malloc_trim(size_t pad)').async(0, (error, pages) => " +
        'console.log(error ? `failed: ${error}` : `trimmed: ${pages}`));';
      const { stdout } = await promisify(execFile)(process.execPath, ['-e', probe, bundle], { cwd: container.root });
      assert.match(stdout, /^trimmed: [01]$/m);
    } finally {
      await container.remove();
    }
  });

  describe('with a live outlet', () => {
    let container: Container;

    beforeEach(async () => {
      container = await layOutImage(image);
    });

    afterEach(async () => {
      await container?.remove();
    });

    describe('PostgreSQL and the data warehouse: psql through the inlet on the host network', () => {
      let database: Postgres;

      before(async () => {
        database = await startPostgres();
      });

      after(async () => {
        await database?.stop();
      });

      for (const [usecase, placeholder] of [
        ['postgres', /^\$POSTGRES_ENDPOINT:5432$/],
        ['warehouse', /^\$REDSHIFT_ENDPOINT$/],
      ] as const) {
        it(
          `${usecase}: the node comes up from the ticket in inlet.ticket, node show reports UP, ` +
            'psql reaches the database',
          async () => {
            const run = await runUseCase(usecase);
            let inlet: ContainerInlet | undefined;
            try {
              const { compiledTarget } = await run.startOutlet(() => `127.0.0.1:${database.port}`);
              assert.match(compiledTarget, placeholder);
              inlet = await startContainerInlet(usecase, run, container);
              assert.equal(inlet.service.network_mode, 'host');
              assert.equal(inlet.service.container_name, `${usecase}-inlet`);
              assert.equal(
                inlet.service.environment.ENROLLMENT_TICKET,
                run.tickets.inlet,
                'docker-compose put the ticket from inlet.ticket into the environment',
              );
              assert.ok(!inlet.service.command.join('\n').includes(run.tickets.inlet), 'and not into the command');
              const commandLine = await readFile(`/proc/${inlet.node.child.pid}/cmdline`, 'utf8');
              assert.ok(
                commandLine.includes('--foreground') && !commandLine.includes(run.tickets.inlet),
                'the running node shows no ticket in ps',
              );

              const shown = await inlet.exec(['portal', 'node', 'show']);
              assert.equal(shown.code, 0, shown.stderr);
              assert.equal(shown.stdout.split('\n')[0], 'The node is UP');
              const healthcheck = await inlet.exec(image.healthcheck);
              assert.equal(healthcheck.code, 0, 'the image health check passes');
              if (container.user)
                assert.equal(
                  (await stat(join(container.volume, 'node'))).uid,
                  image.user.uid,
                  "the node's state belongs to the image's user",
                );
              const keyFile = container.translate(inlet.service.environment.PORTAL_SEALING_KEY_FILE ?? '');
              assert.ok(keyFile.startsWith(container.volumes['/var/lib/portal-keys'] ?? '/nowhere'), keyFile);
              assert.equal((await stat(keyFile)).mode & 0o777, 0o600, 'the node created its sealing key, private');
              const key = (await readFile(keyFile, 'utf8')).trim();
              assert.deepEqual(
                await filesHolding(container.volume, key),
                [],
                'the state volume holds no copy of the key',
              );

              const { stdout } = await execFileAsync(
                'psql',
                ['-tA', '-c', `SELECT 'through the ${usecase} container inlet', current_user`],
                {
                  env: database.clientEnvironment(listeningPort(shown.stdout)),
                },
              );
              assert.equal(stdout.trim(), `through the ${usecase} container inlet|${database.user}`);
              assert.equal(await inlet.stop(), 0, 'docker stop (SIGTERM) ends the node cleanly');

              const after = await inlet.exec(['portal', 'node', 'show']);
              assert.equal(after.code, 1);
              assert.match(after.stderr, /The node is DOWN/);
            } finally {
              await inlet?.stop();
              await run.close();
            }
          },
        );
      }

      it("postgres: docs/install.md's container block, run as written, brings the inlet UP", async () => {
        const document = await readFile(join(projectRoot, 'docs/install.md'), 'utf8');
        const block = /```sh\n([\s\S]*?)```/.exec(document.slice(document.indexOf('## The container image')))?.[1];
        const lines = (block ?? '')
          .split('\n')
          .map((line) => line.replace(/\s+# .*$/, '').trim())
          .filter((line) => line !== '');
        assert.equal(lines.length, 4, lines.join('\n'));
        const [build, cd, up, exec] = lines as [string, string, string, string];
        // docker build: the image is laid out from this repository's Dockerfile, by the tag compose runs.
        const tag = /^docker build -t (\S+) \.$/.exec(build)?.[1];
        assert.ok(tag, build);
        const folder = /^cd (\S+)$/.exec(cd)?.[1];
        assert.equal(folder, 'out/postgres', 'the compiled postgres use case, whose compose file this test resolves');
        const run = await runUseCase('postgres');
        let inlet: ContainerInlet | undefined;
        try {
          await run.startOutlet(() => `127.0.0.1:${database.port}`);
          inlet = await startContainerInlet('postgres', run, container, up);
          assert.equal(inlet.service.image, tag, 'the compose file runs the image the block builds');
          assert.equal(inlet.service.environment.ENROLLMENT_TICKET, run.tickets.inlet, 'the ticket of inlet.ticket');
          const [docker, verb, name, ...command] = exec.split(' ');
          assert.deepEqual([docker, verb, name], ['docker', 'exec', inlet.service.container_name]);
          const shown = await inlet.exec(command);
          assert.equal(shown.code, 0, shown.stderr);
          assert.equal(shown.stdout.split('\n')[0], 'The node is UP');
        } finally {
          await inlet?.stop();
          await run.close();
        }
      });

      it(
        'postgres: a replaced container on the same volume ' + 'comes up without the consumed ticket being used again',
        async () => {
          const run = await runUseCase('postgres');
          const inlets: ContainerInlet[] = [];
          try {
            await run.startOutlet(() => `127.0.0.1:${database.port}`);
            const first = await startContainerInlet('postgres', run, container);
            inlets.push(first);
            assert.ok(first.node.lines.some((line) => line.includes('enrolled as')));
            await first.stop();
            // The same command line, ticket included: the ticket was used once and would be refused now.
            const replaced = await startContainerInlet('postgres', run, container);
            inlets.push(replaced);
            assert.ok(
              replaced.node.lines.some(
                (line) =>
                  line.includes('already enrolled as') &&
                  line.includes('the enrollment ticket is not needed and was not used'),
              ),
              replaced.node.lines.join('\n'),
            );
            const shown = await replaced.exec(['portal', 'node', 'show']);
            assert.equal(shown.stdout.split('\n')[0], 'The node is UP');
            await replaced.stop();

            // The state volume alone, as a copy or backup of it would be: the identity does not open.
            const keyFile = container.translate(replaced.service.environment.PORTAL_SEALING_KEY_FILE ?? '');
            await rm(keyFile);
            const service = replaced.service;
            const environment = Object.fromEntries(
              Object.entries({ ...container.env, ...service.environment }).map(([name, value]) => [
                name,
                container.translate(value),
              ]),
            );
            const [program, args] = container.commandLine(onFreePortsInCommand(service.command));
            const alone = start(program, args, {
              env: environment,
              isolated: true,
              cwd: container.volume,
              ...(container.user ? { user: container.user } : {}),
            });
            const code = await alone.ended();
            assert.equal(code, 1, alone.lines.join('\n'));
            assert.ok(
              alone.lines.some(
                (line) => line.includes('is sealed, but its sealing key file') && line.includes(keyFile),
              ),
              alone.lines.join('\n'),
            );
            assert.equal(existsSync(keyFile), false, 'no new key was made for an existing identity');
          } finally {
            for (const inlet of inlets) await inlet.stop();
            await run.close();
          }
        },
      );
    });

    it(
      'bedrock: the TLS inlet (bridge network, debug log) ' + 'serves the model runtime to a real AWS SDK client',
      async () => {
        const runtime = await startRuntime();
        let run: UseCaseRun | undefined;
        let inlet: ContainerInlet | undefined;
        try {
          run = await runUseCase('bedrock');
          const trust = join(run.dir, 'runtime-ca.pem');
          await writeFile(trust, runtime.certificate);
          await run.startOutlet(() => `localhost:${runtime.port}`, { NODE_EXTRA_CA_CERTS: trust });
          inlet = await startContainerInlet('bedrock', run, container);
          assert.equal(inlet.service.network_mode, 'bridge');
          assert.equal(inlet.service.environment.NODE_LOG_LEVEL, 'debug');
          const shown = await inlet.exec(['portal', 'node', 'show']);
          assert.equal(shown.stdout.split('\n')[0], 'The node is UP', shown.stderr);

          const projectId = (await portal(run.adminHome, ['project', 'show', '--jq', '.id'])).stdout.trim();
          const networkDomain = (
            await portal(run.adminHome, ['project', 'show', '--jq', '.network_domain'])
          ).stdout.trim();
          const ca = (await portal(run.adminHome, ['project', 'ca'])).stdout;
          const response = await invokeModel('Through a container inlet.', {
            inletPort: listeningPort(shown.stdout),
            name: `bedrock.${projectId}.${networkDomain}`,
            ca,
          });
          const answer = JSON.parse(new TextDecoder().decode(response.body)) as { results: { outputText: string }[] };
          assert.equal(answer.results[0]?.outputText, 'Through a container inlet.');
          assert.equal(runtime.seen.at(-1)?.modelId, 'amazon.titan-text-express-v1');
        } finally {
          await inlet?.stop();
          await run?.close();
          await new Promise<void>((resolve) => runtime.server.close(() => resolve()));
        }
      },
    );
  });
});
