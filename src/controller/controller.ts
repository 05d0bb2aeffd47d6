/**
 * A running controller: its data directory (TLS key and certificate, sealing key, store), the service
 * and the listening server. Used by `portal controller start` and by tests.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createServerCertificate, fingerprintOf } from '../pki/authority.ts';
import { newSealingKey } from '../pki/seal.ts';
import { defaultNetworkDomain } from '../shared/product.ts';
import { ControllerServer } from './server.ts';
import { ControllerService } from './service.ts';
import { openStore, type Store } from './store/open.ts';

export interface ControllerOptions {
  readonly dataDir: string;
  /** @default "127.0.0.1" */
  readonly host?: string;
  /** 0 picks a free port. @default 0 */
  readonly port?: number;
  /** host:port written into tickets. @default the listening address */
  readonly publicAddress?: string;
  /** @default "sqlite:<dataDir>/controller.db" */
  readonly store?: string;
  /** @default "portal.example.net" */
  readonly networkDomain?: string;
  /** @default one hour */
  readonly credentialLifetimeMs?: number;
  readonly log?: (line: string) => void;
}

export interface RunningController {
  /** The public address: what tickets carry. */
  readonly address: string;
  /** Where it actually listens. */
  readonly listening: string;
  readonly fingerprint: string;
  readonly service: ControllerService;
  readonly server: ControllerServer;
  close(): Promise<void>;
}

async function readOrCreate(path: string, create: () => Promise<string | Buffer>): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch {
    const value = await create();
    await writeFile(path, value, { mode: 0o600, flag: 'wx' }).catch(async () => undefined);
    return readFile(path);
  }
}

export async function startController(options: ControllerOptions): Promise<RunningController> {
  await mkdir(options.dataDir, { recursive: true, mode: 0o700 });
  const certificatePath = join(options.dataDir, 'tls.crt');
  const keyPath = join(options.dataDir, 'tls.key');
  let certificate: string;
  let key: string;
  try {
    [certificate, key] = await Promise.all([readFile(certificatePath, 'utf8'), readFile(keyPath, 'utf8')]);
  } catch {
    const created = await createServerCertificate('portal-controller');
    await writeFile(keyPath, created.privateKey, { mode: 0o600 });
    await writeFile(certificatePath, created.certificate, { mode: 0o644 });
    [certificate, key] = [created.certificate, created.privateKey];
  }
  const sealingKey = await readOrCreate(join(options.dataDir, 'seal.key'), async () => newSealingKey());
  const store: Store = await openStore(options.store ?? `sqlite:${join(options.dataDir, 'controller.db')}`);
  const fingerprint = fingerprintOf(certificate);
  const settings = {
    publicAddress: options.publicAddress ?? '',
    fingerprint,
    networkDomain: options.networkDomain ?? defaultNetworkDomain,
    credentialLifetimeMs: options.credentialLifetimeMs ?? 3_600_000,
    sealingKey,
  };
  const service = new ControllerService(store, settings);
  const server = new ControllerServer({ service, tls: { key, certificate }, ...(options.log ? { log: options.log } : {}) });
  let bound;
  try {
    bound = await server.listen(options.host ?? '127.0.0.1', options.port ?? 0);
  } catch (error) {
    await store.destroy();
    throw error;
  }
  const host = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  const address = options.publicAddress ?? `${host === '0.0.0.0' ? '127.0.0.1' : host}:${bound.port}`;
  service.bindAddress(address);
  return {
    address,
    listening: `${host}:${bound.port}`,
    fingerprint,
    service,
    server,
    async close() {
      await server.close();
      await store.destroy();
    },
  };
}
