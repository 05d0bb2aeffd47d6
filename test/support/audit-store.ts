/**
 * A controller's audit trail reached behind its back, as whoever holds its store would: records
 * appended fast (straight through the store, signed with the key the controller derives from its
 * sealing key, as the controller itself would sign them), and rows read and changed with SQLite.
 */
import { randomBytes } from 'node:crypto';
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { AuditTrail, type AuditEntry } from '../../src/controller/audit-trail.ts';
import { openStore } from '../../src/controller/store/open.ts';
import { auditSignerOf, type AuditSigner } from '../../src/shared/audit-signature.ts';
import { keysDirectory, readSealingKey, sealingKeyFileNames } from '../../src/shared/sealing-key.ts';

/** The trail key of a controller started by `portal controller start` with PORTAL_HOME `home`. */
export async function controllerSigner(home: string): Promise<AuditSigner> {
  const path = join(keysDirectory(home), sealingKeyFileNames.controller);
  const key = await readSealingKey({ kind: 'file', path });
  if (!key) throw new Error(`no sealing key in ${path}`);
  return auditSignerOf(key);
}

/** Records one append writes: what one audit-report of a node carries at most. */
const appendRecords = 200;

/**
 * Appends `count` session records to `projectId`'s trail in the controller's SQLite store, `appendRecords`
 * to an append (each append's last signed), as members reporting sessions would have them written.
 */
export async function fillTrail(dataDir: string, signer: AuditSigner, projectId: string, count: number): Promise<void> {
  const store = await openStore(`sqlite:${join(dataDir, 'controller.db')}`);
  try {
    const trail = new AuditTrail(store, { signer });
    const inlet = `n${randomBytes(8).toString('hex')}`;
    const outlet = `n${randomBytes(8).toString('hex')}`;
    for (let written = 0; written < count;) {
      const entries: AuditEntry[] = [];
      for (let n = 0; n < Math.min(appendRecords, count - written); n += 1)
        entries.push({
          event: 'session',
          seenBy: inlet,
          reportId: randomBytes(12).toString('base64url'),
          time: Date.now(),
          members: [inlet, outlet],
          details: {
            portal: 'postgres',
            path: 'direct',
            relay: null,
            opened_at: new Date().toISOString(),
            duration_ms: 12,
            bytes_from_client: 517,
            bytes_to_client: 20_480,
            ended: 'closed',
          },
        });
      written += await trail.append(projectId, entries);
    }
  } finally {
    await store.destroy();
  }
}

/** A TCP forwarder that counts the connections it forwards: what a command opened to the controller. */
export interface CountingProxy {
  readonly address: string;
  connections: number;
  close(): Promise<void>;
}

export async function startCountingProxy(target: string): Promise<CountingProxy> {
  const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    proxy.connections += 1;
    const upstream = connect({ host, port });
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(from);
      from.pipe(to);
      from.on('error', () => to.destroy());
      from.on('close', () => {
        sockets.delete(from);
        to.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxy: CountingProxy = {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  return proxy;
}
