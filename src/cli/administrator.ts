/**
 * Requests made as this machine's administrator. When the project lives on the embedded controller and
 * that is not running (after a reboot, say), it is started again on its old port first.
 */
import { InputError, PortalError } from '../shared/errors.ts';
import { loadIdentity, type StoredIdentity } from '../node/identity-store.ts';
import { callController, type Answer } from '../wire/control-channel.ts';
import { readEmbeddedController, startEmbeddedController } from './embedded-controller.ts';
import { adminDirectory, embeddedControllerDirectory } from './home.ts';
import { existsSync } from 'node:fs';

export async function loadAdministrator(home: string): Promise<StoredIdentity> {
  const identity = await loadIdentity(adminDirectory(home));
  if (!identity) {
    throw new InputError('NOT_ENROLLED', `this machine is not the administrator of a project (nothing in ${adminDirectory(home)})`, {
      hint: 'run portal enroll first, or set PORTAL_HOME to where you did',
    });
  }
  return identity;
}

export async function adminRequest(home: string, op: string, body: Record<string, unknown> = {}): Promise<Answer> {
  const admin = await loadAdministrator(home);
  const credentials = { key: admin.privateKey, certificate: admin.certificate };
  try {
    return await callController(admin.record, op, body, credentials);
  } catch (error) {
    const embedded = existsSync(embeddedControllerDirectory(home));
    if (!(error instanceof PortalError) || error.code !== 'CONTROLLER_UNREACHABLE' || !embedded || (await readEmbeddedController(home))) throw error;
    const port = Number(admin.record.controller.split(':').at(-1));
    await startEmbeddedController(home, port);
    return callController(admin.record, op, body, credentials);
  }
}
