/**
 * Injection through a manifest: every string field of every bundled manifest gets each value of a
 * corpus of hostile strings. Each edit is either refused (exit 2, located at the field) or compiles to
 * artifacts that stay what they were meant to be: the scripts it reaches run in the sandbox without
 * running anything injected, webhook_receiver.py compiles and gives the value back, YAML and Markdown
 * keep their structure. A second pass skips the schema and feeds the corpus straight to the compiler,
 * so the quoting of the templates is tested on its own.
 *
 * The tests are in three files (test/compile/hostile-manifest-*.test.ts), so that npm test's lanes run
 * them side by side: together they start some ten thousand short programs.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, parseDocument } from 'yaml';
import { compileUseCase, type Artifact } from '../../src/compile/compile.ts';
import { manifestProblems } from '../../src/compile/manifest.ts';
import { parseCfnYaml } from '../../src/compile/stack/cfn-yaml.ts';
import { encodePointer, parseYamlSource } from '../../src/shared/yaml-source.ts';
import { ValidationError } from '../../src/shared/errors.ts';
import { parseManifest } from '../../src/compile/manifest.ts';
import type { UseCaseManifest } from '../../src/shared/types/manifest.ts';
import { bootScriptOfStack, secretsStandIn, stubNameLookups } from './boot-script.ts';
import { createSandbox } from './sandbox.ts';
import { loadManifest, manifestText, type allUseCases } from './usecases.ts';
import { endpointParameterValues } from '../compile/resolved-use-cases.ts';

type Path = readonly (string | number)[];

/** Hostile values; each tries to run `touch marker` wherever it lands. */
function corpus(marker: string): ReadonlyArray<readonly [string, string]> {
  const run = `touch ${marker}`;
  return [
    ['newline', `Orders\n${run}\n`],
    ['carriage return', `Orders\r${run}`],
    ['command substitution', `$(${run})`],
    ['backticks', `\`${run}\``],
    ['single quote', `x'; ${run}; echo '`],
    ['double quote', `x"; ${run}; echo "`],
    ['backslash', `x\\'; ${run}; #\\`],
    ['percent', '100% %s %n %(prog)x %'],
    ['NUL', `x\u0000; ${run}`],
    ['unicode line separators', `x\u2028${run}\u2029${run}\u0085${run}`],
    ['stack reference', '${AWS::AccountId} ${Nonexistent}'],
    ['python string end', `""" + __import__("os").system("${run}") + """`],
    ['markdown', '| a | b |\n# heading [link](http://x) <script>'],
    ['very long', 'x'.repeat(100_000)],
    ['unicode text', 'Café ☕ données 🚀'],
  ];
}

/** Optional string fields no bundled manifest sets; each is tried where its parent exists. */
const optionalStrings: readonly Path[] = [
  ['container', 'image'],
  ['tickets', 'inlet', 'relay'],
];

/** Paths of every string in a manifest. */
function stringPaths(value: unknown, path: Path = []): Path[] {
  if (typeof value === 'string') return [path];
  if (Array.isArray(value)) return value.flatMap((item, index) => stringPaths(item, [...path, index]));
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([key, item]) => stringPaths(item, [...path, key]));
  return [];
}

function withValue(manifest: UseCaseManifest, path: Path, value: string): UseCaseManifest {
  const copy = structuredClone(manifest) as unknown as Record<string | number, unknown>;
  let node = copy;
  for (const segment of path.slice(0, -1)) node = node[segment] as Record<string | number, unknown>;
  node[path.at(-1) as string | number] = value;
  return copy as unknown as UseCaseManifest;
}

function allStrings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(allStrings);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(allStrings);
  return [];
}

/** The manifest's text with `value` at every one of `paths`. */
function withText(text: string, paths: readonly Path[], value: string): string {
  const doc = parseDocument(text);
  for (const path of paths) doc.setIn(path, value);
  return doc.toString();
}

/**
 * `paths` (each accepted alone) in groups the schema accepts together, in order: a field joins the
 * current group unless together they are refused (two fields that must differ, say).
 */
function acceptedTogether(text: string, paths: readonly Path[], value: string): Path[][] {
  if (paths.length === 0) return [];
  if (manifestProblems('hostile.yaml', withText(text, paths, value)).manifest) return [[...paths]];
  const groups: Path[][] = [];
  for (const path of paths) {
    const fits = groups.find(
      (group) => manifestProblems('hostile.yaml', withText(text, [...group, path], value)).manifest,
    );
    if (fits) fits.push(path);
    else groups.push([path]);
  }
  return groups;
}

