/**
 * SQLite through better-sqlite3, kept so that the garbage collector never frees one of its objects.
 *
 * Why: better-sqlite3 12 builds its Database and Statement on node::ObjectWrap, whose destructor
 * asserts on Node.js 24.19 and later when a collection runs outside a JavaScript context, and the
 * whole process aborts. Kysely prepares a fresh statement for every query, so a controller on
 * Node.js 24 used to die at its first idle collection. Here every statement is prepared once per
 * SQL text and cached, and every database and cache stays reachable until the process exits.
 * better-sqlite3 13 fixes the destructor but no longer runs on Node.js 20, which Portal still
 * supports. The cost is bounded: the controller's queries are a fixed set of SQL texts.
 */
import type BetterSqlite3 from 'better-sqlite3';

type Statement = BetterSqlite3.Statement<unknown[], unknown>;

/** Never read; holding these is the point (see above). */
const keptAlive: unknown[] = [];

export class KeptSqlite {
  readonly #database: BetterSqlite3.Database;
  readonly #statements = new Map<string, Statement>();

  private constructor(database: BetterSqlite3.Database) {
    this.#database = database;
    keptAlive.push(database, this.#statements);
  }

  static async open(path: string, options: { readonly?: boolean; fileMustExist?: boolean } = {}): Promise<KeptSqlite> {
    const { default: Database } = await import('better-sqlite3');
    return new KeptSqlite(
      new Database(path, { readonly: options.readonly ?? false, fileMustExist: options.fileMustExist ?? false }),
    );
  }

  /**
   * A consistent copy of the whole database at `destination` (SQLite's online backup): other
   * connections, such as a running controller's, go on reading and writing meanwhile.
   */
  async backup(destination: string): Promise<void> {
    await this.#database.backup(destination);
  }

  /** A cached prepared statement; the shape Kysely's SqliteDialect asks of a database. */
  prepare(sql: string): Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#database.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /** Runs statements whose results are not wanted (pragmas, schema) without making a Statement object. */
  exec(sql: string): void {
    this.#database.exec(sql);
  }

  all<Row>(sql: string, ...parameters: unknown[]): Row[] {
    return this.prepare(sql).all(...parameters) as Row[];
  }

  run(sql: string, ...parameters: unknown[]): BetterSqlite3.RunResult {
    return this.prepare(sql).run(...parameters);
  }

  close(): void {
    this.#database.close();
  }
}
