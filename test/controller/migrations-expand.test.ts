/**
 * Migrations only expand the schema, so that a controller replica of the previous release keeps
 * working against it during a rolling upgrade (docs/replicas.md): tables, columns and indexes are
 * added, never dropped, renamed or changed, and a column added to a table that already exists takes
 * NULL or has a default, so that the previous release's inserts, which do not name it, still succeed.
 * A contraction (dropping what no release reads any more) belongs in a release of its own, after every
 * replica runs one that no longer reads it: this test then names it as allowed.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../support/usecases.ts';

/**
 * Contractions made on purpose, each a release after the expansion it ends: none yet. Each one's name
 * says `contract`, so that an earlier replica that starts on the store refuses it (store/open.ts).
 */
const allowedContractions: readonly string[] = [];

/** The statements of a migrations source, one per `.execute()`, with the migration each belongs to. */
function statements(source: string): { migration: string; text: string }[] {
  const found: { migration: string; text: string }[] = [];
  let migration = '0001-initial';
  for (const chunk of source.split('.execute()')) {
    const named = [...chunk.matchAll(/'(\d{4}-[a-z0-9-]+)'/g)].at(-1);
    if (named) migration = named[1]!;
    found.push({ migration, text: chunk });
  }
  return found;
}

/** What is wrong with `source`'s migrations for a rolling upgrade. */
function contractions(source: string): string[] {
  const problems: string[] = [];
  for (const { migration, text } of statements(source)) {
    if (allowedContractions.includes(migration)) continue;
    const contracting = /\.(dropColumn|renameColumn|renameTo|dropTable|alterColumn|modifyColumn|dropConstraint)\(/.exec(
      text,
    );
    if (contracting) problems.push(`${migration}: ${contracting[1]} contracts the schema`);
    const added = /alterTable\([^)]*\)\s*\.addColumn\(([^)]*)\)?[\s\S]*$/.exec(text);
    if (added && /notNull\(\)/.test(added[0]) && !/defaultTo\(/.test(added[0]))
      problems.push(`${migration}: a column added NOT NULL without a default breaks the previous release's inserts`);
  }
  return problems;
}

describe('controller store: migrations that a rolling upgrade can run', () => {
  it('only expand the schema: nothing dropped, renamed or changed; added columns nullable or defaulted', () => {
    const source = readFileSync(join(projectRoot, 'src/controller/store/migrations.ts'), 'utf8');
    assert.deepEqual(contractions(source), []);
    assert.deepEqual(
      allowedContractions.filter((name) => !/-contract(-|$)/.test(name)),
      [],
      'a contraction says so in its name',
    );
  });

  it('names a contraction, and a NOT NULL column added without a default', () => {
    const source = `
      '0010-gone': { async up(db) {
        await db.schema.alterTable('members').dropColumn('attribute').execute();
        await db.schema.alterTable('members').addColumn('kind', 'text', (c) => c.notNull()).execute();
        await db.schema.alterTable('members').addColumn('seen', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      } },`;
    assert.deepEqual(contractions(source), [
      '0010-gone: dropColumn contracts the schema',
      "0010-gone: a column added NOT NULL without a default breaks the previous release's inserts",
    ]);
  });
});
