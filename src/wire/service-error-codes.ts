/**
 * The codes of failing to reach, trust or keep a Portal service, one per service: a user who sees
 * CONTROLLER_UNREACHABLE or RELAY_UNREACHABLE knows at once which one to check.
 */
import type { ErrorCode } from '../shared/error-codes.ts';
import type { ServiceName } from './protocol.ts';

export type ServiceFailure = 'address' | 'unreachable' | 'mismatch' | 'timeout' | 'lost';

export const serviceErrorCodes = {
  control: {
    address: 'CONTROLLER_ADDRESS',
    unreachable: 'CONTROLLER_UNREACHABLE',
    mismatch: 'CONTROLLER_MISMATCH',
    timeout: 'CONTROLLER_TIMEOUT',
    lost: 'CONTROLLER_LOST',
  },
  relay: {
    address: 'RELAY_ADDRESS',
    unreachable: 'RELAY_UNREACHABLE',
    mismatch: 'RELAY_MISMATCH',
    timeout: 'RELAY_TIMEOUT',
    lost: 'RELAY_LOST',
  },
} as const satisfies Record<ServiceName, Record<ServiceFailure, ErrorCode>>;
