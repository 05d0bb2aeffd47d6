import assert from 'node:assert/strict';
import { X509Certificate, createPublicKey, generateKeyPairSync, sign } from 'node:crypto';
import {
  createAuthority,
  issueCertificate,
  issuedExpiry,
  prepareAuthority,
  publicKeyDigest,
  readCertificateRequest,
} from '../../src/pki/authority.ts';
import { issuerOf, keyIdentifier } from '../../src/pki/certificate-builder.ts';
import * as der from '../../src/pki/der.ts';
import { RequestUnreadable, createRequest, readRequest, readRequestOfKnownKey } from '../../src/pki/pkcs10.ts';
import { Oid, algorithmIdentifier, nameWithCommonName } from '../../src/pki/x509-names.ts';

const pemOf = (bytes: Buffer) => der.toPem(bytes, 'CERTIFICATE REQUEST');
const derOf = (pem: string) => der.fromPem(pem, 'CERTIFICATE REQUEST') as Buffer;

function keys(kind: 'P-256' | 'P-384' | 'rsa' = 'P-256') {
  const pair =
    kind === 'rsa'
      ? generateKeyPairSync('rsa', { modulusLength: 1024 })
      : generateKeyPairSync('ec', { namedCurve: kind });
  return {
    privateKey: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKey: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

/** A request from its parts, signed by `signer`: to make the malformed ones a hostile client could send. */
function requestOf(info: Buffer, signer: string, algorithm: string = Oid.ecdsaWithSha256) {
  return pemOf(der.sequence(info, algorithmIdentifier(algorithm), der.bitString(sign('sha256', info, signer))));
}

const refusal = { code: 'REQUEST_INVALID', message: 'the certificate request is not a PEM PKCS#10 request' };

describe('certificate requests (PKCS#10) as the controller reads them from peers not yet trusted', () => {
  const node = keys();
  const spki = createPublicKey(node.publicKey).export({ type: 'spki', format: 'der' });
  const infoWith = (attributes: Buffer[], key: Buffer = spki) =>
    der.sequence(der.smallInteger(0), nameWithCommonName('n1'), key, der.element(0xa0, Buffer.concat(attributes)));

  it('reads back the key and the challenge of a request it made', () => {
    const read = readCertificateRequest(createRequest(node.privateKey, node.publicKey, 'n1', 'c-123_x'));
    assert.deepEqual(read.publicKey, spki);
    assert.equal(read.challenge, 'c-123_x');
    assert.equal(readCertificateRequest(createRequest(node.privateKey, node.publicKey, 'n1')).challenge, undefined);
  });

  it('reads a challenge written as UTF8String or PrintableString, as other makers write it', () => {
    for (const tag of [der.Tag.utf8String, der.Tag.printableString]) {
      const challenge = der.sequence(der.oid(Oid.challengePassword), der.setOf(der.element(tag, Buffer.from('abc'))));
      assert.equal(readCertificateRequest(requestOf(infoWith([challenge]), node.privateKey)).challenge, 'abc');
    }
  });

  it('refuses every malformed request in one line, without throwing anything else', () => {
    const good = derOf(createRequest(node.privateKey, node.publicKey, 'n1', 'c'));
    const p384 = keys('P-384');
    const rsa = keys('rsa');
    const notString = der.sequence(der.oid(Oid.challengePassword), der.setOf(der.smallInteger(7)));
    const cases: Record<string, string> = {
      'not PEM': 'not a request',
      'another PEM label': der.toPem(good, 'CERTIFICATE'),
      truncated: pemOf(good.subarray(0, good.length - 5)),
      'trailing bytes': pemOf(Buffer.concat([good, Buffer.from([0])])),
      'indefinite length': pemOf(Buffer.concat([Buffer.from([0x30, 0x80]), good.subarray(3), Buffer.from([0, 0])])),
      'length not minimal': pemOf(
        Buffer.concat([Buffer.from([0x30, 0x82, 0x00, good[2] as number]), good.subarray(3)]),
      ),
      'length beyond the input': pemOf(Buffer.from([0x30, 0x84, 0x7f, 0xff, 0xff, 0xff, 0x00])),
      'multi-byte tag': pemOf(Buffer.from([0x3f, 0x81, 0x01, 0x00])),
      'an empty sequence': pemOf(der.sequence()),
      'version 2': requestOf(
        der.sequence(der.smallInteger(1), nameWithCommonName('n1'), spki, der.element(0xa0, Buffer.alloc(0))),
        node.privateKey,
      ),
      'RSA signature algorithm': requestOf(infoWith([]), node.privateKey, '1.2.840.113549.1.1.11'),
      'a P-384 key': requestOf(
        infoWith([], createPublicKey(p384.publicKey).export({ type: 'spki', format: 'der' })),
        p384.privateKey,
      ),
      'an RSA key': requestOf(
        infoWith([], createPublicKey(rsa.publicKey).export({ type: 'spki', format: 'der' })),
        rsa.privateKey,
      ),
      'a key that is no key': requestOf(
        infoWith([], der.sequence(der.sequence(der.oid('1.2.3')), der.bitString(Buffer.alloc(4)))),
        node.privateKey,
      ),
      'a challenge that is no string': requestOf(infoWith([notString]), node.privateKey),
    };
    for (const [name, pem] of Object.entries(cases)) {
      assert.throws(() => readCertificateRequest(pem), refusal, name);
      assert.throws(() => readRequest(pem, { checkSignature: false }), /./, name);
    }
  });

  it('refuses a request that another key signed', () => {
    const other = keys();
    assert.throws(() => readCertificateRequest(requestOf(infoWith([]), other.privateKey)), {
      code: 'REQUEST_INVALID',
      message: 'the certificate request is not signed by its own key',
    });
  });

  it('takes a request for a key known by its digest by its bytes alone; any other key is not taken', () => {
    const known = publicKeyDigest(spki);
    const own = readRequestOfKnownKey(
      createRequest(node.privateKey, node.publicKey, 'n1', 'c1'),
      known,
      publicKeyDigest,
    );
    assert.deepEqual(own, { publicKey: spki, challenge: 'c1' });
    // Its holder proved it holds the key otherwise (a TLS handshake): the signature is not what decides.
    const other = keys();
    assert.deepEqual(
      readRequestOfKnownKey(requestOf(infoWith([]), other.privateKey), known, publicKeyDigest)?.publicKey,
      spki,
    );
    const otherSpki = createPublicKey(other.publicKey).export({ type: 'spki', format: 'der' });
    const forOther = createRequest(other.privateKey, other.publicKey, 'n1');
    assert.equal(readRequestOfKnownKey(forOther, known, publicKeyDigest), undefined);
    assert.equal(readRequestOfKnownKey(forOther, publicKeyDigest(otherSpki), publicKeyDigest)?.challenge, undefined);
    assert.throws(() => readRequestOfKnownKey('not a request', known, publicKeyDigest), RequestUnreadable);
  });
});

describe('certificates as the project authority builds them', () => {
  it('names the authority as the issuer byte for byte, with its key identifier', () => {
    const authority = createAuthority('p9');
    const ca = new X509Certificate(authority.certificate);
    const node = keys();
    const pem = issueCertificate({
      authority,
      request: createRequest(node.privateKey, node.publicKey, 'n1'),
      identity: {
        projectId: 'p9',
        nodeId: 'n1',
        attributes: ['a=b'],
        relays: ['r'],
        admin: false,
        tls: false,
        relayNode: false,
      },
      lifetimeMs: 60_000,
    });
    const issued = new X509Certificate(pem);
    assert.equal(issued.issuer, 'CN=Portal project p9');
    assert.equal(issued.subject, 'CN=n1');
    assert.ok(issued.checkIssued(ca) && issued.verify(ca.publicKey));
    assert.equal(issued.subjectAltName, 'URI:portal://p9/node/n1, URI:portal://p9/attr/a=b, URI:portal://p9/relay/r');
    const caKey = ca.publicKey.export({ type: 'spki', format: 'der' });
    assert.deepEqual(issuerOf(authority.certificate).keyIdentifier, keyIdentifier(caKey));
    // The serial is positive and of 8 octets: no sign byte, no leading zero.
    assert.match(issued.serialNumber, /^[4-7][0-9A-F]{15}$/);
  });
});

describe('DER, as Portal writes it', () => {
  it('writes the fewest octets for integers, lengths and object identifiers', () => {
    assert.equal(der.unsignedInteger(Buffer.from([0, 0, 0x7f])).toString('hex'), '02017f');
    assert.equal(der.unsignedInteger(Buffer.from([0x80])).toString('hex'), '02020080');
    assert.equal(der.unsignedInteger(Buffer.from([0, 0])).toString('hex'), '020100');
    assert.equal(der.oid(Oid.ecdsaWithSha256).toString('hex'), '06082a8648ce3d040302');
    assert.equal(der.oidText(der.contentOf(der.oid('2.999.3'), der.readElement(der.oid('2.999.3'), 0))), '2.999.3');
    assert.equal(der.element(0x04, Buffer.alloc(200)).subarray(0, 3).toString('hex'), '0481c8');
    assert.equal(der.element(0x04, Buffer.alloc(300)).subarray(0, 4).toString('hex'), '0482012c');
  });

  it('writes named bits with the trailing unused bits counted', () => {
    assert.equal(der.namedBits([0]).toString('hex'), '03020780');
    assert.equal(der.namedBits([5, 6]).toString('hex'), '03020106');
  });

  it('writes times as UTCTime through 2049 and GeneralizedTime from 2050', () => {
    assert.equal(der.time(new Date('2049-12-31T23:59:59.900Z')).toString('latin1').slice(2), '491231235959Z');
    assert.equal(der.time(new Date('2050-01-01T00:00:00Z')).toString('latin1').slice(2), '20500101000000Z');
  });

  it('signs the same certificate with a prepared authority, and says when it expires as the certificate does', () => {
    const authority = createAuthority('p9');
    const node = keys();
    const request = createRequest(node.privateKey, node.publicKey, 'n1');
    const identity = {
      projectId: 'p9',
      nodeId: 'n1',
      attributes: [],
      relays: [],
      admin: false,
      tls: false,
      relayNode: false,
    };
    const now = new Date('2026-11-29T12:00:00.750Z');
    const lifetimeMs = 3_600_000;
    const plain = new X509Certificate(issueCertificate({ authority, request, identity, lifetimeMs, now }));
    const prepared = new X509Certificate(
      issueCertificate({
        authority: prepareAuthority(authority),
        request: readCertificateRequest(request),
        identity,
        lifetimeMs,
        now,
      }),
    );
    for (const certificate of [plain, prepared]) {
      assert.ok(certificate.verify(new X509Certificate(authority.certificate).publicKey));
      assert.equal(Date.parse(certificate.validTo), issuedExpiry(now, lifetimeMs));
    }
    assert.equal(prepared.subject, plain.subject);
    assert.equal(prepared.issuer, plain.issuer);
    assert.equal(prepared.subjectAltName, plain.subjectAltName);
    assert.equal(
      prepared.publicKey.export({ type: 'spki', format: 'pem' }),
      plain.publicKey.export({ type: 'spki', format: 'pem' }),
    );
  });
});
