/** What a relay answers a registration or a pairing it refuses, each with the command that fixes it. */
import { InputError } from '../shared/errors.ts';
import type { PeerIdentity } from '../pki/identity.ts';

export const noOutletMessage = (relay: string) => `no outlet is registered for the relay "${relay}" right now`;

export function relayNotGranted(peer: PeerIdentity, relay: string): InputError {
  return new InputError(
    'RELAY_NOT_GRANTED',
    `the certificate of node ${peer.nodeId} does not grant the relay "${relay}"`,
    {
      hint:
        `an administrator of the project runs portal project grant ${peer.nodeId} --relay ${relay}, ` +
        'then the node is reloaded or started again (it fetches the grant from the controller); ' +
        `or set the outlet's relay to one the node holds (${peer.relays.join(', ') || 'none'})`,
    },
  );
}

export function allowMissing(): InputError {
  return new InputError('ALLOW_MISSING', 'the registration does not say which attribute the outlet allows', {
    hint: 'upgrade the outlet node to this controller version',
  });
}
