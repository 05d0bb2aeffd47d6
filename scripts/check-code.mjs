// The type check and ESLint over one TypeScript program: `tsc -p tsconfig.json` and `eslint .` each
// build the type information of every file (about half of what each costs), so `npm test` builds it
// once here and lints with it. `npm run typecheck` and `npm run lint` stay the commands to run alone.
//
//   node scripts/check-code.mjs
//
// Prints what tsc and ESLint print (the type errors, then ESLint's report) and exits 1 when either found
// a problem, 2 when the configuration cannot be read.
import process from 'node:process';
import { ESLint } from 'eslint';
import ts from 'typescript';

/** The program of tsconfig.json, as `tsc -p tsconfig.json` builds it. */
function programOf(configPath) {
  const read = ts.readConfigFile(configPath, ts.sys.readFile);
  if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, process.cwd(), undefined, configPath);
  if (parsed.errors.length > 0) throw new Error(parsed.errors.map((error) => error.messageText).join('\n'));
  return ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
}

const host = {
  getCanonicalFileName: (name) => name,
  getCurrentDirectory: () => process.cwd(),
  getNewLine: () => '\n',
};

async function main() {
  let program;
  try {
    program = programOf('tsconfig.json');
  } catch (error) {
    process.stderr.write(`check-code: tsconfig.json: ${error.message}\n`);
    process.exit(2);
  }
  const diagnostics = ts.getPreEmitDiagnostics(program);
  const format = process.stdout.isTTY ? ts.formatDiagnosticsWithColorAndContext : ts.formatDiagnostics;
  if (diagnostics.length > 0) process.stdout.write(format(diagnostics, host));
  const eslint = new ESLint({
    overrideConfig: {
      files: ['**/*.ts'],
      languageOptions: { parserOptions: { projectService: false, programs: [program] } },
    },
  });
  const results = await eslint.lintFiles(['.']);
  const report = (await eslint.loadFormatter('stylish')).format(results);
  if (report) process.stdout.write(report);
  const lintErrors = results.reduce((sum, result) => sum + result.errorCount, 0);
  process.stdout.write(`type check: ${diagnostics.length} errors; ESLint: ${lintErrors} problems\n`);
  process.exit(diagnostics.length > 0 || lintErrors > 0 ? 1 : 0);
}

await main();
