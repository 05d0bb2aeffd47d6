import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import {
  createAuthority,
  createCertificateRequest,
  fingerprintOf,
  issueCertificate,
  readCertificateRequest,
} from '../../src/pki/authority.ts';
import { identityOf } from '../../src/pki/identity.ts';
import { generateKeyPair } from '../../src/pki/keys.ts';
import { newSealingKey, seal, unseal } from '../../src/pki/seal.ts';
import { InputError } from '../../src/shared/errors.ts';

describe('project certificate authority', () => {
  const identity = {
    projectId: 'p1a2b3',
    nodeId: 'n42',
    attributes: ['postgres-inlet'],
    relays: [],
    admin: false,
    tls: false,
    relayNode: false,
  };

  it('signs a node certificate from a request, carrying the identity as SAN URIs', async () => {
    const authority = createAuthority('p1a2b3');
    const keys = generateKeyPair();
    const request = createCertificateRequest(keys.privateKey, keys.publicKey, 'n42');
    const pem = issueCertificate({ authority, request, identity, lifetimeMs: 3600_000 });
    const certificate = new X509Certificate(pem);
    const ca = new X509Certificate(authority.certificate);
    assert.ok(certificate.checkIssued(ca) && certificate.verify(ca.publicKey), 'chains to the project CA');
    assert.ok(
      certificate.checkPrivateKey(await import('node:crypto').then((c) => c.createPrivateKey(keys.privateKey))),
      'for the node key',
    );
    assert.deepEqual(identityOf(certificate), identity);
    assert.ok(ca.ca && !certificate.ca);
    const lifetime = Date.parse(certificate.validTo) - Date.now();
    assert.ok(lifetime > 3500_000 && lifetime <= 3600_000, `short-lived: ${lifetime} ms`);
  });

  it('refuses a request that its key did not sign', () => {
    const authority = createAuthority('p1a2b3');
    const a = generateKeyPair();
    const request = createCertificateRequest(a.privateKey, a.publicKey, 'n42');
    // Change the signed subject (CN=n42 → CN=n43) without re-signing.
    const der = Buffer.from(request.replace(/-----[A-Z ]+-----|\s/g, ''), 'base64');
    const at = der.indexOf(Buffer.from('n42'));
    der[at + 2] = '3'.charCodeAt(0);
    const tampered =
      '-----BEGIN CERTIFICATE REQUEST-----\n' + `${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
    const issued = () => issueCertificate({ authority, request: tampered, identity, lifetimeMs: 1000 });
    assert.throws(issued, /certificate request/);
    assert.throws(issued, {
      code: 'REQUEST_INVALID',
      message: 'the certificate request is not signed by its own key',
    });
  });

  it("refuses a request that is not a PEM PKCS#10 request, as the client's bug", () => {
    assert.throws(
      () => readCertificateRequest('not a request'),
      (error: unknown) => {
        assert.ok(error instanceof InputError);
        assert.equal(error.code, 'REQUEST_INVALID');
        assert.equal(error.message, 'the certificate request is not a PEM PKCS#10 request');
        return true;
      },
    );
  });

  it('fingerprints certificates as SHA-256 hex', () => {
    const authority = createAuthority('p1');
    assert.match(fingerprintOf(authority.certificate), /^[0-9a-f]{64}$/);
  });
});

describe('sealed files', () => {
  it('round-trips and refuses a wrong key or a changed byte', () => {
    const key = newSealingKey();
    const sealed = seal(key, Buffer.from('private key'));
    assert.equal(unseal(key, sealed).toString(), 'private key');
    assert.throws(() => unseal(newSealingKey(), sealed));
    const changed = Buffer.from(sealed);
    changed[changed.length - 1] = (changed[changed.length - 1] as number) ^ 1;
    assert.throws(() => unseal(key, changed));
  });
});
