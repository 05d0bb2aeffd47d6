/**
 * Generates src/shared/types/*.ts from schemas/*.schema.json.
 * `--check` compares instead of writing and exits 1 when the committed types are stale.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { compile, type JSONSchema } from 'json-schema-to-typescript';

const targets = [
  { schema: 'schemas/manifest.schema.json', output: 'src/shared/types/manifest.ts' },
  { schema: 'schemas/node-config.schema.json', output: 'src/shared/types/node-config.ts' },
] as const;

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

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const stale: string[] = [];
  for (const { schema, output } of targets) {
    const rendered = await renderTypes(schema);
    if (check) {
      const current = await readFile(output, 'utf8').catch(() => '');
      if (current !== rendered) stale.push(output);
    } else {
      await writeFile(output, rendered);
    }
  }
  if (stale.length > 0) {
    console.error(`stale generated types: ${stale.join(', ')}; run npm run types and commit the result`);
    process.exitCode = 1;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
