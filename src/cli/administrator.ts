/**
 * Requests made as this machine's administrator. When the project lives on the embedded controller and
 * that is not running (after a reboot, say), it is started again first, listening where it did and
 * with the same public address; never once its store moved to controller replicas.
 */
import { X509Certificate } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readMovedMarker } from '../controller/store/moved-marker.ts';
import { InputError, PortalError, RuntimeFailure } from '../shared/errors.ts';
import { controllersToKeep } from '../node/controller-addresses.ts';
import { dueForRefresh, refreshCertificate } from '../node/enrollment.ts';
import { loadIdentity, saveRecord, type StoredIdentity } from '../node/identity-store.ts';
import { openControlChannel, type ControlChannel } from '../wire/control-channel.ts';
import type { AnswerOf, ControllerEvent, ControllerOperations, RequestOf } from '../wire/protocol.ts';
import {
  readEmbeddedController,
  readEmbeddedControllerSettings,
  startEmbeddedController,
} from './embedded-controller.ts';
import { adminDirectory, embeddedControllerDirectory, embeddedControllerStore } from './home.ts';

export async function loadAdministrator(home: string): Promise<StoredIdentity> {
  const identity = await loadIdentity(adminDirectory(home));
  if (!identity) {
    throw new InputError(
      'NOT_ENROLLED',
      `this machine is not the administrator of a project (nothing in ${adminDirectory(home)})`,
      {
        hint: 'run portal enroll first, or set PORTAL_HOME to where you did',
      },
    );
  }
  return identity;
}

/**
 * One request as the administrator. The administrator's certificate is short-lived like a node's:
 * past half of its life it is renewed first, and once expired it is re-issued on proof of the enrolled
 * key; either way the new one is stored, so the next command starts from it.
 */
export function adminRequest<K extends keyof ControllerOperations>(
  home: string,
  op: K,
  body: RequestOf<ControllerOperations, K>,
): Promise<AnswerOf<ControllerOperations, K>> {
  return withController(home, async () => {
    const admin = await freshAdministrator(home, await loadAdministrator(home));
    const channel = await openControlChannel(admin.record, { key: admin.privateKey, certificate: admin.certificate });
    const keep = followReplicas(channel, home, admin);
    try {
      return await channel.request(op, body);
    } finally {
      channel.close();
      await keep();
    }
  });
}

/**
 * Controller replicas tell a member where they all are when it connects: the administrator keeps the
 * list in its record, as a node does, so that its next command finds a replica added since.
 */
function followReplicas(channel: ControlChannel, home: string, admin: StoredIdentity): () => Promise<void> {
  let told: readonly string[] = [];
  channel.on('event', (event: ControllerEvent) => {
    if (event.event === 'controllers') told = event.addresses;
  });
  return async () => {
    const joined = controllersToKeep(admin.record, told);
    if (joined !== undefined) await saveRecord(adminDirectory(home), { ...admin.record, controller: joined });
  };
}

/**
 * A connection to the controller as the administrator, for a command that asks many things (a long
 * listing asks page after page on it, rather than a TLS handshake a page). The caller closes it.
 */
export function openAdminChannel(home: string): Promise<ControlChannel> {
  return withController(home, async () => {
    const admin = await freshAdministrator(home, await loadAdministrator(home));
    const channel = await openControlChannel(admin.record, { key: admin.privateKey, certificate: admin.certificate });
    const keep = followReplicas(channel, home, admin);
    channel.once('close', () => void keep().catch(() => undefined));
    return channel;
  });
}

/**
 * Runs `attempt`; when the embedded controller is not running, starts it again first and runs it once
 * more, unless its store moved to PostgreSQL (then the replicas are the ones to start).
 */
async function withController<T>(home: string, attempt: () => Promise<T>): Promise<T> {
  try {
    return await attempt();
  } catch (error) {
    const embedded = existsSync(embeddedControllerDirectory(home));
    if (
      !(error instanceof PortalError) ||
      error.code !== 'CONTROLLER_UNREACHABLE' ||
      !embedded ||
      (await readEmbeddedController(home))
    )
      throw error;
    // Its store moved to PostgreSQL: the replicas serve the project, and an old copy must not come back.
    const moved = await readMovedMarker(embeddedControllerStore(home));
    if (moved)
      throw new RuntimeFailure(error.code, error.message, {
        hint:
          `the project moved from the embedded controller to controller replicas on ${moved.to} ` +
          `(portal controller migrate-store, ${moved.movedAt}), so it is not started again; start a replica on ` +
          `--store ${moved.to} with its password file, the sealing key and every replica's --public-address, ` +
          'as docs/replicas.md ("Start the replicas") shows',
        cause: error,
      });
    // Its settings as it last started; a home from before they were kept: loopback, on its old port.
    const kept = await readEmbeddedControllerSettings(home);
    const port = Number((await loadAdministrator(home)).record.controller.split(':').at(-1));
    await startEmbeddedController(home, kept ?? { listen: `127.0.0.1:${port}` });
    return attempt();
  }
}

async function freshAdministrator(home: string, admin: StoredIdentity): Promise<StoredIdentity> {
  if (!dueForRefresh(admin.certificate)) return admin;
  const expired = Date.now() >= Date.parse(new X509Certificate(admin.certificate).validTo);
  try {
    return (await refreshCertificate(adminDirectory(home), admin)).identity;
  } catch (error) {
    // A certificate that is still valid serves this command; the next one tries again.
    if (!expired && !(error instanceof PortalError && error.code === 'CONTROLLER_UNREACHABLE')) return admin;
    throw error;
  }
}
