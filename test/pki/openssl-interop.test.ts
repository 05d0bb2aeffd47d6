/**
 * Portal's certificates and requests as OpenSSL reads and writes them: what Portal signs verifies
 * there, and what OpenSSL makes (a request, an authority without a subject key identifier, as earlier
 * versions of Portal made theirs) reads and chains here.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createAuthority,
  createCertificateRequest,
  createServerCertificate,
  issueCertificate,
  publicKeyDigest,
  readCertificateRequest,
} from '../../src/pki/authority.ts';
import { generateKeyPair } from '../../src/pki/keys.ts';

const openssl = (args: string[]) =>
  execFileSync('openssl', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

describe('certificates and requests with OpenSSL', () => {
  let dir: string;
  const file = (name: string) => join(dir, name);
  const identity = {
    projectId: 'p7',
    nodeId: 'n7',
    attributes: ['warehouse-outlet'],
    relays: ['warehouse'],
    admin: false,
    tls: true,
    relayNode: false,
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portal-openssl-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('verifies what Portal signs: the request, the chain, the extensions', async () => {
    const authority = createAuthority('p7');
    const keys = generateKeyPair();
    const request = createCertificateRequest(keys.privateKey, keys.publicKey, 'n7', 'fresh-challenge');
    await writeFile(file('ca.pem'), authority.certificate);
    await writeFile(file('request.pem'), request);
    await writeFile(
      file('leaf.pem'),
      issueCertificate({ authority, request, identity, lifetimeMs: 3_600_000, dnsNames: ['*.p7.portal.test'] }),
    );
    const checked = execFileSync('openssl', ['req', '-in', file('request.pem'), '-verify', '-noout', '-text'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    assert.match(checked, /challengePassword\s+:fresh-challenge/);
    assert.equal(
      openssl(['verify', '-x509_strict', '-purpose', 'sslclient', '-CAfile', file('ca.pem'), file('leaf.pem')]),
      `${file('leaf.pem')}: OK\n`,
    );
    assert.equal(
      openssl(['verify', '-x509_strict', '-purpose', 'sslserver', '-CAfile', file('ca.pem'), file('leaf.pem')]),
      `${file('leaf.pem')}: OK\n`,
    );
    const text = openssl(['x509', '-in', file('leaf.pem'), '-noout', '-text']);
    assert.match(text, /Basic Constraints: critical\n\s+CA:FALSE/);
    assert.match(text, /Key Usage: critical\n\s+Digital Signature\n/);
    assert.match(text, /Extended Key Usage: \n\s+TLS Web Server Authentication, TLS Web Client Authentication/);
    assert.match(
      text,
      new RegExp(
        'Subject Alternative Name: \\n\\s+' +
          'URI:portal://p7/node/n7, URI:portal://p7/attr/warehouse-outlet, URI:portal://p7/relay/warehouse, ' +
          'URI:portal://p7/role/tls, DNS:\\*\\.p7\\.portal\\.test\\n',
      ),
    );
    const caText = openssl(['x509', '-in', file('ca.pem'), '-noout', '-text']);
    assert.match(caText, /Basic Constraints: critical\n\s+CA:TRUE, pathlen:0/);
    assert.match(caText, /Key Usage: critical\n\s+Certificate Sign, CRL Sign\n/);
    const keyId = /Subject Key Identifier: \n\s+([0-9A-F:]+)\n/.exec(caText)?.[1];
    assert.ok(keyId);
    assert.match(text, new RegExp(`Authority Key Identifier: \\n\\s+${keyId}\\n`));
  });

  it('verifies the controller’s self-signed TLS certificate for its name', async () => {
    const server = createServerCertificate('controller.portal.test');
    await writeFile(file('server.pem'), server.certificate);
    assert.equal(
      openssl([
        'verify',
        '-x509_strict',
        '-purpose',
        'sslserver',
        '-verify_hostname',
        'controller.portal.test',
        '-CAfile',
        file('server.pem'),
        file('server.pem'),
      ]),
      `${file('server.pem')}: OK\n`,
    );
  });

  it('reads a request OpenSSL made, and issues from an authority OpenSSL made without a key identifier', async () => {
    openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', file('ec.pem')]);
    openssl(['pkcs8', '-topk8', '-nocrypt', '-in', file('ec.pem'), '-out', file('node.key')]);
    await writeFile(
      file('request.cnf'),
      '[req]\ndistinguished_name = dn\nattributes = attrs\nprompt = no\n' +
        '[dn]\nCN = n7\n[attrs]\nchallengePassword = from-openssl\n',
    );
    openssl([
      'req',
      '-new',
      '-key',
      file('node.key'),
      '-config',
      file('request.cnf'),
      '-out',
      file('openssl-request.pem'),
    ]);
    const request = await readFile(file('openssl-request.pem'), 'utf8');
    const read = readCertificateRequest(request);
    assert.equal(read.challenge, 'from-openssl');
    const spki = execFileSync('openssl', ['pkey', '-in', file('node.key'), '-pubout', '-outform', 'DER']);
    assert.equal(publicKeyDigest(read.publicKey), publicKeyDigest(spki), 'the key as the controller remembers it');

    openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', file('ca-ec.pem')]);
    openssl(['pkcs8', '-topk8', '-nocrypt', '-in', file('ca-ec.pem'), '-out', file('ca.key')]);
    await writeFile(
      file('ca.cnf'),
      '[req]\ndistinguished_name = dn\nprompt = no\nx509_extensions = ca\n[dn]\nCN = Portal project p7\n' +
        '[ca]\nbasicConstraints = critical, CA:TRUE, pathlen:0\nkeyUsage = critical, keyCertSign, cRLSign\n' +
        'subjectKeyIdentifier = none\nauthorityKeyIdentifier = none\n',
    );
    openssl([
      'req',
      '-x509',
      '-new',
      '-key',
      file('ca.key'),
      '-config',
      file('ca.cnf'),
      '-days',
      '2',
      '-out',
      file('old-ca.pem'),
    ]);
    const authority = {
      certificate: await readFile(file('old-ca.pem'), 'utf8'),
      privateKey: await readFile(file('ca.key'), 'utf8'),
    };
    assert.doesNotMatch(openssl(['x509', '-in', file('old-ca.pem'), '-noout', '-text']), /Key Identifier/);
    const issued = issueCertificate({ authority, request, identity, lifetimeMs: 3_600_000 });
    await writeFile(file('from-old-ca.pem'), issued);
    assert.equal(
      openssl(['verify', '-CAfile', file('old-ca.pem'), file('from-old-ca.pem')]),
      `${file('from-old-ca.pem')}: OK\n`,
    );
    const ca = new X509Certificate(authority.certificate);
    assert.ok(new X509Certificate(issued).checkIssued(ca));
  });
});