const byPath = (artifacts: readonly Artifact[]) =>
  new Map(artifacts.map((artifact) => [artifact.path, artifact.content]));

/** The texts a manifest value could change that run as code. */
function scriptTexts(artifacts: Map<string, string>): string {
  return ['tickets.sh', 'outlet.stack.yaml', 'inlet.stack.yaml', 'webhook_receiver.py']
    .map((path) => artifacts.get(path) ?? '')
    .join('\0');
}

/** Fields a value reaches in the stacks, so that it must come back out of their YAML unchanged. */
const reachesStacks = new Set([
  '/title',
  '/outlet/instance-type/note',
  '/inlet/instance-type/note',
  '/outlet/endpoint/label',
  '/outlet/endpoint/example',
]);

const fakePortal = `case "$1 $2" in
  "project ticket") echo pt1_ticket ;;
  "project show") echo p0123 ;;
  "project ca") echo "-----BEGIN CERTIFICATE-----" ;;
  "node show") echo "The node is UP" ;;
esac`;

/**
 * The scripts a use case's test has run, by their text: the same text runs the same way here (the
 * stand-ins answer alike every time), so a value that changes only some of the scripts runs only those.
 */
type RanScripts = Set<string>;

/**
 * Runs every script of `artifacts` not run before in a sandbox: tickets.sh (all three commands) and both
 * boot scripts.
 */
async function runScripts(artifacts: Map<string, string>, usecase: string, ran: RanScripts): Promise<void> {
  const tickets = `tickets.sh\0${artifacts.get('tickets.sh') as string}`;
  const boots = (['outlet', 'inlet'] as const)
    .map((role) => ({
      role,
      script: bootScriptOfStack(
        artifacts.get(`${role}.stack.yaml`) as string,
        `${usecase}-${role}`,
        endpointParameterValues,
      ),
    }))
    .filter(({ role, script }) => !ran.has(`${role}\0${script}`));
  if (ran.has(tickets) && boots.length === 0) return;
  const sandbox = await createSandbox();
  try {
    await stubNameLookups(sandbox, 0);
    // Stand-ins run by sh: the scripts call them some thirty times a run, and the runs are hundreds.
    const stubs = ['mount', 'dnf', 'systemctl', 'amazon-cloudwatch-agent-ctl', 'cfn-signal', 'psql', 'python3'];
    for (const command of stubs) await sandbox.stub(command, 'exit 0', 'sh');
    // The clients of the verifications answer as their services would.
    await sandbox.stub('redis-cli', 'echo PONG', 'sh');
    await sandbox.stub('portal', fakePortal, 'sh');
    await sandbox.stub('aws', `${secretsStandIn()}\necho '{}' > output.json`, 'sh');
    await sandbox.stub('curl', 'printf 200', 'sh');
    await writeFile(join(sandbox.dir, 'tickets.sh'), artifacts.get('tickets.sh') as string, { mode: 0o755 });
    const env = {
      PATH: `${sandbox.bin}:${sandbox.system}`,
      HOME: sandbox.root,
      PGUSER: 'u',
      PGPASSWORD: 'p',
      PGDATABASE: 'd',
    };
    for (const command of ran.has(tickets) ? [] : ['tickets', 'verify', 'cleanup']) {
      const run = spawnSync('bash', ['tickets.sh', command], {
        cwd: sandbox.dir,
        env,
        encoding: 'utf8',
        timeout: 20_000,
      });
      // A hostile expected output is not what the stand-in client prints: that check fails, and says so.
      const unexpected =
        command === 'verify' && /the output does not hold the text the manifest expects/.test(run.stderr);
      assert.equal(run.status, unexpected ? 1 : 0, `tickets.sh ${command}: ${run.stderr}`);
    }
    ran.add(tickets);
    for (const { role, script } of boots) {
      const root = join(sandbox.dir, `root-${role}`);
      await mkdir(root);
      await writeFile(join(sandbox.dir, 'boot.sh'), script);
      const run = spawnSync('bash', [join(sandbox.dir, 'boot.sh')], {
        cwd: sandbox.dir,
        env: {
          PATH: `${sandbox.bin}:${sandbox.system}`,
          PORTAL_BOOT_ROOT: root,
          PORTAL_BOOT_RETRY_SECONDS: '0.01',
          PORTAL_BOOT_POLL_SECONDS: '0.01',
        },
        encoding: 'utf8',
        timeout: 20_000,
      });
      assert.equal(run.status, 0, `${role} boot script: ${run.stderr}`);
      assert.equal(run.stdout.trimEnd().split('\n').at(-1), 'Portal node setup completed successfully');
      ran.add(`${role}\0${script}`);
    }
  } finally {
    await sandbox.remove();
  }
}

