import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { request as httpsRequest, createServer as createHttpsServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { createLogger } from '../../src/node/logger.ts';
import { startNode, type RunningNode } from '../../src/node/node.ts';
import { createServerCertificate } from '../../src/pki/authority.ts';
import { inletPortWhenUp, until } from '../support/in-process.ts';
import { createWorld, type World } from '../support/portal-world.ts';

const quiet = createLogger({ enabled: process.env.PORTAL_TEST_LOG === '1', level: 'debug' });

/** An HTTPS request to the inlet, naming `host` (SNI and Host) while connecting to 127.0.0.1. */
function post(
  port: number,
  host: string,
  ca: string | undefined,
  body: Buffer,
): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port,
        servername: host,
        headers: { host },
        method: 'POST',
        path: '/model/test-model/invoke',
        ...(ca ? { ca } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** What a client needs: the project CA and the names under the project's network domain. */
const projectOf = (world: World) => ({
  certificate: world.admin.authority,
  projectId: world.admin.record.projectId,
  networkDomain: world.admin.record.networkDomain,
});

describe('TLS portals (in process): an inlet that serves TLS, an outlet that dials TLS', () => {
  let world: World;
  let target: Server;
  let targetPort: number;
  let projectCa: string;
  const nodes: RunningNode[] = [];

  before(async () => {
    world = await createWorld();
    const targetIdentity = createServerCertificate('localhost');
    target = createHttpsServer({ key: targetIdentity.privateKey, cert: targetIdentity.certificate }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => res.end(Buffer.concat(chunks)));
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    targetPort = (target.address() as AddressInfo).port;
    const trustFile = join(world.dir, 'target-ca.pem');
    await writeFile(trustFile, targetIdentity.certificate);
    process.env.NODE_EXTRA_CA_CERTS = trustFile;
  });

  after(async () => {
    delete process.env.NODE_EXTRA_CA_CERTS;
    for (const node of nodes) await node.stop();
    await new Promise<void>((resolve) => target.close(() => resolve()));
    await world.close();
  });

  async function pair(name: string, options: { inletTlsGrant: boolean; to: string }) {
    const outlet = await startNode({
      home: join(world.dir, `${name}-outlet`),
      ticket: await world.ticket({ attribute: `${name}-outlet`, relay: name }),
      logger: quiet,
      config: {
        'http-server-port': 0,
        relay: name,
        'tcp-outlet': { to: options.to, allow: `${name}-inlet`, tls: true },
      },
    });
    nodes.push(outlet);
    const inlet = await startNode({
      home: join(world.dir, `${name}-inlet`),
      ticket: await world.ticket({ attribute: `${name}-inlet`, tls: options.inletTlsGrant }),
      logger: quiet,
      config: {
        'http-server-port': 0,
        'tcp-inlet': { from: '127.0.0.1:0', via: name, allow: `${name}-outlet`, tls: true },
      },
    });
    nodes.push(inlet);
    return { inlet, port: await inletPortWhenUp(inlet) };
  }

  it('serves *.<project>.<domain> with a certificate for the inlet’s own key, and verifies the target', async () => {
    const { port, inlet } = await pair('runtime', { inletTlsGrant: true, to: `localhost:${targetPort}` });
    const ca = projectOf(world);
    const served = new X509Certificate(inlet.identity().certificate);
    assert.match(
      served.subjectAltName ?? '',
      new RegExp(`DNS:\\*\\.${ca.projectId}\\.${ca.networkDomain.replaceAll('.', '\\.')}`),
    );
    projectCa = ca.certificate;
    const host = `runtime.${ca.projectId}.${ca.networkDomain}`;
    const body = randomBytes(1024 * 1024);
    const answer = await post(port, host, projectCa, body);
    assert.equal(answer.status, 200);
    assert.ok(answer.body.equals(body), `echoed ${answer.body.length} of ${body.length} bytes`);
  });

  it('is refused by a client that does not trust the project CA, and for a name outside the project', async () => {
    const { port } = await pair('strict', { inletTlsGrant: true, to: `localhost:${targetPort}` });
    const ca = projectOf(world);
    await assert.rejects(
      post(port, `strict.${ca.projectId}.${ca.networkDomain}`, undefined, Buffer.from('{}')),
      /self[- ]signed|unable to (verify|get)/i,
    );
    await assert.rejects(
      post(port, `strict.elsewhere.${ca.networkDomain}`, ca.certificate, Buffer.from('{}')),
      /altnames|does not match/i,
    );
  });

  it('closes the client when the target certificate does not verify for the name dialled', async () => {
    // 127.0.0.1 is not a name the target's certificate carries.
    const { port } = await pair('mismatch', { inletTlsGrant: true, to: `127.0.0.1:${targetPort}` });
    const ca = projectOf(world);
    await assert.rejects(
      post(port, `mismatch.${ca.projectId}.${ca.networkDomain}`, ca.certificate, Buffer.from('{}')),
      /socket hang up|ECONNRESET/,
    );
  });

  it('refuses at start an inlet that serves TLS without a --tls ticket, spending nothing', async () => {
    const ticket = await world.ticket({ attribute: 'plain-inlet' });
    await assert.rejects(
      startNode({
        home: join(world.dir, 'plain-inlet'),
        ticket,
        logger: quiet,
        config: {
          'http-server-port': 0,
          'tcp-inlet': { from: '127.0.0.1:0', via: 'runtime', allow: 'runtime-outlet', tls: true },
        },
      }),
      (error: Error & { code?: string }) =>
        error.code === 'TLS_NOT_GRANTED' && /--tls/.test(error.message + String((error as { hint?: string }).hint)),
    );
    const retry = await startNode({
      home: join(world.dir, 'plain-inlet-2'),
      ticket,
      logger: quiet,
      config: { 'http-server-port': 0, 'tcp-inlet': { from: '127.0.0.1:0', via: 'runtime', allow: 'runtime-outlet' } },
    });
    nodes.push(retry);
    assert.ok(new X509Certificate(projectCa ?? projectOf(world).certificate));
  });
});

describe('TLS portals (in process): renewal of the served certificate', () => {
  it('serves a renewed certificate for the same name before the old one expires, and keeps serving', async function () {
    this.timeout(30_000);
    const { connect } = await import('node:tls');
    const world = await createWorld({ credentialLifetimeMs: 4000 });
    const targetIdentity = createServerCertificate('localhost');
    const target = createHttpsServer({ key: targetIdentity.privateKey, cert: targetIdentity.certificate }, (req, res) =>
      req.pipe(res),
    );
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    const trustFile = join(world.dir, 'target-ca.pem');
    await writeFile(trustFile, targetIdentity.certificate);
    process.env.NODE_EXTRA_CA_CERTS = trustFile;
    const nodes: RunningNode[] = [];
    try {
      const project = projectOf(world);
      nodes.push(
        await startNode({
          home: join(world.dir, 'outlet'),
          ticket: await world.ticket({ attribute: 'short-outlet', relay: 'short' }),
          logger: quiet,
          config: {
            'http-server-port': 0,
            relay: 'short',
            'tcp-outlet': {
              to: `localhost:${(target.address() as AddressInfo).port}`,
              allow: 'short-inlet',
              tls: true,
            },
          },
        }),
      );
      const inlet = await startNode({
        home: join(world.dir, 'inlet'),
        ticket: await world.ticket({ attribute: 'short-inlet', tls: true }),
        logger: quiet,
        config: {
          'http-server-port': 0,
          'tcp-inlet': { from: '127.0.0.1:0', via: 'short', allow: 'short-outlet', tls: true },
        },
      });
      nodes.push(inlet);
      const port = await inletPortWhenUp(inlet);
      const host = `api.${project.projectId}.${project.networkDomain}`;
      const served = () =>
        new Promise<X509Certificate>((resolve, reject) => {
          const socket = connect({ host: '127.0.0.1', port, servername: host, ca: project.certificate }, () => {
            const certificate = socket.getPeerX509Certificate();
            socket.destroy();
            if (certificate) resolve(certificate);
            else reject(new Error('no certificate'));
          });
          socket.once('error', reject);
        });
      const first = await served();
      const renewed = await until(
        async () => {
          const now = await served();
          return now.serialNumber !== first.serialNumber ? now : undefined;
        },
        'a renewed certificate',
        10_000,
      );
      assert.ok(Date.now() < Date.parse(first.validTo), 'renewed before the first one expired');
      assert.ok(Date.parse(renewed.validTo) > Date.parse(first.validTo));
      assert.equal(renewed.checkHost(host), `*.${project.projectId}.${project.networkDomain}`);
      const answer = await post(port, host, project.certificate, Buffer.from('still here'));
      assert.equal(answer.body.toString(), 'still here');
    } finally {
      delete process.env.NODE_EXTRA_CA_CERTS;
      for (const node of nodes) await node.stop();
      await new Promise<void>((resolve) => target.close(() => resolve()));
      await world.close();
    }
  });
});
