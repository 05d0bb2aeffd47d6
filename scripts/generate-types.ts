/**
 * Generates from schemas/*.schema.json what the program checks documents with: their TypeScript types
 * (src/shared/types/*.ts) and their validators, compiled ahead by ajv (src/shared/validators/*.cjs), so
 * that no process compiles a schema at start. `--check` compares instead of writing and exits 1 when
 * what is committed is stale.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { Ajv } from 'ajv';
import ajvStandalone from 'ajv/dist/standalone/index.js';
import { compile, type JSONSchema } from 'json-schema-to-typescript';

const targets = [
  {
    schema: 'schemas/manifest.schema.json',
    types: 'src/shared/types/manifest.ts',
    validator: 'src/shared/validators/manifest.cjs',
  },
  {
    schema: 'schemas/node-config.schema.json',
    types: 'src/shared/types/node-config.ts',
    validator: 'src/shared/validators/node-config.cjs',
  },
] as const;

export const generatedFiles = targets;

const banner = '/* Generated from the JSON Schema by scripts/generate-types.ts (npm run types). Do not edit. */';

export async function renderTypes(schemaPath: string): Promise<string> {
  const schema = JSON.parse(await readFile(schemaPath, 'utf8')) as JSONSchema & { title: string };
  return compile(schema, schema.title, {
    bannerComment: banner,
    additionalProperties: false,
    cwd: 'schemas',
    style: { singleQuote: true },
  });
}

/** The schema's validator as a CommonJS module: ajv's standalone code, which loads only its small run-time helpers. */
export async function renderValidator(schemaPath: string): Promise<string> {
  const schema = JSON.parse(await readFile(schemaPath, 'utf8')) as object;
  const ajv = new Ajv({
    allErrors: true,
    strict: true,
    // Union types: a key such as tcp-inlet.direct takes true, false or an address.
    allowUnionTypes: true,
    discriminator: true,
    // Errors carry the value and the schema they failed: src/shared/schema-check.ts words them from both.
    verbose: true,
    code: { source: true, lines: true },
  });
  // A human phrase for what a pattern accepts; only used to word error messages.
  ajv.addKeyword({ keyword: 'x-expected', schemaType: 'string' });
  // A CommonJS module whose function is its `default`.
  return `${banner}\n${ajvStandalone.default(ajv, ajv.compile(schema))}\n`;
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const stale: string[] = [];
  for (const { schema, types, validator } of targets) {
    for (const [output, rendered] of [
      [types, await renderTypes(schema)],
      [validator, await renderValidator(schema)],
    ] as const) {
      if (check) {
        const current = await readFile(output, 'utf8').catch(() => '');
        if (current !== rendered) stale.push(output);
      } else {
        await writeFile(output, rendered);
      }
    }
  }
  if (stale.length > 0) {
    console.error(`stale generated files: ${stale.join(', ')}; run npm run types and commit the result`);
    process.exitCode = 1;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
