// `npm test`: every test file, in lanes that run side by side (each lane one mocha process, its files
// one after another), so the suite takes the time of its longest lane rather than the sum of all.
//
//   node scripts/test-run.mjs [--unit | --integration] [--jobs N] [--record] [--checks] [FILE...]
//
// --checks (what `npm test` gives) also runs what `npm run lint` and `npm run typecheck` check, beside
// the lanes rather than before them: `npm run check:format` (Prettier) and `npm run check:code` (the type
// check and ESLint over one TypeScript program, which the two would each build), each one process that
// leaves a core mostly idle, and the lanes fill it.
//
// Files are dealt to lanes by their last known duration (test/durations.json; --record rewrites it),
// longest first onto the least loaded lane. Files that need a fixed port or another machine-wide
// resource (scripts/test-suites.cjs, serialFiles) share one lane so that they never overlap. Each lane
// has a home of its own, so no test reads or writes the user's ~, and a marker in its environment,
// so that a program a test left running is found, stopped and reported as a failure.
import { spawn, spawnSync } from 'node:child_process';
import process from 'node:process';
import {
  accessSync,
  constants,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { delimiter, join, relative } from 'node:path';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';

const require = createRequire(import.meta.url);
const suites = require('./test-suites.cjs');
const lanePrograms = require('../test/support/lane-survivors.cjs');
const root = process.cwd();
const durationsFile = join(root, 'test', 'durations.json');
/** A file never timed yet is dealt as if it took this long. */
const unknownDurationMs = 10_000;

function parseArguments(argv) {
  const options = { suite: 'all', jobs: defaultJobs(), record: false, checks: false, files: [] };
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index];
    if (argument === '--unit' || argument === '--integration') options.suite = argument.slice(2);
    else if (argument === '--record') options.record = true;
    else if (argument === '--checks') options.checks = true;
    else if (argument === '--jobs') options.jobs = positive(argv[++index], '--jobs');
    else if (argument.startsWith('--'))
      fail(`unknown option ${argument}; the options are --unit, --integration, --jobs N, --record, --checks`);
    else options.files.push(argument);
  }
  return options;
}

/**
 * Two lanes per core (at most 8): many files spend most of their time waiting on timers (certificate
 * lifetimes, renewals, timeouts), which a second lane per core fills; on 2 cores, 4 lanes took 12.4
 * minutes where 2 took 19.9.
 */
function defaultJobs() {
  const fromEnvironment = process.env.PORTAL_TEST_JOBS;
  if (fromEnvironment) return positive(fromEnvironment, 'PORTAL_TEST_JOBS');
  return Math.max(2, Math.min(8, 2 * availableParallelism()));
}

function positive(text, name) {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) fail(`${name} takes a whole number of lanes of at least 1, not "${text}"`);
  return value;
}

function fail(message) {
  process.stderr.write(`test-run: ${message}\n`);
  process.exit(2);
}

function selectedFiles(options) {
  const all = suites.allTestFiles();
  if (options.files.length > 0) {
    const unknown = options.files.filter((file) => !all.includes(file));
    if (unknown.length > 0)
      fail(`no such test file: ${unknown.join(', ')} (give paths such as test/e2e/quick-start.test.ts)`);
    return options.files;
  }
  if (options.suite === 'unit') return all.filter(suites.isUnit);
  if (options.suite === 'integration') return all.filter((file) => !suites.isUnit(file));
  return all;
}

function knownDurations() {
  return existsSync(durationsFile) ? JSON.parse(readFileSync(durationsFile, 'utf8')) : {};
}

/** Longest first onto the least loaded lane; the serial files all onto lane 0, which starts with them. */
export function dealLanes(files, durations, jobs, serial) {
  const cost = (file) => durations[file] ?? unknownDurationMs;
  const lanes = Array.from({ length: Math.min(jobs, files.length) }, () => ({ files: [], load: 0 }));
  for (const file of files.filter((file) => serial.includes(file))) {
    lanes[0].files.push(file);
    lanes[0].load += cost(file);
  }
  const rest = files.filter((file) => !serial.includes(file)).sort((a, b) => cost(b) - cost(a));
  for (const file of rest) {
    const lightest = lanes.reduce((best, lane) => (lane.load < best.load ? lane : best));
    lightest.files.push(file);
    lightest.load += cost(file);
  }
  return lanes.filter((lane) => lane.files.length > 0);
}

function build() {
  const result = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root, encoding: 'utf8' });
  if (result.status !== 0) {
    process.stderr.write(result.stderr);
    fail('building dist/portal.mjs failed; the integration tests run it');
  }
}

function seconds(ms) {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** The first executable `name` on `path`, or undefined. */
function onPath(name, path) {
  for (const dir of path.split(delimiter).filter(Boolean)) {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not in this one
    }
  }
  return undefined;
}

