/**
 * Following the controller replicas: they tell every member where the running replicas are (every
 * address they were given) when it connects and when that changes, and the node keeps the list in its
 * identity record, so that a replica added later is found, and one taken away is no longer tried,
 * without a new ticket.
 */
import { parseHostPort } from '../shared/address.ts';
import type { ControllerOperations } from '../wire/protocol.ts';
import { saveRecord, type IdentityRecord, type StoredIdentity } from './identity-store.ts';
import type { Logger } from './logger.ts';
import type { StandingChannel } from './standing-channel.ts';

export interface ControllerAddressesOptions {
  readonly directory: string;
  readonly current: () => StoredIdentity;
  readonly update: (identity: StoredIdentity) => void;
  readonly control: StandingChannel<ControllerOperations>;
  readonly logger: Logger;
}

/**
 * What a member's record should name as its controller once told `addresses`: undefined when that is
 * what it names already, or when the list does not read as host:port addresses.
 */
export function controllersToKeep(
  record: Pick<IdentityRecord, 'controller'>,
  addresses: readonly string[],
): string | undefined {
  const joined = addresses.join(',');
  if (joined === record.controller || addresses.length === 0) return undefined;
  return addresses.every((address) => parseHostPort(address).ok) ? joined : undefined;
}

/** Keeps `addresses` as the controllers to dial from now on, unless that is what the node has. */
export async function followControllers(
  options: ControllerAddressesOptions,
  addresses: readonly string[],
): Promise<void> {
  const { record } = options.current();
  const joined = controllersToKeep(record, addresses);
  if (joined === undefined) {
    if (addresses.join(',') !== record.controller)
      options.logger.debug(`the controller named replicas at "${addresses.join(',')}": kept ${record.controller}`);
    return;
  }
  const updated = { ...record, controller: joined };
  await saveRecord(options.directory, updated);
  options.update({ ...options.current(), record: updated });
  options.control.retarget(joined);
  options.logger.info(`the controller replicas are at ${joined} now (they were at ${record.controller})`);
}
