import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { basename, join } from 'node:path';
import { createServerCertificate } from '../../src/pki/authority.ts';
import { sharedOnce } from './run-cache.ts';
import { projectRoot } from './usecases.ts';

export const version = (JSON.parse(await readFile(join(projectRoot, 'package.json'), 'utf8')) as { version: string })
  .version;

export interface ReleaseHost {
  readonly server: Server;
  /** https://localhost:<port> */
  readonly base: string;
  /** The host's certificate, for CURL_CA_BUNDLE. */
  readonly caFile: string;
  /** Paths requested so far, in order. */
  readonly served: string[];
  close(): Promise<void>;
}

/** `npm run release` into `destination`: the tarball's path. */
function packRelease(destination: string): string {
  return execFileSync(process.execPath, [join(projectRoot, 'scripts/pack-release.mjs'), destination], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  })
    .trim()
    .split('\n')
    .at(-1) as string;
}

/**
 * A release host over real HTTPS on loopback: install.sh from this checkout and the tarball that
 * `npm run release` packs (npm pack), under the name install.sh asks for by default.
 */
export async function startReleaseHost(dir: string): Promise<ReleaseHost> {
  const name = `portal-${version}-${process.platform}-${process.arch}.tgz`;
  // Packed once a test run (npm pack costs some five seconds of CPU), and copied to `dir`/packed.
  const shared = await sharedOnce(name, async () => {
    const staging = await mkdtemp(join(tmpdir(), 'portal-packed-'));
    const packed = packRelease(staging);
    const moved = `${staging}.tgz`;
    await rename(packed, moved);
    await rm(staging, { recursive: true, force: true });
    return moved;
  });
  let tarball = join(dir, 'packed', name);
  if (shared) {
    await mkdir(join(dir, 'packed'), { recursive: true });
    await copyFile(shared, tarball);
  } else tarball = packRelease(join(dir, 'packed'));
  assert.equal(basename(tarball), name);
  const files = new Map([
    ['/install.sh', await readFile(join(projectRoot, 'install.sh'))],
    [`/releases/portal-latest-${process.platform}-${process.arch}.tgz`, await readFile(tarball)],
    ['/releases/not-a-release.tgz', Buffer.from('<html>not found</html>')],
  ]);
  const identity = createServerCertificate('localhost');
  const caFile = join(dir, 'release-host-ca.pem');
  await writeFile(caFile, identity.certificate);
  const served: string[] = [];
  const server = createServer({ key: identity.privateKey, cert: identity.certificate }, (req, res) => {
    served.push(req.url ?? '');
    const body = files.get(req.url ?? '');
    if (body) res.writeHead(200, { 'content-length': body.length }).end(body);
    else res.writeHead(404).end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    base: `https://localhost:${(server.address() as AddressInfo).port}`,
    caFile,
    served,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
