import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'out/', 'node_modules/', 'release/', 'src/shared/types/', 'src/shared/validators/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', ignoreRestSiblings: true }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      'no-console': 'off',
      eqeqeq: ['error', 'always'],
      // Prettier wraps code at 120 but leaves strings and comments whole: split those by hand.
      'max-len': ['error', { code: 120, ignoreUrls: true }],
    },
  },
  {
    // Plain JavaScript (build scripts, configurations) has no types to check.
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // The compiler is pure (a manifest in, artifacts out) and depends on no runtime module: what it
    // shares with the node, the relay or the controller lives in src/shared/ (values in limits.ts).
    files: ['src/compile/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/node/*', '**/wire/*', '**/relay/*', '**/controller/*', '**/cli/*', '**/service/*'],
              message: 'the compiler imports nothing from the runtime: move what both need to src/shared/',
            },
          ],
        },
      ],
    },
  },
  {
    // Mocha loads reporters with require(): the one CommonJS file.
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', process: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