/**
 * One Python process (each start costs a quarter of a second): the receiver compiles, runs as the
 * program with --help (exit 0), and its TITLE, read by running it as a module, comes back as JSON.
 */
const receiverCheck = [
  'import contextlib, io, json, py_compile, runpy, sys',
  'file = sys.argv[1]',
  'py_compile.compile(file, doraise=True)',
  'sys.argv = [file, "--help"]',
  'with contextlib.redirect_stdout(io.StringIO()):',
  '    try:',
  '        runpy.run_path(file, run_name="__main__")',
  '    except SystemExit as ended:',
  '        assert ended.code in (0, None), f"--help exited with {ended.code}"',
  'sys.stdout.write(json.dumps(runpy.run_path(file, run_name="check")["TITLE"]))',
].join('\n');

/** The receiver compiles, its --help runs, and TITLE is the manifest's title exactly. */
async function checkReceiver(source: string, title: string, dir: string): Promise<void> {
  const file = join(dir, 'webhook_receiver.py');
  await writeFile(file, source);
  const env = { ...process.env, PYTHONIOENCODING: 'utf-8' };
  const read = spawnSync('python3', ['-c', receiverCheck, file], { encoding: 'utf8', env });
  assert.equal(read.status, 0, read.stderr);
  assert.equal(JSON.parse(read.stdout), title);
}

