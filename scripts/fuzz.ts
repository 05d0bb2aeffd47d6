/**
 * `npm run fuzz`: the fuzz suite of test/fuzz/ run long, then the runs and seconds of every target.
 *
 *   npm run fuzz                                 30 seconds per property
 *   PORTAL_FUZZ_SECONDS=600 npm run fuzz         ten minutes per property
 *   PORTAL_FUZZ_RUNS=100000 npm run fuzz         a number of runs per property instead
 *   npm run fuzz -- ticket manifest              only the files whose names contain these words
 *   PORTAL_FUZZ_SEED=<seed> npm run fuzz -- …    replays the runs of a failure's report
 *
 * Exits 1 when a property fails (its report gives the counterexample, seed and path).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import Mocha from 'mocha';

const root = new URL('../', import.meta.url).pathname;
const folder = join(root, 'test/fuzz');
const defaultSeconds = 30;

if (!process.env.PORTAL_FUZZ_SECONDS && !process.env.PORTAL_FUZZ_RUNS)
  process.env.PORTAL_FUZZ_SECONDS = String(defaultSeconds);
// Read after the budget is set: the harness decides at load whether this is a long run.
const { figures } = await import('../test/fuzz/fuzz.ts');

const words = process.argv.slice(2);
const files = readdirSync(folder)
  .filter((name) => name.endsWith('.test.ts') && (words.length === 0 || words.some((word) => name.includes(word))))
  .sort();
if (files.length === 0) {
  console.error(`fuzz: no file of test/fuzz/ has a name containing ${words.join(' or ')}`);
  process.exit(2);
}

const budget = process.env.PORTAL_FUZZ_RUNS
  ? `${process.env.PORTAL_FUZZ_RUNS} runs`
  : `${process.env.PORTAL_FUZZ_SECONDS} s`;
console.log(`fuzz: ${files.length} files, ${budget} per property`);

// Node.js prints every process warning; a long run may raise the same one thousands of times (the
// YAML reader warns for each collection used as a key). Counted instead, and printed once at the end.
const warnings = new Map<string, number>();
process.emitWarning = (warning: string | Error) => {
  const text = typeof warning === 'string' ? warning : warning.message;
  warnings.set(text, (warnings.get(text) ?? 0) + 1);
};

const mocha = new Mocha({ timeout: 0, reporter: join(root, 'test/support/summary-reporter.cjs') });
for (const file of files) mocha.addFile(join(folder, file));
await mocha.loadFilesAsync();
const failures = await new Promise<number>((resolve) => mocha.run(resolve));

const width = Math.max(...figures.map((figure) => figure.target.length), 'target'.length);
console.log(`\n${'target'.padEnd(width)}  ${'runs'.padStart(10)}  ${'seconds'.padStart(8)}  ${'runs/s'.padStart(9)}`);
for (const { target, runs, seconds, failed } of figures) {
  const rate = seconds > 0 ? (runs / seconds).toFixed(1) : '-';
  console.log(
    `${target.padEnd(width)}  ${String(runs).padStart(10)}  ${seconds.toFixed(1).padStart(8)}  ` +
      `${rate.padStart(9)}${failed ? '  FAILED' : ''}`,
  );
}
for (const [text, count] of warnings) console.log(`warning, ${count} times: ${text}`);
process.exitCode = failures > 0 ? 1 : 0;
