// Guards the PostgreSQL driver (postgres.js 3.4.x) against a crash on a connection that closes with a
// write still batched: it batches small writes on setImmediate, and its connection teardown cancels
// that immediate without forgetting it, so (1) an immediate that still fires writes to a socket it
// has set to null, throwing where nothing can catch it (the controller process would exit during a
// database failover), and (2) a reconnected connection never flushes again, its queries waiting
// forever. Upstream: porsager/postgres issues 1066, 1154 and 1208. And (3): a new connection fetches
// the database's array types before the first query, from a handler that drops the promise, so a
// connection reset in that moment (a failover, a proxy that goes away) is an unhandled rejection,
// which ends a Node.js process; the waiting query is refused by the socket's error all the same.
// And (4): releasing a reserved connection whose server closed it while it was reserved puts the
// closed connection back among the open ones, where the next query waits on it forever (a database
// restart, a failover, a terminated backend: the controller's next request then never answers).
// Released, a connection the pool has taken back already is left where it is. Upstream: issue 1199.
//
// Run by npm after every install (postinstall), before the build bundles the driver; idempotent; it
// fails the install when the driver's code is not what it expects (a new version: check whether it
// still needs this, and remove or update the script).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';

const marker = '/* portal: guarded */';
const driver = join('node_modules', 'postgres');
const inBoth = (file) => [join(driver, 'src', file), join(driver, 'cjs', 'src', file)];

/** Each change: the files it is made in, what the driver has there, and what it becomes. */
const changes = [
  {
    files: inBoth('connection.js'),
    what: 'the batched write',
    from: '  function nextWrite(fn) {\n    const x = socket.write(chunk, fn)',
    to:
      '  function nextWrite(fn) {\n' +
      `    if (!socket) return (chunk = nextWriteTimer = null, false) ${marker}\n` +
      '    const x = socket.write(chunk, fn)',
    count: 1,
  },
  {
    files: inBoth('connection.js'),
    what: 'the teardown of a connection',
    from: '\n    clearImmediate(nextWriteTimer)\n',
    to: `\n    clearImmediate(nextWriteTimer), nextWriteTimer = chunk = null ${marker}\n`,
    count: 2,
  },
  {
    files: inBoth('connection.js'),
    what: 'the fetch of array types',
    from: '        return fetchArrayTypes()\n',
    to: `        return fetchArrayTypes().catch(() => undefined) ${marker}\n`,
    count: 1,
  },
  {
    files: inBoth('index.js'),
    what: 'the release of a reserved connection',
    from: '    sql.release = () => {\n      c.reserved = null\n',
    to:
      '    sql.release = () => {\n' +
      `      if (c.queue !== reserved && c.queue !== full) return ${marker}\n` +
      '      c.reserved = null\n',
    count: 1,
  },
];

const files = [...new Set(changes.flatMap((change) => change.files))];
for (const file of files) {
  const text = readFileSync(file, 'utf8');
  let patched = text;
  for (const { what, from, to, count } of changes.filter((change) => change.files.includes(file))) {
    // Guarded already (by this run of the script or an earlier one).
    if (patched.split(to).length - 1 === count) continue;
    const found = patched.split(from).length - 1;
    if (found !== count) {
      process.stderr.write(
        `patch-postgres-driver: ${file} has ${found} of the ${count} places of ${what} it guards: ` +
          'a new version of postgres.js; check whether it still needs scripts/patch-postgres-driver.mjs\n',
      );
      process.exit(1);
    }
    patched = patched.split(from).join(to);
  }
  if (patched !== text) writeFileSync(file, patched);
}