/** Checks that hold for any compiled edit, without running anything. */
function checkStructure(
  artifacts: Map<string, string>,
  baseline: Map<string, string>,
  manifest: UseCaseManifest,
  pointer: string,
  value: string,
): void {
  const stacks = ['outlet.stack.yaml', 'inlet.stack.yaml'].map((path) => parseCfnYaml(artifacts.get(path) as string));
  const compose = artifacts.has('inlet.compose.yaml')
    ? [parse(artifacts.get('inlet.compose.yaml') as string) as unknown]
    : [];
  const configs = ['outlet.json', 'inlet.json'].map((path) => JSON.parse(artifacts.get(path) as string) as unknown);
  const inParameter =
    (manifest.outlet?.endpoint?.source ?? 'parameter') === 'parameter' || !pointer.startsWith('/outlet/endpoint/');
  if (reachesStacks.has(pointer) && inParameter) {
    assert.ok(
      stacks.some((stack) => allStrings(stack).some((text) => text.includes(value))),
      `${pointer} comes back out of the stack YAML unchanged`,
    );
  }
  assert.ok([...stacks, ...compose, ...configs].every((tree) => tree !== null && typeof tree === 'object'));
  const readme = artifacts.get('README.md') as string;
  assert.equal(
    readme.split('\n').length,
    (baseline.get('README.md') as string).split('\n').length,
    'the guide keeps its lines',
  );
  assert.match(readme.split('\n')[0] as string, /^# Portal: /);
  for (const [path, text] of artifacts) {
    if (path.endsWith('.sh') || path.endsWith('.py')) assert.ok(!text.includes('\u0000'), `${path} holds no NUL`);
  }
}

/** The marker a hostile value would create, and the folder for the receiver; made by `hostileSetup`. */
export interface HostileRun {
  readonly dir: string;
  readonly marker: string;
}

/**
 * Registers in the current describe: a folder and marker before, their removal after, and after each test
 * the check that nothing injected ran.
 */
export function hostileSetup(): HostileRun {
  const run = { dir: '', marker: '' };
  before(async () => {
    run.dir = await mkdtemp(join(tmpdir(), 'portal-hostile-'));
    run.marker = join(run.dir, 'INJECTED');
  });
  after(async () => {
    await rm(run.dir, { recursive: true, force: true });
  });
  afterEach(() => {
    assert.ok(!existsSync(run.marker), 'nothing injected ran');
  });
  return run;
}

/** Every string field of `usecase`'s manifest, every hostile value: refused at the field, or compiled inert. */
export function itRefusesOrCompilesInert(usecase: (typeof allUseCases)[number], run: HostileRun): void {
  it(
    `${usecase}: every string field, every hostile value: ` + 'refused at the field (exit 2) or compiled inert',
    async () => {
      const original = loadManifest(usecase);
      const baseline = byPath(compileUseCase(original));
      const ran: RanScripts = new Set();
      const counts = { refused: 0, compiled: 0, ran: 0 };
      const present = parse(manifestText(usecase)) as Record<string, unknown>;
      const optional = optionalStrings.filter(
        (path) =>
          path
            .slice(0, -1)
            .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], present) !==
          undefined,
      );
      const paths = [...stringPaths(present), ...optional];
      for (const [name, value] of corpus(run.marker)) {
        const accepted: Path[] = [];
        for (const path of paths) {
          const pointer = encodePointer(path);
          const text = withText(manifestText(usecase), [path], value);
          const what = `${pointer} = ${name}`;
          const { manifest, problems } = manifestProblems('hostile.yaml', text);
          if (!manifest) {
            counts.refused += 1;
            const atField = problems.find(
              (problem) => problem.pointer === pointer || problem.pointer.startsWith(`${pointer}/`),
            );
            assert.ok(atField, `${what}: refused at the field itself, got ${JSON.stringify(problems)}`);
            const expected = parseYamlSource('hostile.yaml', text).locate(pointer);
            assert.deepEqual({ line: atField.line, column: atField.column }, expected, `${what}: located`);
            assert.throws(
              () => parseManifest('hostile.yaml', text),
              (error: unknown) => error instanceof ValidationError && error.exitCode === 2,
            );
            continue;
          }
          counts.compiled += 1;
          checkStructure(byPath(compileUseCase(manifest)), baseline, manifest, pointer, value);
          accepted.push(path);
        }
        // Every field that accepts the value holds it at once, so the scripts run once per value and
        // still meet the value at every place a field reaches them.
        for (const group of acceptedTogether(manifestText(usecase), accepted, value)) {
          const { manifest } = manifestProblems('hostile.yaml', withText(manifestText(usecase), group, value));
          const artifacts = byPath(compileUseCase(manifest as UseCaseManifest));
          if (scriptTexts(artifacts) === scriptTexts(baseline)) continue;
          counts.ran += 1;
          await runScripts(artifacts, usecase, ran);
          if (artifacts.has('webhook_receiver.py'))
            await checkReceiver(
              artifacts.get('webhook_receiver.py') as string,
              (manifest as UseCaseManifest).title,
              run.dir,
            );
          const fields = group.map((path) => encodePointer(path)).join(', ');
          assert.ok(!existsSync(run.marker), `${fields} = ${name}: nothing injected ran`);
        }
      }
      assert.ok(counts.refused > 0 && counts.compiled > 0, JSON.stringify(counts));
      if (usecase !== 'webhook')
        assert.ok(counts.ran > 0, `some accepted value reached a script: ${JSON.stringify(counts)}`);
    },
  );
}

/** `usecase` without the schema: every hostile title, note and label quoted by the templates. */
export function itQuotesWithoutTheSchema(usecase: 'webhook' | 'postgres', run: HostileRun): void {
  it(`${usecase}: without the schema, every hostile title, note and label is quoted by the templates`, async () => {
    const original = loadManifest(usecase);
    const baseline = byPath(compileUseCase(original));
    const ran: RanScripts = new Set();
    const free: Path[] = [
      ['title'],
      ['outlet', 'instance-type', 'note'],
      ...(original.outlet?.endpoint ? [['outlet', 'endpoint', 'label']] : []),
    ];
    for (const path of free) {
      const pointer = encodePointer(path);
      for (const [name, value] of corpus(run.marker)) {
        const manifest = withValue(original, path, value);
        const artifacts = byPath(compileUseCase(manifest));
        checkStructure(artifacts, baseline, manifest, pointer, value);
        if (path[0] === 'title') {
          await runScripts(artifacts, usecase, ran);
          if (artifacts.has('webhook_receiver.py'))
            await checkReceiver(artifacts.get('webhook_receiver.py') as string, value, run.dir);
        }
        assert.ok(!existsSync(run.marker), `${pointer} = ${name}: nothing injected ran`);
      }
    }
  });
}
