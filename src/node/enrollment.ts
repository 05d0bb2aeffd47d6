/**
 * Enrollment from the node's side: the key pair is generated here, only a certificate request goes to
 * the controller, and what comes back is stored with the sealed key.
 */
import { X509Certificate } from 'node:crypto';
import { createCertificateRequest } from '../pki/authority.ts';
import { clockSkewMs } from '../shared/limits.ts';
import { generateKeyPair, publicKeyOf } from '../pki/keys.ts';
import { PortalError } from '../shared/errors.ts';
import { callController, openControlChannel } from '../wire/control-channel.ts';
import type { EnrollmentAnswer } from '../wire/protocol.ts';
import { decodeAdminCode, decodeTicket, type ControllerPin } from '../wire/ticket.ts';
import { identityOf } from '../pki/identity.ts';
import { saveCertificate, saveIdentity, saveRecord, type StoredIdentity } from './identity-store.ts';

function toStored(pin: ControllerPin, privateKey: string, answer: EnrollmentAnswer): StoredIdentity {
  const { identity, certificate, authority, networkDomain } = answer;
  return {
    record: {
      controller: pin.controller,
      fingerprint: pin.fingerprint,
      projectId: identity.projectId,
      nodeId: identity.nodeId,
      networkDomain,
      attributes: identity.attributes,
      relays: identity.relays,
      tls: identity.tls,
    },
    privateKey,
    certificate,
    authority,
  };
}

export async function enrollWithTicket(directory: string, ticketText: string): Promise<StoredIdentity> {
  const ticket = decodeTicket(ticketText);
  const keys = generateKeyPair();
  const request = createCertificateRequest(keys.privateKey, keys.publicKey, 'portal-node');
  const answer = await callController(ticket, 'enroll', { ticket: ticket.ticketId, secret: ticket.secret, request });
  const stored = toStored(ticket, keys.privateKey, answer);
  await saveIdentity(directory, stored);
  return stored;
}

export async function enrollAdministrator(
  directory: string,
  codeText: string,
  projectName?: string,
): Promise<StoredIdentity> {
  const code = decodeAdminCode(codeText);
  const keys = generateKeyPair();
  const request = createCertificateRequest(keys.privateKey, keys.publicKey, 'portal-admin');
  const answer = await callController(code, 'admin-enroll', {
    code: code.code,
    request,
    ...(projectName ? { project: projectName } : {}),
  });
  const stored = toStored(code, keys.privateKey, answer);
  await saveIdentity(directory, stored);
  return stored;
}

/** A fresh certificate for the same key, authenticated by the current certificate. */
export async function renewCertificate(directory: string, identity: StoredIdentity): Promise<StoredIdentity> {
  const request = createCertificateRequest(identity.privateKey, publicKeyOf(identity.privateKey), 'portal-node');
  const answer = await callController(
    identity.record,
    'renew',
    { request },
    { key: identity.privateKey, certificate: identity.certificate },
  );
  return storeCertificate(directory, identity, answer.certificate);
}

/**
 * A new certificate for a member whose certificate expired: on a channel that authenticates nothing,
 * the expired certificate and a request signed by the enrolled key over a challenge the controller
 * just gave, so the request proves possession of the key now and cannot be replayed.
 */
export async function reissueCertificate(directory: string, identity: StoredIdentity): Promise<StoredIdentity> {
  const channel = await openControlChannel(identity.record);
  try {
    const { challenge } = await channel.request('reissue-challenge', {});
    const request = createCertificateRequest(
      identity.privateKey,
      publicKeyOf(identity.privateKey),
      'portal-node',
      challenge,
    );
    const answer = await channel.request('reissue', { certificate: identity.certificate, request });
    return await storeCertificate(directory, identity, answer.certificate);
  } finally {
    channel.close();
  }
}

export type Refreshed = { readonly identity: StoredIdentity; readonly how: 'renewed' | 'reissued' };

/**
 * A fresh certificate by whichever path the current one allows: renewal while it is valid, re-issue
 * once it has expired (or when the controller no longer accepts it for renewal, as when clocks differ).
 */
export async function refreshCertificate(
  directory: string,
  identity: StoredIdentity,
  now = Date.now(),
): Promise<Refreshed> {
  if (now >= Date.parse(new X509Certificate(identity.certificate).validTo)) {
    return { identity: await reissueCertificate(directory, identity), how: 'reissued' };
  }
  try {
    return { identity: await renewCertificate(directory, identity), how: 'renewed' };
  } catch (error) {
    if (!(error instanceof PortalError) || error.code !== 'NOT_AUTHENTICATED') throw error;
    return { identity: await reissueCertificate(directory, identity), how: 'reissued' };
  }
}

/** Whether a certificate is past half of its life since it was issued (or expired): time to refresh it. */
export function dueForRefresh(certificate: string, now = Date.now()): boolean {
  const parsed = new X509Certificate(certificate);
  const issued = Date.parse(parsed.validFrom) + clockSkewMs;
  const to = Date.parse(parsed.validTo);
  return now >= issued + (to - issued) / 2;
}

/**
 * Stores a fresh certificate. The controller certifies what its store says the member is, so the
 * certificate may grant more than the record says (relay names granted since, portal project grant):
 * the record is written again then, so a restart checks the configuration against what is granted.
 */
async function storeCertificate(
  directory: string,
  identity: StoredIdentity,
  certificate: string,
): Promise<StoredIdentity> {
  await saveCertificate(directory, certificate);
  const granted = identityOf(certificate);
  const { record } = identity;
  if (!granted || sameGrants(record, granted)) return { ...identity, certificate };
  const updated = { ...record, attributes: granted.attributes, relays: granted.relays, tls: granted.tls };
  await saveRecord(directory, updated);
  return { ...identity, record: updated, certificate };
}

type GrantFields = Pick<StoredIdentity['record'], 'attributes' | 'relays' | 'tls'>;

/** Whether two identities grant the same: attributes, relay names, TLS. */
export function sameGrants(a: GrantFields, b: GrantFields): boolean {
  const same = (x: readonly string[], y: readonly string[]) =>
    x.length === y.length && x.every((value, index) => value === y[index]);
  return same(a.attributes, b.attributes) && same(a.relays, b.relays) && a.tls === b.tls;
}