/**
 * docker-compose imported once for the run (test/support/compose-zygote.py: its start costs 0.7 s of
 * CPU, and the suite runs it some thirty times): the `docker-compose` written to the run's bin/, first on
 * the lanes' PATH, asks it, and runs the real program when it is away. Its folder and how to stop it, or
 * undefined where the machine has no docker-compose whose interpreter can be read.
 */
export function startComposeZygote(workspace, path = process.env.PATH ?? '') {
  const program = onPath('docker-compose', path);
  if (!program) return undefined;
  const interpreter = /^#!(\S+)$/.exec(readFileSync(program, 'utf8').split('\n')[0] ?? '')?.[1];
  if (!interpreter) return undefined;
  const bin = join(workspace, 'bin');
  const socket = join(workspace, 'compose.sock');
  mkdirSync(bin);
  const client = readFileSync(join(root, 'test', 'support', 'compose-client.py'), 'utf8')
    .replace('@socket@', socket)
    .replace('@program@', program);
  writeFileSync(join(bin, 'docker-compose'), `#!${interpreter} -SE\n${client}`, { mode: 0o755 });
  const zygote = join(root, 'test', 'support', 'compose-zygote.py');
  const child = spawn(interpreter, [zygote, socket], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  running.push(child);
  const ended = new Promise((resolve) => child.once('close', resolve));
  return {
    bin,
    stop: () => {
      child.kill('SIGTERM');
      return ended;
    },
  };
}

/** The lanes' mocha processes, stopped with the runner. */
const running = [];

/** One lane: a mocha process over its files, its output to a log, its per-file lines to `onFile`. */
function runLane(lane, index, laneCount, runId, workspace, onFile, bin) {
  const home = join(workspace, `home-${index}`);
  const log = join(workspace, `lane-${index}.log`);
  mkdirSync(home);
  const env = {
    ...process.env,
    HOME: home,
    PORTAL_HOME: undefined,
    NODE_DEVELOPER: undefined,
    // Every Node.js process reads and parses these certificates as it starts (45 ms of CPU each here
    // for the system's 144), and the lanes start some two thousand; no test trusts them: those that
    // need a CA of their own give it to the process that needs it.
    NODE_EXTRA_CA_CERTS: undefined,
    PORTAL_TEST_LANE: `${runId}-${index}`,
    // Which share of the test ports this lane draws from (test/support/processes.ts, freePort), so that
    // two lanes never hand out the same port while a test has yet to listen on it.
    PORTAL_TEST_PORT_SHARE: `${index}/${laneCount}`,
    // What the lanes make once and share (test/support/run-cache.ts); removed with the run's logs.
    PORTAL_TEST_RUN_DIR: workspace,
    ...(bin ? { PATH: `${bin}${delimiter}${process.env.PATH ?? ''}` } : {}),
  };
  for (const name of Object.keys(env)) if (env[name] === undefined) delete env[name];
  const mocha = join(root, 'node_modules', 'mocha', 'bin', 'mocha.js');
  // tsx as this process's own loader (not mocha's --node-option, which would start a second process
  // without descriptor 3).
  const args = ['--import', 'tsx', mocha, '--no-config', '--timeout', '30000'];
  args.push('--reporter', './test/support/lane-reporter.cjs', ...lane.files);
  const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
  const output = createWriteStream(log);
  child.stdout.pipe(output);
  child.stderr.pipe(output);
  createInterface({ input: child.stdio[3] }).on('line', (line) => onFile(JSON.parse(line)));
  running.push(child);
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ index, log, code, signal })));
}

/** `npm run NAME` with its output to a log: its name, whether it passed, how long it took, the log. */
export function runCheck(name, workspace, cwd = root) {
  const log = join(workspace, `${name}.log`);
  const output = createWriteStream(log);
  const started = Date.now();
  const child = spawn('npm', ['run', '--silent', name], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.pipe(output);
  child.stderr.pipe(output);
  running.push(child);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      resolve({ name, passed: code === 0, ms: Date.now() - started, log });
    }),
  );
}

/** What mocha printed after its counts: the failures, in full. */
function failureSection(log) {
  const text = stripVTControlCharacters(readFileSync(log, 'utf8'));
  const start = text.search(/^\s+\d+ passing/m);
  return start < 0 ? text.slice(-4000) : text.slice(start);
}

