/**
 * What opening a PostgreSQL store, or moving a store there, refuses before it connects to anything:
 * each a one-line error naming the file or flag, exit 2.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/controller/store/open.ts';
import { moveStore } from '../../src/controller/store/move-store.ts';
import { removeMovedMarker, writeMovedMarker } from '../../src/controller/store/moved-marker.ts';
import { holdStore } from '../../src/controller/store/store-holder.ts';
import { PortalError } from '../../src/shared/errors.ts';

/** A port nothing listens on is never reached: every refusal here comes first. */
const url = 'postgres://portal@127.0.0.1:1/portal';

const refused = (code: string, pattern: RegExp) => (error: unknown) => {
  assert.ok(error instanceof PortalError, String(error));
  assert.equal(error.code, code);
  assert.equal(error.exitCode, 2);
  assert.match(error.message, pattern);
  assert.ok(!error.message.includes('\n'), error.message);
  return true;
};

describe('controller store: refusals before connecting', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portal-store-refusals-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('refuses a password file that is missing or empty, naming it', async () => {
    const missing = join(dir, 'missing.password');
    await assert.rejects(
      openStore(url, { passwordFile: missing }),
      refused('BAD_FLAG', new RegExp(`^--store-password-file ${missing} cannot be read \\(ENOENT\\)$`)),
    );
    const empty = join(dir, 'empty.password');
    await writeFile(empty, '\n');
    await assert.rejects(
      openStore(url, { passwordFile: empty }),
      refused('BAD_FLAG', new RegExp(`^--store-password-file ${empty} is empty$`)),
    );
  });

  it('refuses an sslrootcert that cannot be read', async () => {
    const root = join(dir, 'no-such-ca.pem');
    await assert.rejects(
      openStore(`${url}?sslmode=verify-full&sslrootcert=${root}`),
      refused('STORE_URL_INVALID', new RegExp(`sslrootcert ${root} cannot be read \\(ENOENT\\)$`)),
    );
  });

  it('migrate-store refuses another kind of store on either side, a missing store and missing TLS files', async () => {
    const dataDir = join(dir, 'controller');
    await mkdir(dataDir);
    const from = `sqlite:${join(dataDir, 'controller.db')}`;
    await assert.rejects(
      moveStore({ from: url, to: url, dataDir }),
      refused('STORE_UNSUPPORTED', /^--from postgres:\/\/\S+ is not a SQLite store$/),
    );
    await assert.rejects(
      moveStore({ from, to: `sqlite:${join(dir, 'other.db')}`, dataDir }),
      refused('STORE_UNSUPPORTED', /^--to \S+other\.db is not a PostgreSQL store$/),
    );
    await assert.rejects(
      moveStore({ from, to: url, dataDir }),
      refused('BAD_FLAG', /^--from sqlite:\S+: there is no store at \S+controller\.db$/),
    );
    await writeFile(join(dataDir, 'controller.db'), '');
    await assert.rejects(
      moveStore({ from, to: url, dataDir }),
      refused('BAD_FLAG', /^the controller's tls\.crt cannot be read in \S+ \(ENOENT\)$/),
    );
  });

  it('migrate-store refuses a store that a running controller holds, and a store that moved already', async () => {
    const dataDir = join(dir, 'held');
    await mkdir(dataDir);
    const store = join(dataDir, 'controller.db');
    await writeFile(store, '');
    const from = `sqlite:${store}`;
    const hold = await holdStore(store);
    try {
      await assert.rejects(
        moveStore({ from, to: url, dataDir }),
        refused(
          'STORE_IN_USE',
          new RegExp(
            `^a controller runs on the store ${store} \\(process ${process.pid}, since \\S+\\): .* nothing was copied$`,
          ),
        ),
      );
    } finally {
      await hold.release();
    }
    await writeMovedMarker(store, { to: url, movedAt: '2030-01-02T03:04:05.000Z', fingerprint: 'ab:cd' });
    await assert.rejects(
      moveStore({ from, to: url, dataDir }),
      refused('STORE_MOVED', new RegExp(`^the SQLite store ${store} moved to ${url.replaceAll('.', '\\.')} on 2030-`)),
    );
    await removeMovedMarker(store);
  });
});
