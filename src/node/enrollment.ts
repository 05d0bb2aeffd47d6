/**
 * Enrollment from the node's side: the key pair is generated here, only a certificate request goes to
 * the controller, and what comes back is stored with the sealed key.
 */
import { createCertificateRequest } from '../pki/authority.ts';
import { generateKeyPair, publicKeyOf } from '../pki/keys.ts';
import { callController, type Answer } from '../wire/control-channel.ts';
import { decodeAdminCode, decodeTicket, type ControllerPin } from '../wire/ticket.ts';
import { saveCertificate, saveIdentity, type StoredIdentity } from './identity-store.ts';

interface EnrollmentAnswer {
  readonly identity: { projectId: string; nodeId: string; attributes: string[]; relays: string[]; tls: boolean };
  readonly certificate: string;
  readonly authority: string;
  readonly networkDomain: string;
}

function toStored(pin: ControllerPin, privateKey: string, answer: Answer): StoredIdentity {
  const { identity, certificate, authority, networkDomain } = answer as unknown as EnrollmentAnswer;
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
  const request = await createCertificateRequest(keys.privateKey, keys.publicKey, 'portal-node');
  const answer = await callController(ticket, 'enroll', { ticket: ticket.ticketId, secret: ticket.secret, request });
  const stored = toStored(ticket, keys.privateKey, answer);
  await saveIdentity(directory, stored);
  return stored;
}

export async function enrollAdministrator(directory: string, codeText: string, projectName?: string): Promise<StoredIdentity> {
  const code = decodeAdminCode(codeText);
  const keys = generateKeyPair();
  const request = await createCertificateRequest(keys.privateKey, keys.publicKey, 'portal-admin');
  const answer = await callController(code, 'admin-enroll', { code: code.code, request, ...(projectName ? { project: projectName } : {}) });
  const stored = toStored(code, keys.privateKey, answer);
  await saveIdentity(directory, stored);
  return stored;
}

/** A fresh certificate for the same key, authenticated by the current certificate. */
export async function renewCertificate(directory: string, identity: StoredIdentity): Promise<StoredIdentity> {
  const request = await createCertificateRequest(identity.privateKey, publicKeyOf(identity.privateKey), 'portal-node');
  const answer = await callController(identity.record, 'renew', { request }, { key: identity.privateKey, certificate: identity.certificate });
  const certificate = String(answer.certificate);
  await saveCertificate(directory, certificate);
  return { ...identity, certificate };
}