async function main() {
  const options = parseArguments(process.argv.slice(2));
  const files = selectedFiles(options);
  if (files.some((file) => !suites.isUnit(file))) build();
  const durations = knownDurations();
  const lanes = dealLanes(files, durations, options.jobs, suites.serialFiles);
  const workspace = mkdtempSync(join(tmpdir(), 'portal-test-run-'));
  const runId = `${process.pid}-${Date.now()}`;
  const started = Date.now();
  const results = new Map();
  const beside = options.checks ? ', lint and typecheck beside them' : '';
  process.stdout.write(`${files.length} test files in ${lanes.length} lanes${beside} (logs in ${workspace})\n`);
  const onFile = (line) => {
    const file = relative(root, line.file);
    const earlier = results.get(file);
    const result = { ...line, file, survivors: [...(earlier?.survivors ?? []), ...line.survivors] };
    results.set(file, result);
    const mark = result.failed > 0 || result.survivors.length > 0 ? '✖' : '✔';
    const counts =
      result.failed > 0 ? `${result.failed} of ${result.passed + result.failed} failed` : `${result.passed} passed`;
    process.stdout.write(
      `  ${mark} ${seconds(result.ms).padStart(8)}  ${file} ` +
        `(${counts}; CPU ${seconds(result.cpuMs)}, the lane's own ${seconds(result.ownCpuMs ?? 0)})\n`,
    );
    for (const survivor of line.survivors)
      process.stdout.write(`             left running, stopped now: pid ${survivor.pid} ${survivor.command}\n`);
  };
  const stopAll = () => {
    for (const child of running) child.kill('SIGTERM');
    lanePrograms.stop(lanePrograms.survivors(`${runId}-`));
  };
  process.on('SIGINT', stopAll);
  process.on('SIGTERM', stopAll);
  const onCheck = (check) => {
    process.stdout.write(`  ${check.passed ? '✔' : '✖'} ${seconds(check.ms).padStart(8)}  npm run ${check.name}\n`);
    return check;
  };
  const checks = options.checks ? ['check:format', 'check:code'] : [];
  const checking = Promise.all(checks.map((name) => runCheck(name, workspace).then(onCheck)));
  const compose = files.some((file) => !suites.isUnit(file)) ? startComposeZygote(workspace) : undefined;
  const finished = await Promise.all(
    lanes.map((lane, index) => runLane(lane, index, lanes.length, runId, workspace, onFile, compose?.bin)),
  );
  await compose?.stop();
  const problems = [];
  for (const check of await checking)
    if (!check.passed) problems.push(`npm run ${check.name} failed:\n${readFileSync(check.log, 'utf8').trimEnd()}`);
  // What a lane left behind when it ended (a file that never finished cannot have stopped its own).
  const orphans = lanePrograms.survivors(`${runId}-`);
  lanePrograms.stop(orphans);
  for (const orphan of orphans)
    problems.push(`a lane left a program running (stopped now): pid ${orphan.pid}, ${orphan.command}`);
  for (const lane of finished) {
    const missing = lanes[lane.index].files.filter((file) => !results.has(file));
    if (lane.code !== 0 || missing.length > 0) problems.push(`lane ${lane.index}:\n${failureSection(lane.log)}`);
    if (missing.length > 0) problems.push(`lane ${lane.index} never finished: ${missing.join(', ')}`);
  }
  for (const result of results.values())
    for (const survivor of result.survivors)
      problems.push(`${result.file} left a program running (stopped now): pid ${survivor.pid}, ${survivor.command}`);
  const all = [...results.values()];
  const passed = all.reduce((sum, result) => sum + result.passed, 0);
  const failed = all.reduce((sum, result) => sum + result.failed, 0);
  const leaks = all.reduce((sum, result) => sum + result.survivors.length, orphans.length);
  if (problems.length > 0) process.stdout.write(`\n${problems.join('\n')}\n`);
  process.stdout.write('\nslowest ten files (time, and CPU of the lane and the programs it ran):\n');
  for (const result of all.sort((a, b) => b.ms - a.ms).slice(0, 10))
    process.stdout.write(`  ${seconds(result.ms).padStart(8)} ${seconds(result.cpuMs).padStart(8)}  ${result.file}\n`);
  if (options.record) {
    const recorded = { ...durations };
    for (const result of results.values()) recorded[result.file] = result.ms;
    const sorted = Object.fromEntries(Object.entries(recorded).sort(([a], [b]) => a.localeCompare(b)));
    writeFileSync(durationsFile, `${JSON.stringify(sorted, null, 2)}\n`);
  }
  const wall = seconds(Date.now() - started);
  const leaked = leaks > 0 ? `, ${leaks} programs left running` : '';
  const cpu = seconds(all.reduce((sum, result) => sum + result.cpuMs, 0));
  const ownCpu = seconds(all.reduce((sum, result) => sum + (result.ownCpuMs ?? 0), 0));
  process.stdout.write(
    `\ntests: ${passed} passed, ${failed} failed${leaked} in ${wall} on ${lanes.length} lanes ` +
      `(CPU ${cpu}, of which the lanes' own ${ownCpu})\n`,
  );
  const clean = problems.length === 0 && failed === 0;
  if (clean) rmSync(workspace, { recursive: true, force: true });
  process.exit(clean ? 0 : 1);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
