/**
 * `npm run check:code` (scripts/check-code.mjs): the type check and ESLint over one TypeScript program,
 * on a small project of its own: each finds its own kind of problem, including a rule that needs the
 * types (so ESLint did get the program), and a clean project passes.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runToEnd } from '../support/processes.ts';
import { projectRoot } from '../support/usecases.ts';

const eslintConfig = `import tseslint from 'typescript-eslint';
export default tseslint.config(...tseslint.configs.recommendedTypeChecked, {
  languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
  rules: { '@typescript-eslint/no-floating-promises': 'error' },
}, { files: ['**/*.js'], ...tseslint.configs.disableTypeChecked });
`;
// No @types and the smallest library: the program is the probe's two files, not Node.js's declarations.
const tsconfig = {
  compilerOptions: { strict: true, noEmit: true, module: 'NodeNext', target: 'ES2022', lib: ['ES2022'], types: [] },
  include: ['src'],
};

describe('npm run check:code: the type check and ESLint over one program', function () {
  this.timeout(120_000);
  let dir: string;
  const check = () =>
    runToEnd(process.execPath, [join(projectRoot, 'scripts/check-code.mjs')], { cwd: dir, env: process.env });

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portal-check-code-'));
    await mkdir(join(dir, 'src'));
    await symlink(join(projectRoot, 'node_modules'), join(dir, 'node_modules'));
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'probe', private: true, type: 'module' }));
    await writeFile(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
    await writeFile(join(dir, 'eslint.config.js'), eslintConfig);
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('fails on a type error and on a rule that needs the types, naming both', async () => {
    await writeFile(
      join(dir, 'src', 'bad.ts'),
      "export const count: number = 'one';\nexport async function later(): Promise<void> {}\nlater();\n",
    );
    const result = await check();
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stdout, /src\/bad\.ts\(1,14\): error TS2322/);
    assert.match(result.stdout, /3:1 +error .*@typescript-eslint\/no-floating-promises/);
    assert.match(result.stdout, /type check: 1 errors; ESLint: 1 problems/);
  });

  it('refuses a tsconfig.json it cannot read with one line and exit 2, checking nothing', async () => {
    const dirOf = dir;
    dir = await mkdtemp(join(tmpdir(), 'portal-check-code-broken-'));
    try {
      await writeFile(join(dir, 'tsconfig.json'), '{ "compilerOptions": ');
      const result = await check();
      assert.equal(result.code, 2, result.stdout + result.stderr);
      assert.match(result.stderr, /^check-code: tsconfig\.json: .+\n$/);
      assert.equal(result.stdout, '');
    } finally {
      await rm(dir, { recursive: true, force: true });
      dir = dirOf;
    }
  });

  it('passes a clean project', async () => {
    await writeFile(
      join(dir, 'src', 'bad.ts'),
      'export const count: number = 1;\nexport async function later(): Promise<void> {}\nawait later();\n',
    );
    const result = await check();
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.match(result.stdout, /type check: 0 errors; ESLint: 0 problems/);
  });
});
